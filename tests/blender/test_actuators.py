"""Actuators, fixed tendons and coupled joints in Blender: properties, adapters, operators, import,
export, simulation and bake (issue 16).

The property round trips run on bpy 4.5 and 5.2; what needs Newton's ``add_usd`` (USD 25.02 cannot)
or the MuJoCo C library runs where they are.
"""

import math
import sys
from pathlib import Path

import bpy
import pytest

from articula.addon.adapters.blender_to_description import PRIM_NAME, scene_from_blender
from articula.addon.adapters.description_to_blender import build_scene
from articula.core.model import (Actuator, ActuatorKind, Body, DofAxis, DofMotion, FixedTendon, JointType,
                                 MassProperties, Mimic, PhysicsScene, Pose, TendonJoint, make_joint)

sys.path.insert(0, str(Path(__file__).parent))
from authoring_helpers import blender_differences, reset_scene_settings, snapshot_scene  # noqa: E402
from test_properties_roundtrip import differences, in_description_order  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ARM_GRIPPER_MJCF = ROOT / "tests" / "data" / "arm_gripper.xml"
ARM_GRIPPER_USD = Path.home() / ".cache" / "articula" / "corpus" / "articula_arm_gripper" / "arm_gripper.usda"


@pytest.fixture(autouse=True)
def fresh_scene_settings(clean_scene):
    reset_scene_settings(clean_scene)
    yield


# --- (d) every actuator field through Blender's properties ------------------------------------

def _body(name, z, parent=None):
    return Body(name, Pose((0.0, 0.0, z)), parent=parent,
                mass=MassProperties(1.0, diagonal_inertia=(0.01, 0.01, 0.01)))


def actuated_scene() -> PhysicsScene:
    """Every actuator field off its default somewhere: each kind, ranges, gravity compensation, a
    control at rest, a GENERAL actuator with dynamics, a tendon with its own servo, a mimic, and
    prim names that differ from the names (a converter's ``tn__`` encoding, a renamed joint)."""
    shoulder = make_joint("shoulder", JointType.REVOLUTE, None, "upper", axis="Y")
    shoulder.dofs[0].actuators = [
        Actuator.position("arm/shoulder", kp=250.0, kv=12.5, gear=2.0, ctrl_range=(-1.5, 1.25),
                          force_range=(-40.0, 35.0), gravity_compensation=True, control=0.375),
        Actuator.velocity("shoulder_speed", kv=3.5, ctrl_range=(-2.0, 2.0)),
    ]
    elbow = make_joint("elbow", JointType.REVOLUTE, "upper", "lower", axis="X")
    elbow.dofs[0].actuators = [Actuator.motor("elbow_motor", gear=7.5, ctrl_range=(-1.0, 1.0), control=-0.25)]
    slide = make_joint("slide", JointType.PRISMATIC, "lower", "left", axis="Z")
    slide.dofs[0].motion, slide.dofs[0].lower, slide.dofs[0].upper = DofMotion.LIMITED, 0.0, 0.04
    slide.dofs[0].actuators = [Actuator("filtered", gain=(5.0, 0.0, 0.5), bias=(0.25, -5.0, -1.0, 0.125),
                                        dyn_type="filterexact", gain_type="affine", dyn_params=(0.05, 0.0, 2.0))]
    right = make_joint("right_slide", JointType.PRISMATIC, "lower", "right", axis="Z")
    right.mimic = Mimic("slide", gear=-1.0, offset=0.0125, higher_terms=(0.5, 0.0, -0.25))
    twin = make_joint("twin", JointType.PRISMATIC, "lower", "twin_finger", axis="Z")
    muscle = (0.75, 1.05, -1.0, 200.0, 0.5, 1.6, 1.5, 1.3, 1.2)  # MuJoCo's muscle shortcut's parameters
    twin.dofs[0].actuators = [Actuator("flexor", gain=muscle, bias=muscle, gain_type="muscle",
                                       bias_type="muscle", dyn_type="muscle", dyn_params=(0.01, 0.04),
                                       length_range=(-0.5, 0.25))]
    tendon = FixedTendon("grip", [TendonJoint("slide", 0.5), TendonJoint("right_slide", -0.5)],
                         actuators=[Actuator.position("gripper", kp=80.0, kv=4.0, ctrl_range=(0.0, 0.04))],
                         lower=-0.01, upper=0.05, stiffness=15.0, damping=0.75, frictionloss=0.125,
                         spring_length=(0.0, 0.01), armature=0.25)
    return PhysicsScene(
        name="Actuated",
        bodies=[_body("upper", 1.0), _body("lower", 0.5, "upper"), _body("left", 0.25, "lower"),
                _body("right", 0.25, "lower"), _body("twin_finger", 0.25, "lower")],
        joints=[shoulder, elbow, slide, right, twin], tendons=[tendon],
        prim_names={"arm/shoulder": "tn__armshoulder_wB", "gripper": "gripper_servo", "grip": "tn__grip_x",
                    "lower": "forearm"})


