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
"""

from __future__ import annotations

import contextlib
import traceback

import bpy

OBJECT_NAME_ATTR = "userProperties:blender:object_name"

# The export being run by ``articula.export_usd`` (None: a plain File > Export > USD).
_pending: dict | None = None


@contextlib.contextmanager
def articula_export(scene_description, masses):
    """Run ``wm.usd_export`` inside this block to author ``scene_description``; yields a dict that
    holds ``error`` (an exception raised by the hook) and ``warnings`` after the export."""
    global _pending
    state = {"scene": scene_description, "masses": masses, "error": None, "warnings": [], "called": False}
    _pending = state
    try:
        yield state
    finally:
        _pending = None


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


def _author(stage, scene_description, masses) -> list[str]:
    from ..core.usd.physics_author import author_physics

    return author_physics(stage, scene_description, object_paths(stage), masses=masses)


def _plain_export_enabled() -> bool:
    from .preferences import preferences

    prefs = preferences()
    return prefs is None or prefs.usd_export_physics


def _plain_export(export_context) -> None:
    """File > Export > USD of a scene with bodies: describe it and author it (never raises)."""
    from .adapters.blender_to_description import WorldFrames, scene_from_blender

    depsgraph = export_context.get_depsgraph()
    scene = depsgraph.scene
    if not any(obj.articula.body.enabled for obj in scene.objects):
        return
    stage = export_context.get_stage()
    exported = set(object_paths(stage))
    # what Blender wrote, and what hangs below it (colliders hidden from render are not written)
    objects, stack = [], [obj for obj in scene.objects if obj.name in exported]
    seen = set()
    while stack:
        obj = stack.pop()
        if obj.name not in seen:
            seen.add(obj.name)
            objects.append(obj)
            stack.extend(obj.children)
    description = scene_from_blender(scene, objects, WorldFrames())
    for warning in _author(stage, description, None):
        print(f"Articula: {warning}")


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
                state["warnings"] = _author(export_context.get_stage(), state["scene"], state["masses"])
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


classes = (ARTICULA_USDHook,)

register, unregister = bpy.utils.register_classes_factory(classes)
