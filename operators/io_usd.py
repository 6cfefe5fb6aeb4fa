"""File > Export / Import of robot physics as UsdPhysics (nested rigid bodies).

Thin: Blender objects <-> description through the adapters, description <-> USD through
core.usd (with Blender's own pxr). Import is atomic: if anything fails, every datablock it made
is removed again, so the file is as before.
"""

import contextlib
import os

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

from ..addon.pxr_runtime import ensure_blender_pxr
from ..addon.reports import plain
from ..core.background import BackgroundCall, quick_gil_handover
from ..core.files import replace_atomically, replaced_file_mode
from .robot_import import colliders_from_visuals_option, decompose_meshes_option

LAYOUT_ITEMS = (
    ("NESTED", "Nested", "Each body under its parent body, transforms in parent space (proposal)"),
    ("FLAT", "Flat", "Bodies side by side in world space, for consumers on older USD"),
)
USD_FILTER = "*.usd;*.usda;*.usdc"


def _usd():
    """core.usd, imported only after Blender's pxr is first on sys.path."""
    ensure_blender_pxr()
    from ..core.usd import reader, writer

    return reader, writer


STATE_ITEMS = (
    ("REST", "Rest", "The robot at its rest pose, every joint at zero"),
    ("CURRENT", "Current Pose", "The bodies where they are now (a kept simulation, a baked frame) as initial "
     "joint positions that Newton and Isaac Sim start from; the joint frames stay the rest's"),
)


def export_scene(context, filepath: str, layout: str, selected_only: bool, allow_warnings: bool = True,
                 state: str = "REST", isaac_schema: bool = True) -> list[str]:
    """Write the scene's (or the selection's) robot; returns the warnings (written anyway).

    ``allow_warnings`` off: a robot with warnings is refused like one with errors (``UsdWriteError``
    listing them), nothing written.

    ``isaac_schema``: also the Isaac robot schema, a physics material on every collider and the
    default prim's kind, as NVIDIA's robot checks ask (core/usd/isaac.py).

    NESTED: Blender's own ``wm.usd_export`` writes the objects (meshes, UVs, normals, n-gons,
    modifiers, materials, hierarchy) and Articula's USD hook authors the physics onto its prims.
    FLAT: the bpy-free core writer (bodies side by side, simple triangle meshes).
    Raises ``UsdWriteError`` listing the problems when the scene cannot be exported; the target
    file is then left as it was.
    """
    _, writer = _usd()
    with _collector_paused():
        return _export_scene(context, writer, filepath, layout, selected_only, state, isaac_schema,
                             allow_warnings)


def _export_scene(context, writer, filepath: str, layout: str, selected_only: bool, state: str,
                  isaac_schema: bool, allow_warnings: bool = True) -> list[str]:
    from ..addon.adapters.blender_to_export import robot_for_export

    # NESTED: Blender's exporter writes the visuals' meshes, so the description needs none
    robot = robot_for_export(context, selected_only, current_pose=state == "CURRENT",
                             visual_meshes=layout == "FLAT")
    if robot.errors:
        raise writer.UsdWriteError(filepath, robot.errors)
    desc, objects, warnings = robot.desc, robot.objects, robot.warnings
    if not desc.bodies:
        warnings.append("no rigid bodies to export: the file holds only a physics scene"
                        + (" and the objects" if layout == "NESTED" else ""))

    def accept(found: list[str]) -> None:
        """Raises before the file is put in place when warnings are not allowed and there are some."""
        if found and not allow_warnings:
            raise writer.UsdWriteError(filepath, [f"{len(found)} warnings and Allow Warnings is off: "
                                                  "nothing written", *found])

    if layout == "FLAT":
        return _flat_export(writer, filepath, desc, isaac_schema,
                            lambda reported: accept(warnings + reported), warnings)
    return warnings + _blender_export(context, filepath, desc, objects, isaac_schema,
                                      accept=lambda reported: accept(warnings + reported))


