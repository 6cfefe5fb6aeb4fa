"""What every export (USD, MJCF, URDF) reads from Blender: the robot as a description, Blender's
problems with it, and what the file formats carry of the visuals beyond triangles (UVs, image
textures, Blender's own OBJ files).

One place, so the three File > Export operators gather the same robot the same way.
"""

import os
from array import array
from dataclasses import dataclass, field
from typing import Optional

import bpy

from .blender_to_description import (WorldFrames, blender_problems, children_index, principled_node,
                                     scene_from_blender, world_pose)


@dataclass
class ExportInput:
    """The robot to write (None when Blender-side errors refuse it), its warnings and those errors."""

    desc: Optional[object]
    objects: Optional[list]  # None: the whole scene
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def with_descendants(objects) -> list:
    """The objects and everything parented below them (a selected body brings its joints/colliders)."""
    children = children_index(bpy.data.objects)  # what ``Object.children`` gives, read once
    result, seen = [], set()
    stack = list(objects)
    while stack:
        obj = stack.pop()
        if obj.name in seen:
            continue
        seen.add(obj.name)
        result.append(obj)
        stack.extend(children.get(obj, ()))
    return result


def robot_for_export(context, selected_only: bool, current_pose: bool,
                     visual_meshes: bool = True) -> ExportInput:
    """The scene's (or the selection's) robot at rest, or where its bodies stand now with the matching
    initial joint positions when ``current_pose``; ``visual_meshes``: as ``scene_from_blender``."""
    objects = with_descendants(context.selected_objects) if selected_only else None
    frames = WorldFrames()  # read once, shared by both passes over the same objects
    if objects is None:
        frames.read_all(context.scene.objects)
    found = blender_problems(context.scene, objects, frames)
    errors = [str(p) for p in found if p.severity == "ERROR"]
    warnings = [str(p) for p in found if p.severity != "ERROR"]
    if errors:
        return ExportInput(None, objects, warnings, errors)
    file_names: dict = {}
    desc = scene_from_blender(context.scene, objects, frames, visual_meshes, file_names)
    if current_pose:
        desc, notes = with_current_state(context.scene, desc)
        warnings += notes
    return ExportInput(with_file_names(desc, joint_file_names(desc, file_names)), objects, warnings)


def keyframe_of_current_pose(scene):
    """(the robot where it stands now as a keyframe by the file's joint names, notes on bodies whose pose
    has no joint positions): joint positions, floating roots' world poses and controls."""
    from ...core.model import Keyframe
    from ...core.posing import joint_positions_of

    file_names: dict = {}
    desc = scene_from_blender(scene, frames=WorldFrames(), visual_meshes=False, file_names=file_names)  # rest
    by_name = {obj.name: obj for obj in scene.objects}  # scene.objects[name] searches the scene
    now = {body.name: world_pose(by_name[body.name]) for body in desc.bodies if body.name in by_name}
    positions, roots, notes = joint_positions_of(desc, now)
    keyframe = Keyframe("", joint_positions=positions, root_poses=roots)
    keyframe.controls = {a.name: a.control for a, *_ in desc.actuators()}
    keyframe.controls.update((a.name, a.control) for a in desc.frame_actuators)
    desc.keyframes = [keyframe]
    with_file_names(desc, joint_file_names(desc, file_names))
    return keyframe, notes


def joint_file_names(desc, file_names: dict) -> dict[str, str]:
    """The renames of :func:`with_file_names`: each joint of ``desc`` to its file's name (``file_names``,
    from ``scene_from_blender``: ``bthigh.001`` -> ``bthigh``) where no other joint holds that name."""
    renames = {j.name: file_names[j.name] for j in desc.joints if j.name in file_names}
    kept = {j.name for j in desc.joints if j.name not in renames}
    chosen = {}
    for old, new in renames.items():
        if new not in kept:
            chosen[old] = new
            kept.add(new)
    return chosen


