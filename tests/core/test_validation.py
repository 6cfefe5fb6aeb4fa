"""One test per validation rule: a valid sample is broken in one way and the rule must say so."""

import math

import pytest
from articula.core import samples
from articula.core.model import (
    Body,
    DofMotion,
    JointType,
    MassProperties,
    MeshData,
    PhysicsMaterial,
    PhysicsScene,
    Pose,
    Shape,
    ShapeKind,
    make_joint,
)
from articula.core.validation import (
    ERROR,
    WARNING,
    Problem,
    first_error,
    has_errors,
    non_uniform_scale,
    problems_for,
    validate,
)


def found(scene):
    return {(p.code, p.subject, p.severity) for p in validate(scene)}


def assert_only(scene, *expected):
    """The scene's problems are exactly ``expected`` (code, subject, severity) triples."""
    problems = validate(scene)
    assert {(p.code, p.subject, p.severity) for p in problems} == set(expected), problems
    for p in problems:
        assert p.message.strip() and p.severity in (ERROR, WARNING)


@pytest.mark.parametrize("name", sorted(samples.SAMPLES))
def test_samples_are_valid(name):
    assert validate(samples.SAMPLES[name]()) == []


# ---------------------------------------------------------------- references and names

def _clear_body1(scene):
    scene.joints[0].body1 = ""


def _joint_to_itself(scene):
    scene.joint("rotational").body0 = "proximal"


def _own_parent(scene):
    scene.bodies[0].parent = scene.bodies[0].name


@pytest.mark.parametrize("make, damage, expected", [
    (samples.pendulum, _clear_body1, ("missing_body", "pendulum_hinge", ERROR)),
    (samples.robotic_finger, _joint_to_itself, ("self_joint", "rotational", ERROR)),
    (samples.pendulum, _own_parent, ("self_parent", "pendulum_link", ERROR)),
])
def test_missing_and_self_references(make, damage, expected):
    scene = make()
    damage(scene)
    assert expected in found(scene)


def test_unknown_joint_bodies():
    scene = samples.robotic_finger()
    scene.joint("rotational").body0 = "thumb"
    scene.joint("proximal_interphalangeal").body1 = "pinky"
    problems = found(scene)
    assert ("unknown_body", "rotational", ERROR) in problems
    assert ("unknown_body", "proximal_interphalangeal", ERROR) in problems
    assert any("thumb" in p.message for p in validate(scene))


def test_unknown_parent_shape_body_and_material():
    scene = samples.quadruped()
    scene.body("front_left_shin").parent = "ghost"
    scene.shapes[0].body = "nobody"
    scene.shapes[1].material = "unobtainium"
    problems = found(scene)
    assert ("unknown_body", "front_left_shin", ERROR) in problems
    assert ("unknown_body", scene.shapes[0].name, ERROR) in problems
    assert ("unknown_material", scene.shapes[1].name, WARNING) in problems


def test_duplicate_names():
    scene = samples.robotic_finger()
    scene.joint("rotational").name = "metacarpophalangeal"
    scene.materials.append(PhysicsMaterial("finger_skin"))
    scene.joint("distal_interphalangeal").name = "palm"
    problems = found(scene)
    assert ("duplicate_name", "metacarpophalangeal", ERROR) in problems
    assert ("duplicate_name", "finger_skin", ERROR) in problems
    # USD names are unique per parent only: mujoco-usd-converter names joints after their bodies.
    assert ("joint_named_like_body", "palm", WARNING) in problems


def test_filtered_pair_with_unknown_body():
    scene = samples.collision_showcase()
    scene.filtered_pairs.append(("box_group0", "ghost"))
    assert_only(scene, ("unknown_body", "ghost", ERROR))


# ---------------------------------------------------------------- hierarchy

def test_parent_cycle():
    scene = PhysicsScene(bodies=[Body("a", parent="b"), Body("b", parent="a")],
                         shapes=[Shape(f"s{n}", ShapeKind.SPHERE, body=n) for n in "ab"])
    problems = validate(scene)
    assert [p.code for p in problems] == ["parent_cycle"]
    assert "a -> b -> a" in problems[0].message