def _flat_export(writer, filepath: str, desc, isaac_schema: bool, accept, warnings: list[str]) -> list[str]:
    """The core writer's file, written beside ``filepath`` and moved in once ``accept`` takes its warnings."""
    reported = []

    def write(temporary: str) -> None:
        reported.extend(writer.write_usd(desc, temporary, layout="FLAT", isaac_schema=isaac_schema))
        accept(reported)

    replace_atomically(filepath, write)
    return warnings + reported


@contextlib.contextmanager
def _collector_paused():
    """Python's cyclic garbage collector off for the export: it makes some 100,000 objects (the
    description, the specs recorded for the hook) that live until it ends and are then freed by
    reference counting; collections in between walk them for nothing (each 1-3 ms, and about
    25 ms when a full collection falls inside; measured at 200 bodies)."""
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# Blender's exporter takes the GIL many times per object: each time the worker preparing the
# physics holds it, Blender waits up to the switch interval. At 0.5 ms its 200-body export ran
# 50 ms slower beside the worker (and the worker 2x slower); at 20 us, as fast as alone.
_EXPORT_SWITCH_INTERVAL = 0.00002


def _blender_export(context, filepath: str, desc, objects, isaac_schema: bool = True, accept=None) -> list[str]:
    """``wm.usd_export`` to a temporary sibling with the hook authoring ``desc``, then rename;
    returns validation's warnings. ``desc`` is validated on a worker thread while Blender's
    exporter writes (a refusal then comes from the hook, and the temporary file is dropped)."""
    import tempfile

    from ..addon import usd_hook
    from ..core.usd.physics_author import prepare_physics

    _, writer = _usd()
    path = os.path.abspath(filepath)
    folder, name = os.path.split(path)
    extension = os.path.splitext(name)[1] or ".usda"
    textures = os.path.join(folder, "textures")  # where Blender copies the images it exports
    textures_before = set(os.listdir(textures)) if os.path.isdir(textures) else None
    fd, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=extension, dir=folder)
    os.close(fd)
    written = False
    selection = None
    if objects is not None:  # the selection and what is parented to it
        selection = [obj for obj in context.view_layer.objects if obj.select_get()]
        for obj in objects:
            obj.select_set(True)
    try:
        with quick_gil_handover(_EXPORT_SWITCH_INTERVAL):  # from the worker's start on
            preparing = BackgroundCall(prepare_physics, desc)
            with usd_hook.articula_export(desc, preparing, isaac_schema) as state:
                result = bpy.ops.wm.usd_export(filepath=temporary, selected_objects_only=objects is not None,
                                               export_animation=False, convert_world_material=False)
        prepared = preparing.result()  # the hook's, or what validation says when it never ran
        if prepared.refused:
            raise writer.UsdWriteError(filepath, prepared.refused)
        if state["error"] is not None:
            error = state["error"]
            if isinstance(error, writer.UsdWriteError):
                raise writer.UsdWriteError(filepath, error.problems)
            raise writer.UsdWriteError(filepath, [f"physics could not be written ({error})"])
        if result != {"FINISHED"} or not state["called"]:
            raise writer.UsdWriteError(filepath, ["Blender's USD export did not finish"])
        if accept is not None:
            accept(list(prepared.reported))
        os.chmod(temporary, replaced_file_mode(path))
        os.replace(temporary, path)
        written = True
        return list(prepared.reported)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
        if not written:
            _remove_new_textures(textures, textures_before)
        if selection is not None:
            for obj in objects:
                obj.select_set(obj in selection)


def _remove_new_textures(folder: str, before) -> None:
    """A failed export leaves no textures behind: the files Blender copied into ``folder`` (and
    the folder itself when the export made it)."""
    import shutil

    if not os.path.isdir(folder):
        return
    if before is None:
        shutil.rmtree(folder, ignore_errors=True)
        return
    for entry in set(os.listdir(folder)) - before:
        target = os.path.join(folder, entry)
        if os.path.isdir(target):
            shutil.rmtree(target, ignore_errors=True)
        else:
            os.remove(target)


