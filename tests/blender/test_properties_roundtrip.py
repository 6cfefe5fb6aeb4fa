"""Every description field survives Blender: description -> Blender -> description, and back.

Blender stores floats in single precision, so description -> Blender -> description agrees to
float32 precision (FLOAT32_TOL relative); quaternions are compared up to sign (q and -q are
the same rotation). Blender -> description -> Blender is exact for every stored property except
the body-0 frame offset, which is recomputed from poses (float32 tolerance).
"""

import dataclasses
import math
import sys
from pathlib import Path

import bpy
import pytest

from articula.addon.adapters.blender_to_description import scene_from_blender
from articula.addon.adapters.description_to_blender import build_scene
from articula.core import samples
from articula.core.model import (Body, Camera, Dof, DofAxis, DofMotion, DriveType, HeightField, Joint,
                                 JointType, MassProperties, MeshData, PhysicsMaterial, PhysicsScene, Pose,
                                 SceneSettings, Sensor, Shape, ShapeKind, Solver, Visual)
from articula.core.transforms import quat_from_axis_angle

sys.path.insert(0, str(Path(__file__).parent))
from authoring_helpers import reset_scene_settings, FLOAT32_TOL, blender_differences, same_rotation, snapshot_scene  # noqa: E402
from test_mujoco_objects import mujoco_finger  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_scene_settings(clean_scene):
    reset_scene_settings(clean_scene)
    yield

QUAT_FIELDS = {"rot", "principal_axes"}


def differences(expected, actual, path="scene", tol=FLOAT32_TOL):
    """Every (path, expected, actual) where two descriptions differ; lists compared in order."""
    if dataclasses.is_dataclass(expected):
        if type(expected) is not type(actual):
            return [(path, expected, actual)]
        found = []
        for f in dataclasses.fields(expected):
            a, b = getattr(expected, f.name), getattr(actual, f.name)
            if f.name in QUAT_FIELDS and same_rotation(a, b, tol):
                continue
            found += differences(a, b, f"{path}.{f.name}", tol)
        return found
    if isinstance(expected, (list, tuple)) and not isinstance(expected, str):
        if not isinstance(actual, (list, tuple)) or len(expected) != len(actual):
            return [(path, expected, actual)]
        return [d for i, (a, b) in enumerate(zip(expected, actual)) for d in differences(a, b, f"{path}[{i}]", tol)]
    if isinstance(expected, float) and isinstance(actual, (int, float)) and not isinstance(actual, bool):
        close = expected == actual or math.isclose(expected, actual, rel_tol=tol, abs_tol=tol)
        return [] if close else [(path, expected, actual)]
    return [] if expected == actual and type(expected) is type(actual) else [(path, expected, actual)]


def in_description_order(desc: PhysicsScene, back: PhysicsScene) -> PhysicsScene:
    """``back`` with bodies, joints, shapes and visuals in ``desc``'s order (Blender sorts by name)."""
    for attr in ("bodies", "joints", "shapes", "visuals"):
        order = {item.name: i for i, item in enumerate(getattr(desc, attr))}
        getattr(back, attr).sort(key=lambda item: order.get(item.name, len(order)))
    return back


def round_trip(desc: PhysicsScene) -> PhysicsScene:
    build_scene(bpy.context, desc)
    return in_description_order(desc, scene_from_blender(bpy.context.scene))


def _tetra() -> MeshData:
    return MeshData(vertices=[(0.0, 0.0, 0.0), (0.3, 0.0, 0.0), (0.0, 0.2, 0.0), (0.0, 0.0, 0.1)],
                    triangles=[(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)])


