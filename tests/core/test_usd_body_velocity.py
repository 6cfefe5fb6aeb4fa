"""A body's initial velocities from USD: authored ones brought to Z-up meters and radians per second,
unauthored ones zero (the reader skips the transform for them: the same numbers)."""

import math

import pytest
from pxr import Gf, Usd, UsdGeom, UsdPhysics

from articula.core.usd.reader import read_usd


def _stage(up_axis, meters_per_unit: float) -> Usd.Stage:
    """Three free bodies: velocities unauthored, authored as zero, and authored (stage units, degrees)."""
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageUpAxis(stage, up_axis)
    UsdGeom.SetStageMetersPerUnit(stage, meters_per_unit)
    UsdGeom.Xform.Define(stage, "/World")
    velocities = {"still": None, "zero": ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0)),
                  "moving": ((1.0, 2.0, 3.0), (0.0, 90.0, 180.0))}
    for name, authored in velocities.items():
        body = UsdPhysics.RigidBodyAPI.Apply(UsdGeom.Xform.Define(stage, f"/World/{name}").GetPrim())
        if authored is not None:
            body.CreateVelocityAttr(Gf.Vec3f(*authored[0]))
            body.CreateAngularVelocityAttr(Gf.Vec3f(*authored[1]))
    return stage


@pytest.mark.parametrize("up_axis, meters", [(UsdGeom.Tokens.z, 1.0), (UsdGeom.Tokens.y, 0.01)])
def test_velocities_in_z_up_meters_and_radians(up_axis, meters):
    bodies = {body.name: body for body in read_usd(_stage(up_axis, meters)).scene.bodies}
    for name in ("still", "zero"):
        assert bodies[name].linear_velocity == (0.0, 0.0, 0.0)
        assert bodies[name].angular_velocity == (0.0, 0.0, 0.0)
    moving = bodies["moving"]
    if up_axis == UsdGeom.Tokens.z:
        linear, angular = (1.0, 2.0, 3.0), (0.0, math.pi / 2, math.pi)
    else:  # Y up: stage Y is Z, stage Z is -Y
        linear, angular = (0.01, -0.03, 0.02), (0.0, -math.pi, math.pi / 2)
    assert moving.linear_velocity == pytest.approx(linear, abs=1e-12)
    assert moving.angular_velocity == pytest.approx(angular, abs=1e-12)


def test_unauthored_velocities_are_positive_zeros():
    """The description's own zeros, as the stage transform of a zero vector gave them (no -0.0)."""
    body = next(b for b in read_usd(_stage(UsdGeom.Tokens.y, 0.01)).scene.bodies if b.name == "still")
    assert all(math.copysign(1.0, c) == 1.0 for c in (*body.linear_velocity, *body.angular_velocity))