class ARTICULA_OT_export_usd(bpy.types.Operator, ExportHelper):
    """Export the robot physics (bodies, joints, colliders, visuals) to a UsdPhysics file"""

    bl_idname = "articula.export_usd"
    bl_label = "Export Articula USD"
    bl_options = {"REGISTER"}

    filename_ext = ".usda"
    filter_glob: StringProperty(default=USD_FILTER, options={"HIDDEN"})
    layout: EnumProperty(name="Layout", items=LAYOUT_ITEMS, default="NESTED")
    selected_only: BoolProperty(name="Selected Only", default=False,
                                description="Export only the selected objects and what is parented to them")
    allow_warnings: BoolProperty(name="Allow Warnings", default=True,
                                 description="Write the file when validation finds warnings (they are reported); "
                                             "off: refuse it, nothing written, until they are fixed. Errors "
                                             "that make the file unusable always refuse it")
    state: EnumProperty(name="State", items=STATE_ITEMS, default="REST",
                        description="Which pose the file starts from; the robot's joint frames are always its rest")
    isaac_schema: BoolProperty(name="Isaac Robot Schema", default=True,
                               description="Also write the Isaac robot schema (robot type, links and joints in "
                                           "kinematic order), a physics material on every collider and "
                                           "kind = component, which NVIDIA's robot checks ask for")

    def check(self, context):
        # ExportHelper would force .usda onto .usd/.usdc names: keep any USD extension.
        if os.path.splitext(self.filepath)[1].lower() in (".usd", ".usda", ".usdc"):
            return False
        return super().check(context)

    def execute(self, context):
        _, writer = _usd()
        try:
            warnings = export_scene(context, self.filepath, self.layout, self.selected_only, self.allow_warnings,
                                    self.state, self.isaac_schema)
        except writer.UsdWriteError as error:
            for problem in error.problems:
                self.report({"ERROR"}, plain(problem))
            self.report({"ERROR"}, f"Nothing written to {self.filepath}")
            return {"CANCELLED"}
        except OSError as error:
            self.report({"ERROR"}, f"Cannot write {self.filepath}: {error}")
            return {"CANCELLED"}
        for warning in warnings:
            self.report({"WARNING"}, plain(warning))
        self.report({"INFO"}, f"Exported {self.layout.lower()} robot to {self.filepath}")
        return {"FINISHED"}


# Every kind of data Blender's USD import (or Articula on top of it) may create.
_IMPORT_DATA = ("objects", "meshes", "materials", "images", "textures", "node_groups", "actions", "collections",
                "cameras", "lights", "curves", "hair_curves", "pointclouds", "volumes", "armatures", "worlds")


def _datablocks() -> dict[str, set]:
    return {name: {item.as_pointer() for item in getattr(bpy.data, name)}
            for name in _IMPORT_DATA if hasattr(bpy.data, name)}


def _new_datablocks(before: dict[str, set]) -> list:
    return [item for name, pointers in before.items() for item in getattr(bpy.data, name)
            if item.as_pointer() not in pointers]


def _remove_new_datablocks(before: dict[str, set]) -> None:
    new = _new_datablocks(before)
    if new:
        bpy.data.batch_remove(new)


IMPORT_OPTIONS = dict(
    import_guide=True,  # collider prims are guide purpose: Blender makes their objects too
    set_frame_range=False,  # the scene's frame range is the user's
    create_collection=False,  # into the collection made here, named after the robot
)
# USD attributes as custom properties: only ``userProperties:`` (the physics is Articula's to read;
# Blender's ALL would write ``physics:*``/``newton:*`` back as custom attributes on export).
_PROPERTY_MODE = "property_import_mode" if bpy.app.version >= (5, 0, 0) else "attr_import_mode"