def every_field_scene() -> PhysicsScene:
    """A scene where every field of every description type differs from its default somewhere."""
    tilt = quat_from_axis_angle((0.3, -0.5, 0.8), 0.7)
    settings = SceneSettings(gravity=(0.5, -0.25, -3.75), steps_per_second=240.0, solver=Solver.XPBD,
                             solver_iterations=7, collision_filter_parent=False, replicas=4,
                             replica_spacing=3.5, ground_plane=True)
    base = Body("base", Pose((0.25, -0.5, 1.0), tilt), kinematic=True, world=3, self_collision=False,
                linear_velocity=(0.5, 0.25, -0.125), angular_velocity=(1.5, -2.0, 0.75),
                free_joint_damping=2.5, free_joint_armature=0.125, free_joint_friction=0.75,
                free_joint_stiffness=4.0,  # binary fractions: exact in Blender's float32
                mass=MassProperties(2.5, (0.125, -0.25, 0.0625), (0.03, 0.04, 0.05),
                                    quat_from_axis_angle((0.0, 0.0, 1.0), 0.25)))
    arm = Body("arm", Pose((0.25, 0.0, 1.5), quat_from_axis_angle((1.0, 0.0, 0.0), 0.4)), parent="base",
               world=3)
    hand = Body("hand", Pose((0.25, 0.25, 1.75)), parent="arm", hierarchy_gap=True, world=3)
    every_dof = Dof(axis=DofAxis.ROT_Y, motion=DofMotion.LIMITED, lower=-0.75, upper=1.25,
                    limit_stiffness=1000.0, limit_damping=12.5, drive_enabled=True,
                    drive_type=DriveType.ACCELERATION, drive_stiffness=80.0, drive_damping=4.5,
                    target_position=0.375, target_velocity=-0.5, max_effort=25.0, armature=0.0125,
                    static_friction=0.75, dynamic_friction=0.5, viscous_damping=0.0625, velocity_limit=6.5,
                    spring_stiffness=3.5, limit_margin=0.03125, reference=0.25,
                    limit_solref=(0.005, 1.0), limit_solimp=(0.0, 0.99, 0.01, 0.5, 2.0), spring_reference=0.5,
                    initial_position=0.25, group=3)  # at rest: the authored pose is the reference
    hinge = Joint("hinge", JointType.REVOLUTE, "base", "arm",
                  local_pose0=Pose((0.0, 0.125, 0.5), quat_from_axis_angle((0.0, 1.0, 0.0), 0.3)),
                  local_pose1=Pose((0.0, 0.0, -0.125)), axis="Y", dofs=[every_dof],
                  enabled=False, collide_bodies=True)
    d6 = Joint("wrist", JointType.D6, "arm", "hand", local_pose0=Pose((0.0, 0.25, 0.25)),
               local_pose1=Pose((0.0, 0.0, 0.0)), axis="Z", dofs=[
                   Dof(DofAxis.TRANS_X, DofMotion.LIMITED, lower=-0.05, upper=math.inf),
                   Dof(DofAxis.TRANS_Y, DofMotion.LOCKED),
                   Dof(DofAxis.TRANS_Z, DofMotion.LOCKED, drive_enabled=True, target_velocity=0.25),
                   Dof(DofAxis.ROT_X, DofMotion.FREE, armature=0.5, max_effort=3.0, velocity_limit=2.0),
                   Dof(DofAxis.ROT_Y, DofMotion.LIMITED, lower=-math.inf, upper=0.5),
                   Dof(DofAxis.ROT_Z, DofMotion.LOCKED)],
               exclude_from_articulation=True)
    ball = Joint("ball", JointType.SPHERICAL, None, "base", local_pose0=Pose((0.25, -0.5, 1.0), tilt),
                 dofs=[Dof(DofAxis.ROT_X), Dof(DofAxis.ROT_Y), Dof(DofAxis.ROT_Z)],
                 cone_limit0=0.5, cone_limit1=0.25)
    weld = Joint("weld", JointType.FIXED, "arm", "hand", local_pose0=Pose((0.0, 0.25, 0.25)))
    slide = Joint("slide", JointType.PRISMATIC, "base", "hand", axis="Z",
                  local_pose0=Pose((0.0, 0.0, 0.75)), dofs=[Dof(DofAxis.TRANS_Z, DofMotion.LIMITED, 0.0, 0.5)])
    shapes = [
        Shape("base", ShapeKind.BOX, "base", half_extents=(0.25, 0.125, 0.0625), material="rubber",
              density=750.0, collision_group=-3, world=3, contact_margin=0.01, contact_gap=0.005),
        Shape("arm_capsule", ShapeKind.CAPSULE, "arm", Pose((0.0, 0.0, 0.25), tilt), radius=0.0625,
              half_height=0.1875, axis="X", collision_group=0),
        Shape("arm_cylinder", ShapeKind.CYLINDER, "arm", Pose((0.125, 0.0, 0.0)), radius=0.05,
              half_height=0.15, axis="Y", collision_group=2),
        Shape("hand_sphere", ShapeKind.SPHERE, "hand", Pose((0.0, 0.0, 0.0625)), radius=0.09375),
        Shape("hand_hull", ShapeKind.CONVEX_HULL, "hand", Pose((0.0, 0.125, 0.0)), mesh=_tetra(),
              scale=(2.0, 1.5, 0.5)),
        Shape("ground", ShapeKind.PLANE, None, world=-1, collision_group=-2),
        Shape("ramp", ShapeKind.MESH, None, Pose((2.0, 0.0, 0.0), tilt), mesh=_tetra(), scale=(3.0, 3.0, 3.0),
              world=-1, material="rubber"),
        Shape("terrain", ShapeKind.HEIGHT_FIELD, None,
              Pose((1.0, -2.0, 0.25), quat_from_axis_angle((0, 0, 1), 0.6)),
              height_field=HeightField("hills", 3, 4, 1.5, 0.75, 0.4, 0.125,  # samples with a 0, as compiled
                                       [0.0, 0.25, 0.5, 1.0, 0.125, 0.375, 0.625, 0.875, 0.0, 0.5, 0.25, 0.75]),
              world=-1, collision_group=-2),
    ]
    visuals = [
        Visual("base_visual", "base", _tetra(), Pose((0.0, 0.0, 0.125)), scale=(1.0, 2.0, 0.5),
               color=(0.25, 0.5, 0.75, 0.5), material_name="blue_paint"),
        Visual("arm", "arm", _tetra(), color=(0.125, 0.25, 0.375, 1.0)),
        Visual("ramp", None, _tetra(), Pose((2.0, 0.0, 0.0), tilt), scale=(3.0, 3.0, 3.0),
               color=(0.5, 0.5, 0.25, 1.0), material_name="ramp_paint"),
    ]
    materials = [PhysicsMaterial("rubber", 1.25, 1.0, 0.25, 0.03125, 0.015625, 1100.0),
                 PhysicsMaterial("ice")]
    return PhysicsScene(name="EveryField", robot_type="Manipulator", settings=settings, bodies=[base, arm, hand],
                        joints=[hinge, d6, ball, weld, slide], shapes=shapes, visuals=visuals,
                        materials=materials, filtered_pairs=[("base", "hand")])


