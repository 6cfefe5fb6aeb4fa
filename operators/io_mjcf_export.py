"""File > Export of the robot as MJCF (MuJoCo's XML), with its meshes in an assets folder beside it.

Thin: Blender objects -> description through the same adapter the USD export uses, description ->
MJCF through the bpy-free ``core.mjcf.writer`` (built with MuJoCo's MjSpec, compiled before it is
written, written atomically).
"""

import os

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty
from bpy_extras.io_utils import ExportHelper

from ..addon.reports import plain
from .io_usd import STATE_ITEMS, _with_current_state, _with_descendants


def export_mjcf(context, filepath: str, selected_only: bool, state: str = "REST") -> list[str]:
    """Write the scene's (or the selection's) robot as MJCF; returns the warnings (written anyway).

    Raises ``MjcfWriteError`` naming the problems when it cannot be written; the files already
    there are then left as they were."""
    from ..addon.adapters.blender_to_description import WorldFrames, blender_problems, scene_from_blender
    from ..core.mjcf.writer import MjcfWriteError, write_mjcf

    objects = _with_descendants(context.selected_objects) if selected_only else None
    frames = WorldFrames()
    blender_side = blender_problems(context.scene, objects, frames)
    errors = [str(p) for p in blender_side if p.severity == "ERROR"]
    if errors:
        raise MjcfWriteError(filepath, errors)
    warnings = [str(p) for p in blender_side]
    desc = scene_from_blender(context.scene, objects, frames)
    if state == "CURRENT":
        desc, notes = _with_current_state(context.scene, desc)
        warnings += notes
    return warnings + write_mjcf(desc, filepath, visual_surfaces(desc))


def visual_surfaces(desc) -> dict:
    """Visual name -> its UVs per triangle corner (the order ``mesh_data`` reads the triangles in) and
    the image file on its first material's Base Color, for visuals whose mesh has a UV map."""
    from array import array

    from ..addon.adapters.blender_to_description import principled_node
    from ..core.mjcf.writer import VisualSurface

    surfaces = {}
    for visual in desc.visuals:
        obj = bpy.data.objects.get(visual.name)
        mesh = getattr(obj, "data", None)
        layer = getattr(getattr(mesh, "uv_layers", None), "active", None)
        if layer is None:
            continue
        mesh.calc_loop_triangles()
        loops = array("i", bytes(4 * 3 * len(mesh.loop_triangles)))
        mesh.loop_triangles.foreach_get("loops", loops)
        uv = array("f", bytes(4 * 2 * len(layer.data)))
        layer.data.foreach_get("uv", uv)
        surfaces[visual.name] = VisualSurface(uvs=[(uv[2 * k], uv[2 * k + 1]) for k in loops],
                                              image=_base_color_image(obj, principled_node))
    return surfaces


def _base_color_image(obj, principled_node):
    """The file of the image texture linked into the first material's Base Color, if it is on disk."""
    material = obj.material_slots[0].material if obj.material_slots else None
    bsdf = principled_node(material) if material is not None else None
    if bsdf is None or not bsdf.inputs["Base Color"].is_linked:
        return None
    node = bsdf.inputs["Base Color"].links[0].from_node
    image = getattr(node, "image", None)
    path = bpy.path.abspath(image.filepath, library=image.library) if image is not None and image.filepath else ""
    return path if path and os.path.isfile(path) else None


class ARTICULA_OT_export_mjcf(bpy.types.Operator, ExportHelper):
    """Export the robot (bodies, joints, actuators, colliders, visuals) as a MuJoCo MJCF file"""

    bl_idname = "articula.export_mjcf"
    bl_label = "Export Articula MuJoCo Robot"
    bl_options = {"REGISTER"}

    filename_ext = ".xml"
    filter_glob: StringProperty(default="*.xml", options={"HIDDEN"})
    selected_only: BoolProperty(name="Selected Only", default=False,
                                description="Export only the selected objects and what is parented to them")
    state: EnumProperty(name="State", items=STATE_ITEMS, default="REST",
                        description="Which pose the file starts from (a keyframe when it is not the rest)")

    def execute(self, context):
        from ..core.mjcf.writer import MjcfWriteError

        try:
            warnings = export_mjcf(context, self.filepath, self.selected_only, self.state)
        except MjcfWriteError as error:
            for problem in error.problems:
                self.report({"ERROR"}, plain(problem))
            self.report({"ERROR"}, f"Nothing written to {self.filepath}")
            return {"CANCELLED"}
        for warning in warnings:
            self.report({"WARNING"}, plain(warning))
        self.report({"INFO"}, f"Exported MuJoCo robot to {self.filepath}")
        return {"FINISHED"}


classes = (ARTICULA_OT_export_mjcf,)

register, unregister = bpy.utils.register_classes_factory(classes)
