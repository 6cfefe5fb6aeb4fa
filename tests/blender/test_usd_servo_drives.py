"""MuJoCo servos reach consumers that read only PhysicsDriveAPI, through Blender's operators (4.5 and 5.2):
an MJCF arm whose joints are <general>/<position>/<velocity> servos at gears 1, 2, 3 and -0.5, imported with
``articula.import_mjcf`` and exported with ``articula.export_usd``, carries on each servo's joint a drive
of stiffness kp*gear^2 and damping kv*gear^2 (per degree), and the export's warnings name the servo on a
tendon, which no drive can carry. The torques are checked against MuJoCo's C library bpy-free
(tests/core/test_usd_actuators.py); here the Blender path writes the same drives."""

import math
import os

import bpy
import pytest

pytest.importorskip("mujoco")

from articula.addon.pxr_runtime import ensure_blender_pxr  # noqa: E402

ensure_blender_pxr()
from pxr import Usd, UsdPhysics  # noqa: E402

SERVO_GEARS_XML = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                               "servo_gears.xml")
PER_DEGREE = math.pi / 180.0
#: joint -> (stiffness, damping) in SI: gain * gear^2.
EXPECTED = {"joint1": (4500.0, 450.0), "joint2": (4 * 4500.0, 4 * 450.0), "joint3": (9 * 20.0, 9 * 2.0),
            "joint4": (0.0, 0.25 * 8.0)}


def _drives(path) -> dict[str, tuple[float, float, float]]:
    stage = Usd.Stage.Open(path)
    found = {}
    for prim in stage.Traverse():
        drive = UsdPhysics.DriveAPI.Get(prim, "angular")
        if prim.IsA(UsdPhysics.Joint) and drive:
            found[prim.GetName()] = (drive.GetStiffnessAttr().Get(), drive.GetDampingAttr().Get(),
                                     drive.GetMaxForceAttr().Get())
    return found


def test_servos_at_any_gear_export_as_drives_through_the_operators(clean_scene, tmp_path, monkeypatch, capfd):
    monkeypatch.chdir(tmp_path)  # MuJoCo's log, if any
    assert bpy.ops.articula.import_mjcf(filepath=SERVO_GEARS_XML) == {"FINISHED"}
    path = str(tmp_path / "servo_gears.usda")
    capfd.readouterr()
    assert bpy.ops.articula.export_usd(filepath=path) == {"FINISHED"}
    reported = capfd.readouterr()
    drives = _drives(path)
    assert sorted(drives) == sorted(EXPECTED), drives
    for joint, (stiffness, damping) in EXPECTED.items():
        assert drives[joint][0] == pytest.approx(stiffness * PER_DEGREE, rel=1e-5), joint
        assert drives[joint][1] == pytest.approx(damping * PER_DEGREE, rel=1e-5), joint
    assert drives["joint2"][2] == pytest.approx(2 * 87.0) and drives["joint3"][2] == pytest.approx(3 * 5.0)
    assert "'gripper' (tendon 'grip')" in reported.out + reported.err


@pytest.mark.skipif(not hasattr(UsdPhysics, "Axis"), reason="Newton's add_usd needs UsdPhysics.Axis (USD 25.05+)")
def test_newtons_plain_reading_of_the_blender_export_has_the_servo_gains(clean_scene, tmp_path, monkeypatch):
    import warnings

    import newton

    monkeypatch.chdir(tmp_path)
    assert bpy.ops.articula.import_mjcf(filepath=SERVO_GEARS_XML) == {"FINISHED"}
    path = str(tmp_path / "servo_gears.usda")
    assert bpy.ops.articula.export_usd(filepath=path) == {"FINISHED"}
    builder = newton.ModelBuilder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder.add_usd(path)  # no MuJoCo resolver: what PhysX-style consumers see
    model = builder.finalize(device="cpu")
    labels = [label.rsplit("/", 1)[-1] for label in model.joint_label]
    starts = model.joint_qd_start.numpy()
    ke, kd = model.joint_target_ke.numpy(), model.joint_target_kd.numpy()
    for joint, (stiffness, damping) in EXPECTED.items():
        dof = starts[labels.index(joint)]
        assert (ke[dof], kd[dof]) == pytest.approx((stiffness, damping), rel=1e-5), joint