#: Description fields Blender holds elsewhere than in properties, with the reason.
NOT_PROPERTIES = {
    # a state, not the robot: Blender shows it as the bodies' poses (export option State: Current Pose)
    Dof: {"initial_position", "initial_velocity"},
    # the Isaac link and joint order: Blender's hierarchy gives it (core.usd.isaac.kinematic_order);
    # the objects' own names, which Blender holds as the objects (test_real_mujoco_robots_usd.py)
    PhysicsScene: {"robot_links", "robot_joints", "object_names"},
}


#: Actuators, tendons, mimics and prim names: every field round-trips in test_actuators.py (actuated_scene).
ACTUATION = {Dof: {"actuators"}, Joint: {"mimic"}, PhysicsScene: {"tendons", "prim_names"}}

#: MuJoCo's model (sites, cameras... options, contact parameters, names): every field round-trips in
#: test_mujoco_objects.py (mujoco_finger), but ROS_FIELDS (ros_finger, below).
MUJOCO_MODEL = {Dof: {"name"}, Body: {"free_joint_name"}, Shape: {"contact"}, SceneSettings: {"mujoco"},
                PhysicsScene: {"sites", "cameras", "lights", "sensors", "keyframes", "equalities",
                               "spatial_tendons", "tendon_equalities", "contact_pairs", "frame_actuators"}}


def test_every_field_scene_sets_every_field():
    """Guards the round-trip test: every field of every type is off its default somewhere."""
    desc = every_field_scene()
    instances = {PhysicsScene: [desc], SceneSettings: [desc.settings], Body: desc.bodies, Joint: desc.joints,
                 Dof: [d for j in desc.joints for d in j.dofs], Shape: desc.shapes, Visual: desc.visuals,
                 PhysicsMaterial: desc.materials, MassProperties: [b.mass for b in desc.bodies if b.mass]}
    required = {Dof: {"axis", *NOT_PROPERTIES[Dof], *ACTUATION[Dof]},
                Joint: {"name", "type", "body1", *ACTUATION[Joint]}, Shape: {"name", "kind"}, Visual: {"name", "body", "mesh"}, PhysicsMaterial: {"name"}, Body: {"name"},
                MassProperties: {"mass"}, PhysicsScene: NOT_PROPERTIES[PhysicsScene] | ACTUATION[PhysicsScene]}
    for cls, items in instances.items():
        for f in dataclasses.fields(cls):
            if f.name in required.get(cls, ()) or f.name in MUJOCO_MODEL.get(cls, ()):
                continue
            default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
            assert any(getattr(item, f.name) != default for item in items), f"{cls.__name__}.{f.name}"


#: URDF's Gazebo/ros2_control fields of MuJoCo's cameras and sensors: ros_finger sets them, and they
#: round-trip below (and through a URDF file in test_urdf_sensors.py).
ROS_FIELDS = {Camera: {"update_rate", "ros_frames"}, Sensor: {"update_rate"}}


def ros_finger() -> PhysicsScene:
    """mujoco_finger with ROS's update rates and a camera's URDF links (a link alone, and with its
    optical frame)."""
    desc = mujoco_finger()
    eye = desc.cameras[0]
    eye.update_rate, eye.ros_frames = 30.0, ("eye_link", "eye_optical")
    desc.cameras.append(Camera("mast", "palm", update_rate=15.0, ros_frames=("mast_link",)))
    desc.sensors[0].update_rate = 200.0
    return desc


