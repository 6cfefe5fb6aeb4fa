"""File > Import of robots in the formats most robots exist in: MJCF (MuJoCo) and URDF (ROS).

Thin: the bpy-free parsers (core.mjcf, core.urdf) give the physics description and
``description_to_blender.build_scene`` builds it, as the USD import does. Atomic: a file that
cannot be read or built leaves the scene as it was, and the message names the file and element.
"""

import os

import bpy
from bpy.props import StringProperty
from bpy_extras.io_utils import ImportHelper

_DATA_COLLECTIONS = ("objects", "meshes", "materials", "collections", "images")
#: Blender's own importers for the mesh files of URDF visuals, with the axes that keep file coordinates.
_MESH_IMPORTERS = {".obj": "obj_import", ".stl": "stl_import"}


def _datablock_names() -> dict[str, set]:
    return {name: set(getattr(bpy.data, name).keys()) for name in _DATA_COLLECTIONS}


def _remove_new_datablocks(before: dict[str, set]) -> None:
    for name in _DATA_COLLECTIONS:
        collection = getattr(bpy.data, name)
        for key in set(collection.keys()) - before[name]:
            item = collection.get(key)
            if item is not None:
                collection.remove(item)


def _import_mesh_file(path: str):
    """The mesh Blender's own importer reads from ``path``, in file coordinates (an OBJ file's several
    objects joined into one mesh, their materials kept); the imported objects are removed again.
    None when it brings no mesh."""
    import bmesh

    importer = getattr(bpy.ops.wm, _MESH_IMPORTERS[os.path.splitext(path)[1].lower()])
    before = set(bpy.data.objects)
    importer(filepath=path, forward_axis="Y", up_axis="Z")
    new = [obj for obj in bpy.data.objects if obj not in before]
    parts = [obj for obj in new if obj.type == "MESH"]
    mesh = None
    if parts:
        bm, materials = bmesh.new(), []
        for obj in parts:
            data = obj.data.copy()
            data.transform(obj.matrix_world)
            offset = len(materials)
            materials.extend(data.materials if len(data.materials) else [None])
            if offset and len(data.polygons):
                indices = [0] * len(data.polygons)
                data.polygons.foreach_get("material_index", indices)
                data.polygons.foreach_set("material_index", [i + offset for i in indices])
            bm.from_mesh(data)
            bpy.data.meshes.remove(data)
        mesh = bpy.data.meshes.new(os.path.basename(path))
        bm.to_mesh(mesh)
        bm.free()
        if any(m is not None for m in materials):
            for material in materials:
                mesh.materials.append(material)
    for obj in new:
        data = obj.data
        bpy.data.objects.remove(obj)
        if data is not None and data.users == 0 and isinstance(data, bpy.types.Mesh):
            bpy.data.meshes.remove(data)
    return mesh


def use_blender_meshes(objects: dict, mesh_sources: dict) -> list[str]:
    """Replace each URDF visual's mesh (MuJoCo's triangles) by what Blender's own OBJ/STL importer reads
    from the same file: UV maps, n-gons and OBJ materials come with it. Returns the files kept as
    MuJoCo read them (the importer brought no mesh)."""
    from mathutils import Matrix

    from ..addon.adapters.description_to_blender import pose_matrix
    from ..core.transforms import pose_inverse

    imported, kept = {}, []
    for name, source in mesh_sources.items():
        obj = objects.get(name)
        if obj is None or obj.type != "MESH" or os.path.splitext(source.path)[1].lower() not in _MESH_IMPORTERS:
            continue
        if source.path not in imported:
            imported[source.path] = _import_mesh_file(source.path)
        raw = imported[source.path]
        if raw is None:
            kept.append(source.path)
            continue
        mesh = raw.copy()
        mesh.name = name
        mesh.transform(pose_matrix(pose_inverse(source.offset)) @ Matrix.Diagonal((*source.scale, 1.0)))
        if not mesh.materials:
            for material in obj.data.materials:
                mesh.materials.append(material)
        old, obj.data = obj.data, mesh
        if old.users == 0:
            bpy.data.meshes.remove(old)
    for raw in imported.values():
        if raw is not None and raw.users == 0:
            bpy.data.meshes.remove(raw)
    return sorted(set(kept))


def build_robot(context, scene_desc, filepath: str, mesh_sources=None) -> tuple[dict, list[str]]:
    """Build ``scene_desc`` into a new collection named after the file; returns (objects, notes).

    Into a scene that already has rigid bodies the scene keeps its physics settings and material
    list (the file's are added). Whatever fails while building is undone, then re-raised."""
    from ..addon.adapters.description_to_blender import build_scene
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
    except Exception:
        _remove_new_datablocks(before)
        restore(context.scene.articula, settings_before)
        raise
    return objects, notes


def _finish(operator, filepath: str, objects: dict, warnings: list[str]) -> set:
    for warning in warnings:
        operator.report({"WARNING"}, warning)
    bodies = sum(1 for obj in set(objects.values()) if obj.articula.body.enabled)
    operator.report({"INFO"}, f"Imported {bodies} rigid bodies ({len(set(objects.values()))} objects) "
                              f"from {filepath}")
    return {"FINISHED"}


def _build_or_report(operator, context, read, filepath: str) -> set:
    try:
        objects, notes = build_robot(context, read.scene, filepath, getattr(read, "mesh_sources", None))
    except Exception as error:  # build_robot removed what it made
        operator.report({"ERROR"}, f"file {filepath}: import failed, nothing was added ({error})")
        return {"CANCELLED"}
    return _finish(operator, filepath, objects, list(read.warnings) + notes)


class ARTICULA_OT_import_mjcf(bpy.types.Operator, ImportHelper):
    """Import a MuJoCo MJCF robot (bodies, joints, actuators as drives, colliders, visuals, masses)"""

    bl_idname = "articula.import_mjcf"
    bl_label = "Import MJCF Robot"
    bl_options = {"REGISTER", "UNDO"}

    filename_ext = ".xml"
    filter_glob: StringProperty(default="*.xml;*.mjcf", options={"HIDDEN"})

    def execute(self, context):
        from ..core.mjcf import MjcfReadError, read_mjcf

        try:
            read = read_mjcf(self.filepath)
        except MjcfReadError as error:
            self.report({"ERROR"}, f"{error}; nothing was imported")
            return {"CANCELLED"}
        return _build_or_report(self, context, read, self.filepath)


class ARTICULA_OT_import_urdf(bpy.types.Operator, ImportHelper):
    """Import a URDF robot (links, joints, limits, colliders, visual meshes, masses)"""

    bl_idname = "articula.import_urdf"
    bl_label = "Import URDF Robot"
    bl_options = {"REGISTER", "UNDO"}

    filename_ext = ".urdf"
    filter_glob: StringProperty(default="*.urdf;*.xml", options={"HIDDEN"})
    package_paths: StringProperty(
        name="Package Paths", default="",
        description="Folders searched for package:// meshes, separated by ';' (the file's own folder and "
                    "its parents are always searched)")

    def execute(self, context):
        from ..core.urdf import UrdfReadError, read_urdf

        paths = [p.strip() for p in self.package_paths.split(";") if p.strip()]
        try:
            read = read_urdf(self.filepath, package_paths=[bpy.path.abspath(p) for p in paths])
        except UrdfReadError as error:
            self.report({"ERROR"}, f"{error}; nothing was imported")
            return {"CANCELLED"}
        return _build_or_report(self, context, read, self.filepath)


classes = (ARTICULA_OT_import_mjcf, ARTICULA_OT_import_urdf)

register, unregister = bpy.utils.register_classes_factory(classes)