def test_joint_cycle():
    scene = samples.four_bar()
    scene.joint("rocker_to_ground").exclude_from_articulation = False
    problems = validate(scene)
    assert [(p.code, p.severity) for p in problems] == [("joint_cycle", ERROR)]
    assert "(crank_hinge -> coupler_hinge -> rocker_hinge -> rocker_to_ground)" in problems[0].message
    assert "exclude from articulation" in problems[0].message


def test_every_joint_cycle_is_reported_once():
    bodies = [Body(n) for n in "abcxy"]
    shapes = [Shape(f"s{b.name}", ShapeKind.SPHERE, body=b.name) for b in bodies]
    links = [("a", "b"), ("b", "c"), ("c", "a"), ("x", "y"), ("y", "x")]
    joints = [make_joint(f"{p}{c}", JointType.SPHERICAL, p, c) for p, c in links]
    problems = [p for p in validate(PhysicsScene(bodies=bodies, shapes=shapes, joints=joints))
                if p.code == "joint_cycle"]
    assert sorted(p.message.split("(")[1].split(")")[0] for p in problems) == [
        "ab -> bc -> ca", "xy -> yx"]


def test_two_parents():
    scene = samples.quadruped()
    scene.joints.append(make_joint("extra_knee", JointType.REVOLUTE, "torso", "front_left_shin", axis="Y",
                                   local_pose0=Pose(pos=(0.25, 0.12, -0.31)), local_pose1=Pose()))
    assert_only(scene, ("two_parents", "front_left_shin", ERROR))
    scene.joint("extra_knee").exclude_from_articulation = True
    assert validate(scene) == []


def test_reversed_joint():
    scene = samples.robotic_finger()
    joint = scene.joint("rotational")
    joint.body0, joint.body1 = joint.body1, joint.body0
    joint.local_pose0, joint.local_pose1 = joint.local_pose1, joint.local_pose0
    assert_only(scene, ("reversed_joint", "rotational", ERROR))


def test_off_tree_joint_is_a_warning():
    scene = samples.collision_showcase()
    low, high = scene.body("box_group1_low"), scene.body("box_group1_high")
    scene.joints.append(make_joint("rope", JointType.SPHERICAL, "box_group1_low", "box_group1_high",
                                   local_pose0=Pose(pos=(0, 0, 0.2)), local_pose1=Pose(pos=(0, 0, -0.2))))
    assert low.pose.pos[2] + 0.2 == pytest.approx(high.pose.pos[2] - 0.2)
    assert_only(scene, ("off_tree_joint", "rope", WARNING))


def test_hierarchy_gap_is_a_warning():
    scene = samples.robotic_finger()
    scene.body("middle").hierarchy_gap = True
    assert_only(scene, ("hierarchy_gap", "middle", WARNING),
                ("off_tree_joint", "proximal_interphalangeal", WARNING))


def test_nested_body_without_joint_is_welded():
    scene = samples.six_dof_arm()
    scene.joints = [j for j in scene.joints if j.name != "joint_4"]
    assert_only(scene, ("implicit_weld", "wrist_1_link", WARNING))


def test_kinematic_interleaving():
    scene = samples.six_dof_arm()
    scene.body("arm_base").kinematic = True
    scene.body("shoulder_pan_link").kinematic = True
    assert validate(scene) == [], "kinematic from the root down is allowed"
    scene.body("elbow_link").kinematic = True
    assert_only(scene, ("kinematic_interleaving", "elbow_link", ERROR))


def test_articulation_world_mismatch():
    scene = samples.robotic_finger()
    scene.body("distal").world = 1
    for shape in scene.shapes_of("distal"):
        shape.world = 1
    problems = found(scene)
    assert ("world_mismatch", "distal", ERROR) in problems
    assert ("world_mismatch", "distal_interphalangeal", ERROR) in problems


