"""The USD writers leave out the UsdPhysics / UsdGeom attributes whose value is their schema's
fallback (a joint's frames at its bodies' origins, a drive's zero targets, unlimited force and
force type, a box's Cube size 2): consumers read the same robot as from a file that authors them.
Checked against a copy of each file with every such attribute authored at its fallback: Articula's
reader gives the same description, Newton the same model, and UsdPhysics' schema API the
description's values."""

import importlib.util
import math
import warnings

import numpy as np
import pytest
from pxr import Sdf, Usd, UsdGeom, UsdPhysics

from articula.core import samples
from articula.core.model import ShapeKind
from articula.core.usd import dialect as D
from articula.core.usd.reader import read_usd
from articula.core.usd.writer import build_stage

SAMPLES = ["robotic_finger", "six_dof_arm", "quadruped", "four_bar", "d6_sampler", "hanging_chain"]
JOINT_FRAMES = (D.LOCAL_POS0, D.LOCAL_ROT0, D.LOCAL_POS1, D.LOCAL_ROT1)
DRIVE = ("type", "targetPosition", "targetVelocity", "maxForce")


def _left_out(prim: Usd.Prim) -> list[str]:
    """The attributes this module is about on ``prim`` (authored or not)."""
    names = []
    if prim.IsA(UsdPhysics.Joint):
        names += JOINT_FRAMES
        for schema in prim.GetAppliedSchemas():
            if schema.startswith("PhysicsDriveAPI:"):
                names += [D.drive_attr(schema.split(":", 1)[1], name) for name in DRIVE]
    if prim.IsA(UsdGeom.Cube):
        names.append("size")
    return names


def _with_fallbacks_authored(stage: Usd.Stage) -> tuple[Usd.Stage, int]:
    """A copy of ``stage`` with each left-out attribute authored at its schema's fallback; how many."""
    layer = Sdf.Layer.CreateAnonymous("explicit.usda")
    layer.TransferContent(stage.GetRootLayer())
    explicit, authored = Usd.Stage.Open(layer), 0
    for prim in explicit.Traverse():
        for name in _left_out(prim):
            attr = prim.GetAttribute(name)
            assert attr, f"{prim.GetPath()}: the schema does not define {name}"
            if not attr.HasAuthoredValue():
                attr.Set(attr.Get())  # the fallback, now authored
                authored += 1
    return explicit, authored


def _newton_model(stage: Usd.Stage):
    import newton

    builder = newton.ModelBuilder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder.add_usd(stage)
    return builder.finalize(device="cpu")


@pytest.mark.parametrize("name", SAMPLES)
def test_fallbacks_are_left_out_and_read_as_authored(name):
    scene = getattr(samples, name)()
    stage = build_stage(scene)
    explicit, authored = _with_fallbacks_authored(stage)
    assert authored > 0  # each sample has joints at a body's origin or drives without targets
    assert read_usd(stage).scene == read_usd(explicit).scene


def test_written_values_are_what_the_schema_api_reads():
    """Left out or not, UsdPhysics' API reads the description's values (in USD units)."""
    scene = samples.six_dof_arm()
    stage = build_stage(scene)
    paths = read_usd(stage).prim_paths
    for joint in scene.joints:
        prim = UsdPhysics.Joint(stage.GetPrimAtPath(paths["joint:" + joint.name]))
        for pos, rot, pose in ((prim.GetLocalPos0Attr(), prim.GetLocalRot0Attr(), joint.local_pose0),
                               (prim.GetLocalPos1Attr(), prim.GetLocalRot1Attr(), joint.local_pose1)):
            assert tuple(pos.Get()) == pytest.approx(pose.pos, abs=1e-6)
            q = rot.Get()
            assert (q.GetReal(), *q.GetImaginary()) == pytest.approx(pose.rot, abs=1e-6)
        for dof in joint.dofs:
            if not dof.drive_enabled:
                continue
            angular = dof.axis.is_angular
            drive = UsdPhysics.DriveAPI(prim.GetPrim(), D.dof_instance(joint.type, dof.axis))
            assert drive.GetTypeAttr().Get() == D.DRIVE_TYPE_TOKENS[dof.drive_type]
            for attr, value, unit in ((drive.GetTargetPositionAttr(), dof.target_position, D.Unit.ANGLE),
                                      (drive.GetTargetVelocityAttr(), dof.target_velocity, D.Unit.ANGLE),
                                      (drive.GetMaxForceAttr(), dof.max_effort, D.Unit.PLAIN)):
                expected = D.to_usd(value, unit, angular)
                read = attr.Get()
                assert read == expected if math.isinf(expected) else read == pytest.approx(expected, rel=1e-6)
    boxes = [shape for shape in scene.shapes if shape.kind == ShapeKind.BOX]
    for shape in boxes:
        cube = UsdGeom.Cube(stage.GetPrimAtPath(paths["shape:" + shape.name]))
        assert not cube.GetSizeAttr().HasAuthoredValue() and cube.GetSizeAttr().Get() == 2.0
    assert boxes


@pytest.mark.skipif(importlib.util.find_spec("newton") is None, reason="newton not installed")
@pytest.mark.parametrize("name", ["six_dof_arm", "quadruped", "d6_sampler"])
def test_newton_loads_the_same_model_as_with_fallbacks_authored(name):
    stage = build_stage(getattr(samples, name)())
    explicit, _ = _with_fallbacks_authored(stage)
    a, b = _newton_model(stage), _newton_model(explicit)
    compared = []
    for attr, value in vars(a).items():
        if attr.startswith(("bvh", "_bvh", "shape_source")) or not hasattr(value, "numpy"):
            continue  # acceleration structures and mesh handles: made anew on every load
        x, y = value.numpy(), getattr(b, attr).numpy()
        assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), attr
        compared.append(attr)
    assert {"joint_X_p", "joint_X_c", "joint_effort_limit", "joint_target_ke", "shape_scale"} <= set(compared)
