"""Import Articula USD: Colliders from Visuals and Decompose Triangle Meshes, through the operator."""

import dataclasses

import bpy
import pytest
from articula.addon.adapters.blender_to_description import scene_from_blender
from articula.core import convex, samples
from articula.core.model import ShapeKind
from articula.core.usd.writer import write_usd


@pytest.fixture
def no_colliders_file(tmp_path):
    """The finger robot with its visuals and no collision geometry."""
    path = str(tmp_path / "finger_nocol.usda")
    write_usd(dataclasses.replace(samples.robotic_finger(), shapes=[]), path)
    return path


@pytest.fixture
def mesh_collider_file(tmp_path):
    """The finger robot whose moving body ``distal`` has a triangle-mesh collider."""
    desc = samples.robotic_finger()
    shape = next(s for s in desc.shapes if s.body == "distal")
    shape.kind, shape.mesh = ShapeKind.MESH, samples.box_mesh(samples.shape_bounds(shape))
    path = str(tmp_path / "finger_mesh.usda")
    write_usd(desc, path)
    return path, shape.name


def _colliders():
    return [o for o in bpy.data.objects if o.articula.collider.enabled]


def test_a_robot_without_colliders_gets_hulls_from_its_visuals(clean_scene, no_colliders_file):
    assert bpy.ops.articula.import_usd(filepath=no_colliders_file) == {"FINISHED"}
    assert not _colliders()
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    assert bpy.ops.articula.import_usd(filepath=no_colliders_file, colliders_from_visuals="CONVEX_HULL") \
        == {"FINISHED"}
    colliders = _colliders()
    assert colliders and all(o.articula.collider.shape == "CONVEX_HULL" for o in colliders)
    desc = scene_from_blender(clean_scene)
    bare = [b.name for b in desc.bodies if not desc.shapes_of(b.name)]
    with_visuals = {v.body for v in desc.visuals}
    assert not [name for name in bare if name in with_visuals]
    assert all(s.kind == ShapeKind.CONVEX_HULL and len(s.mesh.vertices) <= convex.DEFAULT_MAX_VERTICES
               for s in desc.shapes)


def test_box_colliders_from_visuals(clean_scene, no_colliders_file):
    result = bpy.ops.articula.import_usd(filepath=no_colliders_file, colliders_from_visuals="BOX")
    assert result == {"FINISHED"}
    shapes = scene_from_blender(clean_scene).shapes
    assert shapes and all(s.kind == ShapeKind.BOX for s in shapes)


@pytest.mark.skipif(bool(convex.decomposition_unavailable_reason()), reason="CoACD cannot be loaded")
def test_a_triangle_mesh_on_a_moving_body_becomes_hulls(clean_scene, mesh_collider_file):
    path, name = mesh_collider_file
    assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}
    assert [s.kind for s in scene_from_blender(clean_scene).shapes if s.name == name] == [ShapeKind.MESH]
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    assert bpy.ops.articula.import_usd(filepath=path, decompose_triangle_meshes=True) == {"FINISHED"}
    shapes = scene_from_blender(clean_scene).shapes
    distal = [s for s in shapes if s.body == "distal"]
    assert distal and all(s.kind == ShapeKind.CONVEX_HULL for s in distal)
    assert all(s.name.startswith(f"{name}_hull_") for s in distal)
    assert not [s for s in shapes if s.kind == ShapeKind.MESH]
    assert name not in bpy.data.objects  # the triangle mesh's own object is gone, not left as a plain mesh


def _data():
    return {name: sorted(getattr(bpy.data, name).keys()) for name in ("objects", "meshes", "collections")}


def test_a_failed_import_leaves_the_scene_as_it_was(clean_scene, tmp_path, no_colliders_file):
    from articula.operators.io_usd import import_file

    bpy.ops.mesh.primitive_cube_add()
    before = _data()
    broken = tmp_path / "broken.usda"
    broken.write_text('#usda 1.0\ndef Xform "robot" (\n    prepend apiSchemas = ["PhysicsRigidBodyAPI"]\n')
    with pytest.raises(RuntimeError, match="broken.usda"):
        bpy.ops.articula.import_usd(filepath=str(broken), colliders_from_visuals="CONVEX_HULL")
    assert _data() == before
    # the colliders fail after Blender's importer made the objects: every one of them goes again
    with pytest.raises(ValueError, match="unknown method"):
        import_file(bpy.context, no_colliders_file, colliders_from_visuals="CONE")
    assert _data() == before
