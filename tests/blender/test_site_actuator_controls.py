"""Must show, through the operators: a control keyed on the timeline drives the simulation whatever the
actuator's transmission. MuJoCo Warp's ``actuation/site.xml`` (motors on sites, with and without a
reference site, 6-vector gears) and a pendulum on a ball joint beside a slider pulled by a spatial
tendon are imported, two actuators' controls are keyed on the scene, and the bake on MuJoCo moves the
robot as MuJoCo itself stepping the original file with the same controls (within 1 mm). Newton's
solvers have no site, ball joint or spatial tendon transmission: the keyed controls are named as left
out.
"""

import importlib.util
from pathlib import Path

import bpy
import numpy as np
import pytest

from articula.addon.adapters import simulation_to_keyframes as bake_module

mujoco = pytest.importorskip("mujoco")

TEST_DATA = Path(importlib.util.find_spec("mujoco_warp").origin).parent / "test_data"
FPS, SUBSTEPS, LAST = 25, 20, 26  # 1 s in the file's own 2 ms steps
BALL_AND_ROPE = """<mujoco>
  <worldbody>
    <site name="anchor" pos="0.3 0 0.5"/>
    <body name="arm" pos="0 0 0.5">
      <joint name="shoulder" type="ball" damping="0.05"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03"/>
    </body>
    <body name="slider" pos="1 0 0.5">
      <joint name="slide" type="slide" axis="1 0 0" damping="1"/>
      <geom type="box" size="0.05 0.05 0.05"/>
      <site name="hook"/>
    </body>
  </worldbody>
  <tendon><spatial name="rope"><site site="anchor"/><site site="hook"/></spatial></tendon>
  <actuator>
    <motor name="twist" joint="shoulder" gear="0 1 0"/>
    <motor name="pull" tendon="rope"/>
  </actuator>
</mujoco>"""
#: robot -> (transmissions, (actuator, control at frame 1, at the last frame) keyed). site.xml's actuators
#: and bodies are unnamed: Articula numbers them. On sites: a site motor, and one measured from a world site.
ROBOTS = {
    "site": ({"site"}, (("actuator_0", 0.0, 0.4), ("actuator_5", 0.0, -0.3))),
    "ball_and_rope": ({"joint", "tendon"}, (("twist", 0.0, 0.5), ("pull", 0.0, -3.0))),
}


def robot_file(robot: str, folder: Path) -> Path:
    if robot == "site":
        return TEST_DATA / "actuation" / "site.xml"
    path = folder / f"{robot}.xml"
    path.write_text(BALL_AND_ROPE)
    return path


def keyed_robot(scene, file: Path, robot: str) -> dict:
    """The file imported, two actuators keyed on the scene: {frame: {actuator: control}}."""
    transmissions, keys = ROBOTS[robot]
    assert bpy.ops.articula.import_mjcf(filepath=str(file)) == {"FINISHED"}
    scene.render.fps, scene.render.fps_base = FPS, 1.0
    scene.frame_start, scene.frame_end = 1, LAST
    props = scene.articula
    actuators = {a.name: a for a in props.frame_actuators}
    actuators.update((a.name, a) for t in props.spatial_tendons for a in t.actuators)
    assert {actuators[name].target_kind for name, *_ in keys} == transmissions
    for name, first, last in keys:
        actuator = actuators[name]
        for frame, value in ((1, first), (LAST, last)):
            actuator.control = value
            scene.keyframe_insert(actuator.path_from_id("control"), frame=frame)
    controls = {}
    for frame in range(1, LAST + 1):
        scene.frame_set(frame)
        controls[frame] = {name: actuators[name].control for name, *_ in keys}
    scene.frame_set(1)
    return controls


def mujocos_own_run(file: Path, controls: dict) -> tuple:
    """MuJoCo stepping the original file, each frame's controls set before stepping to it (as the
    bake feeds them): (model, data) at the last frame."""
    m = mujoco.MjModel.from_xml_path(str(file))
    d = mujoco.MjData(m)
    rows = {m.actuator(i).name or f"actuator_{i}": i for i in range(m.nu)}
    for frame in range(2, LAST + 1):
        for name, value in controls[frame].items():
            d.ctrl[rows[name]] = value
        for _ in range(SUBSTEPS):
            mujoco.mj_step(m, d)
    mujoco.mj_kinematics(m, d)  # mj_step leaves the poses of the state before its last step
    return m, d


def body_object(scene, m, body: int):
    return scene.objects[m.body(body).name or f"body_{body - 1}"]


@pytest.mark.parametrize("robot", list(ROBOTS))
def test_keyed_controls_drive_the_mujoco_bake_as_mujoco_runs_the_file(clean_scene, tmp_path, robot):
    file = robot_file(robot, tmp_path)
    controls = keyed_robot(clean_scene, file, robot)
    baked = bpy.ops.articula.bake(frame_start=1, frame_end=LAST, solver="MUJOCO", substeps=SUBSTEPS)
    assert baked == {"FINISHED"}
    m, d = mujocos_own_run(file, controls)
    clean_scene.frame_set(LAST)
    bpy.context.view_layer.update()
    unkeyed = mujocos_own_run(file, {f: {name: 0.0 for name in c} for f, c in controls.items()})[1]
    moved = 0.0
    for geom in range(m.ngeom):  # each geom's centre: the bodies' frames sit on their hinges
        body = int(m.geom_bodyid[geom])
        obj = body_object(clean_scene, m, body)
        local = np.append(m.geom_pos[geom], 1.0)
        baked = (np.array(obj.matrix_world) @ local)[:3]
        assert np.linalg.norm(baked - d.geom_xpos[geom]) < 1e-3, obj.name
        moved = max(moved, float(np.linalg.norm(d.geom_xpos[geom] - unkeyed.geom_xpos[geom])))
    assert moved > 0.05  # the keyed controls moved the robot: not the same motion as ctrl = 0


@pytest.mark.parametrize("robot", list(ROBOTS))
def test_keyed_controls_featherstone_cannot_simulate_are_named_as_left_out(clean_scene, tmp_path, robot):
    keyed_robot(clean_scene, robot_file(robot, tmp_path), robot)
    job = bake_module.BakeJob(bpy.context, 1, 3, "FEATHERSTONE", 1)
    keyed = sorted(name for name, *_ in ROBOTS[robot][1])
    try:
        assert sorted(job.session.animation.not_simulated(job.session.sim)) == keyed  # before the first frame
        assert job.run()
        assert sorted(job.session.animation.left_out) == keyed
    finally:
        job.cancel()