def test_actuated_scene_sets_every_actuator_field():
    """Guards the round trip below: every field of the new types is off its default somewhere."""
    import dataclasses

    desc = actuated_scene()
    actuators = [row[0] for row in desc.actuators()]
    assert {a.kind for a in actuators} == set(ActuatorKind)
    for cls, items in ((Actuator, actuators), (FixedTendon, desc.tendons), (Mimic, [desc.joint("right_slide").mimic])):
        for f in dataclasses.fields(cls):
            default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
            assert f.name in ("name", "leader", "joints", *FRAME_ACTUATOR_FIELDS) \
                or any(getattr(i, f.name) != default for i in items), f"{cls.__name__}.{f.name}"


#: The fields of an actuator on a site, body, ball joint or spatial tendon (``frame_actuators``), which
#: this scene's DOF and tendon actuators leave at their defaults: they round-trip in
#: tests/blender/test_mujoco_objects.py.
FRAME_ACTUATOR_FIELDS = ("target_kind", "target", "reference_site", "gear_vector", "slider_site",
                         "crank_length")


def test_actuators_tendons_mimic_and_prim_names_round_trip_through_blender(clean_scene):
    desc = actuated_scene()
    build_scene(bpy.context, desc)
    back = in_description_order(desc, scene_from_blender(clean_scene))
    assert differences(desc, back) == []
    # and Blender -> description -> Blender is exact
    before = snapshot_scene(clean_scene)
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    clean_scene.articula.tendons.clear()
    build_scene(bpy.context, back)
    assert blender_differences(before, snapshot_scene(clean_scene)) == []


def test_the_blender_side_holds_them_where_the_user_edits_them(clean_scene):
    build_scene(bpy.context, actuated_scene())
    shoulder = bpy.data.objects["shoulder"].articula.joint.dofs[0]
    servo, speed = shoulder.actuators
    assert (servo.name, servo.kind, servo.kp, servo.kv, servo.gear) == ("arm/shoulder", "POSITION", 250.0, 12.5, 2.0)
    assert servo.prim_name == "tn__armshoulder_wB" and speed.kind == "VELOCITY" and speed.kv == 3.5
    assert servo.in_degrees and servo.view("control") == "control_angle"
    assert servo.control_angle == pytest.approx(0.375)  # an ANGLE view: shown in degrees, radians inside
    motor = bpy.data.objects["elbow"].articula.joint.dofs[0].actuators[0]
    assert motor.kind == "MOTOR" and not motor.in_degrees and motor.view("control") == "control"
    general = bpy.data.objects["slide"].articula.joint.dofs[0].actuators[0]
    assert general.kind == "GENERAL" and general.dyn_type == "filterexact"
    assert tuple(general.bias_prm)[:4] == (0.25, -5.0, -1.0, 0.125)
    right = bpy.data.objects["right_slide"].articula.joint
    assert right.has_mimic and right.mimic_leader == bpy.data.objects["slide"] and right.mimic_gear == -1.0
    tendon = clean_scene.articula.tendons[0]
    assert [(j.joint.name, j.coef) for j in tendon.joints] == [("slide", 0.5), ("right_slide", -0.5)]
    assert tendon.prim_name == "tn__grip_x" and tendon.actuators[0].name == "gripper"
    assert bpy.data.objects["lower"][PRIM_NAME]["name"] == "forearm"


