"""Muscles (``mjc:gainType``/``biasType`` "muscle", ``mjc:lengthRange:min``/``max``), a joint equality's
polynomial terms (``mjc:coef2``..``4`` beside NewtonMimicAPI), a joint's ``mjc:group`` and a tendon's
``mjc:armature`` go through USD as NVIDIA's mujoco-usd-converter writes them: Articula's export reads
back to the same MuJoCo model, and the converter's own USD reads as the MJCF does."""

import os

import pytest
from pxr import UsdPhysics

mujoco = pytest.importorskip("mujoco")

from articula.core.mjcf import read_mjcf  # noqa: E402
from articula.core.mjcf.writer import write_mjcf  # noqa: E402
from articula.core.usd.reader import read_usd  # noqa: E402
from articula.core.usd.writer import build_stage  # noqa: E402

from .mjcf_compare import mjcf_differences  # noqa: E402
from .test_usd_mujoco_converted import _converted  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MUSCLES = os.path.join(ROOT, "tests", "data", "mjcf_muscles.xml")


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def test_the_converters_attributes_are_written():
    stage = build_stage(read_mjcf(MUSCLES).scene, "NESTED")
    prims = {p.GetName(): p for p in stage.Traverse()}
    biceps, pull = prims["biceps"], prims["pull"]
    assert (biceps.GetAttribute("mjc:gainType").Get(), biceps.GetAttribute("mjc:biasType").Get()) == \
        ("muscle", "muscle")
    assert [biceps.GetAttribute(f"mjc:lengthRange:{end}").Get() for end in ("min", "max")] == [-1.0, 1.0]
    assert pull.GetAttribute("mjc:dynType").Get() == "muscle"
    assert prims["cord"].GetAttribute("mjc:armature").Get() == pytest.approx(0.3)
    follow = next(p for p in stage.Traverse() if p.IsA(UsdPhysics.Joint) and p.GetName().startswith("follow"))
    assert [follow.GetAttribute(f"mjc:coef{k}").Get() for k in (2, 3, 4)] == pytest.approx([1.5, -0.8, 0.3])
    lead = next(p for p in stage.Traverse() if p.IsA(UsdPhysics.Joint) and p.GetName().startswith("lead"))
    assert lead.GetAttribute("mjc:group").Get() == 4


def test_through_usd_mujoco_compiles_the_same_model(tmp_path):
    scene = read_usd(build_stage(read_mjcf(MUSCLES).scene, "NESTED")).scene
    out = str(tmp_path / "robot.xml")
    write_mjcf(scene, out)
    assert mjcf_differences(mujoco.MjModel.from_xml_path(MUSCLES), mujoco.MjModel.from_xml_path(out)) == []


def test_a_d6_with_its_dofs_in_different_groups_keeps_each():
    from articula.core import samples

    scene = samples.d6_sampler()
    joint = next(j for j in scene.joints if len(j.dofs) > 1)
    for k, dof in enumerate(joint.dofs):
        dof.group = k % 3
    read = read_usd(build_stage(scene, "NESTED")).scene.joint(joint.name)
    assert [d.group for d in read.dofs] == [k % 3 for k in range(len(joint.dofs))]


@pytest.mark.parametrize("rel", ["actuation/muscle.xml", "constraints.xml", "tendon/armature.xml"])
def test_the_converters_usd_reads_as_the_mjcf(rel):
    mjcf, usd = _converted(rel)
    ours, theirs = read_usd(usd).scene, read_mjcf(mjcf).scene
    if rel == "actuation/muscle.xml":
        (a,), (b,) = ours.frame_actuators, theirs.frame_actuators
        types = ("muscle", "muscle", "muscle", (0.0, 1.0))
        assert (a.gain_type, a.bias_type, a.dyn_type, a.length_range) == types
        assert (b.gain_type, b.bias_type, b.dyn_type, b.length_range) == types
        assert a.gain == pytest.approx(b.gain) and a.bias == pytest.approx(b.bias)
    elif rel == "constraints.xml":
        mimics = {j.name: j.mimic for j in theirs.joints if j.mimic}
        assert mimics and all(ours.joint(name).mimic.higher_terms == pytest.approx(m.higher_terms)
                              for name, m in mimics.items())
        assert any(m.higher_terms for m in mimics.values())
    else:
        assert [t.armature for t in ours.spatial_tendons] == [2.0]
        assert [t.armature for t in theirs.spatial_tendons] == [2.0]


def test_a_slider_crank_goes_through_usd_as_the_converter_writes_it(tmp_path):
    mjcf, converted = _converted("actuation/slidercrank.xml")
    (theirs,) = read_usd(converted).scene.frame_actuators
    assert (theirs.target_kind, theirs.target, theirs.slider_site, theirs.crank_length) == \
        ("slidercrank", "cranksite", "slidersite", pytest.approx(0.25))
    stage = build_stage(read_mjcf(mjcf).scene, "NESTED")
    prim = next(p for p in stage.Traverse() if p.GetTypeName() == "MjcActuator")
    assert prim.GetAttribute("mjc:crankLength").Get() == pytest.approx(0.25)
    sliders = prim.GetRelationship("mjc:sliderSite").GetTargets()
    assert [str(t).rsplit("/", 1)[-1] for t in sliders] == ["slidersite"]
    out = str(tmp_path / "robot.xml")
    write_mjcf(read_usd(stage).scene, out)
    assert mjcf_differences(mujoco.MjModel.from_xml_path(mjcf), mujoco.MjModel.from_xml_path(out)) == []


def test_a_slider_crank_without_its_slider_site_is_reported_and_left_out(tmp_path):
    from articula.core.usd.writer import write_usd

    _, original = _converted("actuation/slidercrank.xml")
    scene = read_usd(original).scene
    scene.frame_actuators[0].slider_site = "no_site"
    path = str(tmp_path / "robot.usda")
    problems = write_usd(scene, path)
    assert any("slider site 'no_site' does not exist; left out of the file" in p for p in problems)
    assert read_usd(path).scene.frame_actuators == []
