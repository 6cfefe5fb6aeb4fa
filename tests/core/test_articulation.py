"""Articulation discovery: roots, tree joints, welds, loops, gaps and flat layouts."""

import pytest
from articula.core import samples
from articula.core.articulation import (
    HierarchyCycleError,
    articulation_of,
    find_articulations,
    infer_parents,
    joint_world_frames,
    parent_cycles,
    root_of,
)
from articula.core.model import Body, JointType, PhysicsScene, make_joint
from articula.core.transforms import poses_close


def only(articulations):
    assert len(articulations) == 1, [a.name for a in articulations]
    return articulations[0]


def test_finger_is_one_fixed_base_articulation_rooted_at_the_palm():
    scene = samples.robotic_finger()
    finger = only(find_articulations(scene))
    assert finger.name == finger.root == "palm"
    assert finger.bodies == ["palm", "index_finger_base", "proximal", "middle", "distal"]
    assert [j.name for j in finger.joints] == [
        "metacarpophalangeal", "rotational", "proximal_interphalangeal", "distal_interphalangeal"]
    assert finger.fixed_base and finger.base_joint.name == "palm_to_world"
    assert finger.loop_joints == [] and finger.implicit_welds == [] and finger.kinematic_bodies == []
    assert finger.parent_joint("middle").name == "proximal_interphalangeal"
    assert finger.parent_joint("palm") is finger.base_joint
    for name in finger.bodies:
        assert root_of(scene, name) == "palm"


def test_quadruped_floats_and_orders_parents_first():
    quad = only(find_articulations(samples.quadruped()))
    assert quad.root == "torso" and not quad.fixed_base and quad.base_joint is None
    assert len(quad.bodies) == 9 and len(quad.joints) == 8
    for i, name in enumerate(quad.bodies[1:], start=1):
        assert quad.bodies.index(quad.parents[name]) < i
    assert [j.body1 for j in quad.joints] == quad.bodies[1:]


def test_showcase_boxes_are_single_body_articulations():
    scene = samples.collision_showcase()
    articulations = find_articulations(scene)
    assert [a.root for a in articulations] == [b.name for b in scene.bodies]
    assert all(a.bodies == [a.root] and not a.joints for a in articulations)


def test_four_bar_keeps_its_loop_joint_out_of_the_tree():
    scene = samples.four_bar()
    linkage = only(find_articulations(scene))
    assert [j.name for j in linkage.joints] == ["crank_hinge", "coupler_hinge", "rocker_hinge"]
    assert [j.name for j in linkage.loop_joints] == ["rocker_to_ground"]
    assert linkage.implicit_welds == []


def test_unmarked_loop_joint_is_still_excluded():
    scene = samples.four_bar()
    scene.joint("rocker_to_ground").exclude_from_articulation = False
    linkage = only(find_articulations(scene))
    assert [j.name for j in linkage.loop_joints] == ["rocker_to_ground"]
    assert len(linkage.joints) == 3


def test_nested_body_without_joint_is_an_implicit_weld():
    scene = samples.robotic_finger()
    scene.joints = [j for j in scene.joints if j.name != "proximal_interphalangeal"]
    finger = only(find_articulations(scene))
    assert finger.implicit_welds == [("proximal", "middle")]
    assert finger.parent_joint("middle") is None
    assert "middle" in finger.bodies


def test_hierarchy_gap_starts_a_separate_articulation():
    scene = samples.robotic_finger()
    scene.body("middle").hierarchy_gap = True
    articulations = find_articulations(scene)
    assert [a.root for a in articulations] == ["palm", "middle"]
    palm, middle = articulations
    assert palm.bodies == ["palm", "index_finger_base", "proximal"]
    assert middle.bodies == ["middle", "distal"]
    assert [j.name for j in middle.loop_joints] == ["proximal_interphalangeal"], "crosses the gap"
    assert root_of(scene, "distal") == "middle"
    assert articulation_of(articulations, "distal") is middle


def test_reversed_joint_is_reported_and_not_welded():
    scene = samples.robotic_finger()
    joint = scene.joint("rotational")
    joint.body0, joint.body1 = joint.body1, joint.body0
    joint.local_pose0, joint.local_pose1 = joint.local_pose1, joint.local_pose0
    finger = only(find_articulations(scene))
    assert finger.reversed_joints == [joint] and joint in finger.loop_joints
    assert ("index_finger_base", "proximal") not in finger.implicit_welds


def test_kinematic_bodies_and_disabled_joints():
    scene = samples.six_dof_arm()
    scene.body("arm_base").kinematic = True
    scene.body("shoulder_pan_link").kinematic = True
    scene.joint("joint_3").enabled = False
    arm = only(find_articulations(scene))
    assert arm.kinematic_bodies == ["arm_base", "shoulder_pan_link"]
    assert ("shoulder_lift_link", "elbow_link") in arm.implicit_welds
    assert all(j.name != "joint_3" for j in arm.joints + arm.loop_joints)


def test_parent_cycle_is_found_and_excluded():
    scene = PhysicsScene(bodies=[Body("a", parent="c"), Body("b", parent="a"), Body("c", parent="b"),
                                 Body("free")])
    assert parent_cycles(scene) == [["a", "c", "b"]]
    with pytest.raises(HierarchyCycleError):
        root_of(scene, "b")
    assert [a.root for a in find_articulations(scene)] == ["free"]


def test_unknown_parent_makes_a_root():
    scene = PhysicsScene(bodies=[Body("a", parent="ghost")])
    assert root_of(scene, "a") == "a"


def test_joint_world_frames_agree_on_samples_and_detect_a_moved_body():
    scene = samples.d6_sampler()
    for joint in scene.joints:
        assert poses_close(*joint_world_frames(scene, joint))
    scene.body("ball_link").pose.pos = (0.0, 0.0, 2.0)
    assert not poses_close(*joint_world_frames(scene, scene.joint("ball_joint")))


def test_infer_parents_rebuilds_the_tree_of_a_flat_layout():
    for make in (samples.robotic_finger, samples.quadruped, samples.four_bar, samples.d6_sampler):
        nested = make()
        expected = {b.name: b.parent for b in nested.bodies if b.parent}
        for body in nested.bodies:
            body.parent = None
        assert infer_parents(nested) == expected, make.__name__


def test_infer_parents_ignores_excluded_and_breaks_cycles():
    scene = PhysicsScene(bodies=[Body("a"), Body("b"), Body("c")], joints=[
        make_joint("ab", JointType.REVOLUTE, "a", "b"), make_joint("bc", JointType.REVOLUTE, "b", "c"),
        make_joint("ca", JointType.REVOLUTE, "c", "a")])
    parents = infer_parents(scene)
    assert len(parents) == 2 and "a" not in parents
