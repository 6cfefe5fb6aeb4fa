"""File > Import and Export of MJCF (MuJoCo's XML) robots; exported meshes go in an assets folder.

Thin: import reads through the bpy-free ``core.mjcf`` reader and builds with the shared robot
importer (:mod:`.robot_import`); export gathers the description through the same adapter the USD
export uses and writes it with ``core.mjcf.writer`` (MuJoCo's MjSpec, compiled before it is
written, written atomically).
"""

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

from ..addon.reports import plain
from .io_usd import STATE_ITEMS
from .robot_import import build_or_report, colliders_from_visuals_option, decompose_meshes_option


def export_mjcf(context, filepath: str, selected_only: bool, state: str = "REST") -> list[str]:
    """Write the scene's (or the selection's) robot as MJCF; returns the warnings (written anyway).

    Raises ``MjcfWriteError`` naming the problems when it cannot be written; the files already
    there are then left as they were."""
    from ..addon.adapters.blender_to_export import robot_for_export, visual_surfaces
    from ..core.mjcf.writer import MjcfWriteError, write_mjcf

    robot = robot_for_export(context, selected_only, current_pose=state == "CURRENT")
    if robot.errors:
        raise MjcfWriteError(filepath, robot.errors)
    return robot.warnings + write_mjcf(robot.desc, filepath, visual_surfaces(robot.desc))


class ARTICULA_OT_import_mjcf(bpy.types.Operator, ImportHelper):
    """Import a MuJoCo MJCF robot (bodies, joints, actuators, tendons, colliders, visuals, masses)"""

    bl_idname = "articula.import_mjcf"
    bl_label = "Import MJCF Robot"
    bl_options = {"REGISTER", "UNDO"}

    filename_ext = ".xml"
    filter_glob: StringProperty(default="*.xml;*.mjcf", options={"HIDDEN"})
    colliders_from_visuals: colliders_from_visuals_option()
    decompose_triangle_meshes: decompose_meshes_option()

    def execute(self, context):
        from ..core.mjcf import MjcfReadError, read_mjcf

        try:
            read = read_mjcf(self.filepath)
        except MjcfReadError as error:
            self.report({"ERROR"}, f"{error}; nothing was imported")
            return {"CANCELLED"}
        return build_or_report(self, context, read, self.filepath)


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


classes = (ARTICULA_OT_import_mjcf, ARTICULA_OT_export_mjcf)

register, unregister = bpy.utils.register_classes_factory(classes)
