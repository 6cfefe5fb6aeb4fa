"""The rest pose belongs to the robot: Simulate & Keep and baked frames are states, and export,
validation and the simulation's joint zeros use the rest, whatever frame or state is shown."""

import math
import sys
from pathlib import Path

import bpy
import numpy as np
import pytest

from articula.addon.adapters.blender_to_description import WorldFrames, scene_from_blender
from articula.addon.adapters.description_to_blender import build_scene
from articula.addon.simulation_session import BlenderSimulation
from articula.core import samples

sys.path.insert(0, str(Path(__file__).parent))
from authoring_helpers import reset_scene_settings  # noqa: E402

POS_TOL, ROT_TOL = 1e-5, 1e-4


@pytest.fixture(autouse=True)
def fresh_scene_settings(clean_scene):
    reset_scene_settings(clean_scene)
    clean_scene.render.fps, clean_scene.render.fps_base = 24, 1.0
    yield


def load(sample="six_dof_arm"):
    objects = build_scene(bpy.context, samples.SAMPLES[sample]())
    bpy.context.scene.articula.solver = "FEATHERSTONE"
    return objects


def angle(q0, q1) -> float:
    return 2.0 * math.acos(min(1.0, abs(float(np.dot(q0, q1)))))


def assert_same_robot(desc, reference):
    for joint in reference.joints:
        got = desc.joint(joint.name)
        for side in ("local_pose0", "local_pose1"):
            a, b = getattr(got, side), getattr(joint, side)
            assert np.allclose(a.pos, b.pos, atol=POS_TOL), (joint.name, side, a.pos, b.pos)
            assert angle(a.rot, b.rot) < ROT_TOL, (joint.name, side, angle(a.rot, b.rot))
    for body in reference.bodies:
        got = desc.body(body.name).pose
        assert np.allclose(got.pos, body.pose.pos, atol=POS_TOL), body.name
        assert angle(got.rot, body.pose.rot) < ROT_TOL, body.name


def moved(objects, reference) -> float:
    """The largest distance of a body from its rest position."""
    return max(np.linalg.norm(np.array(objects[b.name].matrix_world.translation) - b.pose.pos)
               for b in reference.bodies)


def test_simulate_and_keep_is_a_state_the_robot_keeps_its_rest():
    scene = bpy.context.scene
    objects = load()
    rest = scene_from_blender(scene)
    for run in range(2):
        assert bpy.ops.articula.simulate(frames=8) == {"FINISHED"}
        bpy.context.view_layer.update()
        assert moved(objects, rest) > 1e-3, "the arm did not move"
        assert all(objects[b.name].articula.body.posed for b in rest.bodies if not b.kinematic
                   and objects[b.name].articula.body.posed is not None)
        assert_same_robot(scene_from_blender(scene), rest)
        # The state is what the objects show (rest=False), not the rest.
        state = scene_from_blender(scene, frames=WorldFrames(rest=False))
        assert any(angle(state.joint(j.name).local_pose0.rot, j.local_pose0.rot) > 1e-3 for j in rest.joints)


@pytest.mark.parametrize("solver", ["FEATHERSTONE", "MUJOCO", "XPBD"])
def test_the_next_simulation_starts_from_the_kept_state_with_the_rest_as_joint_zeros(solver):
    scene = bpy.context.scene
    objects = load()
    rest = scene_from_blender(scene)
    assert bpy.ops.articula.simulate(frames=8, solver="FEATHERSTONE") == {"FINISHED"}
    bpy.context.view_layer.update()
    kept = {n: np.array(o.matrix_world.translation) for n, o in objects.items()}
    session = BlenderSimulation(bpy.context, solver)
    assert_same_robot(session.description, rest)
    poses = dict(zip(session.sim.body_names, session.sim.body_poses()))
    for name, pose in poses.items():  # the start is the kept state, not the rest
        assert np.allclose(pose[:3], kept[name], atol=1e-4), name
    joint_q = session.sim.joint_positions()
    assert max(abs(v) for v in joint_q.values()) > 1e-3  # away from the zeros (the rest)
    session.advance_frame()  # one frame later the arm is still near the kept state
    poses = dict(zip(session.sim.body_names, session.sim.body_poses()))
    for name, pose in poses.items():
        assert np.linalg.norm(pose[:3] - kept[name]) < 0.05, (solver, name, pose[:3], kept[name])
    session.restore()