def _read_with_colliders(reader, path: str, renest: bool, colliders_from_visuals: str, decompose_meshes: bool):
    """The file's physics, then the colliders the import options ask for (bpy-free, on the worker)."""
    from ..core import convex

    result = reader.read_usd(path, renest=renest)
    if colliders_from_visuals != "NONE" or decompose_meshes:
        result.warnings = list(result.warnings) + convex.colliders_from_visuals(
            result.scene, colliders_from_visuals, decompose_meshes=decompose_meshes)
    return result


def import_file(context, filepath: str, renest: bool = True, colliders_from_visuals: str = "NONE",
                decompose_meshes: bool = False):
    """Import ``filepath`` with Blender's own USD importer plus its physics into a new collection;
    returns (every object the import made, warnings).

    Blender makes the objects, meshes (UVs, normals, n-gons), materials and textures; the USD hook
    (``addon/usd_hook.py``) reads the physics from the same stage and turns those objects into
    bodies, joints and colliders. Atomic: raises ``UsdReadError`` or whatever failed after
    removing everything the import made (objects, meshes, materials, images, actions,
    collections...) and putting the scene's settings, selection and active collection back.
    ``colliders_from_visuals`` / ``decompose_meshes``: as ``core.convex.colliders_from_visuals``;
    the colliders they make are built like the file's own (raises RuntimeError when CoACD is missing).
    """
    from ..addon import usd_hook
    from ..addon.property_snapshot import restore, snapshot

    reader, _ = _usd()
    path = os.path.abspath(filepath)
    if not os.path.isfile(path):
        raise reader.UsdReadError(filepath, None, None, "no such file")
    _check_decomposition(colliders_from_visuals, decompose_meshes)
    # the physics is read on a worker thread while this and Blender's importer make the objects
    reading = BackgroundCall(_read_with_colliders, reader, path, renest, colliders_from_visuals, decompose_meshes)
    before = _datablocks()
    settings_before = snapshot(context.scene.articula)
    view_layer = context.view_layer
    active_layer, active_object = view_layer.active_layer_collection, view_layer.objects.active
    selected = [obj for obj in view_layer.objects if obj.select_get()]
    collection = bpy.data.collections.new(os.path.splitext(os.path.basename(path))[0])
    try:
        context.scene.collection.children.link(collection)
        view_layer.active_layer_collection = view_layer.layer_collection.children[collection.name]
        failure = None
        with usd_hook.articula_import(renest, reading) as state, quick_gil_handover():
            try:
                bpy.ops.wm.usd_import(filepath=path, **IMPORT_OPTIONS, **{_PROPERTY_MODE: "USER"})
            except RuntimeError as error:  # Blender could not read it
                failure = error
        if state["error"] is not None:
            raise state["error"]
        if not state["called"]:
            reading.result()  # names what is wrong with the file, the reader's way
            raise reader.UsdReadError(filepath, None, None, f"Blender's USD import failed ({failure})")
    except BaseException:
        view_layer.active_layer_collection = active_layer
        _remove_new_datablocks(before)
        restore(context.scene.articula, settings_before)
        for obj in view_layer.objects:
            if obj is not None:
                obj.select_set(obj in selected)
        view_layer.objects.active = active_object
        raise
    view_layer.active_layer_collection = active_layer
    result = state["result"]
    collection.name = result.scene.name or collection.name
    collection[SOURCE_PROPERTY] = path
    return _new_datablocks({"objects": before["objects"]}), state["warnings"]


def _check_decomposition(colliders_from_visuals: str, decompose_meshes: bool) -> None:
    from ..core import convex

    if decompose_meshes or colliders_from_visuals == "CONVEX_DECOMPOSITION":
        reason = convex.decomposition_unavailable_reason()
        if reason:
            raise RuntimeError(reason)


SOURCE_PROPERTY = "articula_source"  # on an import's collection: the file it came from
EXISTING_ITEMS = (
    ("ADD", "Add a Copy", "Import the file again, as a second robot in its own collection"),
    ("REPLACE", "Replace", "Remove the robot imported from this file before and import it again"),
)


