"""The shared sample scenes: complete, consistent, and shaped as their docstrings say."""

import math

import pytest
from articula.core import samples
from articula.core.articulation import joint_world_frames
from articula.core.model import DofMotion, JointType, ShapeKind
from articula.core.transforms import poses_close

SAMPLE_NAMES = sorted(samples.SAMPLES)


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_joint_frames_agree_at_the_authored_pose(name):
    scene = samples.SAMPLES[name]()
    for joint in scene.joints:
        frame0, frame1 = joint_world_frames(scene, joint)
        assert poses_close(frame0, frame1, 1e-9, 1e-12), joint.name


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_every_reference_resolves(name):
    scene = samples.SAMPLES[name]()
    bodies = {b.name for b in scene.bodies}
    materials = {m.name for m in scene.materials}
    assert materials, "every sample has a material"
    for joint in scene.joints:
        assert joint.body1 in bodies and joint.body0 in bodies | {None}
    for shape in scene.shapes:
        assert shape.body in bodies | {None} and shape.material in materials
    for body in scene.bodies:
        assert body.parent in bodies | {None}
        assert scene.shapes_of(body.name), f"{body.name} has no collider"
        assert scene.visuals_of(body.name), f"{body.name} has no visual"
    for visual in scene.visuals:
        assert len(visual.mesh.vertices) == 8 and len(visual.mesh.triangles) == 12


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_samples_are_fresh_objects(name):
    first, second = samples.SAMPLES[name](), samples.SAMPLES[name]()
    first.bodies[0].pose.pos = (9.0, 9.0, 9.0)
    assert second.bodies[0].pose.pos != (9.0, 9.0, 9.0)


def test_finger_matches_the_proposal():
    scene = samples.robotic_finger()
    assert [b.name for b in scene.bodies] == ["palm", "index_finger_base", "proximal", "middle", "distal"]
    assert [b.parent for b in scene.bodies] == [None, "palm", "index_finger_base", "proximal", "middle"]
    revolute = [j for j in scene.joints if j.type == JointType.REVOLUTE]
    assert [j.name for j in revolute] == [
        "metacarpophalangeal", "rotational", "proximal_interphalangeal", "distal_interphalangeal"]
    palm = scene.body("palm").pose
    assert palm.pos == (0.0, 0.0, 0.1) and palm.rot == (0.0, 1.0, 0.0, 0.0)
    # index_finger_base = palm * (pos, quat): palm flips Y and Z of its child's offset.
    assert scene.body("index_finger_base").pose.pos == pytest.approx((-0.007, -0.023, 0.1187))
    base = [j for j in scene.joints if j.body0 is None]
    assert len(base) == 1 and base[0].type == JointType.FIXED and base[0].body1 == "palm"
    for joint in revolute:
        (dof,) = joint.dofs
        assert dof.motion == DofMotion.LIMITED and dof.lower < dof.upper
        assert dof.drive_enabled and dof.armature > 0


def test_arm_has_six_driven_revolute_joints():
    scene = samples.six_dof_arm()
    revolute = [j for j in scene.joints if j.type == JointType.REVOLUTE]
    assert len(revolute) == 6
    targets = [j.dofs[0].target_position for j in revolute]
    assert any(t != 0.0 for t in targets)
    for joint in revolute:
        dof = joint.dofs[0]
        assert dof.drive_enabled and dof.armature > 0 and 0 < dof.dynamic_friction <= dof.static_friction
        assert math.isfinite(dof.velocity_limit) and math.isfinite(dof.max_effort)


def test_quadruped_floats_above_the_ground():
    scene = samples.quadruped()
    assert scene.settings.ground_plane
    assert len([j for j in scene.joints if j.type == JointType.REVOLUTE]) == 8
    assert not any(j.body0 is None for j in scene.joints), "free-floating torso"
    for shape in scene.shapes:
        lowest = scene.body(shape.body).pose.pos[2] + shape.pose.pos[2]
        capsule = shape.kind == ShapeKind.CAPSULE
        lowest -= shape.half_height + shape.radius if capsule else shape.half_extents[2]
        assert lowest > 0.0, shape.name


def test_collision_showcase_covers_groups_and_worlds():
    scene = samples.collision_showcase()
    assert {s.collision_group for s in scene.shapes} >= {1, 2, -1, 0}
    assert {s.world for s in scene.shapes} == {-1, 0, 1}
    (ground,) = [s for s in scene.shapes if s.body is None]
    assert ground.kind == ShapeKind.PLANE and ground.world == -1
    assert scene.body("robot_world1").world == 1


def test_d6_sampler_mixes_locked_limited_and_free_axes():
    scene = samples.d6_sampler()
    d6 = scene.joint("d6_joint")
    assert {d.motion for d in d6.dofs} == {DofMotion.LOCKED, DofMotion.LIMITED, DofMotion.FREE}
    assert len(d6.active_dofs()) == 3
    assert {j.type for j in scene.joints} >= {JointType.D6, JointType.SPHERICAL, JointType.PRISMATIC}


def test_pendulum_has_one_world_hinge():
    scene = samples.pendulum()
    (joint,) = scene.joints
    assert joint.type == JointType.REVOLUTE and joint.body0 is None and joint.axis == "Y"
    assert not scene.settings.ground_plane
