"""File > Import and Export of URDF robots (ROS); trusted xacro on import; export writes one robot,
its meshes and its SRDF.

Thin: import reads through the bpy-free ``core.urdf`` reader (or expands a trusted xacro) and builds
with the shared robot importer (:mod:`.robot_import`); export gathers the description as the USD
export gathers it, with the current pose as the joints' initial state, and ``core.urdf.writer``
writes it.
"""

import bpy
from bpy.props import BoolProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

from ..addon.reports import plain
from .robot_import import build_or_report, colliders_from_visuals_option, decompose_meshes_option

TRUST_LABEL = "Trust this file (runs its xacro expressions)"


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


class ARTICULA_OT_import_urdf(bpy.types.Operator, ImportHelper):
    """Import a URDF robot (links, joints, limits, colliders, visual meshes, masses)"""

    bl_idname = "articula.import_urdf"
    bl_label = "Import URDF Robot"
    bl_options = {"REGISTER", "UNDO"}

    filename_ext = ".urdf"
    filter_glob: StringProperty(default="*.urdf;*.xml;*.xacro", options={"HIDDEN"})
    colliders_from_visuals: colliders_from_visuals_option()
    decompose_triangle_meshes: decompose_meshes_option()
    package_paths: StringProperty(
        name="Package Paths", default="",
        description="Folders searched for package:// meshes and xacro's $(find pkg), separated by ';' (the "
                    "file's own folder and its parents are always searched); remembered in the preferences")
    trust_xacro: BoolProperty(
        name=TRUST_LABEL, default=False,
        description="Expand a xacro file, which evaluates the Python expressions written in it: only for "
                    "files you trust")
    arguments: StringProperty(
        name="Arguments", default="",
        description="Xacro arguments as name:=value, separated by spaces (the file's defaults for the others; "
                    "no environment variable is read)")
    floating_base: BoolProperty(
        name="Floating Base", default=False,
        description="The root link floats (a legged robot, a mobile base) instead of being fixed to the "
                    "world")
    place_on_ground: BoolProperty(
        name="Place on Ground", default=True,
        description="With Floating Base: a robot whose colliders reach below z = 0 is raised until its "
                    "lowest collider touches it")

    def invoke(self, context, event):
        from ..addon.preferences import preferences

        prefs = preferences(context)
        if prefs is not None and not self.package_paths:
            self.package_paths = prefs.package_paths
        return super().invoke(context, event)

    def execute(self, context):
        from ..addon.preferences import preferences
        from ..core.urdf import UrdfReadError, read_urdf
        from ..core.urdf.xacro_expand import XacroError, is_xacro, parse_arguments, read_xacro

        paths = [bpy.path.abspath(p.strip()) for p in self.package_paths.split(";") if p.strip()]
        try:
            arguments = parse_arguments(self.arguments)
        except ValueError as error:
            self.report({"ERROR"}, f"Arguments: {error}; nothing was imported")
            return {"CANCELLED"}
        try:
            if self.trust_xacro and is_xacro(self.filepath):
                read = read_xacro(self.filepath, paths, arguments, self.floating_base)
            else:
                read = read_urdf(self.filepath, package_paths=paths, floating_base=self.floating_base)
        except (UrdfReadError, XacroError) as error:
            hint = f' (or tick "{TRUST_LABEL}" in the importer)' if isinstance(error, UrdfReadError) \
                and not self.trust_xacro and is_xacro(self.filepath) else ""
            self.report({"ERROR"}, f"{error}{hint}; nothing was imported")
            return {"CANCELLED"}
        if self.floating_base and self.place_on_ground:
            from ..core.ground import lift_onto_ground

            lift_onto_ground(read.scene)
        result = build_or_report(self, context, read, self.filepath)
        prefs = preferences(context)
        if result == {"FINISHED"} and prefs is not None and self.package_paths.strip():
            prefs.package_paths = self.package_paths.strip()  # remembered for the next import
        return result


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


classes = (ARTICULA_OT_import_urdf, ARTICULA_OT_export_urdf)

register, unregister = bpy.utils.register_classes_factory(classes)