def imported_from(scene, filepath: str) -> list:
    """The scene's collections an earlier import of ``filepath`` made (with objects still in them)."""
    path = os.path.abspath(filepath)
    return [c for c in scene.collection.children_recursive
            if c.get(SOURCE_PROPERTY) == path and c.all_objects]


@contextlib.contextmanager
def _set_aside(collections):
    """Rename the objects of ``collections`` out of the way while the file is imported again (the new
    robot takes the file's names); on success remove them and their collections, else rename back."""
    objects = {obj for c in collections for obj in c.all_objects}
    names = {obj: obj.name for obj in objects}
    for obj in objects:
        obj.name = f"{obj.name}.replaced"
    try:
        yield
    except BaseException:
        for obj, name in names.items():
            obj.name = name
        raise
    data = [obj.data for obj in objects if obj.data is not None]
    bpy.data.batch_remove(list(objects))
    bpy.data.batch_remove([d for d in set(data) if d.users == 0])
    bpy.data.batch_remove([c for c in collections if not c.all_objects])


def import_summary(filepath: str, objects) -> tuple[str, str]:
    """(report type, sentence) saying what an import brought in, and why when it is no robot."""
    objects = list(objects.values()) if isinstance(objects, dict) else list(objects)
    bodies = sum(1 for obj in objects if obj.articula.body.enabled)
    if not objects:
        return "WARNING", f"{filepath} has no UsdPhysics rigid bodies, joints, colliders or meshes: nothing imported"
    if not bodies:
        return "WARNING", (f"{filepath} has no UsdPhysics rigid bodies: imported {len(objects)} objects "
                           "without physics")
    return "INFO", f"Imported {bodies} rigid bodies ({len(objects)} objects) from {filepath}"


class ARTICULA_OT_import_usd(bpy.types.Operator, ImportHelper):
    """Import UsdPhysics robots with Blender's own USD importer (meshes, UVs, materials, textures) and their physics"""

    bl_idname = "articula.import_usd"
    bl_label = "Import Articula USD"
    bl_options = {"REGISTER", "UNDO"}

    filename_ext = ".usd"
    filter_glob: StringProperty(default=USD_FILTER, options={"HIDDEN"})
    renest: BoolProperty(name="Re-nest Flat Robots", default=True,
                         description="Parent flat bodies along their joints so the hierarchy shows the tree")
    existing: EnumProperty(name="If Already Imported", items=EXISTING_ITEMS, default="ADD",
                           description="What to do when this file's robot is already in the scene")
    colliders_from_visuals: colliders_from_visuals_option()
    decompose_triangle_meshes: decompose_meshes_option()

    def execute(self, context):
        reader, _ = _usd()
        earlier = imported_from(context.scene, self.filepath)
        replace = earlier and self.existing == "REPLACE"
        earlier_name = earlier[0].name if earlier else ""
        try:
            with _set_aside(earlier) if replace else contextlib.nullcontext():
                objects, warnings = import_file(context, self.filepath, self.renest, self.colliders_from_visuals,
                                                self.decompose_triangle_meshes)
        except reader.UsdReadError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        except Exception as error:  # building failed: import_file removed what it made
            self.report({"ERROR"}, f"file {self.filepath}: import failed, nothing was added ({error})")
            return {"CANCELLED"}
        if earlier and not replace:
            warnings = [f"{self.filepath} is already in the scene (collection '{earlier[0].name}'): imported a "
                        "second copy in its own collection (If Already Imported: Replace replaces it)", *warnings]
        elif replace:
            now = imported_from(context.scene, self.filepath)
            if len(now) == 1:
                now[0].name = earlier_name  # the replacement takes the place of the old collection
            self.report({"INFO"}, f"Replaced the robot imported from {self.filepath} before")
        for warning in warnings:
            self.report({"WARNING"}, plain(warning))
        level, message = import_summary(self.filepath, objects)
        self.report({level}, message)
        return {"FINISHED"}


classes = (ARTICULA_OT_export_usd, ARTICULA_OT_import_usd)

register, unregister = bpy.utils.register_classes_factory(classes)
