"""MuJoCo's joint ``ref`` and limit ``margin`` through Blender: imported onto the DOF's ``reference`` and
``limit_margin``, exported back through the operators as the file had them (qpos0, ranges, margins,
keyframes), and a keyframe applied in the file's coordinate stands where MuJoCo puts it."""

from pathlib import Path

import bpy
import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

REF_ROBOT = (Path(__file__).parents[1] / "data" / "refbot.xml").read_text()  # the core tier's robot too


@pytest.fixture
def robot_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder
    path = tmp_path / "refbot.xml"
    path.write_text(REF_ROBOT)
    return str(path)


def _dof(joint_name: str):
    obj = next(o for o in bpy.data.objects if o.articula.joint.enabled
               and joint_name in (o.name, o.articula.file_name))
    return obj.articula.joint.dofs[0]


def test_ref_and_margin_survive_import_and_export(clean_scene, robot_file, tmp_path):
    assert bpy.ops.articula.import_mjcf(filepath=robot_file) == {"FINISHED"}
    hinge, slide = _dof("hinge"), _dof("slide")
    assert (hinge.reference, hinge.limit_margin, hinge.lower, hinge.upper) == \
        pytest.approx((0.4, 0.01, -0.5, 1.2), rel=1e-6)
    assert (slide.reference, slide.limit_margin) == pytest.approx((0.05, 0.002), rel=1e-6)
    out = str(tmp_path / "exported.xml")
    assert bpy.ops.articula.export_mjcf(filepath=out) == {"FINISHED"}
    original, ours = mujoco.MjModel.from_xml_path(robot_file), mujoco.MjModel.from_xml_path(out)
    for field in ("qpos0", "jnt_range", "jnt_margin", "key_qpos", "key_ctrl"):
        np.testing.assert_allclose(getattr(ours, field), getattr(original, field), rtol=1e-6, err_msg=field)
    assert ours.nkey == 1  # the robot stands at its reference: no "initial" keyframe


def test_applied_keyframe_stands_where_mujoco_puts_it(clean_scene, robot_file):
    assert bpy.ops.articula.import_mjcf(filepath=robot_file) == {"FINISHED"}
    assert bpy.ops.articula.apply_keyframe(name="home") == {"FINISHED"}
    model = mujoco.MjModel.from_xml_path(robot_file)
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, 0)
    mujoco.mj_kinematics(model, data)
    for name in ("arm", "slider"):
        b = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)
        np.testing.assert_allclose(bpy.data.objects[name].matrix_world.translation, data.xpos[b], atol=1e-5,
                                   err_msg=name)
