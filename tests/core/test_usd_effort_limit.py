"""An effort limit without a drive survives USD: written as MuJoCo's joint force range, which Newton's
add_usd reads as the joint's effort limit and the reader reads back."""

import math

import pytest

from articula.core import samples
from articula.core.model import JointType
from articula.core.usd.reader import read_usd
from articula.core.usd.writer import build_stage


def _undriven_arm():
    scene = samples.six_dof_arm()
    for joint in scene.joints:
        for dof in joint.dofs:
            dof.drive_enabled = False
    return scene


def test_undriven_effort_limit_reads_back():
    scene = _undriven_arm()
    read = read_usd(build_stage(scene)).scene
    for joint in scene.joints:
        if joint.type == JointType.REVOLUTE:
            assert read.joint(joint.name).dofs[0].max_effort == pytest.approx(joint.dofs[0].max_effort)


def test_driven_joint_keeps_its_limit_on_the_drive_only():
    text = build_stage(samples.six_dof_arm()).GetRootLayer().ExportToString()
    assert "actuatorfrcrange" not in text and "maxForce" in text


def test_newton_reads_the_undriven_effort_limit():
    newton = pytest.importorskip("newton")
    pytest.importorskip("newton_usd_schemas")
    from newton.usd import SchemaResolverMjc, SchemaResolverNewton, SchemaResolverPhysx

    scene = _undriven_arm()
    builder = newton.ModelBuilder()
    builder.add_usd(build_stage(scene), schema_resolvers=[SchemaResolverNewton(), SchemaResolverPhysx(),
                                                           SchemaResolverMjc()])
    model = builder.finalize(device="cpu")
    limits = model.joint_effort_limit.numpy()
    starts = model.joint_qd_start.numpy()
    for i, label in enumerate(model.joint_label):
        joint = scene.joint(label.rsplit("/", 1)[-1])
        if joint is not None and joint.type == JointType.REVOLUTE:
            assert math.isclose(limits[starts[i]], joint.dofs[0].max_effort, rel_tol=1e-5), joint.name
