"""File > Export > Articula Robot (.urdf) in real Blender (4.5 and 5.2): the four examples are written as
URDF that urdfdom (Pinocchio) reads as the robot Blender holds; the active object picks the robot;
a scene that cannot be exported writes nothing and leaves the old files."""

import os
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import bpy
import pytest

pytest.importorskip("mujoco")

from articula.addon.adapters.blender_to_description import scene_from_blender  # noqa: E402
from articula.core.urdf import read_urdf  # noqa: E402
from tests.urdf_checks import pinocchio, pinocchio_differences  # noqa: E402

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "examples"
sys.path.insert(0, str(EXAMPLES_DIR))
import collision_showcase  # noqa: E402
import quadruped  # noqa: E402
import robotic_finger  # noqa: E402
import six_dof_arm  # noqa: E402

EXAMPLES = {e.NAME: e for e in (robotic_finger, six_dof_arm, quadruped, collision_showcase)}
PYBULLET_DATA = os.environ.get("ARTICULA_PYBULLET_DATA", os.path.expanduser("~/.cache/articula/pybullet_data"))


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def build(example):
    bpy.context.scene.articula.materials.clear()
    return example.build(bpy.context)


def activate(obj):
    bpy.context.view_layer.objects.active = obj


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_exports_as_the_robot_blender_holds(clean_scene, tmp_path, name):
    objects = build(EXAMPLES[name])
    desc = scene_from_blender(clean_scene)
    root = next(b.name for b in desc.bodies if b.parent is None)
    activate(objects[root])
    path = str(tmp_path / f"{name}.urdf")
    assert bpy.ops.articula.export_urdf(filepath=path) == {"FINISHED"}
    differences = pinocchio_differences(desc, pinocchio(path))
    assert differences == [], "\n".join(differences)
    assert read_urdf(path).scene.body(root) is not None  # MuJoCo's URDF compiler reads it too


def test_the_active_object_picks_the_robot_and_package_paths(clean_scene, tmp_path):
    objects = build(collision_showcase)
    desc = scene_from_blender(clean_scene)
    second = [b.name for b in desc.bodies if b.parent is None][1]
    collider = next(o for o in objects[second].children if o.articula.collider.enabled)
    activate(collider)  # a collider of the second box: its body's robot
    path = str(tmp_path / "box.urdf")
    assert bpy.ops.articula.export_urdf(filepath=path, package_name="boxes") == {"FINISHED"}
    robot = ET.parse(path).getroot()
    assert [link.get("name") for link in robot.iter("link")] == [second]
    meshes = [m.get("filename") for m in robot.iter("mesh")]
    assert meshes and all(m.startswith("package://boxes/meshes/") for m in meshes)


def test_a_scene_that_cannot_be_exported_writes_nothing(clean_scene, tmp_path):
    objects = build(six_dof_arm)
    path = tmp_path / "arm.urdf"
    path.write_text("old")
    joint = next(o for o in objects.values() if o.articula.joint.enabled)
    joint.articula.joint.body1 = None  # a joint without its child body
    with pytest.raises(RuntimeError, match="Nothing written"):
        bpy.ops.articula.export_urdf(filepath=str(path))
    assert path.read_text() == "old"
    assert sorted(os.listdir(tmp_path)) == ["arm.urdf"]


def test_the_export_menu_lists_urdf(clean_scene):
    from articula.panels import menus

    assert "articula.export_urdf" in Path(menus.__file__).read_text()
    assert bpy.ops.articula.export_urdf.poll()


def _world_vertices(obj):
    import numpy as np

    matrix = np.array(obj.matrix_world)
    vertices = np.array([list(v.co) for v in obj.data.vertices])
    return np.sort(vertices @ matrix[:3, :3].T + matrix[:3, 3], axis=0)


def test_visuals_keep_their_uvs_materials_and_textures(clean_scene, tmp_path):
    """pybullet's Panda: its visuals are written by Blender's OBJ exporter (UVs, materials, the image
    texture copied into meshes/) and come back where they were."""
    import numpy as np

    panda = Path(PYBULLET_DATA) / "franka_panda" / "panda.urdf"
    if not panda.exists():
        pytest.skip("pybullet's files come with `make urdf-corpus`")
    assert bpy.ops.articula.import_urdf(filepath=str(panda)) == {"FINISHED"}
    original = {o.name: _world_vertices(o) for o in clean_scene.objects
                if o.type == "MESH" and not o.articula.collider.enabled and not o.hide_render}
    activate(bpy.data.objects["panda_link0"])
    out = tmp_path / "out"
    out.mkdir()
    assert bpy.ops.articula.export_urdf(filepath=str(out / "panda.urdf")) == {"FINISHED"}
    link1 = next((out / "meshes").glob("panda_link1_*.obj")).read_text()
    assert "\nvt " in link1 and "\nusemtl " in link1
    assert "map_Kd colors.png" in next((out / "meshes").glob("panda_link1_*.mtl")).read_text()
    assert (out / "meshes" / "colors.png").read_bytes() == (panda.parent / "meshes" / "visual" / "colors.png").read_bytes()
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    assert bpy.ops.articula.import_urdf(filepath=str(out / "panda.urdf")) == {"FINISHED"}
    again = [_world_vertices(o) for o in clean_scene.objects
             if o.type == "MESH" and not o.articula.collider.enabled and not o.hide_render]
    assert len(again) == len(original) == 11
    for name, points in original.items():
        assert any(p.shape == points.shape and np.allclose(p, points, atol=1e-5) for p in again), name


def test_selected_only_exports_the_selection_and_what_hangs_below_it(clean_scene, tmp_path):
    objects = build(collision_showcase)
    desc = scene_from_blender(clean_scene)
    roots = [b.name for b in desc.bodies if b.parent is None]
    for obj in clean_scene.objects:
        obj.select_set(False)
    objects[roots[2]].select_set(True)
    activate(None)  # no active object: the selection's only robot
    path = str(tmp_path / "selected.urdf")
    assert bpy.ops.articula.export_urdf(filepath=str(path), selected_only=True) == {"FINISHED"}
    robot = ET.parse(path).getroot()
    assert [link.get("name") for link in robot.iter("link")] == [roots[2]]
    assert robot.find("link/collision") is not None  # its collider, parented below it, came along
