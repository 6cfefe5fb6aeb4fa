"""File > Export > Articula Robot (.urdf): one robot as URDF, its meshes and its SRDF.

Thin: the description is gathered as the USD export gathers it (``blender_to_description``), with
the current pose as the joints' initial state, and the bpy-free ``core.urdf.writer`` writes it.
"""

import os

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


def _blender_obj_files(context):
    """``write_urdf``'s ``visual_files``: a visual's object as Blender's OBJ exporter writes it (UVs, normals,
    materials in its .mtl, image textures copied beside), in the object's own frame (its world matrix is
    set to identity for the export and put back), so URDF's origin and scale place it."""
    import tempfile

    from mathutils import Matrix

    def write(visual, stem):
        obj = bpy.data.objects.get(visual.name)
        if obj is None or obj.type != "MESH" or obj.name not in context.view_layer.objects:
            return None
        selected = [o for o in context.view_layer.objects if o.select_get()]
        active, matrix = context.view_layer.objects.active, obj.matrix_world.copy()
        try:
            for other in selected:
                other.select_set(False)
            obj.select_set(True)
            obj.matrix_world = Matrix.Identity(4)
            with tempfile.TemporaryDirectory(prefix="articula-obj-") as folder:
                bpy.ops.wm.obj_export(filepath=os.path.join(folder, f"{stem}.obj"), export_selected_objects=True,
                                      forward_axis="Y", up_axis="Z", export_materials=True, path_mode="COPY",
                                      export_uv=True, export_normals=True, apply_modifiers=True,
                                      export_animation=False)
                files = {}
                for name in os.listdir(folder):
                    if os.path.isfile(os.path.join(folder, name)):
                        with open(os.path.join(folder, name), "rb") as f:
                            files[name] = f.read()
                return files
        finally:
            obj.matrix_world = matrix
            obj.select_set(obj in selected)
            for other in selected:
                other.select_set(True)
            context.view_layer.objects.active = active

    return write


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
    warnings = write_urdf(desc, bpy.path.abspath(filepath), package_name=package_name.strip(), root=root,
                          visual_files=_blender_obj_files(context))
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
