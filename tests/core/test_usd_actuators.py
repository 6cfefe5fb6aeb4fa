"""MuJoCo actuators, fixed tendons and mimic joints through USD (issue 16), checked with Newton 1.8's
own reading of the files (``SolverMuJoCo.register_custom_attributes`` + ``add_usd``)."""

from __future__ import annotations

import os
import warnings

import pytest

newton = pytest.importorskip("newton")
pytest.importorskip("newton_usd_schemas")

from .robot_models import actuator_rows, coupling_rows, load_usd_mujoco, row_differences, tendon_rows  # noqa: E402

FIXTURE_XML = os.path.join(os.path.dirname(__file__), "..", "data", "arm_gripper.xml")
CONVERTED = os.path.expanduser("~/.cache/articula/corpus/articula_arm_gripper/arm_gripper.usda")
needs_converted = pytest.mark.skipif(not os.path.exists(CONVERTED), reason="run `make corpus` first")


def newton_mjcf_model(path):
    from newton.solvers import SolverMuJoCo

    builder = newton.ModelBuilder()
    SolverMuJoCo.register_custom_attributes(builder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder.add_mjcf(path)
    return builder.finalize(device="cpu")


@needs_converted
def test_rows_of_the_converted_fixture_match_newtons_mjcf_reading():
    """The comparison helpers see the same motors, tendon and coupling in the converter's USD as in
    Newton's own reading of the MJCF (so they can be used to compare our exports)."""
    usd, mjcf = load_usd_mujoco(CONVERTED), newton_mjcf_model(FIXTURE_XML)
    rows = actuator_rows(usd)
    assert [r["target"] for r in rows] == ["joint forearm dof 0", "joint shoulder dof 0", "joint upper_arm dof 0",
                                             "tendon grip"]
    assert rows[0]["gainprm"][0] == 300.0 and rows[0]["force_limits"] == (-80.0, 80.0)
    assert row_differences(rows, actuator_rows(mjcf)) == []
    assert tendon_rows(usd) == tendon_rows(mjcf) and len(tendon_rows(usd)) == 1
    assert coupling_rows(usd), "the fixture's finger coupling"


# --- the converted fixture through read -> write -> Newton ------------------------------------------------

def _prim_names(stage, type_name=None):
    return sorted(p.GetName() for p in stage.Traverse() if type_name is None or p.GetTypeName() == type_name)


@needs_converted
@pytest.mark.parametrize("layout", ["NESTED", "FLAT"])
def test_fixture_keeps_actuators_tendon_mimic_and_prim_names(layout):
    from pxr import Usd

    from articula.core.usd.compare import scene_differences
    from articula.core.usd.reader import read_usd
    from articula.core.usd.writer import build_stage

    read = read_usd(CONVERTED)
    scene = read.scene
    assert [a.name for a, *_ in scene.actuators()] == ["arm/elbow", "arm/shoulder_pitch", "arm/shoulder_yaw",
                                                      "gripper"]
    assert scene.joint("left_finger_slide").mimic.leader == "right_finger_slide"
    assert [tj.joint for tj in scene.tendon("grip").joints] == ["left_finger_slide", "right_finger_slide"]
    assert all(not d.drive_enabled for j in scene.joints for d in j.dofs), "readers invent no drive"
    stage = build_stage(scene, layout)
    original = Usd.Stage.Open(CONVERTED)
    for type_name in ("MjcActuator", "MjcTendon"):
        assert _prim_names(stage, type_name) == _prim_names(original, type_name)
    assert "tn__toolframe_eE" in _prim_names(stage)
    a, b = load_usd_mujoco(CONVERTED), load_usd_mujoco(stage)
    assert row_differences(actuator_rows(a), actuator_rows(b)) == []
    assert tendon_rows(a) == tendon_rows(b) and coupling_rows(a) == coupling_rows(b)
    assert (a.joint_target_ke.numpy() == b.joint_target_ke.numpy()).all()
    assert (a.joint_target_kd.numpy() == b.joint_target_kd.numpy()).all()
    # The drive derived for PhysX carries the servo's force limit: Newton reads it as the effort limit.
    servo_dofs = a.joint_target_ke.numpy() > 0
    assert b.joint_effort_limit.numpy()[servo_dofs].tolist() == [80.0, 120.0, 80.0]
    again = read_usd(stage).scene  # the derived drives read back as the servos alone
    assert scene_differences(scene, again) == []
    assert again.prim_names == scene.prim_names == {
        "tool/frame": "tn__toolframe_eE", "arm/shoulder_yaw": "tn__armshoulder_yaw_gN",
        "arm/shoulder_pitch": "tn__armshoulder_pitch_hQ", "arm/elbow": "tn__armelbow_sC"}


# --- hand-written stages -----------------------------------------------------------------------------------

PENDULUM = """#usda 1.0
(
    defaultPrim = "robot"
    metersPerUnit = 1
    upAxis = "Z"
)
def Xform "robot" (prepend apiSchemas = ["PhysicsArticulationRootAPI"])
{
    def Xform "base" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {
        float physics:mass = 1
        float3 physics:diagonalInertia = (0.01, 0.01, 0.01)
        def PhysicsFixedJoint "anchor"
        {
            rel physics:body1 = </robot/base>
        }
        def Xform "arm" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
        {
            double3 xformOp:translate = (0, 0, -0.5)
            uniform token[] xformOpOrder = ["xformOp:translate"]
            float physics:mass = 1
            float3 physics:diagonalInertia = (0.02, 0.02, 0.01)
            def PhysicsRevoluteJoint "hinge" (prepend apiSchemas = ["MjcJointAPI"])
            {
                uniform token physics:axis = "Y"
                rel physics:body0 = </robot/base>
                rel physics:body1 = </robot/base/arm>
                point3f physics:localPos0 = (0, 0, -0.5)
                uniform bool mjc:actuatorgravcomp = 1
            }
            def Xform "arm2" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
            {
                double3 xformOp:translate = (0, 0, -0.5)
                uniform token[] xformOpOrder = ["xformOp:translate"]
                float physics:mass = 1
                float3 physics:diagonalInertia = (1e-6, 3e-6, 2e-6)
                def PhysicsRevoluteJoint "follower" (prepend apiSchemas = ["NewtonMimicAPI"])
                {
                    uniform token physics:axis = "Y"
                    rel physics:body0 = </robot/base/arm>
                    rel physics:body1 = </robot/base/arm/arm2>
                    point3f physics:localPos0 = (0, 0, -0.5)
                    rel newton:mimicJoint = </robot/base/arm/hinge>
                    float newton:mimicCoef0 = 30
                    float newton:mimicCoef1 = -2
                }
            }
        }
    }
    def Scope "Physics"
    {
        def MjcActuator "servo"
        {
            rel mjc:target = </robot/base/arm/hinge>
            uniform double[] mjc:gainPrm = [50, 0, 0, 0, 0, 0, 0, 0, 0, 0]
            uniform double[] mjc:biasPrm = [0, -50, -4, 0, 0, 0, 0, 0, 0, 0]
            uniform token mjc:biasType = "affine"
            uniform double mjc:ctrlRange:min = -45
            uniform double mjc:ctrlRange:max = 45
        }
        def MjcActuator "motor"
        {
            rel mjc:target = </robot/base/arm/hinge>
            uniform double[] mjc:gear = [2.5, 0, 0, 0, 0, 0]
            uniform token mjc:forceLimited = "false"
            uniform double mjc:forceRange:min = -1
            uniform double mjc:forceRange:max = 1
        }
        def MjcActuator "broken"
        {
            rel mjc:target = </robot/nowhere>
        }
    }
}
"""


def _pendulum(tmp_path):
    path = tmp_path / "pendulum.usda"
    path.write_text(PENDULUM)
    return str(path)


def test_actuator_values_are_mujocos_own_with_schema_defaults(tmp_path):
    """ctrlRange is MuJoCo-native (radians for a hinge: 45 stays 45, as the converter and MuJoCo keep it
    under compiler angle=degree); unauthored attributes take the MjcActuator schema's defaults."""
    from articula.core.model import ActuatorKind
    from articula.core.usd.reader import read_usd

    read = read_usd(_pendulum(tmp_path))
    servo, motor = read.scene.joint("hinge").dofs[0].actuators
    assert servo.kind == ActuatorKind.POSITION and (servo.kp, servo.kv) == (50.0, 4.0)
    assert servo.ctrl_range == (-45.0, 45.0) and servo.force_range is None
    assert servo.gravity_compensation and motor.gravity_compensation
    assert motor.kind == ActuatorKind.MOTOR and motor.gear == 2.5
    assert motor.ctrl_range is None and motor.force_range is None, "forceLimited false wins over a range"


def test_broken_actuator_is_skipped_with_a_warning_naming_it(tmp_path):
    from articula.core.usd.reader import read_usd

    read = read_usd(_pendulum(tmp_path))
    assert [w for w in read.warnings if w.startswith("/robot/Physics/broken:")] == [
        "/robot/Physics/broken: MjcActuator target /robot/nowhere is no joint or fixed tendon read from this "
        "file; actuator skipped"]
    assert [a.name for a, *_ in read.scene.actuators()] == ["servo", "motor"]
    assert len(read.scene.joints) == 3 and len(read.scene.bodies) == 3


def test_mimic_offset_in_degrees_on_a_revolute_follower(tmp_path):
    """newton:mimicCoef0 is in the follower's USD unit (degrees on a revolute): 30 -> pi/6, and back."""
    import math

    from articula.core.usd.reader import read_usd
    from articula.core.usd.writer import build_stage

    scene = read_usd(_pendulum(tmp_path)).scene
    mimic = scene.joint("follower").mimic
    assert mimic.leader == "hinge" and mimic.gear == -2.0 and math.isclose(mimic.offset, math.pi / 6, rel_tol=1e-6)
    source, ours = load_usd_mujoco(_pendulum(tmp_path)), load_usd_mujoco(build_stage(scene))
    mimics = [("mimic", "arm2", "arm", 0.5236, -2.0)]
    follower = 2  # NewtonMimicAPI alone: add_usd's set_joint_mimic, held by the follower joint
    assert source.joint_mimic_joint.numpy()[follower] == 1
    assert [round(float(c), 5) for c in source.joint_mimic_coeffs.numpy()[follower]] == [0.5236, -2.0]
    # Written as the converter writes a coupling (NewtonMimicAPI + MjcEqualityJointAPI): Newton keeps the
    # mimic and, for MuJoCo, the joint equality it stands for.
    assert coupling_rows(ours) == [("equality", "arm2", "arm", (0.5236, -2.0, 0.0, 0.0, 0.0))] + mimics
    kept = [r for r in actuator_rows(source) if r["target"] == "joint arm dof 0"]  # not the broken one
    assert len(kept) == 2 and row_differences(kept, actuator_rows(ours)) == []
    assert read_usd(build_stage(scene)).scene.joint("follower").mimic == mimic


def test_inertia_on_the_triangle_limit_through_float32_validates_clean(tmp_path):
    """(1e-6, 3e-6, 2e-6) kg m^2 is exactly on the limit; float32 rounding puts the largest 1.1e-13
    above the sum of the others. Compared in the file's precision, no error and no warning."""
    from articula.core.usd.reader import read_usd
    from articula.core.usd.writer import write_usd
    from articula.core.validation import validate

    scene = read_usd(_pendulum(tmp_path)).scene
    inertia = scene.body("arm2").mass.diagonal_inertia
    assert inertia[1] > inertia[0] + inertia[2], "float32 rounding crossed the limit"
    assert [str(p) for p in validate(scene) if p.subject == "arm2"] == []
    problems = write_usd(scene, str(tmp_path / "out.usda"))
    assert [p for p in problems if "arm2" in p] == []
    again = read_usd(str(tmp_path / "out.usda")).scene
    assert [str(p) for p in validate(again) if p.subject == "arm2"] == []


@needs_converted
def test_massless_frame_bodies_export_with_their_names_then_warn(tmp_path):
    """MuJoCo's frame bodies (no mass, no geoms): written, named as in the file, one warning each where
    they move (camera_mount is welded to the world, which needs no mass)."""
    from pxr import Usd

    from articula.core.usd.reader import read_usd
    from articula.core.usd.writer import write_usd

    scene = read_usd(CONVERTED).scene
    out = str(tmp_path / "arm.usda")
    problems = write_usd(scene, out)
    assert sorted(p.split(":")[1].strip() for p in problems if "no colliders and no mass" in p) == [
        "tool/frame"]
    stage = Usd.Stage.Open(out)
    frames = {p.GetName(): p for p in stage.Traverse() if p.GetName() in ("camera_mount", "tn__toolframe_eE")}
    assert frames["tn__toolframe_eE"].GetDisplayName() == "tool/frame"
    assert [float(f.GetAttribute("physics:mass").Get()) for f in frames.values()] == [0.0, 0.0]
    assert {b.name for b in read_usd(out).scene.bodies} >= {"camera_mount", "tool/frame"}


# --- PD servos as PhysicsDriveAPI for consumers that read no MjcActuator --------------------------------

SERVO_GEARS_XML = os.path.join(os.path.dirname(__file__), "..", "data", "servo_gears.xml")
#: The ctrl each servo is exported at, and the state MuJoCo's force law is evaluated in (inside every
#: force range, so the clamp stays out of the comparison): (joint, actuator, ctrl, q, qdot).
SERVO_STATES = [("joint1", "actuator1", 0.01, 0.005, 0.01), ("joint2", "actuator2", 0.01, 0.005, 0.01),
                ("joint3", "actuator3", 0.3, 0.03, 0.02), ("joint4", "spinner", 0.4, 0.1, 0.2)]


def _newton_plain(source):
    """Newton's model of a USD file as a consumer that reads no MjcActuator sees it."""
    builder = newton.ModelBuilder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder.add_usd(source)
    return builder.finalize(device="cpu")


def _dof_index(model, joint: str) -> int:
    labels = [label.rsplit("/", 1)[-1] for label in model.joint_label]
    return int(model.joint_qd_start.numpy()[labels.index(joint)])


def _servo_export(tmp_path):
    from articula.core.mjcf import read_mjcf
    from articula.core.usd.writer import write_usd

    scene = read_mjcf(SERVO_GEARS_XML).scene
    for joint, actuator, ctrl, _, _ in SERVO_STATES:
        next(a for d in scene.joint(joint).dofs for a in d.actuators if a.name == actuator).control = ctrl
    path = str(tmp_path / "servo_gears.usda")
    return scene, path, write_usd(scene, path)


def test_every_joint_servo_is_a_drive_with_mujocos_torque_at_any_gear(tmp_path):
    """<general> (gain, bias 0/-kp/-kv) and <position>/<velocity> servos at gears 1, 2, 3 and -0.5: Newton's
    plain add_usd (no MuJoCo resolver) of the export gives each DOF the torque MuJoCo's C library gives the
    original MJCF in the same state (stiffness kp*gear^2, damping kv*gear^2, target ctrl/gear), and the
    force range times the gear as its effort limit."""
    import mujoco

    _, path, _ = _servo_export(tmp_path)
    model = _newton_plain(path)
    ke, kd = model.joint_target_ke.numpy(), model.joint_target_kd.numpy()
    target_q, target_qd = model.joint_target_q.numpy(), model.joint_target_qd.numpy()
    original = mujoco.MjModel.from_xml_path(SERVO_GEARS_XML)
    for joint, actuator, ctrl, q, qdot in SERVO_STATES:
        data = mujoco.MjData(original)
        j = original.joint(joint)
        data.qpos[j.qposadr[0]], data.qvel[j.dofadr[0]] = q, qdot
        data.ctrl[original.actuator(actuator).id] = ctrl
        mujoco.mj_forward(original, data)
        dof = _dof_index(model, joint)
        drive = ke[dof] * (target_q[dof] - q) + kd[dof] * (target_qd[dof] - qdot)
        assert drive == pytest.approx(data.qfrc_actuator[j.dofadr[0]], rel=1e-5), joint
    assert ke[_dof_index(model, "joint2")] == pytest.approx(4 * 4500.0, rel=1e-6)  # not 4500: gear^2
    assert kd[_dof_index(model, "joint4")] == pytest.approx(0.25 * 8.0, rel=1e-6)
    effort = model.joint_effort_limit.numpy()
    assert [effort[_dof_index(model, j)] for j in ("joint1", "joint2", "joint3")] == pytest.approx([87, 174, 15])
    for finger in ("slide_a", "slide_b"):  # the tendon's servo is no joint drive
        assert ke[_dof_index(model, finger)] == 0.0 and kd[_dof_index(model, finger)] == 0.0


def test_servo_drives_and_actuators_are_simulated_once_by_newtons_mujoco_reading(tmp_path):
    """With the MuJoCo resolver Newton reads both the drive and the MjcActuator: it sees the same gains as
    the plain reading and one MuJoCo actuator per file actuator (a servo at another gear is written at
    gear 1, the same torque, so Newton does not add the drive's actuator beside it)."""
    from newton.solvers import SolverMuJoCo

    _, path, _ = _servo_export(tmp_path)
    plain, mujoco_reading = _newton_plain(path), load_usd_mujoco(path)
    assert (plain.joint_target_ke.numpy() == mujoco_reading.joint_target_ke.numpy()).all()
    assert (plain.joint_target_kd.numpy() == mujoco_reading.joint_target_kd.numpy()).all()
    solver = SolverMuJoCo(mujoco_reading, use_mujoco_cpu=True, separate_worlds=False)
    assert solver.mj_model.nu == 6


def test_servos_at_any_gear_read_back_as_written_and_others_are_named(tmp_path):
    """The export reads back as the MJCF's actuators (gear, gains, ranges, ctrl), and its warnings name
    what no drive can carry: the tendon's servo."""
    from articula.core.usd.compare import scene_differences
    from articula.core.usd.reader import read_usd

    scene, path, warnings_ = _servo_export(tmp_path)
    again = read_usd(path).scene
    assert scene_differences(scene, again) == []
    actuator2 = again.joint("joint2").dofs[0].actuators[0]
    assert (actuator2.gear, actuator2.kp, actuator2.control) == (2.0, 4500.0, 0.01)
    assert not any(d.drive_enabled for j in again.joints for d in j.dofs), "the drives read back as the servos"
    named = [w for w in warnings_ if "cannot be a joint drive" in w]
    assert len(named) == 1 and "'gripper' (tendon 'grip')" in named[0]
    assert "actuator" not in " ".join(w for w in warnings_ if w not in named)


@needs_converted
def test_converted_fixtures_servos_reach_a_plain_reader(tmp_path):
    """The converted arm's servos, exported by Articula, give Newton's plain add_usd the gains Newton's
    MuJoCo reading of the converter's file has (which a plain reading of that file lacks)."""
    from articula.core.usd.reader import read_usd
    from articula.core.usd.writer import write_usd

    path = str(tmp_path / "arm.usda")
    write_usd(read_usd(CONVERTED).scene, path)
    reference, ours = load_usd_mujoco(CONVERTED), _newton_plain(path)
    assert (_newton_plain(CONVERTED).joint_target_ke.numpy() == 0).all()
    assert (reference.joint_target_ke.numpy() > 0).sum() == 3
    assert ours.joint_target_ke.numpy() == pytest.approx(reference.joint_target_ke.numpy(), rel=1e-6)
    assert ours.joint_target_kd.numpy() == pytest.approx(reference.joint_target_kd.numpy(), rel=1e-6)
