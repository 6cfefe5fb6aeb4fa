"""What the robot importers share (MJCF, URDF, and the USD import's collider options).

The bpy-free parsers (core.mjcf, core.urdf) give the physics description and
``description_to_blender.build_scene`` builds it, as the USD import does. Atomic: a file that
cannot be read or built leaves the scene as it was, and the message names the file and element.
"""

import os

import bpy
from bpy.props import BoolProperty, EnumProperty

COLLIDERS_FROM_VISUALS = [
    ("NONE", "None", "Bodies without collision geometry stay without colliders"),
    ("BOX", "Box", "A box fitted to each visual of a body without collision geometry"),
    ("CONVEX_HULL", "Convex Hull", "The convex hull of each visual (at most 64 vertices)"),
    ("CONVEX_DECOMPOSITION", "Convex Decomposition", "Convex parts of each visual (CoACD); slow on large meshes"),
]


def colliders_from_visuals_option():
    return EnumProperty(name="Colliders from Visuals", items=COLLIDERS_FROM_VISUALS, default="NONE",
                        description="Colliders for bodies that have visuals but no collision geometry")


def decompose_meshes_option():
    return BoolProperty(name="Decompose Triangle Meshes", description="Triangle-mesh colliders of moving "
                        "bodies become convex decompositions (PhysX refuses triangle meshes on moving bodies)")


def _add_colliders(operator, read) -> list[str]:
    """Colliders from the visuals, as the operator's options ask; raises RuntimeError saying why not."""
    from ..core import convex

    method = getattr(operator, "colliders_from_visuals", "NONE")
    decompose = getattr(operator, "decompose_triangle_meshes", False)
    if method == "NONE" and not decompose:
        return []
    if (decompose or method == "CONVEX_DECOMPOSITION") and convex.decomposition_unavailable_reason():
        raise RuntimeError(convex.decomposition_unavailable_reason())
    return convex.colliders_from_visuals(read.scene, method, decompose_meshes=decompose)
_DATA_COLLECTIONS = ("objects", "meshes", "materials", "collections", "images")


def _datablock_names() -> dict[str, set]:
    return {name: set(getattr(bpy.data, name).keys()) for name in _DATA_COLLECTIONS}


def _remove_new_datablocks(before: dict[str, set]) -> None:
    for name in _DATA_COLLECTIONS:
        collection = getattr(bpy.data, name)
        for key in set(collection.keys()) - before[name]:
            item = collection.get(key)
            if item is not None:
                collection.remove(item)


def build_robot(context, scene_desc, filepath: str, mesh_sources=None, material_textures=None
                ) -> tuple[dict, list[str]]:
    """Build ``scene_desc`` into a new collection named after the file; returns (objects, notes).

    Into a scene that already has rigid bodies the scene keeps its physics settings and material
    list (the file's are added). Whatever fails while building is undone, then re-raised."""
    from ..addon.adapters.description_to_blender import build_scene
    from ..addon.adapters.mesh_files_to_blender import apply_material_textures, use_blender_meshes
    from ..addon.property_snapshot import restore, snapshot

    notes = []
    has_robot = any(obj.articula.body.enabled for obj in context.scene.objects)
    if has_robot:
        notes.append("kept this scene's physics settings (it already has rigid bodies); "
                     "the file's gravity, solver and step were not applied")
    before = _datablock_names()
    settings_before = snapshot(context.scene.articula)
    try:
        collection = bpy.data.collections.new(scene_desc.name or os.path.basename(filepath))
        context.scene.collection.children.link(collection)
        objects = build_scene(context, scene_desc, collection, merge=True, apply_scene_settings=not has_robot)
        if mesh_sources:
            kept = use_blender_meshes(objects, mesh_sources)
            if kept:
                notes.append("visual meshes kept as MuJoCo reads them (Blender's importer found no mesh): "
                             + ", ".join(os.path.basename(p) for p in kept))
        if material_textures:
            apply_material_textures(objects, material_textures)
    except Exception:
        _remove_new_datablocks(before)
        restore(context.scene.articula, settings_before)
        raise
    return objects, notes


def _finish(operator, filepath: str, objects: dict, warnings: list[str]) -> set:
    for warning in warnings:
        operator.report({"WARNING"}, warning)
    bodies = sum(1 for obj in set(objects.values()) if obj.articula.body.enabled)
    if bodies == 0:  # never a plain success: the file may not be what the user thinks it is
        operator.report({"WARNING"}, f"Imported no rigid body from {filepath} "
                                     f"({len(set(objects.values()))} objects): nothing will move")
        return {"FINISHED"}
    operator.report({"INFO"}, f"Imported {bodies} rigid bodies ({len(set(objects.values()))} objects) "
                              f"from {filepath}")
    return {"FINISHED"}


def build_or_report(operator, context, read, filepath: str) -> set:
    try:
        read.warnings = list(read.warnings) + _add_colliders(operator, read)
    except (RuntimeError, ValueError) as error:
        operator.report({"ERROR"}, f"file {filepath}: colliders from visuals failed, nothing was added ({error})")
        return {"CANCELLED"}
    if not read.scene.bodies and not read.scene.shapes and not read.scene.visuals:
        reasons = "; ".join(read.warnings) or "the file describes no body, collider or visual"
        operator.report({"ERROR"}, f"file {filepath}: nothing to import ({reasons}); nothing was added")
        return {"CANCELLED"}
    try:
        objects, notes = build_robot(context, read.scene, filepath, getattr(read, "mesh_sources", None),
                                     getattr(read, "material_textures", None))
    except Exception as error:  # build_robot removed what it made
        operator.report({"ERROR"}, f"file {filepath}: import failed, nothing was added ({error})")
        return {"CANCELLED"}
    return _finish(operator, filepath, objects, list(read.warnings) + notes)
