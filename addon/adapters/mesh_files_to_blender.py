"""Mesh files (OBJ, STL, COLLADA) -> Blender meshes, for imported robots' visuals.

A URDF visual first comes in with MuJoCo's triangles of its file (core.urdf); here Blender's own
``wm.obj_import`` / ``wm.stl_import`` read the same file (UV maps, n-gons, OBJ materials) and the mesh is
moved by the file's ``MeshSource`` to where MuJoCo's triangles sat. Blender 5 has no COLLADA importer:
a ``.dae`` file's polygons, UVs and materials (colors, image textures) come from core.urdf.collada.
"""

import os

import bpy

#: Blender's own importers for the mesh files of URDF visuals, with the axes that keep file coordinates.
_MESH_IMPORTERS = {".obj": "obj_import", ".stl": "stl_import"}
_COLLADA = ".dae"


def _import_mesh_file(path: str):
    """The mesh Blender's own importer reads from ``path``, in file coordinates (an OBJ file's several
    objects joined into one mesh, their materials kept); the imported objects are removed again.
    None when it brings no mesh."""
    import bmesh

    if os.path.splitext(path)[1].lower() == _COLLADA:
        return _collada_mesh(path)
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


def _collada_mesh(path: str):
    """A ``.dae`` file's polygons in file coordinates (meters), with its UV map and one material per
    COLLADA material (base color, or the image texture the file names). None when it cannot be read."""
    import numpy as np

    from ...core.urdf.collada import DEFAULT_COLOR, ColladaMaterial, ColladaReadError, read_collada

    try:
        read = read_collada(path)
    except ColladaReadError:
        return None  # the reader left its geoms out already, saying why
    mesh = bpy.data.meshes.new(os.path.basename(path))
    counts = read.face_counts
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype("int32")
    mesh.vertices.add(len(read.vertices))
    mesh.vertices.foreach_set("co", read.vertices.astype("float32").ravel())
    mesh.loops.add(len(read.face_indices))
    mesh.loops.foreach_set("vertex_index", read.face_indices.astype("int32"))
    mesh.polygons.add(len(counts))
    mesh.polygons.foreach_set("loop_start", starts)
    unbound = read.face_materials < 0  # drawn in the URDF's color: a slot of its own when others are bound
    if read.materials:
        mesh.polygons.foreach_set("material_index", np.where(unbound, len(read.materials), read.face_materials)
                                  .astype("int32"))
    if read.uvs is not None:
        mesh.uv_layers.new(name="UVMap").data.foreach_set("uv", read.uvs.astype("float32").ravel())
    mesh.update()
    mesh.validate()
    for material in read.materials:
        mesh.materials.append(_collada_material(material))
    if read.materials and unbound.any():
        mesh.materials.append(_collada_material(ColladaMaterial("collada_default", DEFAULT_COLOR)))
    return mesh


def _collada_material(material):
    """A Principled BSDF material of a COLLADA material's color, or of its image texture."""
    made = bpy.data.materials.new(material.name)
    made.diffuse_color = material.color
    bsdf = _principled(made)
    if bsdf is not None:
        bsdf.inputs["Base Color"].default_value = material.color
        if material.texture:
            _link_image(made, bsdf, material.texture)
    return made


def _principled(material):
    from .blender_to_description import principled_node

    if bpy.app.version < (5, 0, 0) and not material.use_nodes:
        material.use_nodes = True  # always on from Blender 5.0, where setting it is deprecated
    return principled_node(material)


def _link_image(material, bsdf, path: str) -> None:
    """An Image Texture node of ``path`` into the Principled BSDF's Base Color."""
    texture = material.node_tree.nodes.new("ShaderNodeTexImage")
    texture.image = bpy.data.images.load(path, check_existing=True)
    texture.location = (bsdf.location.x - 300.0, bsdf.location.y)
    material.node_tree.links.new(texture.outputs["Color"], bsdf.inputs["Base Color"])


def apply_material_textures(objects: dict, material_textures: dict) -> None:
    """MJCF 2D textures (core.mjcf: material name -> image file) on the materials of the visuals
    that carry texture coordinates (a mesh read from an OBJ file), as MuJoCo maps them. A material
    also drawn on a mesh without them (a primitive, onto which MuJoCo projects the texture) keeps its
    color, and one whose Base Color is already an image (the OBJ's own) is left as it is."""
    textured, plain = set(), set()
    for obj in set(objects.values()):
        if obj.type == "MESH":
            names = {m.name for m in obj.data.materials if m is not None and m.name in material_textures}
            (textured if obj.data.uv_layers else plain).update(names)
    for name in sorted(textured - plain):
        material = bpy.data.materials[name]
        bsdf = _principled(material)
        if bsdf is not None and not bsdf.inputs["Base Color"].is_linked:
            _link_image(material, bsdf, material_textures[name])


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
        extension = os.path.splitext(source.path)[1].lower()
        if obj is None or obj.type != "MESH" or (extension not in _MESH_IMPORTERS and extension != _COLLADA):
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
