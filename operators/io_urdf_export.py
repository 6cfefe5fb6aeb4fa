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
    from ..addon.adapters.blender_to_description import (WorldFrames, blender_problems, scene_from_blender,
                                                         world_pose)
    from ..core.joint_state import with_state
    from ..core.urdf.writer import UrdfWriteError, write_urdf
    from .io_usd import _with_descendants

    objects = _with_descendants(context.selected_objects) if selected_only else None
    frames = WorldFrames()
    found = blender_problems(context.scene, objects, frames)
    errors = [str(p) for p in found if p.severity == "ERROR"]
    if errors:
        raise UrdfWriteError(filepath, errors)
    desc = scene_from_blender(context.scene, objects, frames)
    desc, notes = with_state(desc, {body.name: world_pose(context.scene.objects[body.name])
                                    for body in desc.bodies if body.name in context.scene.objects})
    root = _robot_root(context, desc)
    warnings = write_urdf(desc, bpy.path.abspath(filepath), package_name=package_name.strip(), root=root)
    robot = root or "the scene's first robot"
    return [str(p) for p in found] + notes + warnings + [f"exported the robot of {robot}"]


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
