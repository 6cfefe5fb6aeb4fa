"""Articula's ``bpy.types.USDHook``: Blender's own USD export plus the robot's physics.

Blender's ``wm.usd_export`` writes the geometry, UVs, normals, n-gons, evaluated modifiers,
materials and the object hierarchy; ``on_export`` then authors the physics onto the prims it wrote
(``core.usd.physics_author``), finding each object's prim by the
``userProperties:blender:object_name`` Blender puts on it (4.5 and 5.2 alike; 4.5's export
context has no ``get_prim_map``).

Two ways in:
- ``articula.export_usd`` prepares the description (rest pose, validated) and calls
  ``wm.usd_export`` inside :func:`articula_export`; errors come back to the operator, which then
  drops the half-made file;
- a plain *File > Export > USD* of a scene with Articula bodies authors them too when the
  preference ``usd_export_physics`` is on (the default); problems are printed, never raised
  (Blender's own export is not ours to fail).

Import mirrors it: Blender's ``wm.usd_import`` makes the objects (meshes, UVs, normals, n-gons,
materials, textures, hierarchy); ``on_import`` reads the physics from the same stage with the
bpy-free reader and turns the objects Blender made into bodies, joints and colliders, matched by
prim path through ``get_prim_map()`` (a dict of ``Sdf.Path`` -> list of IDs, the Object first, on
4.5 and 5.2 alike; world matrices are only valid after a depsgraph update there).
``articula.import_usd`` runs it inside :func:`articula_import` and rolls everything back on an
error; a plain *File > Import > USD* brings the physics too while the preference
``usd_import_physics`` is on (the default), printing problems instead of raising.
"""

from __future__ import annotations

import contextlib
import traceback

import bpy

OBJECT_NAME_ATTR = "userProperties:blender:object_name"

# The export being run by ``articula.export_usd`` (None: a plain File > Export > USD).
_pending: dict | None = None


@contextlib.contextmanager
def articula_export(scene_description, preparing, isaac_schema: bool = True):
    """Run ``wm.usd_export`` inside this block to author ``scene_description``; yields a dict that
    holds ``error`` (an exception raised by the hook) and ``warnings`` after the export.
    ``preparing``: ``core.usd.physics_author.prepare_physics`` of the description being made on a
    worker thread (a ``core.background.BackgroundCall``, started before Blender's exporter so that
    both run at once); the hook waits for it, and raises what validation refuses."""
    global _pending
    state = {"scene": scene_description, "preparing": preparing, "error": None, "warnings": [], "called": False,
             "isaac_schema": isaac_schema}
    _pending = state
    try:
        yield state
    finally:
        _pending = None


# The import being run by ``articula.import_usd`` (None: a plain File > Import > USD).
_pending_import: dict | None = None


@contextlib.contextmanager
def articula_import(renest: bool = True, reading=None):
    """Run ``wm.usd_import`` inside this block to bring the file's physics; yields a dict that
    holds ``error``, ``result`` (the reader's), ``objects`` and ``warnings`` after the import.
    ``reading``: the file's physics already being read (a ``core.background.BackgroundCall`` of
    ``read_usd``, started before Blender's importer so both run at once), else the hook reads
    Blender's stage itself."""
    global _pending_import
    state = {"renest": renest, "reading": reading, "error": None, "result": None, "objects": {},
             "warnings": [], "called": False}
    _pending_import = state
    try:
        yield state
    finally:
        _pending_import = None


def prim_objects(import_context) -> dict:
    """Prim path (str) -> the Object Blender's importer made for that prim."""
    found = {}
    object_type = bpy.types.Object
    for path, ids in import_context.get_prim_map().items():
        if not isinstance(ids, (list, tuple)):
            ids = (ids,)
        obj = ids[0] if ids and isinstance(ids[0], object_type) else next(
            (i for i in ids if isinstance(i, object_type)), None)  # the Object comes first, as a rule
        if obj is not None:
            found[str(path)] = obj
    return found


def import_physics(context, stage, objects_by_path: dict, renest: bool = True, collection=None, reading=None):
    """Read ``stage``'s physics and make the objects Blender imported from it Articula's bodies,
    joints, colliders and visuals; returns (reader result, objects by description name, warnings).
    ``reading``: the same file's physics being read on a worker thread (see ``articula_import``).

    Into a scene that already has a robot, its settings and materials are kept."""
    from ..core.usd.reader import read_usd
    from .adapters.blender_to_description import capture_rest
    from .adapters.description_to_blender import adopt_imported

    result = reading.result() if reading is not None else read_usd(stage, renest=renest)
    warnings = list(result.warnings)
    imported = set(objects_by_path.values())
    has_robot = any(obj.articula.body.enabled for obj in context.scene.objects if obj not in imported)
    if has_robot:
        warnings.append("kept this scene's physics settings (it already has rigid bodies); "
                        "the file's gravity, solver and step were not applied")
    if collection is None:  # where Blender put the objects
        collection = context.view_layer.active_layer_collection.collection
    objects_by_path, taken = dict(objects_by_path), set()
    objects = adopt_imported(context, result.scene, result.prim_paths, objects_by_path, collection,
                             merge=True, apply_scene_settings=not has_robot,
                             dissolve=[path for path in result.articulation_wrappers
                                       if path in objects_by_path],
                             taken=taken)
    capture_rest(objects.values())
    _remove_leftovers(stage, objects_by_path, taken)
    _repair_lost_parents(stage, objects_by_path, taken)
    return result, objects, warnings


