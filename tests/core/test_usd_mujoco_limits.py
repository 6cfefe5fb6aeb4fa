"""MuJoCo's joint limit softness (``mjc:solreflimit``/``solimplimit``), a joint spring's rest
(``mjc:springref``, degrees) and a tendon's friction and spring length (``mjc:frictionloss``,
``mjc:springlength``) come in from USD, as NVIDIA's mujoco-usd-converter writes them, and go out again."""

import math
import os

import pytest
from pxr import Sdf, UsdPhysics

from articula.core import samples
from articula.core.mjcf import read_mjcf
from articula.core.model import (DEFAULT_SOLIMP, DEFAULT_SOLREF, DofMotion, FixedTendon, TendonEquality,
                                  TendonJoint)
from articula.core.usd.reader import read_usd
from articula.core.usd.writer import build_stage

from .test_mjcf_corpus import GYM
from .test_usd_mujoco_converted import CORPUS


def _soft_pendulum():
    scene = samples.pendulum()
    dof = scene.joints[0].dofs[0]
    dof.motion, dof.lower, dof.upper = DofMotion.LIMITED, -1.0, 1.5
    dof.limit_solref, dof.limit_solimp = (0.005, 1.0), (0.0, 0.99, 0.01, 0.5, 2.0)
    dof.spring_stiffness, dof.spring_reference = 3.0, math.radians(20.0)
    return scene


def test_limit_softness_and_spring_rest_go_out_and_come_back():
    scene = _soft_pendulum()
    stage = build_stage(scene, "NESTED")
    joint = next(p for p in stage.Traverse() if p.IsA(UsdPhysics.RevoluteJoint))
    assert list(joint.GetAttribute("mjc:solimplimit").Get()) == [0.0, 0.99, 0.01, 0.5, 2.0]
    assert joint.GetAttribute("mjc:springref").Get() == pytest.approx(20.0)  # degrees, as MuJoCo's default
    read = read_usd(stage).scene.joints[0].dofs[0]
    assert read.limit_solref == pytest.approx((0.005, 1.0))
    assert read.limit_solimp == pytest.approx((0.0, 0.99, 0.01, 0.5, 2.0))
    assert read.spring_reference == pytest.approx(math.radians(20.0), abs=1e-9)


def test_defaults_write_nothing_and_read_as_mujocos_defaults():
    scene = samples.pendulum()
    stage = build_stage(scene, "NESTED")
    joint = next(p for p in stage.Traverse() if p.IsA(UsdPhysics.RevoluteJoint))
    assert not joint.GetAttribute("mjc:solreflimit") and not joint.GetAttribute("mjc:springref")
    read = read_usd(stage).scene.joints[0].dofs[0]
    assert (read.limit_solref, read.limit_solimp) == (DEFAULT_SOLREF, DEFAULT_SOLIMP)
    assert read.spring_reference == 0.0


def test_spring_rest_in_radians_where_the_stage_says_so():
    stage = build_stage(_soft_pendulum(), "NESTED")
    physics_scene = next(p for p in stage.Traverse() if p.IsA(UsdPhysics.Scene))
    physics_scene.CreateAttribute("mjc:compiler:angle", Sdf.ValueTypeNames.Token, custom=True).Set("radian")
    joint = next(p for p in stage.Traverse() if p.IsA(UsdPhysics.RevoluteJoint))
    joint.GetAttribute("mjc:springref").Set(0.3)
    assert read_usd(stage).scene.joints[0].dofs[0].spring_reference == pytest.approx(0.3)


def test_a_tendons_friction_and_spring_length_go_out_and_come_back():
    scene = _soft_pendulum()
    scene.tendons.append(FixedTendon("coupling", [TendonJoint(scene.joints[0].name, 1.0)], stiffness=2.0,
                                     frictionloss=0.4, spring_length=(0.1, 0.3)))
    scene.tendons.append(FixedTendon("at_start", [TendonJoint(scene.joints[0].name, -1.0)], stiffness=1.0))
    read = {t.name: t for t in read_usd(build_stage(scene, "NESTED")).scene.tendons}
    assert read["coupling"].frictionloss == pytest.approx(0.4)
    assert read["coupling"].spring_length == pytest.approx((0.1, 0.3))
    assert read["at_start"].spring_length is None  # MuJoCo's -1: the length at the start