# ---------------------------------------------------------------- joints

def test_lower_above_upper_and_equal_limits():
    scene = samples.robotic_finger()
    dof = scene.joint("rotational").dofs[0]
    dof.lower, dof.upper = 1.0, -1.0
    assert_only(scene, ("lower_above_upper", "rotational", ERROR))
    dof.lower = dof.upper = 0.5
    assert_only(scene, ("equal_limits", "rotational", WARNING))
    dof.motion, dof.lower, dof.upper = DofMotion.FREE, 1.0, -1.0
    assert validate(scene) == [], "limits only matter on LIMITED axes"


def test_joint_dynamic_friction_above_static():
    scene = samples.six_dof_arm()
    dof = scene.joint("joint_2").dofs[0]
    dof.dynamic_friction = dof.static_friction * 2
    assert_only(scene, ("dynamic_above_static", "joint_2", WARNING))  # plausibility: written anyway


def test_negative_dof_values():
    scene = samples.six_dof_arm()
    scene.joint("joint_1").dofs[0].armature = -0.1
    scene.joint("joint_2").dofs[0].velocity_limit = 0.0
    assert_only(scene, ("negative_dof_value", "joint_1", ERROR), ("negative_dof_value", "joint_2", ERROR))


def test_drive_on_locked_axis():
    scene = samples.d6_sampler()
    scene.joint("d6_joint").dof("rotZ").drive_enabled = True
    assert_only(scene, ("drive_on_locked", "d6_joint", WARNING))


def test_locked_axis_on_a_revolute_joint():
    scene = samples.robotic_finger()
    scene.joint("rotational").dofs[0].motion = DofMotion.LOCKED
    assert ("locked_non_d6", "rotational", ERROR) in found(scene)


def test_dofs_that_do_not_match_the_joint_type():
    scene = samples.robotic_finger()
    scene.joint("rotational").axis = "X"
    assert_only(scene, ("dof_mismatch", "rotational", ERROR))
    scene.joint("rotational").axis = "W"
    assert_only(scene, ("invalid_axis", "rotational", ERROR))


def test_joint_frames_that_disagree():
    scene = samples.d6_sampler()
    scene.joint("slider_joint").local_pose1 = Pose(pos=(0.0, 0.0, 0.1))
    assert_only(scene, ("frames_disagree", "slider_joint", WARNING))


def test_negative_cone_limit():
    scene = samples.d6_sampler()
    scene.joint("ball_joint").cone_limit0 = -0.1
    assert_only(scene, ("invalid_limit", "ball_joint", ERROR))


# ---------------------------------------------------------------- poses

def test_nan_and_infinite_poses():
    scene = samples.quadruped()
    scene.body("torso").pose = Pose(pos=(math.nan, 0.0, 0.7))
    scene.shapes[0].pose = Pose(pos=(0.0, math.inf, 0.0))
    scene.joint("front_left_hip").local_pose1 = Pose(rot=(math.nan, 0.0, 0.0, 0.0))
    problems = found(scene)
    assert ("non_finite_pose", "torso", ERROR) in problems
    assert ("non_finite_pose", scene.shapes[0].name, ERROR) in problems
    assert ("non_finite_pose", "front_left_hip", ERROR) in problems


def test_non_normalized_quaternion():
    scene = samples.pendulum()
    scene.visuals[0].pose = Pose(rot=(2.0, 0.0, 0.0, 0.0))
    assert_only(scene, ("non_unit_quaternion", scene.visuals[0].name, ERROR))


# ---------------------------------------------------------------- collision settings

def test_invalid_worlds_and_groups():
    scene = samples.collision_showcase()
    scene.shapes[1].world = -2
    scene.body("robot_world1").world = -5
    scene.shapes[2].collision_group = 1.5
    problems = found(scene)
    assert ("invalid_world", scene.shapes[1].name, ERROR) in problems
    assert ("invalid_world", "robot_world1", ERROR) in problems
    assert ("invalid_group", scene.shapes[2].name, ERROR) in problems


