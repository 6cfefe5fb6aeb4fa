"""File > Export > Articula Robot (.urdf): one robot as URDF, its meshes and its SRDF.

Thin: the description is gathered as the USD export gathers it (``blender_to_description``), with
the current pose as the joints' initial state, and the bpy-free ``core.urdf.writer`` writes it.
"""

import bpy
from bpy.props import BoolProperty, StringProperty
from bpy_extras.io_utils import ExportHelper

from ..addon.reports import plain


def _robot_root(context, desc):
    """The active object's robot: the body it is, or the first body above it; None when none."""
    obj = context.view_layer.objects.active
    while obj is not None:
        if obj.articula.body.enabled and desc.body(obj.name) is not None:
            return obj.name
        obj = obj.parent
    return None


def export_robot(context, filepath: str, package_name: str = "", selected_only: bool = False) -> list[str]:
    """Write the active object's robot (else the scene's first) to ``filepath``; returns the warnings.
    Raises ``UrdfWriteError`` naming what cannot be written; nothing is written then."""
    from ..addon.adapters.blender_to_export import obj_file_writer, robot_for_export
    from ..core.urdf.writer import UrdfWriteError, write_urdf

    # The current pose gives ros2_control's initial values.
    robot = robot_for_export(context, selected_only, current_pose=True)
    if robot.errors:
        raise UrdfWriteError(filepath, robot.errors)
    root = _robot_root(context, robot.desc)
    warnings = write_urdf(robot.desc, bpy.path.abspath(filepath), package_name=package_name.strip(), root=root,
                          visual_files=obj_file_writer(context))
    written = f"the robot of {root}" if root else "the scene's first robot"
    return robot.warnings + warnings + [f"exported {written}"]


class ARTICULA_OT_export_urdf(bpy.types.Operator, ExportHelper):
    """Export the active object's robot (links, joints, limits, inertias, colliders, visual meshes) as URDF,
    its meshes in meshes/ and an SRDF of the pairs that never collide"""

    bl_idname = "articula.export_urdf"
    bl_label = "Export URDF Robot"
    bl_options = {"REGISTER"}

    filename_ext = ".urdf"
    filter_glob: StringProperty(default="*.urdf", options={"HIDDEN"})
    package_name: StringProperty(
        name="Package Name", default="",
        description="Mesh paths as package://<name>/meshes/... (the URDF's folder is the package root); "
                    "empty: relative paths")
    selected_only: BoolProperty(name="Selected Only", default=False,
                                description="Export only the selected objects and what is parented to them")

    def execute(self, context):
        from ..core.urdf.writer import UrdfWriteError

        try:
            warnings = export_robot(context, self.filepath, self.package_name, self.selected_only)
        except UrdfWriteError as error:
            for problem in error.problems:
                self.report({"ERROR"}, plain(problem))
            self.report({"ERROR"}, f"Nothing written to {self.filepath}")
            return {"CANCELLED"}
        for warning in warnings[:-1]:
            self.report({"WARNING"}, plain(warning))
        self.report({"INFO"}, f"Exported {warnings[-1][len('exported '):]} to {self.filepath}")
        return {"FINISHED"}


classes = (ARTICULA_OT_export_urdf,)

register, unregister = bpy.utils.register_classes_factory(classes)