def test_every_baked_frame_reads_as_the_rest_and_clear_bake_gives_the_state_back():
    scene = bpy.context.scene
    objects = load()
    rest = scene_from_blender(scene)
    assert bpy.ops.articula.bake(frame_start=1, frame_end=16) == {"FINISHED"}
    for frame in (1, 9, 16):
        scene.frame_set(frame)
        assert_same_robot(scene_from_blender(scene), rest)
    assert moved(objects, rest) > 1e-3
    assert bpy.ops.articula.clear_bake() == {"FINISHED"}
    assert_same_robot(scene_from_blender(scene), rest)


def test_export_on_a_baked_frame_and_after_keep_writes_the_authored_joint_frames(tmp_path):
    from pxr import Usd, UsdPhysics

    scene = bpy.context.scene
    load()

    def joint_frames(path):
        stage = Usd.Stage.Open(str(path))
        frames = {}
        for prim in stage.Traverse():
            if prim.IsA(UsdPhysics.Joint):
                j = UsdPhysics.Joint(prim)
                frames[prim.GetName()] = [np.array(list(a.Get()) if "Pos" in a.GetName() else
                                                   [a.Get().GetReal(), *a.Get().GetImaginary()])
                                          for a in (j.GetLocalPos0Attr(), j.GetLocalRot0Attr(),
                                                    j.GetLocalPos1Attr(), j.GetLocalRot1Attr())]
        return frames

    def export(name):
        path = tmp_path / name
        assert bpy.ops.articula.export_usd(filepath=str(path), allow_warnings=True) == {"FINISHED"}
        return joint_frames(path)

    authored = export("authored.usda")
    assert authored
    assert bpy.ops.articula.simulate(frames=6) == {"FINISHED"}
    assert bpy.ops.articula.simulate(frames=6) == {"FINISHED"}
    kept = export("kept.usda")
    assert bpy.ops.articula.bake(frame_start=1, frame_end=12) == {"FINISHED"}
    scene.frame_set(10)
    baked = export("baked.usda")
    for frames in (kept, baked):
        for name, (p0, r0, p1, r1) in authored.items():
            q0, s0, q1, s1 = frames[name]
            assert np.allclose(p0, q0, atol=POS_TOL) and np.allclose(p1, q1, atol=POS_TOL), name
            # USD stores float quaternions, in degrees of freedom of sign
            assert angle(r0, s0) < ROT_TOL and angle(r1, s1) < ROT_TOL, name


def test_apply_pose_as_rest_and_reset_to_rest():
    scene = bpy.context.scene
    objects = load()
    rest = scene_from_blender(scene)
    assert bpy.ops.articula.simulate(frames=8) == {"FINISHED"}
    bpy.context.view_layer.update()
    state = scene_from_blender(scene, frames=WorldFrames(rest=False))
    # Reset to Rest: the bodies go back; nothing is posed any more.
    assert bpy.ops.articula.reset_to_rest() == {"FINISHED"}
    bpy.context.view_layer.update()
    assert moved(objects, rest) < 1e-5
    assert not any(o.articula.body.posed for o in objects.values())
    assert_same_robot(scene_from_blender(scene, frames=WorldFrames(rest=False)), rest)
    # Apply Pose as Rest: the kept state becomes the robot.
    assert bpy.ops.articula.simulate(frames=8) == {"FINISHED"}
    bpy.context.view_layer.update()
    assert bpy.ops.articula.apply_pose_as_rest() == {"FINISHED"}
    assert not any(o.articula.body.posed for o in objects.values())
    assert_same_robot(scene_from_blender(scene), scene_from_blender(scene, frames=WorldFrames(rest=False)))
    # Refused while a bake animates the bodies; nothing changes.
    assert bpy.ops.articula.bake(frame_start=1, frame_end=4) == {"FINISHED"}
    with pytest.raises(RuntimeError, match="Clear Bake first"):
        bpy.ops.articula.apply_pose_as_rest()
    del state


