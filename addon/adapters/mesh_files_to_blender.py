"""Mesh files (OBJ, STL) -> Blender meshes through Blender's own importers, for imported robots' visuals.

A URDF visual first comes in with MuJoCo's triangles of its file (core.urdf); here Blender's own
``wm.obj_import`` / ``wm.stl_import`` read the same file (UV maps, n-gons, OBJ materials) and the mesh is
moved by the file's ``MeshSource`` to where MuJoCo's triangles sat.
"""

import os

import bpy

#: Blender's own importers for the mesh files of URDF visuals, with the axes that keep file coordinates.
_MESH_IMPORTERS = {".obj": "obj_import", ".stl": "stl_import"}


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

    from ...core.transforms import pose_inverse
    from .description_to_blender import pose_matrix

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