def test_shape_world_differs_from_its_body():
    scene = samples.collision_showcase()
    scene.shapes[1].world = 3
    assert_only(scene, ("world_mismatch", scene.shapes[1].name, ERROR))


def test_plane_on_a_body():
    scene = samples.pendulum()
    scene.shapes.append(Shape("floor", ShapeKind.PLANE, body="pendulum_link"))
    assert ("plane_on_body", "floor", ERROR) in found(scene)


def test_negative_margin_and_bad_sizes():
    scene = samples.six_dof_arm()
    scene.shapes[0].contact_gap = -0.01
    scene.shapes[1].radius = 0.0
    problems = found(scene)
    assert ("invalid_margin", scene.shapes[0].name, ERROR) in problems
    assert ("invalid_size", scene.shapes[1].name, ERROR) in problems


def test_mesh_collider_without_triangles():
    scene = samples.pendulum()
    scene.shapes.append(Shape("hull", ShapeKind.CONVEX_HULL, body="pendulum_link", mesh=MeshData()))
    problems = found(scene)
    assert ("invalid_size", "hull", ERROR) in problems
    assert ("invalid_mass", "pendulum_link", ERROR) in problems


# ---------------------------------------------------------------- materials and mass

def test_material_dynamic_friction_above_static():
    scene = samples.quadruped()
    scene.materials[0].dynamic_friction = 1.5
    assert_only(scene, ("dynamic_above_static", "rubber", WARNING))  # the converter writes such files


def test_material_negative_values_and_density():
    scene = samples.quadruped()
    scene.materials[0].restitution = -0.5
    scene.materials[1].density = 0.0
    problems = found(scene)
    assert ("invalid_material", "rubber", ERROR) in problems
    assert ("invalid_density", "plastic", ERROR) in problems


def test_body_without_shapes_or_mass():
    scene = samples.robotic_finger()
    scene.shapes = [s for s in scene.shapes if s.body != "middle"]
    scene.visuals = [v for v in scene.visuals if v.body != "middle"]
    # A massless frame body: written with mass 0 as Newton reads it, never a blocking error.
    assert_only(scene, ("no_mass_source", "middle", WARNING))
    scene.body("middle").mass = MassProperties(0.01, diagonal_inertia=(1e-6, 1e-6, 1e-6))
    assert validate(scene) == []


def test_kinematic_body_needs_no_mass():
    scene = samples.six_dof_arm()
    scene.body("arm_base").kinematic = True
    scene.shapes = [s for s in scene.shapes if s.body != "arm_base"]
    assert validate(scene) == []


@pytest.mark.parametrize("mass, inertia, code, severity", [
    (0.0, (1.0, 1.0, 1.0), "invalid_mass", WARNING),  # loads (Newton: mass 0); implausible only
    (-1.0, (1.0, 1.0, 1.0), "invalid_mass", WARNING),
    (math.nan, (1.0, 1.0, 1.0), "invalid_mass", ERROR),  # non-finite numbers cannot be loaded
    (1.0, (0.0, 1.0, 1.0), "invalid_inertia", WARNING),
    (1.0, (-1.0, 1.0, 1.0), "invalid_inertia", WARNING),
    (1.0, (1.0, 1.0, 5.0), "invalid_inertia", WARNING),  # triangle inequality
    (1.0, (math.nan, 1.0, 1.0), "invalid_inertia", ERROR),
])
def test_explicit_mass_and_inertia(mass, inertia, code, severity):
    scene = samples.pendulum()
    scene.bodies[0].mass = MassProperties(mass, diagonal_inertia=inertia)
    assert_only(scene, (code, "pendulum_link", severity))