def test_a_renamed_object_takes_its_new_name_to_usd(clean_scene):
    build_scene(bpy.context, actuated_scene())
    assert scene_from_blender(clean_scene).prim_names["lower"] == "forearm"
    bpy.data.objects["lower"].name = "forearm_link"
    assert "forearm_link" not in scene_from_blender(clean_scene).prim_names


def test_a_joint_blender_had_to_rename_leaves_under_its_own_name(clean_scene):
    """A body and a joint may share a name in USD; Blender calls the joint ``x.001``, the export ``x``."""
    desc = actuated_scene()
    desc.joints[0].name = "upper"  # the shoulder joint, named after its child body
    build_scene(bpy.context, desc)
    joint = next(o for o in clean_scene.objects if o.articula.joint.enabled and o.name.startswith("upper."))
    back = scene_from_blender(clean_scene)
    assert back.prim_names[joint.name] == "upper" and "upper" not in back.prim_names


def test_changing_a_joint_axis_keeps_its_actuators(clean_scene):
    build_scene(bpy.context, actuated_scene())
    joint = bpy.data.objects["shoulder"].articula.joint
    joint.axis = "Z"
    assert joint.dofs[0].axis == "rotZ"
    assert [a.name for a in joint.dofs[0].actuators] == ["arm/shoulder", "shoulder_speed"]
    assert joint.dofs[0].actuators[0].kp == 250.0


# --- operators and panels ----------------------------------------------------------------------

def _with_active(obj, *selected):
    bpy.ops.object.select_all(action="DESELECT")
    for item in (obj, *selected):
        item.select_set(True)
    bpy.context.view_layer.objects.active = obj


def test_actuator_operators_add_and_remove_on_a_dof_and_a_tendon(clean_scene):
    build_scene(bpy.context, actuated_scene())
    elbow = bpy.data.objects["elbow"]
    dof = elbow.articula.joint.dofs[0]
    dof.drive_enabled, dof.drive_stiffness, dof.drive_damping = True, 30.0, 2.0
    _with_active(elbow)
    assert bpy.ops.articula.actuator_add(kind="POSITION") == {"FINISHED"}
    added = dof.actuators[-1]
    assert (added.name, added.kind, added.kp, added.kv) == ("elbow", "POSITION", 30.0, 2.0)
    assert dof.active_actuator_index == 1
    assert bpy.ops.articula.actuator_add(kind="MOTOR") == {"FINISHED"}
    assert dof.actuators[-1].name == "elbow.001"  # names are unique over the scene
    assert bpy.ops.articula.actuator_remove() == {"FINISHED"}
    assert [a.name for a in dof.actuators] == ["elbow_motor", "elbow"]
    read = scene_from_blender(clean_scene).joint("elbow").dofs[0].actuators[1]
    assert (read.kind, read.kp, read.kv) == (ActuatorKind.POSITION, 30.0, 2.0)
    tendons = clean_scene.articula.tendons
    _with_active(bpy.data.objects["slide"], bpy.data.objects["twin"])
    assert bpy.ops.articula.tendon_add() == {"FINISHED"}
    assert [(j.joint.name, j.coef) for j in tendons[1].joints] == [("slide", 1.0), ("twin", 1.0)]
    assert bpy.ops.articula.actuator_add(tendon_index=1, kind="VELOCITY") == {"FINISHED"}
    assert tendons[1].actuators[0].name == "tendon" and tendons[1].actuators[0].kind == "VELOCITY"
    assert scene_from_blender(clean_scene).tendon("tendon").actuators[0].kv == 0.0
    assert bpy.ops.articula.tendon_remove() == {"FINISHED"}
    assert [t.name for t in tendons] == ["grip"]


def test_actuator_add_refuses_without_a_joint(clean_scene):
    build_scene(bpy.context, actuated_scene())
    _with_active(bpy.data.objects["upper"])
    with pytest.raises(RuntimeError, match="Select a joint"):
        bpy.ops.articula.actuator_add()