def test_moving_a_body_at_rest_edits_the_rest():
    scene = bpy.context.scene
    objects = load("pendulum")
    link = objects["pendulum_link"]
    link.location.x += 0.25
    bpy.context.view_layer.update()
    assert scene_from_blender(scene).body("pendulum_link").pose.pos[0] == pytest.approx(0.25, abs=1e-6)


def test_the_simulation_panel_says_when_bodies_show_a_state(capfd):
    from test_panels_draw import SIMULATION_PANELS, assert_clean_output, draw_panel, drawn_operators

    objects = load("pendulum")
    link = objects["pendulum_link"]
    for panel_cls, area in SIMULATION_PANELS:
        _, log = draw_panel(panel_cls, link, area)
        assert "articula.reset_to_rest" not in {name for name, _ in drawn_operators(log)}
    assert bpy.ops.articula.simulate(frames=2) == {"FINISHED"}
    capfd.readouterr()
    for panel_cls, area in SIMULATION_PANELS:
        _, log = draw_panel(panel_cls, link, area)
        assert {"articula.reset_to_rest", "articula.apply_pose_as_rest"} <= {n for n, _ in drawn_operators(log)}
        assert any("simulated state" in entry[2] for entry in log if entry[0] == "label")
    assert_clean_output(capfd)


def test_compute_mass_says_it_switched_to_manual(capfd):
    objects = load("pendulum")
    link = objects["pendulum_link"]
    for obj in bpy.context.selected_objects:
        obj.select_set(False)
    link.select_set(True)
    bpy.context.view_layer.objects.active = link
    assert link.articula.body.mass_mode == "AUTO"
    capfd.readouterr()
    assert bpy.ops.articula.compute_mass() == {"FINISHED"}
    assert link.articula.body.mass_mode == "MANUAL"
    assert "switched pendulum_link from Auto to Manual" in capfd.readouterr().out
    assert bpy.ops.articula.compute_mass() == {"FINISHED"}  # already Manual: nothing to say
    assert "switched" not in capfd.readouterr().out


@pytest.mark.parametrize("layout", ["NESTED", "FLAT"])
def test_export_current_state_writes_initial_joint_positions_and_keeps_the_joint_frames(tmp_path, layout):
    from articula.addon.pxr_runtime import ensure_blender_pxr

    ensure_blender_pxr()
    from articula.core.usd.reader import read_usd

    scene = bpy.context.scene
    objects = load()
    rest = scene_from_blender(scene)
    assert bpy.ops.articula.bake(frame_start=1, frame_end=12) == {"FINISHED"}
    scene.frame_set(10)
    shown = {b.name: np.array(objects[b.name].matrix_world.translation) for b in rest.bodies}
    assert max(np.linalg.norm(shown[b.name] - b.pose.pos) for b in rest.bodies) > 1e-3

    at_rest, posed = tmp_path / "rest.usda", tmp_path / "posed.usda"
    assert bpy.ops.articula.export_usd(filepath=str(at_rest), layout=layout) == {"FINISHED"}
    assert bpy.ops.articula.export_usd(filepath=str(posed), layout=layout, state="CURRENT") == {"FINISHED"}
    assert "JointStateAPI" not in at_rest.read_text()
    read_rest, _ = read_usd(str(at_rest))
    read_posed, _ = read_usd(str(posed))
    assert_same_robot(read_rest, rest)
    for body in rest.bodies:  # the file starts where the bodies stand
        assert np.allclose(read_posed.body(body.name).pose.pos, shown[body.name], atol=1e-4), body.name
    positions = [d.initial_position for j in read_posed.joints for d in j.dofs]
    assert max(map(abs, positions)) > 1e-3
    for joint in rest.joints:  # ... and the robot is the same robot
        got = read_posed.joint(joint.name)
        for side in ("local_pose0", "local_pose1"):
            a, b = getattr(got, side), getattr(joint, side)
            assert np.allclose(a.pos, b.pos, atol=POS_TOL) and angle(a.rot, b.rot) < ROT_TOL, joint.name
    assert scene.frame_current == 10  # the export changes nothing it shows
    assert np.allclose(np.array(objects["elbow_link"].matrix_world.translation), shown["elbow_link"])
