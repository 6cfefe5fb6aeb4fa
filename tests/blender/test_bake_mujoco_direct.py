"""Must show, in Blender: a bake on MuJoCo (CPU, one world) steps MuJoCo's C library on the robot's MJCF
export, and what it bakes is the motion of Newton's own MuJoCo path fed the same keyed controls (1 mm)."""

import os
from pathlib import Path

import bpy
import numpy as np
import pytest

from articula.addon.adapters.blender_to_description import capture_rest, scene_from_blender
from articula.addon.adapters.simulation_to_keyframes import BakeJob
from articula.sim.mujoco_spec import MuJoCoSimulation
from articula.sim.simulation import Simulation

ARM_GRIPPER_MJCF = Path(__file__).resolve().parents[1] / "data" / "arm_gripper.xml"
FPS, SUBSTEPS, LAST = 25, 20, 26  # 1 s in the MJCF's own 2 ms steps
SERVO = "articula.joint.dofs[0].actuators[0].control"


def keyed_arm(scene) -> tuple[str, dict]:
    """The arm imported from MJCF, its elbow servo keyed from 0 to -0.6 rad: (actuator, control by frame)."""
    assert bpy.ops.articula.import_mjcf(filepath=str(ARM_GRIPPER_MJCF)) == {"FINISHED"}
    scene.render.fps, scene.render.fps_base = FPS, 1.0
    scene.frame_start, scene.frame_end = 1, LAST
    elbow = scene.objects["elbow"]
    servo = elbow.articula.joint.dofs[0].actuators[0]
    for frame, value in ((1, 0.0), (LAST, -0.6)):
        servo.control = value
        elbow.keyframe_insert(SERVO, frame=frame)
    controls = {}
    for frame in range(1, LAST + 1):
        scene.frame_set(frame)
        controls[frame] = servo.control
    scene.frame_set(1)
    return servo.name, controls


def test_a_mujoco_bake_steps_mujoco_directly(clean_scene):
    keyed_arm(clean_scene)
    job = BakeJob(bpy.context, 1, LAST, "MUJOCO", SUBSTEPS)
    try:
        sim = job.session.sim
        assert isinstance(sim, MuJoCoSimulation)
        assert job.run()
        assert sim.steps == (LAST - 1) * SUBSTEPS
    finally:
        job.cancel()


def test_mujoco_bake_through_the_operator_matches_newtons_path(clean_scene):
    actuator, controls = keyed_arm(clean_scene)
    capture_rest(clean_scene.objects)
    reference = Simulation(scene_from_blender(clean_scene), device="cpu", solver="MUJOCO",
                           dt=1.0 / (FPS * SUBSTEPS), mujoco_direct=False)
    for frame in range(2, LAST + 1):  # the bake feeds each frame's control before stepping to it
        reference.set_controls({actuator: controls[frame]})
        reference.advance(1.0 / FPS)
    expected = dict(zip((name for name, _ in reference.body_keys), reference.body_poses()))

    assert bpy.ops.articula.bake(frame_start=1, frame_end=LAST, solver="MUJOCO", substeps=SUBSTEPS) == {"FINISHED"}
    clean_scene.frame_set(LAST)
    bpy.context.view_layer.update()
    elbow = [angle for (joint, _), angle in reference.joint_positions().items() if joint == "elbow"]
    assert elbow[0] < -0.3  # the keyed servo turned the elbow: the poses compared moved
    for name, pose in expected.items():
        obj = clean_scene.objects[name]
        location, rotation, _ = obj.matrix_world.decompose()
        assert np.linalg.norm(np.array(location) - pose[:3]) < 1e-3, name
        assert abs(np.dot(np.array(rotation), pose[3:])) == pytest.approx(1.0, abs=1e-5), name


XARM6 = Path(os.environ.get("ARTICULA_PYBULLET_DATA", os.path.expanduser("~/.cache/articula/pybullet_data"))) \
    / "xarm" / "xarm6_robot.urdf"


def test_pybullet_arm_with_velocity_limits_bakes_the_simulation_of_its_description(clean_scene):
    """A robot another tool wrote (pybullet's xArm6: velocity limits on its joints), imported and baked
    through the operators: MuJoCo steps the export, with the limits applied between steps, and the
    keys are the motion of the bpy-free simulation of the robot Blender holds (within float32 keys)."""
    if not XARM6.is_file():
        pytest.skip("pybullet's files come with `make urdf-corpus`")
    assert bpy.ops.articula.import_urdf(filepath=str(XARM6)) == {"FINISHED"}
    clean_scene.render.fps, clean_scene.render.fps_base = FPS, 1.0
    capture_rest(clean_scene.objects)
    start = {obj.name: np.array(obj.matrix_world.translation) for obj in clean_scene.objects}
    reference = Simulation(scene_from_blender(clean_scene), device="cpu", solver="MUJOCO",
                           dt=1.0 / (FPS * SUBSTEPS))
    assert len(reference.layout.limit)
    for _ in range(2, LAST + 1):
        reference.advance(1.0 / FPS)
    expected = dict(zip((name for name, _ in reference.body_keys), reference.body_poses()))

    job = BakeJob(bpy.context, 1, LAST, "MUJOCO", SUBSTEPS)
    try:
        assert isinstance(job.session.sim, MuJoCoSimulation)
    finally:
        job.cancel()
    assert bpy.ops.articula.bake(frame_start=1, frame_end=LAST, solver="MUJOCO", substeps=SUBSTEPS) == {"FINISHED"}
    clean_scene.frame_set(LAST)
    bpy.context.view_layer.update()
    moved = max(np.linalg.norm(np.array(clean_scene.objects[name].matrix_world.translation) - start[name])
                for name in expected)
    assert moved > 0.05  # the arm fell under gravity: the poses compared moved
    for name, pose in expected.items():
        location, rotation, _ = clean_scene.objects[name].matrix_world.decompose()
        assert np.linalg.norm(np.array(location) - pose[:3]) < 1e-5, name
        assert abs(np.dot(np.array(rotation), pose[3:])) == pytest.approx(1.0, abs=1e-5), name
