"""A MuJoCo robot with one of everything (tests/data/mjcf_everything.xml) through Blender: File > Import
and File > Export give back the same model compared by name (tests/core/mjcf_compare.py), what it holds
comes in as Blender objects and settings, and edits to them show in the exported model."""

import glob
import math
import os
import sys

import bpy
import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EVERYTHING = os.path.join(ROOT, "tests", "data", "mjcf_everything.xml")
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
def everything(clean_scene):
    assert bpy.ops.articula.import_mjcf(filepath=EVERYTHING) == {"FINISHED"}
    return mujoco.MjModel.from_xml_path(EVERYTHING)


def test_import_then_export_is_the_same_model(everything, tmp_path):
    assert mjcf_differences(everything, export(tmp_path)) == []


def test_what_mujoco_adds_comes_in_as_blender_objects(everything):
    model, scene = everything, bpy.context.scene
    objects = bpy.data.objects
    for k in range(model.nsite):
        name = model.site(k).name
        site = next(o for o in objects if o.articula.site.enabled and name in (o.name, o.articula.file_name))
        assert site.type == "EMPTY" and site.parent is not None or model.site_bodyid[k] == 0, name
    cameras = [o for o in objects if o.type == "CAMERA" and o.articula.camera.enabled]
    lights = [o for o in objects if o.type == "LIGHT" and o.articula.light.enabled]
    sensors = [o for o in objects if o.type == "EMPTY" and o.articula.sensor.enabled]
    assert (len(cameras), len(lights), len(sensors)) == (model.ncam, model.nlight, model.nsensor)
    assert len(scene.articula.keyframes) == model.nkey
    welds_and_connects = sum(1 for e in range(model.neq) if int(model.eq_type[e]) in (
        int(mujoco.mjtEq.mjEQ_WELD), int(mujoco.mjtEq.mjEQ_CONNECT)))
    assert len(scene.articula.equalities) == welds_and_connects


def test_edits_in_blender_show_in_the_export(everything, tmp_path):
    objects, props = bpy.data.objects, bpy.context.scene.articula
    site = next(o for o in objects if o.articula.site.enabled)
    site.articula.site.size = (0.031, 0.031, 0.031)
    camera = next(o for o in objects if o.type == "CAMERA" and o.articula.camera.enabled)
    camera.data.angle_y = math.radians(33.0)
    sensor = next(o for o in objects if o.articula.sensor.enabled)
    sensor.articula.sensor.noise = 0.125
    props.mujoco.integrator = "rk4"
    equality = props.equalities[0]
    equality.active = not equality.active
    model = export(tmp_path)
    assert model.site(site.articula.file_name or site.name).size[0] == pytest.approx(0.031, rel=1e-5)
    assert model.cam(camera.articula.file_name or camera.name).fovy[0] == pytest.approx(33.0, rel=1e-5)
    assert model.sensor(sensor.articula.file_name or sensor.name).noise[0] == pytest.approx(0.125)
    assert model.opt.integrator == int(mujoco.mjtIntegrator.mjINT_RK4)
    assert bool(model.eq(equality.name).active0[0]) == equality.active


def test_a_keyframe_of_the_file_poses_the_robot_as_mujoco_does(everything):
    model = everything
    key = next(k for k in range(model.nkey) if model.key(k).name)
    name = model.key(key).name
    assert bpy.ops.articula.apply_keyframe(name=name) == {"FINISHED"}
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, key)
    mujoco.mj_kinematics(model, data)
    compared = 0
    for b in range(1, model.nbody):
        obj = bpy.data.objects.get(model.body(b).name)
        if obj is not None and obj.articula.body.enabled and not model.body_mocapid[b] >= 0:
            np.testing.assert_allclose(obj.matrix_world.translation, data.xpos[b], atol=1e-5,
                                       err_msg=model.body(b).name)
            compared += 1
    assert compared >= 3 and any(o.articula.body.posed for o in bpy.data.objects)


MJW = glob.glob(os.path.join(ROOT, ".venv/lib/python3.*/site-packages/mujoco_warp/test_data"))
MJW_MODELS = ["humanoid/humanoid.xml", "tendon/fixed.xml", "tendon/fixed_site.xml",
              "tendon/pulley_fixed_site.xml"]


@pytest.mark.parametrize("name", MJW_MODELS)
def test_mujoco_warp_models_through_blender_are_the_same_model(clean_scene, tmp_path, name):
    path = os.path.join(MJW[0], name) if MJW else ""
    if not os.path.exists(path):
        pytest.skip(f"{name}: not in this mujoco_warp")
    assert bpy.ops.articula.import_mjcf(filepath=path) == {"FINISHED"}
    differences = mjcf_differences(mujoco.MjModel.from_xml_path(path), export(tmp_path))
    assert differences == [], "\n".join(differences)