def _remove_leftovers(stage, objects_by_path: dict, taken: set) -> None:
    """Objects Blender made that are no part of the robot and were not in the file to be seen:
    childless Empties for non-transformable prims (Scopes, unsupported joints) and guide-purpose
    gprims that are not colliders (guides are imported only for the colliders)."""
    from pxr import UsdGeom

    doomed = []
    parents = {obj.parent for obj in objects_by_path.values() if obj.parent is not None}
    for path, obj in objects_by_path.items():
        if obj in taken:
            continue
        prim = stage.GetPrimAtPath(path)
        if not prim:
            continue
        if obj.type == "EMPTY" and obj not in parents and not prim.IsA(UsdGeom.Xformable):
            doomed.append(obj)
        elif prim.IsA(UsdGeom.Imageable) and UsdGeom.Imageable(prim).ComputePurpose() == UsdGeom.Tokens.guide:
            doomed.append(obj)
    if doomed:
        gone = set(doomed)
        for path in [path for path, obj in objects_by_path.items() if obj in gone]:
            del objects_by_path[path]
        data = [obj.data for obj in doomed if obj.data is not None]
        bpy.data.batch_remove(doomed)
        bpy.data.batch_remove([d for d in data if d.users == 0])


def _repair_lost_parents(stage, objects_by_path: dict, taken: set) -> None:
    """Blender's importer drops the ancestors of gprims under a typeless prim (``def "visuals"``,
    as Newton's assets have): such objects come without a parent, at their local transform. Put
    them under the nearest ancestor prim's object at their world transform from the stage."""
    from mathutils import Matrix
    from pxr import Gf, Usd, UsdGeom

    cache, conversion = None, None
    for path, obj in objects_by_path.items():
        if obj in taken or obj.parent is not None:
            continue
        ancestor = path.rpartition("/")[0]
        while ancestor and ancestor not in objects_by_path:
            ancestor = ancestor.rpartition("/")[0]
        prim = stage.GetPrimAtPath(path)
        if not ancestor or not prim or not prim.IsA(UsdGeom.Xformable):
            continue
        if cache is None:
            cache = UsdGeom.XformCache(Usd.TimeCode.Default())
            conversion = Gf.Matrix4d().SetScale(UsdGeom.GetStageMetersPerUnit(stage))  # as the reader
            if UsdGeom.GetStageUpAxis(stage) == UsdGeom.Tokens.y:
                conversion = conversion * Gf.Matrix4d().SetRotate(Gf.Rotation(Gf.Vec3d(1.0, 0.0, 0.0), 90.0))
        parent = objects_by_path[ancestor]
        world = Matrix([list(row) for row in cache.GetLocalToWorldTransform(prim) * conversion]).transposed()
        obj.parent = parent
        obj.matrix_parent_inverse = parent.matrix_world.inverted()
        obj.matrix_world = world  # sets matrix_basis to ``world`` and keeps matrix_world valid


def _plain_import_enabled() -> bool:
    from .preferences import preferences

    prefs = preferences()
    return prefs is None or getattr(prefs, "usd_import_physics", True)


def _plain_import(import_context) -> None:
    """File > Import > USD of a physics file: the physics too (never raises into Blender)."""
    from pxr import UsdPhysics

    stage = import_context.get_stage()
    if not any(prim.HasAPI(UsdPhysics.RigidBodyAPI) or prim.HasAPI(UsdPhysics.CollisionAPI)
               or prim.IsA(UsdPhysics.Joint) for prim in stage.Traverse()):
        return
    _, _, warnings = import_physics(bpy.context, stage, prim_objects(import_context))
    for warning in warnings:
        print(f"Articula: {warning}")


def object_paths(stage) -> dict:
    """Blender object name -> the Sdf.Path of the Xform Blender wrote for it."""
    paths = {}
    for prim in stage.Traverse():
        attr = prim.GetAttribute(OBJECT_NAME_ATTR)
        if attr:
            name = attr.Get()
            if name:
                paths[name] = prim.GetPath()
    return paths


