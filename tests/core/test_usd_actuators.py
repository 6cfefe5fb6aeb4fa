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
    """MuJoCo's frame bodies (no mass, no geoms): written, named as in the file, one warning each."""
    from pxr import Usd

    from articula.core.usd.reader import read_usd
    from articula.core.usd.writer import write_usd

    scene = read_usd(CONVERTED).scene
    out = str(tmp_path / "arm.usda")
    problems = write_usd(scene, out)
    assert sorted(p.split(":")[1].strip() for p in problems if "no colliders and no mass" in p) == [
        "camera_mount", "tool/frame"]
    stage = Usd.Stage.Open(out)
    frames = {p.GetName(): p for p in stage.Traverse() if p.GetName() in ("camera_mount", "tn__toolframe_eE")}
    assert frames["tn__toolframe_eE"].GetDisplayName() == "tool/frame"
    assert [float(f.GetAttribute("physics:mass").Get()) for f in frames.values()] == [0.0, 0.0]
    assert {b.name for b in read_usd(out).scene.bodies} >= {"camera_mount", "tool/frame"}
