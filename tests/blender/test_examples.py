"""The example robots of ``examples/`` build in Blender, hold what they promise and validate cleanly;
the demo's real robot (pybullet's Franka Panda) imports, takes its drives and is grabbed.

Fast: no export or rendering (``make demo`` does those); the Panda's grab runs a few frames.
"""

import sys
from pathlib import Path

import bpy
import numpy as np
import pytest

from articula.addon.adapters.blender_to_description import scene_from_blender
from articula.core import samples
from articula.core.model import ShapeKind
from articula.core.transforms import poses_close

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "examples"
sys.path.insert(0, str(EXAMPLES_DIR))
import _support  # noqa: E402
import collision_showcase  # noqa: E402
import franka_panda  # noqa: E402
import quadruped  # noqa: E402
import robotic_finger  # noqa: E402
import six_dof_arm  # noqa: E402

EXAMPLES = {e.NAME: e for e in (robotic_finger, six_dof_arm, quadruped, collision_showcase)}
POSE_TOL = 1e-6


def build(example):
    bpy.context.scene.articula.materials.clear()  # clean_scene keeps the scene's own settings
    objects = example.build(bpy.context)
    example.animate(objects)
    return objects


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_has_the_sample_robots_bodies_and_joints_and_validates(clean_scene, name):
    build(EXAMPLES[name])
    desc = scene_from_blender(clean_scene)
    sample = samples.SAMPLES[name]()
    assert {b.name: b.parent for b in desc.bodies} == {b.name: b.parent for b in sample.bodies}
    assert {j.name: (j.type, j.body0, j.body1) for j in desc.joints} == \
        {j.name: (j.type, j.body0, j.body1) for j in sample.joints}
    assert len(desc.shapes) == len(sample.shapes)
    assert _support.scene_problems(clean_scene) == []


def test_finger_built_with_operators_matches_the_seed_finger(clean_scene):
    objects = build(robotic_finger)
    assert all(objects[name].type == "MESH" for name, *_ in robotic_finger.CHAIN)  # meshes, not Empties
    desc = scene_from_blender(clean_scene)
    sample = samples.robotic_finger()
    for body in sample.bodies:
        assert poses_close(desc.body(body.name).pose, body.pose, POSE_TOL, POSE_TOL), body.name
    for joint in sample.joints:
        built = desc.joint(joint.name)
        assert poses_close(built.local_pose0, joint.local_pose0, POSE_TOL, POSE_TOL), joint.name
        assert poses_close(built.local_pose1, joint.local_pose1, POSE_TOL, POSE_TOL), joint.name
        for ours, theirs in zip(built.dofs, joint.dofs, strict=True):
            assert (ours.axis, ours.motion) == (theirs.axis, theirs.motion)
            assert (ours.lower, ours.upper) == pytest.approx((theirs.lower, theirs.upper))
            assert (ours.drive_stiffness, ours.drive_damping, ours.max_effort, ours.armature) == \
                pytest.approx((theirs.drive_stiffness, theirs.drive_damping, theirs.max_effort, theirs.armature))
            assert ours.target_position == pytest.approx(robotic_finger.CURLED[joint.name])
    for shape in sample.shapes:
        (built,) = desc.shapes_of(shape.body)  # one collider per body, fitted by set_collider
        assert built.kind == shape.kind
        if shape.kind == ShapeKind.CAPSULE:
            assert built.axis == shape.axis
            assert (built.radius, built.half_height) == pytest.approx((shape.radius, shape.half_height), abs=1e-7)
        else:
            assert built.half_extents == pytest.approx(shape.half_extents, abs=1e-7)
        assert poses_close(built.pose, shape.pose, POSE_TOL, POSE_TOL), shape.name
        assert built.material == "finger_skin"
    assert [m.name for m in desc.materials] == ["finger_skin"]


