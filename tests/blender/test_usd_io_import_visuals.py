"""Import on Blender's own USD importer (issue 12): what Blender's importer makes (meshes with their
faces, n-gons, UVs, normals, image-texture materials) stays, and Articula's physics is put on
those objects by prim path. Also: the plain File > Import > USD, atomic failures, the rest pose,
edge cases of the export (a collider with children, a scaled non-body parent of a body)."""

import sys
import types
from pathlib import Path

import bpy
import numpy as np
import pytest
from pxr import Usd

from articula.addon.adapters.blender_to_description import scene_from_blender, world_pose
from articula.addon.usd_hook import object_paths
from articula.core.usd.compare import scene_differences
from articula.core.usd.physics_author import author_physics
from articula.core.usd.reader import read_usd

DATA = ("objects", "meshes", "materials", "images", "actions", "collections", "node_groups")

sys.path.insert(0, str(Path(__file__).parent))
from textured_robot import _select, _textured_material, two_link  # noqa: E402,F401  (two_link: a fixture)


def _evaluated_meshes(objects) -> dict:
    """Body name -> (faces, n-gons, corner normals) of its evaluated mesh (modifiers applied)."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    found = {}
    for obj in objects:
        mesh = obj.evaluated_get(depsgraph).to_mesh()
        found[obj.name] = (len(mesh.polygons), sum(len(p.vertices) > 4 for p in mesh.polygons),
                           np.array([tuple(n.vector) for n in mesh.corner_normals]))
        obj.evaluated_get(depsgraph).to_mesh_clear()
    return found


def _clear_all():
    for name in DATA:
        collection = getattr(bpy.data, name)
        bpy.data.batch_remove([item for item in collection if not (name == "images" and item.type != "IMAGE")])


def _texture_images(obj) -> list[str]:
    images = []
    for material in obj.data.materials:
        for node in material.node_tree.nodes if material and material.node_tree else ():
            if node.type == "TEX_IMAGE" and node.image is not None:
                images.append(bpy.path.basename(node.image.filepath))
    return images


def _physics(desc) -> list:
    """Bodies, joints and colliders without names that Blender's global object names may change
    (a collider named like its body gets ``.001``): sorted (body, kind, sizes) for the shapes."""
    shapes = sorted((s.body, s.kind.value, tuple(round(v, 6) for v in s.half_extents),
                     tuple(round(v, 6) for v in s.pose.pos)) for s in desc.shapes)
    return shapes


def _check_round_trip(first: str, second: str) -> None:
    a, b = read_usd(first).scene, read_usd(second).scene
    assert scene_differences(a, b, skip_body_fields=("hierarchy_gap",)) == [] or all(
        line.startswith(("shape ", "visual ")) for line in scene_differences(a, b))
    assert _physics(a) == _physics(b)
    key = lambda v: (v.body or "", len(v.mesh.vertices), v.mesh.vertices[:1])  # noqa: E731
    assert [v.mesh for v in sorted(a.visuals, key=key)] == [v.mesh for v in sorted(b.visuals, key=key)]


def test_textured_robot_keeps_meshes_uvs_normals_textures_and_physics(two_link, tmp_path):
    scene, base, arm = two_link
    expected = _evaluated_meshes((base, arm))
    path, again = str(tmp_path / "robot.usda"), str(tmp_path / "again.usda")
    assert bpy.ops.articula.export_usd(filepath=path) == {"FINISHED"}
    _clear_all()
    assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}
    bodies = {o.name: o for o in scene.objects if o.articula.body.enabled}
    assert sorted(bodies) == ["arm", "base"]
    assert bodies["arm"].parent == bodies["base"]
    for name, (faces, ngons, normals) in expected.items():
        meshes = [c for c in bodies[name].children if c.type == "MESH" and not c.articula.collider.enabled]
        assert len(meshes) == 1, name
        mesh = meshes[0].data
        assert (len(mesh.polygons), sum(len(p.vertices) > 4 for p in mesh.polygons)) == (faces, ngons), name
        assert "st" in mesh.uv_layers, name
        ours = np.array([tuple(n.vector) for n in mesh.corner_normals])
        assert ours.shape == normals.shape and np.allclose(ours, normals, atol=1e-4), name
        assert _texture_images(meshes[0]) == ["checker.png"], name
        assert not meshes[0].hide_render
    joints = [o for o in scene.objects if o.articula.joint.enabled]
    assert [(j.name, j.parent.name, j.articula.joint.body0.name) for j in joints] == [("arm_joint", "arm", "base")]
    colliders = [o for o in scene.objects if o.articula.collider.enabled]
    assert sorted(c.parent.name for c in colliders) == ["arm", "base"]
    assert all(c.display_type == "WIRE" and c.hide_render for c in colliders)
    assert bpy.ops.articula.export_usd(filepath=again) == {"FINISHED"}
    _check_round_trip(path, again)


def test_textured_usd_from_elsewhere_keeps_uvs_and_textures(two_link, tmp_path, monkeypatch):
    """Blender's own wm.usd_export of the textured meshes (no Articula hook), physics authored on
    it by core/usd/physics_author.py: imported, the meshes keep UVs and image textures."""
    from articula.addon import preferences

    scene, base, arm = two_link
    desc = scene_from_blender(scene)
    off = types.SimpleNamespace(usd_export_physics=False, usd_import_physics=True, device="AUTO")
    monkeypatch.setattr(preferences, "preferences", lambda context=None: off)
    path = str(tmp_path / "elsewhere.usda")
    assert bpy.ops.wm.usd_export(filepath=path) == {"FINISHED"}
    stage = Usd.Stage.Open(path)
    assert not read_usd(stage).scene.bodies
    author_physics(stage, desc, object_paths(stage))
    stage.GetRootLayer().Save()
    del stage
    _clear_all()
    assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}
    meshes = [o for o in scene.objects if o.type == "MESH" and not o.articula.collider.enabled]
    assert len(meshes) == 2
    for obj in meshes:
        assert "st" in obj.data.uv_layers and _texture_images(obj) == ["checker.png"]
        assert any(len(p.vertices) > 4 for p in obj.data.polygons) == (obj.parent.name == "arm")
    assert sorted(o.name for o in scene.objects if o.articula.body.enabled) == ["arm", "base"]
    assert scene_differences(read_usd(path).scene, scene_from_blender(scene)) == [] or _physics(
        read_usd(path).scene) == _physics(scene_from_blender(scene))


def test_plain_usd_import_brings_the_physics_unless_turned_off(two_link, tmp_path, monkeypatch):
    from articula.addon import preferences

    scene = two_link[0]
    path = str(tmp_path / "robot.usda")
    assert bpy.ops.articula.export_usd(filepath=path) == {"FINISHED"}
    _clear_all()
    assert bpy.ops.wm.usd_import(filepath=path) == {"FINISHED"}
    assert sorted(o.name for o in scene.objects if o.articula.body.enabled) == ["arm", "base"]
    assert [o.name for o in scene.objects if o.articula.joint.enabled] == ["arm_joint"]
    _clear_all()
    off = types.SimpleNamespace(usd_export_physics=True, usd_import_physics=False, device="AUTO")
    monkeypatch.setattr(preferences, "preferences", lambda context=None: off)
    assert bpy.ops.wm.usd_import(filepath=path) == {"FINISHED"}
    assert scene.objects and not any(o.articula.body.enabled for o in scene.objects)


def _data_state():
    return {name: sorted(item.name for item in getattr(bpy.data, name)) for name in DATA}


def test_failed_import_removes_meshes_materials_images_and_keeps_the_scene(two_link, tmp_path, monkeypatch):
    from articula.addon.adapters import description_to_blender

    scene = two_link[0]
    path = str(tmp_path / "robot.usda")
    assert bpy.ops.articula.export_usd(filepath=path) == {"FINISHED"}
    before = _data_state()
    selected = sorted(o.name for o in bpy.context.selected_objects)
    active_collection = bpy.context.view_layer.active_layer_collection.name

    def explode(self, joint):
        raise ValueError("boom")

    monkeypatch.setattr(description_to_blender._Adopter, "add_joint", explode)
    with pytest.raises(RuntimeError, match="nothing was added"):
        bpy.ops.articula.import_usd(filepath=path)
    assert _data_state() == before
    assert sorted(o.name for o in bpy.context.selected_objects) == selected
    assert bpy.context.view_layer.active_layer_collection.name == active_collection


def test_import_into_a_scene_with_the_same_robot_and_the_rest_pose(two_link, tmp_path):
    scene, base, arm = two_link
    path = str(tmp_path / "robot.usda")
    assert bpy.ops.articula.export_usd(filepath=path) == {"FINISHED"}
    assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}
    bodies = [o for o in scene.objects if o.articula.body.enabled]
    new = [o for o in bodies if o not in (base, arm)]
    assert len(bodies) == 4 and base.name == "base" and arm.name == "arm"  # the user's keep their names
    assert sorted(o.name.split(".")[0] for o in new) == ["arm", "base"]
    for obj in new:  # the rest is the imported pose
        pose = world_pose(obj)
        assert tuple(obj.articula.body.rest_location) == pytest.approx(pose.pos, abs=1e-6)
        assert tuple(obj.articula.body.rest_rotation) == pytest.approx(pose.rot, abs=1e-6)
    imported = next(o for o in new if o.name.startswith("arm"))
    assert imported.parent in new and imported.parent.name.startswith("base")
    joint = next(o for o in scene.objects if o.articula.joint.enabled and o.parent == imported)
    assert joint.articula.joint.body0 == imported.parent


def test_failed_export_leaves_no_textures_folder(two_link, tmp_path, monkeypatch):
    from articula.core.usd import physics_author

    out = tmp_path / "out"
    out.mkdir()

    def broken(*args, **kwargs):
        raise RuntimeError("authoring broke")

    monkeypatch.setattr(physics_author, "author_physics", broken)
    with pytest.raises(RuntimeError, match="authoring broke"):
        bpy.ops.articula.export_usd(filepath=str(out / "robot.usda"))
    assert list(out.iterdir()) == []


def test_collider_with_children_round_trips(two_link, tmp_path):
    """A collider object with a child mesh (a visual parented to the collider): exported and
    imported back, the same colliders and visual meshes."""
    scene, base, arm = two_link
    bpy.ops.mesh.primitive_cube_add(size=0.05, location=(0.1, 0.0, 0.2))
    collider = bpy.context.active_object
    collider.name = "bumper"
    collider.parent = base
    collider.matrix_parent_inverse = base.matrix_world.inverted()
    _select(collider)
    assert bpy.ops.articula.set_collider(shape="BOX") == {"FINISHED"}
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.01, location=(0.12, 0.0, 0.2))
    child = bpy.context.active_object
    child.name = "bumper_light"
    child.parent = collider
    child.matrix_parent_inverse = collider.matrix_world.inverted()
    bpy.context.view_layer.update()
    path, again = str(tmp_path / "robot.usda"), str(tmp_path / "again.usda")
    assert bpy.ops.articula.export_usd(filepath=path) == {"FINISHED"}
    assert len(read_usd(path).scene.shapes) == 3
    _clear_all()
    assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}
    assert bpy.ops.articula.export_usd(filepath=again) == {"FINISHED"}
    _check_round_trip(path, again)


def test_scaled_non_body_parent_of_a_body_round_trips(two_link, tmp_path):
    """A body under a non-uniformly scaled Empty that is no body: the body keeps its pose (rigid),
    imported it is a body again at the same pose, and export -> import -> export agrees."""
    scene, base, arm = two_link
    bpy.ops.object.empty_add(location=(0.0, 0.0, 0.3))
    holder = bpy.context.active_object
    holder.name = "holder"
    holder.scale = (1.0, 2.0, 0.5)
    holder.parent = base
    holder.matrix_parent_inverse = base.matrix_world.inverted()
    bpy.context.view_layer.update()
    world = arm.matrix_world.copy()
    arm.parent = holder
    arm.matrix_parent_inverse = holder.matrix_world.inverted()
    bpy.context.view_layer.update()
    assert np.allclose(np.array(arm.matrix_world), np.array(world), atol=1e-6)
    path, again = str(tmp_path / "robot.usda"), str(tmp_path / "again.usda")
    assert bpy.ops.articula.export_usd(filepath=path, allow_warnings=True) == {"FINISHED"}
    first = read_usd(path).scene
    _clear_all()
    assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}
    imported = bpy.data.objects["arm"]
    assert imported.articula.body.enabled
    assert tuple(world_pose(imported).pos) == pytest.approx(first.body("arm").pose.pos, abs=1e-6)
    assert bpy.ops.articula.export_usd(filepath=again, allow_warnings=True) == {"FINISHED"}
    _check_round_trip(path, again)
