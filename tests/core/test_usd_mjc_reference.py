"""MuJoCo's joint reference ``mjc:ref``: limits are absolute in MuJoCo and the authored pose is the
joint at ``ref`` (degrees unless the scene's ``mjc:compiler:angle`` says radians). The description
keeps the file's coordinate: limits as authored, ``Dof.reference`` = ref; Newton's add_usd shifts
the limits by -ref itself, and reads our export as it reads the original."""

import math

import pytest
from pxr import Sdf, UsdPhysics

from articula.core import samples
from articula.core.model import DofMotion
from articula.core.usd.reader import read_usd
from articula.core.usd.writer import build_stage


def _pendulum_with_ref(ref: float, compiler_angle=None):
    scene = samples.pendulum()
    dof = scene.joints[0].dofs[0]
    dof.motion, dof.lower, dof.upper = DofMotion.LIMITED, -1.0, 1.5
    stage = build_stage(scene, "NESTED")
    joint = next(p for p in stage.Traverse() if p.IsA(UsdPhysics.RevoluteJoint))
    joint.CreateAttribute("mjc:ref", Sdf.ValueTypeNames.Double, custom=True).Set(ref)
    if compiler_angle:
        physics_scene = next(p for p in stage.Traverse() if p.IsA(UsdPhysics.Scene))
        physics_scene.CreateAttribute("mjc:compiler:angle", Sdf.ValueTypeNames.Token, custom=True).Set(compiler_angle)
    return scene, stage, joint.GetName()


@pytest.mark.parametrize("ref, compiler_angle, shift", [(10.0, None, math.radians(10.0)),
                                                         (0.25, "radian", 0.25)])
def test_limits_stay_in_the_files_coordinate_and_the_reference_is_kept(ref, compiler_angle, shift):
    scene, stage, name = _pendulum_with_ref(ref, compiler_angle)
    dof = scene.joints[0].dofs[0]
    assert math.isfinite(dof.lower) and math.isfinite(dof.upper)
    read = read_usd(stage).scene.joints[0].dofs[0]
    assert (read.lower, read.upper) == pytest.approx((dof.lower, dof.upper), abs=1e-6)
    assert read.reference == pytest.approx(shift, abs=1e-9)


def test_newton_reads_the_same_limits_from_the_original_and_our_export():
    pytest.importorskip("newton_usd_schemas")
    from .test_usd_newton import load_newton
    _, stage, _ = _pendulum_with_ref(10.0)
    original = load_newton(stage)
    ours = load_newton(build_stage(read_usd(stage).scene, "NESTED"))
    for attr in ("joint_limit_lower", "joint_limit_upper"):
        assert getattr(original, attr).numpy() == pytest.approx(getattr(ours, attr).numpy(), abs=1e-5), attr