def test_the_joint_panel_shows_actuators_next_to_the_drive_and_the_tendon_panel_its_tendon(clean_scene, capfd):
    from test_panels_draw import assert_clean_output, draw_panel, drawn_props

    from articula.panels import physics

    build_scene(bpy.context, actuated_scene())
    polled, log = draw_panel(physics.ARTICULA_PT_joint, bpy.data.objects["shoulder"])
    assert polled
    labels = [entry[2] for entry in log if entry[0] == "label"]
    assert "Exported as MjcActuator; PhysX consumers get a drive made from the servo" in labels
    assert {"kind", "kp", "kv", "gear", "control_angle", "ctrl_min_angle", "ctrl_max_angle", "force_min",
            "gravity_compensation", "drive_enabled", "has_mimic"} <= drawn_props(log)
    _, log = draw_panel(physics.ARTICULA_PT_joint, bpy.data.objects["elbow"])
    assert {"control", "ctrl_min"} <= drawn_props(log, "ArticulaActuatorProps")  # a motor: N*m, no degrees
    assert "kp" not in drawn_props(log, "ArticulaActuatorProps")
    polled, log = draw_panel(physics.ARTICULA_PT_tendons, bpy.data.objects["upper"])
    assert polled and {"stiffness", "has_lower", "kp"} <= drawn_props(log)
    assert_clean_output(capfd)


# --- (a) the arm with a coupled gripper: import, export, Newton's reading ----------------------

needs_converted = pytest.mark.skipif(not ARM_GRIPPER_USD.exists(), reason="run `make corpus` first")
FRAMES = ("tool/frame", "camera_mount")  # massless frame bodies


def _newton_reads_blenders_usd() -> bool:
    from articula.addon.pxr_runtime import ensure_blender_pxr

    ensure_blender_pxr()
    from pxr import UsdPhysics

    return hasattr(UsdPhysics, "Axis")  # Blender 4.5's USD 25.02 lacks it: Newton's add_usd cannot run


def _rows():
    """tests/core/robot_models.py's comparable rows of Newton's MuJoCo actuators, tendons, couplings."""
    sys.path.insert(0, str(ROOT / "tests" / "core"))
    try:
        import robot_models
    finally:
        sys.path.pop(0)
    return robot_models