def _author(stage, scene_description, preparing=None, isaac_schema: bool = True) -> list[str]:
    """``preparing``: see :func:`articula_export` (None: validated and prepared here)."""
    from ..core.usd.physics_author import author_physics, read_exported_stage

    stage_read = read_exported_stage(stage, OBJECT_NAME_ATTR)  # the prims' paths and world matrices at once
    paths = stage_read[0]
    if give_back_prim_names(stage, paths, scene_description.prim_names):
        stage_read = None  # prims renamed: authoring reads the matrices again
    prepared = preparing.result() if preparing is not None else None
    return author_physics(stage, scene_description, paths, isaac_schema=isaac_schema, prepared=prepared,
                          stage_read=stage_read)


def give_back_prim_names(stage, paths: dict, prim_names: dict) -> bool:
    """Rename the prims Blender wrote after its object names (``tool/frame`` -> ``tool_frame``, a
    joint ``x.001`` -> ``x_001``) to the prim names the robot's file had (``PhysicsScene.prim_names``:
    ``tn__toolframe_eE``, ``x``), before the physics is authored on them; ``paths`` (object name ->
    path) follows. A name a sibling already holds, or that is no identifier, leaves the prim as it is.
    Returns whether any prim was renamed."""
    from pxr import Sdf

    layer = stage.GetRootLayer()
    renamed_any = False
    for name, prim_name in prim_names.items():
        path = paths.get(name)
        if path is None or path.name == prim_name or not Sdf.Path.IsValidIdentifier(prim_name):
            continue
        renamed = path.GetParentPath().AppendChild(prim_name)
        if layer.GetPrimAtPath(path) is None or stage.GetPrimAtPath(renamed):
            continue
        edit = Sdf.BatchNamespaceEdit()
        edit.Add(path, renamed)
        if not layer.Apply(edit):
            continue
        renamed_any = True
        for key, old in paths.items():
            if old.HasPrefix(path):
                paths[key] = old.ReplacePrefix(path, renamed)
    return renamed_any


def _plain_export_enabled() -> bool:
    from .preferences import preferences

    prefs = preferences()
    return prefs is None or prefs.usd_export_physics


def _plain_export_isaac_schema() -> bool:
    from .preferences import preferences

    prefs = preferences()
    return prefs is None or getattr(prefs, "usd_isaac_schema", True)


def _plain_export(export_context) -> None:
    """File > Export > USD of a scene with bodies: describe it and author it (never raises)."""
    from .adapters.blender_to_description import WorldFrames, scene_from_blender

    depsgraph = export_context.get_depsgraph()
    scene = depsgraph.scene
    if not any(obj.articula.body.enabled for obj in scene.objects):
        return
    stage = export_context.get_stage()
    description = scene_from_blender(scene, _exported_objects(scene, set(object_paths(stage))), WorldFrames(),
                                     visual_meshes=False)  # Blender wrote them
    for warning in _author(stage, description, None, _plain_export_isaac_schema()):
        print(f"Articula: {warning}")


def _exported_objects(scene, exported: set) -> list:
    """The objects Blender wrote (names in ``exported``) and what hangs below them that it did not
    write (colliders hidden from render), bodies and joints left out of the export excepted."""
    from .adapters.blender_to_description import children_index

    children = children_index(bpy.data.objects)  # what ``Object.children`` gives, read once
    objects, stack, seen = [], [obj for obj in scene.objects if obj.name in exported], set()
    while stack:
        obj = stack.pop()
        if obj.name not in seen:
            seen.add(obj.name)
            objects.append(obj)
            stack.extend(child for child in children.get(obj, ()) if child.name in exported
                         or not (child.articula.body.enabled or child.articula.joint.enabled))
    return objects


class ARTICULA_USDHook(bpy.types.USDHook):
    bl_idname = "articula_physics"
    bl_label = "Articula Physics"
    bl_description = "Author Articula's rigid bodies, joints and colliders as UsdPhysics"

    @staticmethod
    def on_export(export_context):
        state = _pending
        if state is not None:
            state["called"] = True
            try:
                state["warnings"] = _author(export_context.get_stage(), state["scene"], state["preparing"],
                                            state["isaac_schema"])
            except Exception as error:  # handed to articula.export_usd, which reports it
                state["error"] = error
            return True
        if not _plain_export_enabled():
            return True
        try:
            _plain_export(export_context)
        except Exception:  # a plain export must still write Blender's part
            print("Articula: the USD export was written without physics:")
            traceback.print_exc()
        return True

    @staticmethod
    def on_import(import_context):
        state = _pending_import
        if state is not None:
            state["called"] = True
            try:
                state["result"], state["objects"], state["warnings"] = import_physics(
                    bpy.context, import_context.get_stage(), prim_objects(import_context), state["renest"],
                    reading=state["reading"])
            except Exception as error:  # handed to articula.import_usd, which rolls back and reports
                state["error"] = error
            return True
        if not _plain_import_enabled():
            return True
        try:
            _plain_import(import_context)
        except Exception:  # Blender's own import stands; the physics could not be added
            print("Articula: the USD import brought no physics:")
            traceback.print_exc()
        return True


classes = (ARTICULA_USDHook,)

register, unregister = bpy.utils.register_classes_factory(classes)