def with_file_names(desc, renames: dict[str, str]):
    """``desc`` with its joints renamed (and everything naming them: mimic leaders, tendons, sensors,
    frame actuators, keyframes, prim names, the robot's joint order)."""
    if not renames:
        return desc

    def new(name):
        return renames.get(name, name)

    for joint in desc.joints:
        joint.name = new(joint.name)
        if joint.mimic is not None:
            joint.mimic.leader = new(joint.mimic.leader)
    for tendon in desc.tendons:
        for item in tendon.joints:
            item.joint = new(item.joint)
    for sensor in desc.sensors:
        if sensor.target_kind == "joint":
            sensor.target = new(sensor.target)
    for actuator in desc.frame_actuators:
        if actuator.target_kind == "joint":
            actuator.target = new(actuator.target)
    for key in desc.keyframes:
        key.joint_positions = {(new(j), a): v for (j, a), v in key.joint_positions.items()}
        key.joint_velocities = {(new(j), a): v for (j, a), v in key.joint_velocities.items()}
        key.ball_rotations = {new(j): q for j, q in key.ball_rotations.items()}
    desc.robot_joints = [new(j) for j in desc.robot_joints]
    prim_names = {}
    for name, prim_name in desc.prim_names.items():
        if prim_name != new(name):
            prim_names.setdefault(new(name), prim_name)
    desc.prim_names = prim_names
    return desc


def with_current_state(scene, desc):
    """``desc`` (at rest) with its bodies where they stand now and the matching joint positions."""
    from ...core.joint_state import with_state

    return with_state(desc, {body.name: world_pose(scene.objects[body.name]) for body in desc.bodies
                             if body.name in scene.objects})


def visual_surfaces(desc) -> dict:
    """Visual name -> its UVs per triangle corner (the order ``mesh_data`` reads the triangles in) and
    the image file on its first material's Base Color, for visuals whose mesh has a UV map."""
    from ...core.mjcf.writer import VisualSurface

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
                                              image=_base_color_image(obj))
    return surfaces


def _base_color_image(obj):
    """The file of the image texture linked into the first material's Base Color, if it is on disk."""
    material = obj.material_slots[0].material if obj.material_slots else None
    bsdf = principled_node(material) if material is not None else None
    if bsdf is None or not bsdf.inputs["Base Color"].is_linked:
        return None
    node = bsdf.inputs["Base Color"].links[0].from_node
    image = getattr(node, "image", None)
    path = bpy.path.abspath(image.filepath, library=image.library) if image is not None and image.filepath else ""
    return path if path and os.path.isfile(path) else None


def obj_file_writer(context):
    """A ``visual_files`` callback for ``write_urdf``: a visual's object as Blender's OBJ exporter writes
    it (UVs, normals, materials in its .mtl, image textures copied beside), in the object's own frame
    (its world matrix is set to identity for the export and put back), so URDF's origin and scale place it."""
    def write(visual, stem):
        obj = bpy.data.objects.get(visual.name)
        if obj is None or obj.type != "MESH" or obj.name not in context.view_layer.objects:
            return None
        with _alone_at_origin(context, obj):
            return _obj_export_files(stem)

    return write


class _alone_at_origin:
    """Only ``obj`` selected, at the world origin; selection, active object and matrix put back after."""

    def __init__(self, context, obj):
        self.view_layer, self.obj = context.view_layer, obj

    def __enter__(self):
        from mathutils import Matrix

        self.selected = [o for o in self.view_layer.objects if o.select_get()]
        self.active, self.matrix = self.view_layer.objects.active, self.obj.matrix_world.copy()
        for other in self.selected:
            other.select_set(False)
        self.obj.select_set(True)
        self.obj.matrix_world = Matrix.Identity(4)

    def __exit__(self, *exc):
        self.obj.matrix_world = self.matrix
        self.obj.select_set(self.obj in self.selected)
        for other in self.selected:
            other.select_set(True)
        self.view_layer.objects.active = self.active
        return False


def _obj_export_files(stem: str) -> dict[str, bytes]:
    """File name -> bytes of what ``wm.obj_export`` writes for the selected object (OBJ, MTL, textures)."""
    import tempfile

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