def newton_model(path, mjcf: bool = False):
    """Newton's model of a file with the MuJoCo attributes registered (as for SolverMuJoCo)."""
    import warnings

    import newton
    from newton.solvers import SolverMuJoCo

    builder = newton.ModelBuilder()
    SolverMuJoCo.register_custom_attributes(builder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if mjcf:
            builder.add_mjcf(str(path))
        else:
            from newton.usd import SchemaResolverMjc, SchemaResolverNewton, SchemaResolverPhysx

            builder.add_usd(str(path), schema_resolvers=[SchemaResolverNewton(), SchemaResolverPhysx(),
                                                         SchemaResolverMjc()])
    return builder.finalize(device="cpu")


def import_arm(source: str):
    if source == "mjcf":
        assert bpy.ops.articula.import_mjcf(filepath=str(ARM_GRIPPER_MJCF)) == {"FINISHED"}
        return ARM_GRIPPER_MJCF
    if not ARM_GRIPPER_USD.exists():
        pytest.skip("run `make corpus` first (the converted arm_gripper.usda)")
    assert bpy.ops.articula.import_usd(filepath=str(ARM_GRIPPER_USD)) == {"FINISHED"}
    return ARM_GRIPPER_USD


def _actuators_on_objects(scene) -> dict:
    found = {}
    for obj in scene.objects:
        if obj.articula.joint.enabled:
            for dof in obj.articula.joint.dofs:
                for a in dof.actuators:
                    found[a.name] = (obj.name, a.kind, round(a.kp, 3), round(a.kv, 3), a.has_ctrl_range,
                                     round(a.ctrl_min, 4), round(a.ctrl_max, 4), round(a.force_max, 3))
    return found


@pytest.mark.parametrize("source", ["mjcf", "usd"])
def test_arm_gripper_actuators_tendon_and_mimic_arrive_on_the_objects(clean_scene, source):
    import_arm(source)
    assert _actuators_on_objects(clean_scene) == {
        "arm/shoulder_yaw": ("shoulder_yaw", "POSITION", 300.0, 20.0, True, -3.0, 3.0, 80.0),
        "arm/shoulder_pitch": ("shoulder_pitch", "POSITION", 400.0, 30.0, True, -2.0, 2.0, 120.0),
        "arm/elbow": ("elbow", "POSITION", 300.0, 20.0, True, -2.5, 2.5, 80.0),
    }
    (tendon,) = clean_scene.articula.tendons
    assert [(j.joint.name, j.coef) for j in tendon.joints] == [("left_finger_slide", 0.5), ("right_finger_slide", 0.5)]
    (servo,) = tendon.actuators
    assert (tendon.name, servo.name, servo.kind, servo.kp, servo.kv) == ("grip", "gripper", "POSITION", 200.0, 5.0)
    assert (servo.ctrl_min, servo.ctrl_max) == pytest.approx((0.0, 0.03))
    left = clean_scene.objects["left_finger_slide"].articula.joint
    assert left.has_mimic and left.mimic_leader.name == "right_finger_slide"
    assert (left.mimic_gear, left.mimic_offset) == (1.0, 0.0)
    for frame in FRAMES:
        assert clean_scene.objects[frame].articula.body.enabled
    if source == "usd":  # the converter's encoded names, kept for the way out
        assert clean_scene.objects["tool/frame"][PRIM_NAME]["name"] == "tn__toolframe_eE"
        assert clean_scene.objects["shoulder_yaw"].articula.joint.dofs[0].actuators[0].prim_name == \
            "tn__armshoulder_yaw_gN"


def _prim_names(path) -> dict:
    """Prim name -> type name, of every prim of the file."""
    from pxr import Usd

    stage = Usd.Stage.Open(str(path))
    return {p.GetName(): p.GetTypeName() for p in stage.Traverse()}


@pytest.mark.parametrize("source", ["mjcf", "usd"])
def test_arm_gripper_exports_nested_to_the_actuators_newton_reads_from_the_original(clean_scene, tmp_path, source):
    """Import, export NESTED: no refusal (massless frames included), the frames under the original's
    prim names, and Newton's model of the export (MuJoCo attributes registered) has the original's
    actuator rows (target DOF, types, gains, gear, ranges), tendon and coupling."""
    original = import_arm(source)
    out = tmp_path / "arm.usda"
    assert bpy.ops.articula.export_usd(filepath=str(out), layout="NESTED") == {"FINISHED"}
    prims = _prim_names(out)
    expected_names = {"tn__toolframe_eE", "camera_mount"} if source == "usd" else {"tool_frame", "camera_mount"}
    assert expected_names <= set(prims)
    assert "articula_prim" not in out.read_text()  # Blender-side bookkeeping stays in Blender
    if source == "usd":
        assert {"tn__armshoulder_yaw_gN", "tn__armshoulder_pitch_hQ", "tn__armelbow_sC", "gripper", "grip"} <= set(prims)
        assert prims["tn__armelbow_sC"] == "MjcActuator"
    if not _newton_reads_blenders_usd():
        pytest.skip("Blender 4.5's USD 25.02 cannot run Newton's add_usd")
    rows = _rows()
    theirs, ours = newton_model(original, mjcf=source == "mjcf"), newton_model(out)
    assert len(rows.actuator_rows(ours)) == 4
    assert rows.row_differences(rows.actuator_rows(theirs), rows.actuator_rows(ours)) == []
    assert rows.tendon_rows(ours) == rows.tendon_rows(theirs)
    assert rows.coupling_rows(ours) == rows.coupling_rows(theirs) and rows.coupling_rows(ours)


# --- (b) baked with no keys: MuJoCo's own simulation of the MJCF --------------------------------

def _bake_one_second(scene, solver: str) -> None:
    """Frames 1..26 at 25 fps and 20 substeps: 1 s in MuJoCo's own 2 ms steps (the MJCF's timestep)."""
    scene.render.fps, scene.render.fps_base = 25, 1.0
    scene.frame_start, scene.frame_end = 1, 26
    scene.frame_set(1)
    assert bpy.ops.articula.bake(solver=solver, substeps=20) == {"FINISHED"}
    scene.frame_set(26)


@pytest.mark.parametrize("source", ["mjcf", "usd"])
def test_arm_gripper_baked_without_keys_follows_mujocos_own_simulation(clean_scene, source):
    """ctrl = 0 on every actuator: every body, fingers and massless frames included, within 1 cm of
    the ``mujoco`` C library's simulation of the MJCF after 1 s (measured: under 0.001 mm)."""
    import mujoco
    import numpy as np

    import_arm(source)
    _bake_one_second(clean_scene, "MUJOCO")
    model = mujoco.MjModel.from_xml_path(str(ARM_GRIPPER_MJCF))
    data = mujoco.MjData(model)
    for _ in range(round(1.0 / model.opt.timestep)):
        mujoco.mj_step(model, data)
    errors = {}
    for body in range(1, model.nbody):
        name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, body)
        errors[name] = float(np.linalg.norm(np.array(clean_scene.objects[name].matrix_world.translation)
                                            - data.xpos[body]))
    assert set(errors) >= {"left_finger", "right_finger", *FRAMES}
    assert max(errors.values()) < 0.01, errors
    assert abs(data.qpos[1]) > 0.01  # the arm did sag: the comparison is not of two robots at rest


