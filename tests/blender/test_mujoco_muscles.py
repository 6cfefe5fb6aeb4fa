"""Muscles, a joint coupled by a polynomial, a joint's MuJoCo group and a tendon's armature
(tests/data/mjcf_muscles.xml) through Blender: File > Import and File > Export, MJCF and USD, give back
the same MuJoCo model compared by name, and edits in Blender show in the export."""

import os
import sys

import bpy
import pytest

mujoco = pytest.importorskip("mujoco")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MUSCLES = os.path.join(ROOT, "tests", "data", "mjcf_muscles.xml")
sys.path.insert(0, os.path.join(ROOT, "tests", "core"))
from mjcf_compare import mjcf_differences  # noqa: E402


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def export(tmp_path, name="out.xml"):
    out = str(tmp_path / name)
    assert bpy.ops.articula.export_mjcf(filepath=out) == {"FINISHED"}
    return mujoco.MjModel.from_xml_path(out)


@pytest.fixture
def muscles(clean_scene):
    assert bpy.ops.articula.import_mjcf(filepath=MUSCLES) == {"FINISHED"}
    return mujoco.MjModel.from_xml_path(MUSCLES)


def joint_object(name: str):
    return next(o for o in bpy.data.objects if o.articula.joint.enabled and
                (o.articula.file_name or o.name) == name)


def test_import_then_export_is_the_same_model(muscles, tmp_path):
    assert mjcf_differences(muscles, export(tmp_path)) == []


def test_they_come_in_as_blender_settings(muscles):
    props = bpy.context.scene.articula
    cord = props.spatial_tendons[0]
    assert cord.armature == pytest.approx(0.3)
    pull = props.frame_actuators[0]
    assert (pull.kind, pull.gain_type, pull.bias_type, pull.has_length_range) == \
        ("GENERAL", "muscle", "muscle", True)
    assert (pull.length_min, pull.length_max) == pytest.approx((0.4, 1.2))
    follow = joint_object("follow").articula.joint
    assert follow.has_mimic and tuple(follow.mimic_higher_terms) == pytest.approx((1.5, -0.8, 0.3))
    assert joint_object("lead").articula.joint.dofs[0].group == 4


def test_edits_in_blender_show_in_the_export(muscles, tmp_path):
    props = bpy.context.scene.articula
    props.spatial_tendons[0].armature = 0.5
    props.frame_actuators[0].length_max = 1.5
    joint_object("follow").articula.joint.mimic_higher_terms = (0.25, 0.0, 0.0)
    joint_object("lead").articula.joint.dofs[0].group = 2
    model = export(tmp_path)
    assert model.tendon_armature[model.tendon("cord").id] == pytest.approx(0.5)
    assert tuple(model.actuator("pull").lengthrange) == pytest.approx((0.4, 1.5))
    assert model.jnt_group[model.joint("lead").id] == 2
    coupling = next(e for e in range(model.neq) if int(model.eq_type[e]) == int(mujoco.mjtEq.mjEQ_JOINT))
    assert tuple(model.eq_data[coupling][:5]) == pytest.approx((0.0, 0.5, 0.25, 0.0, 0.0))


def test_through_usd_in_blender_it_is_the_same_model(muscles, tmp_path):
    blender_conftest = next(m for m in list(sys.modules.values()) if hasattr(m, "_reset_to_defaults"))
    usd = str(tmp_path / "muscles.usda")
    assert bpy.ops.articula.export_usd(filepath=usd, layout="NESTED") == {"FINISHED"}
    blender_conftest._clear_data()  # a new scene, as the clean_scene fixture makes one
    blender_conftest._reset_to_defaults(bpy.context.scene.articula)
    assert bpy.ops.articula.import_usd(filepath=usd) == {"FINISHED"}
    assert mjcf_differences(muscles, export(tmp_path)) == []


def test_a_slider_crank_through_blender_is_the_same_model_and_edits_show(clean_scene, tmp_path):
    import glob

    found = glob.glob(os.path.join(ROOT, ".venv/lib/python3.*/site-packages/mujoco_warp/test_data/actuation/"
                                         "slidercrank.xml"))
    if not found:
        pytest.skip("MuJoCo Warp's test_data is not installed")
    assert bpy.ops.articula.import_mjcf(filepath=found[0]) == {"FINISHED"}
    original = mujoco.MjModel.from_xml_path(found[0])
    assert mjcf_differences(original, export(tmp_path)) == []
    (crank,) = bpy.context.scene.articula.frame_actuators
    assert (crank.target_kind, crank.slider_site) == ("slidercrank", "slidersite")
    crank.crank_length = 0.3
    assert export(tmp_path).actuator_cranklength[0] == pytest.approx(0.3)