def test_arm_drive_targets_follow_their_keyframes(clean_scene):
    objects = build(six_dof_arm)
    for frame, targets in six_dof_arm.POSES.items():
        clean_scene.frame_set(frame)
        read = [objects[j].articula.joint.dofs[0].target_position for j in six_dof_arm.JOINTS]
        assert read == pytest.approx(targets, abs=1e-6), frame
    clean_scene.frame_set(12)  # between keys: interpolated, strictly between the two poses
    first = objects["joint_1"].articula.joint.dofs[0].target_position
    assert 0.0 < first < six_dof_arm.POSES[24][0]
    curves = six_dof_arm.target_curves(objects)
    assert len(curves["joint_3"]) == six_dof_arm.FRAME_END
    assert curves["joint_3"][47] == pytest.approx(six_dof_arm.POSES[48][2], abs=1e-6)


def test_quadruped_crouches_on_a_ground_plane(clean_scene):
    objects = build(quadruped)
    assert clean_scene.articula.ground_plane
    desc = scene_from_blender(clean_scene)
    (root,) = [b for b in desc.bodies if b.parent is None]
    assert root.name == "torso" and not any(j.body1 == "torso" for j in desc.joints)  # free-floating
    for leg in quadruped.LEGS:
        for part, target in quadruped.CROUCH.items():
            dof = desc.joint(f"{leg}_{part}").dofs[0]
            assert dof.target_position == pytest.approx(target)
            assert dof.lower <= target <= dof.upper
    assert objects["torso"].matrix_world.translation.z > 0.5  # starts in the air


def test_collision_showcase_keeps_every_group_and_world(clean_scene):
    build(collision_showcase)
    desc = scene_from_blender(clean_scene)
    sample = samples.collision_showcase()
    assert {s.name: (s.collision_group, s.world) for s in desc.shapes} == \
        {s.name: (s.collision_group, s.world) for s in sample.shapes}
    assert {b.world for b in desc.bodies} == {0, 1}
    assert clean_scene.articula.solver == "XPBD"  # MuJoCo wants worlds of equal contents
    assert {s.collision_group for s in desc.shapes} >= {-2, -1, 0, 1, 2}



@pytest.fixture
def panda(clean_scene):
    if franka_panda.missing():
        pytest.skip(franka_panda.missing())
    objects = franka_panda.import_robot(bpy.context)
    franka_panda.add_drives(objects)
    franka_panda.animate(objects)
    return objects


def test_panda_imports_with_keyed_drives_and_validates(clean_scene, panda):
    desc = scene_from_blender(clean_scene)
    assert len(desc.bodies) == 13 and len(desc.visuals) == 11  # links and their OBJ meshes
    clean_scene.frame_set(franka_panda.READY_FRAME)
    for name, target in zip(franka_panda.ARM, franka_panda.POSES[franka_panda.READY_FRAME]):
        dof = desc.joint(name).dofs[0]
        assert dof.drive_stiffness == franka_panda.STIFFNESS and dof.lower <= target <= dof.upper
        assert panda[name].articula.joint.dofs[0].target_position == pytest.approx(target)
    assert not [p for p in _support.scene_problems(clean_scene) if p.severity == "ERROR"]


def test_panda_grabbed_by_the_wrist_follows_the_pull_and_the_recording_is_kept(clean_scene, panda):
    pull = np.array(franka_panda.PULL)
    played = franka_panda.grab_and_record(bpy.context, settle=2, pull=pull, pull_frames=6, after=2)
    assert played["body"] == franka_panda.WRIST
    moved = played["pulled"] - played["start"]
    assert np.dot(moved, pull) / np.linalg.norm(pull) > 0.02  # metres toward the pull
    assert 0.0 < played["largest"] <= played["cap"] + 1e-6
    assert sorted(played["held"]) == list(range(4, 10))  # frames 4-9 held (recording starts at 1)
    wrist = panda[franka_panda.WRIST]
    assert wrist.animation_data.action is not None  # kept as the scene's bake
    clean_scene.frame_set(max(played["held"]))
    assert wrist.matrix_world.translation[:] == pytest.approx(played["pulled"], abs=1e-4)