def test_the_converters_half_cheetah_reads_as_its_mjcf():
    """gymnasium's half cheetah softens every limit (``solimplimit="0 .8 .03"``): NVIDIA's converter writes
    it into USD, and both readers agree joint by joint."""
    usd = os.path.join(CORPUS, "gym_half_cheetah", "cheetah.usda")
    if not os.path.isfile(usd) or GYM is None:
        pytest.skip("the converted corpus and gymnasium's MJCF come with `make corpus`")
    from_usd = {d.name or j.name: d for j in read_usd(usd).scene.joints for d in j.active_dofs()}
    from_mjcf = {d.name or j.name: d for j in read_mjcf(os.path.join(GYM, "half_cheetah.xml")).scene.joints
                 for d in j.active_dofs()}
    softened = [name for name, d in from_mjcf.items()
                if d.motion == DofMotion.LIMITED and d.limit_solimp != DEFAULT_SOLIMP]
    assert len(softened) == 6  # the legs' joints
    for name in softened:
        assert from_usd[name].limit_solimp == pytest.approx(from_mjcf[name].limit_solimp), name
        assert from_usd[name].limit_solref == pytest.approx(from_mjcf[name].limit_solref), name


def test_newton_reads_our_limit_impedance():
    """Newton's add_usd takes our ``mjc:solimplimit`` into its MuJoCo solver's per-DOF attribute."""
    newton = pytest.importorskip("newton")
    import numpy as np

    def solimplimit(stage):
        builder = newton.ModelBuilder()
        newton.solvers.SolverMuJoCo.register_custom_attributes(builder)
        builder.add_usd(stage)
        return np.asarray(builder.finalize(device="cpu").mujoco.solimplimit.numpy())

    ours = solimplimit(build_stage(_soft_pendulum(), "NESTED"))
    assert ours[0] == pytest.approx((0.0, 0.99, 0.01, 0.5, 2.0))


def test_tendon_equalities_go_out_and_come_back():
    """The converter has no tendon equality (it warns and drops it); Articula writes one as a typeless prim
    with MjcEqualityAPI and reads it back: a gripper's coupling (held at its start length) and a
    polynomial between two tendons."""
    scene = _soft_pendulum()
    joint = scene.joints[0].name
    scene.tendons += [FixedTendon("coupling", [TendonJoint(joint, 1.0)]),
                      FixedTendon("follower", [TendonJoint(joint, -0.5)])]
    scene.tendon_equalities += [
        TendonEquality("hold", "coupling", solref=(0.01, 1.0)),
        TendonEquality("follow", "follower", "coupling", polycoef=(0.1, 2.0, 0.0, 0.3, 0.0), active=False)]
    stage = build_stage(scene, "NESTED")
    read = {e.name: e for e in read_usd(stage).scene.tendon_equalities}
    assert read["hold"].tendon0 == "coupling" and read["hold"].tendon1 is None
    assert read["hold"].solref == pytest.approx((0.01, 1.0)) and read["hold"].active
    follow = read["follow"]
    assert (follow.tendon0, follow.tendon1, follow.active) == ("follower", "coupling", False)
    assert follow.polycoef == pytest.approx((0.1, 2.0, 0.0, 0.3, 0.0))


def test_a_tendon_equality_on_a_missing_tendon_is_left_out_and_named():
    from articula.core.usd.mujoco_model import reference_problems

    scene = _soft_pendulum()
    scene.tendon_equalities.append(TendonEquality("dangling", "no_such_tendon"))
    assert any("tendon equality 'dangling'" in p and "no_such_tendon" in p for p in reference_problems(scene))
    assert read_usd(build_stage(scene, "NESTED")).scene.tendon_equalities == []