def test_inertia_on_the_triangle_limit_after_float32_rounding_is_accepted():
    import numpy as np
    scene = samples.pendulum()
    # A thin plate: Izz = Ixx + Iyy exactly in float64, a few ulps above it once stored as float32.
    ixx, iyy = 0.010990495247623812, 0.01706648324162081
    inertia = tuple(float(v) for v in np.array((ixx, iyy, ixx + iyy), dtype=np.float32))
    assert inertia[2] > inertia[0] + inertia[1]  # the rounding really crosses the limit
    scene.bodies[0].mass = MassProperties(1.0, diagonal_inertia=inertia)
    assert validate(scene) == []
    scene.bodies[0].mass = MassProperties(1.0, diagonal_inertia=(ixx, iyy, (ixx + iyy) * 1.001))
    assert_only(scene, ("invalid_inertia", "pendulum_link", WARNING))


def test_stacked_single_dof_joints_on_one_edge_are_one_compound_joint():
    """mujoco-usd-converter writes a MuJoCo body with several joints as several USD joints between
    the same two bodies; Newton merges them into one D6. They are no 'two parents' error."""
    scene = samples.quadruped()
    scene.joints.append(make_joint("knee_twist", JointType.REVOLUTE, "front_left_thigh", "front_left_shin",
                                   axis="Z", local_pose0=scene.joint("front_left_knee").local_pose0,
                                   local_pose1=scene.joint("front_left_knee").local_pose1))
    assert validate(scene) == []
    from articula.core.articulation import find_articulations
    art = find_articulations(scene)[0]
    assert [j.name for j in art.edge_joints("front_left_shin")] == ["front_left_knee", "knee_twist"]
    assert all(j.name != "knee_twist" for j in art.loop_joints)
    # A spherical joint does not stack (Newton does not merge it): still two parents.
    scene.joint("knee_twist").type = JointType.SPHERICAL
    scene.joint("knee_twist").dofs = make_joint("x", JointType.SPHERICAL, "a", "b").dofs
    assert ("two_parents", "front_left_shin", ERROR) in found(scene)


def test_zero_density_shape():
    scene = samples.pendulum()
    scene.shapes[0].density = 0.0
    problems = found(scene)
    assert ("invalid_density", "pendulum_bob", ERROR) in problems
    assert ("invalid_mass", "pendulum_link", ERROR) in problems


def test_scene_settings():
    scene = samples.pendulum()
    scene.settings.steps_per_second = 0
    scene.settings.replicas = 0
    assert [p.code for p in validate(scene)] == ["invalid_setting", "invalid_setting"]


# ---------------------------------------------------------------- reporting helpers

def test_every_problem_is_reported_at_once():
    scene = samples.robotic_finger()
    scene.joint("rotational").dofs[0].lower = 5.0
    scene.materials[0].dynamic_friction = 9.0
    scene.body("distal").pose = Pose(rot=(0.5, 0.0, 0.0, 0.0))
    problems = validate(scene)
    codes = {p.code for p in problems}
    assert {"lower_above_upper", "dynamic_above_static", "non_unit_quaternion"} <= codes
    assert has_errors(problems) and first_error(problems).severity == ERROR
    assert problems_for(problems, "finger_skin")[0].code == "dynamic_above_static"


def test_non_uniform_scale_constructor():
    problem = non_uniform_scale("Arm", (1.0, 2.0, 1.0))
    assert problem == Problem(ERROR, "Arm", problem.message, "non_uniform_scale")
    assert "1, 2, 1" in problem.message and str(problem).startswith("ERROR: Arm: ")


@pytest.mark.parametrize("base_mass", [MassProperties(0.0), None])  # as an import reads it / no collider
def test_a_body_welded_to_the_world_needs_no_mass(base_mass):
    scene = samples.six_dof_arm()
    scene.body("arm_base").mass = base_mass
    scene.shapes = [s for s in scene.shapes if s.body != "arm_base"]
    assert validate(scene) == []  # it never moves
    scene.joints = [j for j in scene.joints if j.body0 is not None or j.body1 != "arm_base"]
    assert [p.subject for p in validate(scene)] == ["arm_base"]  # floating now: it moves