# --- (c) a keyed control drives the baked robot --------------------------------------------------

def _joint_angle(joint) -> float:
    """The joint's angle (revolute, about its axis) from its two bodies' world rotations."""
    props = joint.articula.joint
    relative = props.body0.matrix_world.to_quaternion().inverted() @ props.body1.matrix_world.to_quaternion()
    axis, angle = relative.to_axis_angle()
    return angle * axis["XYZ".index(props.axis)]


@pytest.mark.parametrize("solver", ["MUJOCO", "FEATHERSTONE"])
def test_a_control_keyed_from_0_to_45_degrees_drives_the_baked_joint_there(clean_scene, solver):
    from authoring_helpers import snapshot_props

    import_arm("mjcf")
    joint = clean_scene.objects["shoulder_yaw"]
    servo = joint.articula.joint.dofs[0].actuators[0]
    path = "articula.joint.dofs[0].actuators[0].control_angle"  # what pressing I over the field keys
    servo.control_angle = 0.0
    joint.keyframe_insert(path, frame=1)
    servo.control_angle = math.radians(45.0)
    joint.keyframe_insert(path, frame=26)
    clean_scene.frame_set(1)
    authored = snapshot_props(joint.articula)
    _bake_one_second(clean_scene, solver)
    assert math.degrees(_joint_angle(joint)) == pytest.approx(45.0, abs=2.0)
    clean_scene.frame_set(13)
    assert 5.0 < math.degrees(_joint_angle(joint)) < 40.0  # on its way: it followed the keys
    clean_scene.frame_set(1)
    assert snapshot_props(joint.articula) == authored  # the authored robot and its keys are untouched
    assert math.degrees(_joint_angle(joint)) == pytest.approx(0.0, abs=1e-4)


def test_simulate_follows_a_keyed_control_frame_by_frame(clean_scene):
    """The live Simulate (here ``execute`` with ``frames``: the bpy module has no event loop) reads the
    keyed control each frame as the bake does."""
    import_arm("mjcf")
    clean_scene.render.fps, clean_scene.render.fps_base = 25, 1.0
    joint = clean_scene.objects["elbow"]
    servo = joint.articula.joint.dofs[0].actuators[0]
    path = "articula.joint.dofs[0].actuators[0].control"  # keyed in radians, on the raw property
    servo.control = 0.0
    joint.keyframe_insert(path, frame=1)
    servo.control = -0.5
    joint.keyframe_insert(path, frame=26)
    clean_scene.frame_set(1)
    assert bpy.ops.articula.simulate(solver="MUJOCO", frames=30) == {"FINISHED"}
    assert clean_scene.frame_current == 31
    assert _joint_angle(joint) == pytest.approx(-0.5, abs=math.radians(2.0))


# --- the converted corpus through Blender: the export has the original's actuators --------------