def test_mujoco_scenes_set_every_camera_and_sensor_field():
    """Guards MUJOCO_MODEL and ROS_FIELDS: each camera and sensor field is off its default in
    mujoco_finger, or is ROS's and off its default in ros_finger."""
    finger, ros = mujoco_finger(), ros_finger()
    for cls, attr in ((Camera, "cameras"), (Sensor, "sensors")):
        for f in dataclasses.fields(cls):
            if f.name in ("name", "kind"):
                continue
            default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
            scene = ros if f.name in ROS_FIELDS[cls] else finger
            assert any(getattr(item, f.name) != default for item in getattr(scene, attr)), \
                f"{cls.__name__}.{f.name}"


def test_ros_rates_and_camera_links_round_trip_through_blender(clean_scene):
    desc = ros_finger()
    build_scene(bpy.context, desc)
    back = scene_from_blender(bpy.context.scene)
    for attr in ("cameras", "sensors"):
        expected, actual = (sorted(getattr(d, attr), key=lambda item: item.name) for d in (desc, back))
        assert differences(expected, actual, attr) == []


@pytest.mark.parametrize("name", sorted(samples.SAMPLES))
def test_sample_round_trips_through_blender(clean_scene, name):
    desc = samples.SAMPLES[name]()
    back = round_trip(desc)
    assert differences(desc, back) == []


def test_every_field_round_trips_through_blender(clean_scene):
    desc = every_field_scene()
    back = round_trip(desc)
    assert differences(desc, back) == []


def test_comparison_sees_a_changed_field(clean_scene):
    """The comparison itself fails on a real change (a DOF field beyond float32 noise)."""
    desc = every_field_scene()
    back = round_trip(desc)
    back.joints[0].dofs[0].armature *= 1.001
    back.shapes[0].world = 4
    assert [d[0] for d in differences(desc, back)] == ["scene.joints[0].dofs[0].armature", "scene.shapes[0].world"]


# --- Blender -> description -> Blender -------------------------------------------------------

def _clear_objects():
    for collection in (bpy.data.objects, bpy.data.meshes, bpy.data.materials):
        for item in list(collection):
            collection.remove(item)


@pytest.mark.parametrize("name", ["every_field"] + sorted(samples.SAMPLES))
def test_blender_round_trips_through_the_description(clean_scene, name):
    desc = every_field_scene() if name == "every_field" else samples.SAMPLES[name]()
    build_scene(bpy.context, desc)
    before = snapshot_scene(clean_scene)
    middle = scene_from_blender(clean_scene)
    _clear_objects()
    build_scene(bpy.context, middle)
    after = snapshot_scene(clean_scene)
    assert len(before["objects"]) == len(after["objects"]) > 0
    assert blender_differences(before, after) == []


def test_hand_authored_properties_round_trip_exactly(clean_scene):
    """Properties typed in by hand (not built from a description) come back bit for bit."""
    body = bpy.data.objects.new("link", None)
    clean_scene.collection.objects.link(body)
    props = body.articula.body
    props.enabled, props.kinematic, props.mass_mode, props.mass = True, True, "MANUAL", 0.1
    props.diagonal_inertia = (0.1, 0.2, 0.3)
    props.angular_velocity = (0.1, 0.2, 0.3)
    collider = body.articula.collider
    collider.enabled, collider.shape, collider.radius, collider.has_density, collider.density = (
        True, "SPHERE", 0.3, True, 1234.5)
    joint = bpy.data.objects.new("pin", None)
    clean_scene.collection.objects.link(joint)
    joint.parent = body
    jp = joint.articula.joint
    jp.enabled, jp.body1, jp.type = True, body, "D6"
    for i, dof in enumerate(jp.dofs):
        dof.motion = ("FREE", "LIMITED", "LOCKED")[i % 3]
        dof.has_lower_limit = dof.has_upper_limit = dof.has_max_effort = dof.has_velocity_limit = bool(i % 2)
        dof.lower, dof.upper, dof.max_effort, dof.velocity_limit = -0.1 * i, 0.1 * i, 1.1 * i, 0.7 * i
    mat = clean_scene.articula.materials.add()
    mat.name, mat.static_friction, mat.dynamic_friction = "felt", 0.3, 0.7
    bpy.context.view_layer.update()
    before = snapshot_scene(clean_scene)
    middle = scene_from_blender(clean_scene)
    assert middle.joints[0].dofs[0].max_effort == math.inf and middle.joints[0].dofs[1].max_effort == 1.100000023841858
    _clear_objects()
    build_scene(bpy.context, middle)
    after = snapshot_scene(clean_scene)
    # Values behind a switched-off ``has_*`` are not part of the description: the switch is.
    differences_found = [d for d in blender_differences(before, after)
                         if not any(f"dofs[{i}].{f}" in d[0] for i in (0, 2, 4)
                                    for f in ("lower", "upper", "max_effort", "velocity_limit"))]
    assert differences_found == []
