"""Names through Blender: a robot imported from MJCF and exported again keeps its file's joint names,
even where Blender had to rename an object (a joint named like its body), per-DOF names and a named
free joint."""

import glob
import os

import bpy
import pytest

mujoco = pytest.importorskip("mujoco")

from articula.addon.adapters.description_to_blender import build_scene  # noqa: E402
from articula.core import samples  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_GYM = glob.glob(os.path.join(ROOT, ".venv-converter/lib/python3.*/site-packages/gymnasium/envs/mujoco",
                              "assets"))


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def gym(name):
    if not _GYM:
        pytest.skip("gymnasium's MJCF files come with `make corpus` (.venv-converter)")
    return os.path.join(_GYM[0], name)


def names(model, kind):
    count = {"joint": model.njnt, "body": model.nbody, "actuator": model.nu}[kind]
    return [getattr(model, kind)(k).name for k in range(count)]


def round_trip(clean_scene, path, tmp_path):
    assert bpy.ops.articula.import_mjcf(filepath=path) == {"FINISHED"}
    out = str(tmp_path / "out.xml")
    assert bpy.ops.articula.export_mjcf(filepath=out) == {"FINISHED"}
    return mujoco.MjModel.from_xml_path(path), mujoco.MjModel.from_xml_path(out)


def test_half_cheetah_joints_named_like_their_bodies_come_back(clean_scene, tmp_path):
    source, exported = round_trip(clean_scene, gym("half_cheetah.xml"), tmp_path)
    joint = bpy.data.objects["bthigh.001"]
    assert joint.articula.joint.enabled and joint.articula.file_name == "bthigh"
    assert sorted(names(exported, "joint")) == sorted(names(source, "joint"))
    assert sorted(names(exported, "body")) == sorted(names(source, "body"))


def test_humanoid_stacked_hinges_come_back_by_name(clean_scene, tmp_path):
    source, exported = round_trip(clean_scene, gym("humanoid.xml"), tmp_path)
    for name in ("abdomen_y", "abdomen_z", "right_hip_x", "right_hip_y", "right_hip_z"):
        assert mujoco.mj_name2id(exported, mujoco.mjtObj.mjOBJ_JOINT, name) >= 0, name
    assert sorted(names(exported, "joint")) == sorted(names(source, "joint"))  # the free joint "root" too
    assert exported.joint("root").type[0] == mujoco.mjtJoint.mjJNT_FREE
    assert bpy.data.objects["torso"].articula.body.free_joint_name == "root"


def test_a_renamed_joint_exports_under_its_new_name(clean_scene, tmp_path):
    path = gym("half_cheetah.xml")
    assert bpy.ops.articula.import_mjcf(filepath=path) == {"FINISHED"}
    bpy.data.objects["bthigh.001"].name = "back_hip"
    out = str(tmp_path / "out.xml")
    assert bpy.ops.articula.export_mjcf(filepath=out) == {"FINISHED"}
    exported = mujoco.MjModel.from_xml_path(out)
    assert "back_hip" in names(exported, "joint") and "bthigh" not in names(exported, "joint")


def test_free_joint_and_dof_names_leave_as_the_description_has_them(clean_scene, tmp_path):
    desc = samples.six_dof_arm()
    desc.joints = [j for j in desc.joints if j.body0 is not None]  # a floating arm
    root = next(b for b in desc.bodies if b.parent is None)
    root.free_joint_name = "floating_base"
    build_scene(bpy.context, desc)
    out = str(tmp_path / "out.xml")
    assert bpy.ops.articula.export_mjcf(filepath=out) == {"FINISHED"}
    exported = mujoco.MjModel.from_xml_path(out)
    assert exported.joint("floating_base").type[0] == mujoco.mjtJoint.mjJNT_FREE


@pytest.mark.parametrize("robot", ["half_cheetah.xml", "humanoid.xml", "ant.xml", "walker2d.xml"])
def test_gymnasium_robot_through_blender_is_the_same_model(clean_scene, tmp_path, robot):
    import sys

    sys.path.insert(0, os.path.join(ROOT, "tests", "core"))
    from mjcf_compare import mjcf_differences

    source, exported = round_trip(clean_scene, gym(robot), tmp_path)
    assert mjcf_differences(source, exported) == []



def test_a_robot_imported_twice_keeps_its_mujoco_names_apart(clean_scene, tmp_path):
    from articula.addon.adapters.blender_to_description import scene_from_blender

    path = os.path.join(ROOT, "tests", "data", "mjcf_everything.xml")
    assert bpy.ops.articula.import_mjcf(filepath=path) == {"FINISHED"}
    assert bpy.ops.articula.import_mjcf(filepath=path) == {"FINISHED"}
    desc = scene_from_blender(clean_scene)
    for kind in ("sites", "cameras", "lights", "sensors", "keyframes", "equalities", "contact_pairs",
                 "spatial_tendons", "frame_actuators", "tendons"):
        items = [item.name for item in getattr(desc, kind)]
        assert items and len(set(items)) == len(items), kind
    free = [b.free_joint_name for b in desc.bodies if b.free_joint_name]
    assert free and len(set(free)) == len(free)
    source = mujoco.MjModel.from_xml_path(path)
    assert len(desc.sites) == 2 * source.nsite and len(desc.sensors) == 2 * source.nsensor
    out = str(tmp_path / "out.xml")
    assert bpy.ops.articula.export_mjcf(filepath=out) == {"FINISHED"}
    model = mujoco.MjModel.from_xml_path(out)
    assert (model.nsite, model.nsensor, model.nu) == (2 * source.nsite, 2 * source.nsensor, 2 * source.nu)