CORPUS = Path.home() / ".cache" / "articula" / "corpus"
CORPUS_ROBOTS = ["gym_ant", "gym_half_cheetah", "gym_hopper", "gym_humanoid", "gym_humanoidstandup",
                 "gym_inverted_double_pendulum", "gym_inverted_pendulum", "gym_pusher", "gym_reacher",
                 "gym_swimmer", "gym_walker2d", "newton_nv_ant", "newton_nv_humanoid", "articula_arm_gripper"]
#: Newton 1.8 cannot load these with the MuJoCo attributes at all (tests/core/test_corpus.py says why).
MUJOCO_ATTRIBUTES_UNLOADABLE = ("gym_humanoid", "gym_humanoidstandup")


@pytest.mark.parametrize("key", CORPUS_ROBOTS)
def test_converted_robot_exports_nested_with_the_originals_actuator_rows(clean_scene, tmp_path, key):
    """mujoco-usd-converter's robots through the operators: import, export NESTED; Newton's model of
    the export (MuJoCo attributes registered) has the original's actuator rows (target DOF, types,
    gains, gear, control and force ranges), fixed tendons and joint couplings."""
    files = sorted((CORPUS / key).glob("*.usda"))
    if not files:
        pytest.skip(f"{key} not converted: run `make corpus`")
    assert bpy.ops.articula.import_usd(filepath=str(files[0])) == {"FINISHED"}
    out = tmp_path / "robot.usda"
    assert bpy.ops.articula.export_usd(filepath=str(out), layout="NESTED") == {"FINISHED"}
    if not _newton_reads_blenders_usd():
        pytest.skip("Blender 4.5's USD 25.02 cannot run Newton's add_usd")
    if key in MUJOCO_ATTRIBUTES_UNLOADABLE:
        with pytest.raises(ValueError, match="pgs"):
            newton_model(files[0])
        pytest.skip("Newton 1.8 parses mjc:option:solver and knows no \"pgs\"")
    from articula.core.usd.reader import read_usd

    rows = _rows()
    theirs, ours = newton_model(files[0]), newton_model(out)
    read = read_usd(str(files[0]))  # bodies matched by meaning, as tests/core/test_corpus.py does
    by_path = {path: name.split(":", 1)[1] for name, path in read.prim_paths.items() if name.startswith("body:")}
    kept = {prim: name for name, prim in read.scene.prim_names.items()}

    def their_body(label):  # the body's description name (the converter's several ``Body`` prims differ)
        return by_path[label]

    def our_body(label):  # the export's prim names: the description's, or those the file gave
        return kept.get(label.rsplit("/", 1)[-1], label.rsplit("/", 1)[-1])

    for kind in ("actuator_rows", "tendon_rows", "coupling_rows"):
        table = getattr(rows, kind)
        assert rows.row_differences(table(theirs, their_body), table(ours, our_body), kind) == []
    assert len(rows.actuator_rows(ours)) == len(rows.actuator_rows(theirs))


# --- URDF: mimic joints and effort transmissions ------------------------------------------------

URDF_GRIPPER = Path(__file__).resolve().parents[1] / "data" / "gripper_mimic.urdf"  # shared with the core tier


def test_urdf_mimic_and_effort_transmission_arrive_on_the_objects(clean_scene, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo's compiler writes its log into the working folder
    assert bpy.ops.articula.import_urdf(filepath=str(URDF_GRIPPER)) == {"FINISHED"}
    right = clean_scene.objects["right_slide"].articula.joint
    assert right.has_mimic and right.mimic_leader.name == "left_slide"
    assert (right.mimic_gear, right.mimic_offset) == pytest.approx((-1.0, 0.001))
    (motor,) = clean_scene.objects["left_slide"].articula.joint.dofs[0].actuators
    assert (motor.kind, motor.gear, motor.has_ctrl_range) == ("MOTOR", 1.0, True)
    assert (motor.ctrl_min, motor.ctrl_max) == pytest.approx((-20.0, 20.0))
    desc = scene_from_blender(clean_scene)
    assert desc.joint("right_slide").mimic == Mimic("left_slide", pytest.approx(-1.0), pytest.approx(0.001))
