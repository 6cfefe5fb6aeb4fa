"""File > Export > Articula MuJoCo Robot (.xml) in real Blender (4.5 and 5.2): MuJoCo loads what the
operator writes, the selection and the state are honoured, and a failed export leaves old files."""

import os

import bpy
import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from articula.addon.adapters.description_to_blender import build_scene  # noqa: E402
from articula.core import samples  # noqa: E402


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def _id(model, kind, name):
    return mujoco.mj_name2id(model, getattr(mujoco.mjtObj, f"mjOBJ_{kind}"), name)


def test_export_menu_entry_is_registered(articula_addon):
    from articula.panels import menus

    assert menus.draw_export in bpy.types.TOPBAR_MT_file_export._dyn_ui_initialize()
    assert hasattr(bpy.ops.articula, "export_mjcf")


def test_finger_exports_as_a_robot_mujoco_loads(clean_scene, tmp_path):
    sample = samples.robotic_finger()
    build_scene(bpy.context, sample)
    path = str(tmp_path / "finger.xml")
    assert bpy.ops.articula.export_mjcf(filepath=path) == {"FINISHED"}
    m = mujoco.MjModel.from_xml_path(path)
    assert m.nbody == len(sample.bodies) + 1
    for joint in sample.joints:
        if joint.type.value == "REVOLUTE":
            j = _id(m, "JOINT", joint.name)
            assert j >= 0 and m.jnt_type[j] == mujoco.mjtJoint.mjJNT_HINGE
            if joint.dofs[0].motion.value == "LIMITED":
                assert np.allclose(m.jnt_range[j], (joint.dofs[0].lower, joint.dofs[0].upper), atol=1e-5)
    assert m.nu == sum(d.drive_enabled for j in sample.joints for d in j.dofs)
    assert os.path.isdir(tmp_path / "finger_assets") and os.listdir(tmp_path / "finger_assets")
    mujoco.mj_step(m, mujoco.MjData(m))


def test_selected_only_writes_the_selected_robot(clean_scene, tmp_path):
    build_scene(bpy.context, samples.pendulum())
    arm = build_scene(bpy.context, samples.six_dof_arm())
    bpy.ops.object.select_all(action="DESELECT")
    root = next(obj for obj in arm.values() if obj.articula.body.enabled and obj.parent is None)
    root.select_set(True)
    path = str(tmp_path / "arm.xml")
    assert bpy.ops.articula.export_mjcf(filepath=path, selected_only=True) == {"FINISHED"}
    m = mujoco.MjModel.from_xml_path(path)
    assert _id(m, "BODY", "pendulum_link") < 0
    assert m.nbody == len(samples.six_dof_arm().bodies) + 1


def test_failed_export_keeps_the_old_file_and_the_scene(clean_scene, tmp_path):
    build_scene(bpy.context, samples.pendulum())
    path = tmp_path / "robot.xml"
    path.write_text("<mujoco/>")
    (tmp_path / "robot_assets").write_text("a file where the assets folder would go")
    objects_before = sorted(bpy.data.objects.keys())
    with pytest.raises(RuntimeError, match="could not be written"):  # Blender raises on an ERROR report
        bpy.ops.articula.export_mjcf(filepath=str(path))
    assert path.read_text() == "<mujoco/>"
    assert sorted(os.listdir(tmp_path)) == ["robot.xml", "robot_assets"]
    assert sorted(bpy.data.objects.keys()) == objects_before


def test_empty_scene_warns_and_writes_a_loadable_file(clean_scene, tmp_path):
    path = str(tmp_path / "empty.xml")
    assert bpy.ops.articula.export_mjcf(filepath=path) == {"FINISHED"}
    assert mujoco.MjModel.from_xml_path(path).nbody == 1


EXAMPLES_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "examples")


@pytest.mark.parametrize("name", ["robotic_finger", "six_dof_arm", "quadruped", "collision_showcase"])
def test_example_robot_exports_and_steps_in_mujoco(clean_scene, tmp_path, name):
    """The four examples, built in Blender as their scripts build them (animated drive targets
    included), export with the state they stand in and MuJoCo steps them for 0.1 s."""
    import importlib
    import sys

    sys.path.insert(0, EXAMPLES_DIR)
    try:
        example = importlib.import_module(name)
    finally:
        sys.path.remove(EXAMPLES_DIR)
    bpy.context.scene.articula.materials.clear()
    example.animate(example.build(bpy.context))
    path = str(tmp_path / f"{name}.xml")
    assert bpy.ops.articula.export_mjcf(filepath=path, state="CURRENT") == {"FINISHED"}
    m = mujoco.MjModel.from_xml_path(path)
    sample = samples.SAMPLES[name]()
    assert m.nbody == len(sample.bodies) + 1
    data = mujoco.MjData(m)
    if m.nkey:
        mujoco.mj_resetDataKeyframe(m, data, 0)
    for _ in range(int(0.1 / m.opt.timestep)):
        mujoco.mj_step(m, data)
    assert np.isfinite(data.qpos).all()


def test_textured_visual_leaves_as_obj_with_uvs_and_its_image(clean_scene, tmp_path):
    """pybullet's duck (an OBJ with UVs and an image) imported from MJCF leaves as an OBJ with its UVs
    and its image copied beside it, drawn by MuJoCo as a 2D texture."""
    from tests.robot_files import duck_mjcf

    source = tmp_path / "source"
    source.mkdir()
    assert bpy.ops.articula.import_mjcf(filepath=duck_mjcf(source)) == {"FINISHED"}
    path = tmp_path / "duck.xml"
    assert bpy.ops.articula.export_mjcf(filepath=str(path)) == {"FINISHED"}
    files = os.listdir(tmp_path / "duck_assets")
    assert "duckCM.png" in files and any(f.endswith(".obj") for f in files)
    m = mujoco.MjModel.from_xml_path(str(path))
    textured = [g for g in range(m.ngeom) if m.geom_matid[g] >= 0
                and m.mat_texid[m.geom_matid[g]][int(mujoco.mjtTextureRole.mjTEXROLE_RGB)] >= 0]
    assert textured and all(m.mesh_texcoordnum[m.geom_dataid[g]] > 0 for g in textured)
