"""The core description -> Blender objects with their ``articula`` properties.

The mirror of ``blender_to_description`` (read its data model): what ``build_scene`` creates
reads back as the same description (floats to float32 precision). Per description item:
- a body is an Empty named after it, or a mesh object when a visual (or a mesh collider) of the
  same name sits on it; a ``hierarchy_gap`` body hangs under a plain Empty ``<body>_gap``;
- a joint is an Empty parented to body1 at body1's pose * ``local_pose1``;
- a collider named like its body goes on the body object; others are child objects (wireframe,
  not rendered) with a display mesh for primitives;
- a visual is a mesh object with its color on a render material or the object color;
- a site is an Empty on its body (drawn by kind and size), a camera or light Blender's own object on
  its body, a sensor an Empty on what it reads; keyframes, welds/connects, contact pairs, spatial
  tendons and frame actuators are lists on the scene, MuJoCo's options scene settings.
Blender makes names unique: a name already taken gets a suffix (``.001``); the returned map says
which object each description name became; a joint, site, camera, light or sensor keeps the file's
name as ``articula.file_name`` (export gives it back).
"""

from __future__ import annotations

import math
from dataclasses import fields, replace
from typing import Optional

import bmesh
import bpy
from mathutils import Matrix, Quaternion, Vector

from ...core.model import (Body, Camera, HeightField, Joint, LightKind, MeshData, PhysicsMaterial,
                           PhysicsScene, Pose, Sensor, Shape, ShapeKind, Site, Visual)
from ...core.transforms import pose_mul, pose_relative
from ..properties.camera_props import sync_tracking
from ..properties.collider_props import MESH_KINDS, size_factors
from ..properties.joint_props import dofs_unsynced
from ..properties.site_props import EMPTY_DISPLAY
from .blender_to_description import (PRIM_NAME, WorldFrames, mesh_data, parents_first, principled_node,
                                     world_pose_and_scale, world_poses_and_scales)
from .fields import (BODY_FIELDS, DOF_FIELDS, JOINT_FIELDS, SETTINGS_FIELDS, SHAPE_FIELDS, read_material,
                     write_actuator, write_actuators, write_contact, write_contact_pair, write_equality,
                     write_fields, write_keyframe, write_material, write_mimic, write_mujoco, write_optional,
                     write_spatial_tendon, write_tendon, write_tendon_equality)

BODY_EMPTY_SIZE = 0.05
JOINT_EMPTY_SIZE = 0.1
SENSOR_EMPTY_SIZE = 0.02
LIGHT_TYPES = {LightKind.SPOT: "SPOT", LightKind.DIRECTIONAL: "SUN", LightKind.POINT: "POINT"}


def pose_matrix(pose: Pose, scale=(1.0, 1.0, 1.0)) -> Matrix:
    return Matrix.LocRotScale(Vector(pose.pos), Quaternion(pose.rot), Vector(scale))


def place(obj, parent, pose: Pose, scale=(1.0, 1.0, 1.0)) -> None:
    """Parent ``obj`` (keeping no parent inverse) and put it at the world ``pose``."""
    obj.parent = parent
    obj.matrix_parent_inverse = Matrix.Identity(4)
    obj.matrix_world = pose_matrix(pose, scale)


def new_mesh(name: str, data: Optional[MeshData]):
    mesh = bpy.data.meshes.new(name)
    if data is not None:
        mesh.from_pydata([tuple(v) for v in data.vertices], [], [tuple(t) for t in data.triangles])
        mesh.update()
    return mesh


def new_object(name: str, collection, data=None, empty_display: str = "PLAIN_AXES", size: float = 0.1):
    obj = bpy.data.objects.new(name, data)
    if data is None:
        obj.empty_display_type = empty_display
        obj.empty_display_size = size
    collection.objects.link(obj)
    return obj


# --- properties ------------------------------------------------------------------------------

def apply_body(obj, body: Body) -> None:
    """Set ``obj``'s body properties from ``body`` (pose and parent are the caller's)."""
    props = obj.articula.body
    props.enabled = True
    write_fields(props, body, BODY_FIELDS)
    props.free_joint_name = body.free_joint_name or ""
    props.mass_mode = "MANUAL" if body.mass is not None else "AUTO"
    if body.mass is not None:
        props.mass = body.mass.mass
        props.center_of_mass = body.mass.center_of_mass
        props.diagonal_inertia = body.mass.diagonal_inertia
        props.principal_axes = body.mass.principal_axes


def apply_joint(obj, joint: Joint, objects: dict, frames: Optional[WorldFrames] = None,
                prim_names: Optional[dict] = None) -> None:
    """Set ``obj``'s joint properties; ``objects`` maps body names to their objects.

    ``obj`` must already sit at the joint frame seen from body1 (see :func:`joint_frame`).
    ``frames``: world frames of objects already placed (read from Blender, cached). The mimic's
    leader is a joint object: :func:`write_mimic` sets it once every joint exists.
    ``prim_names``: the description's (the USD prim names its actuators came from).
    """
    frames = WorldFrames() if frames is None else frames
    props = obj.articula.joint
    props.enabled = True
    with dofs_unsynced():  # the DOFs are written below, all fields
        props.type = joint.type.value
        props.axis = joint.axis
    props.body0 = objects.get(joint.body0) if joint.body0 else None
    props.body1 = objects.get(joint.body1)
    props.active = joint.enabled
    write_fields(props, joint, JOINT_FIELDS)
    if len(props.dofs) != len(joint.dofs):
        props.dofs.clear()
        for _ in joint.dofs:
            props.dofs.add()
    for target, dof in zip(props.dofs, joint.dofs):
        write_fields(target, dof, DOF_FIELDS)
        # a lone DOF named as its joint: the joint's own (file) name carries it, and follows a rename
        redundant = len(joint.dofs) == 1 and dof.name == joint.name
        target.name = "" if redundant or dof.name is None else dof.name
        write_actuators(target.actuators, dof.actuators, prim_names or {})
        target.active_actuator_index = 0
    props.active_dof_index = 0
    body0_frame = pose_mul(frames.pose(objects.get(joint.body0) if joint.body0 else None), joint.local_pose0)
    offset = pose_relative(frames.pose(obj), body0_frame)
    props.body0_frame_offset_location = offset.pos
    props.body0_frame_offset_rotation = offset.rot


def apply_shape(obj, shape: Shape, scale) -> None:
    """Set ``obj``'s collider properties so that, at world ``scale``, it reads back as ``shape``."""
    props = obj.articula.collider
    props.enabled = True
    props.shape = shape.kind.value
    write_fields(props, shape, SHAPE_FIELDS)
    extents, radius, half_height = size_factors(shape.kind.value, shape.axis, scale)
    props.half_extents = tuple(_unscale(h, f) for h, f in zip(shape.half_extents, extents))
    props.radius = _unscale(shape.radius, radius)
    props.half_height = _unscale(shape.half_height, half_height)
    props.material = shape.material or ""
    write_optional(props, "density", shape.density)
    write_contact(props, shape.contact)
    if shape.height_field is not None:
        apply_height_field(props, shape.height_field)


def apply_height_field(props, field: HeightField) -> None:
    """The grid's settings; its surface is the object's mesh (``core.mjcf.primitives.height_field``)."""
    props.hfield_rows, props.hfield_columns = field.nrow, field.ncol
    props.hfield_half_size = (field.half_x, field.half_y)
    props.hfield_elevation, props.hfield_base = field.elevation, field.base
    props.hfield_name = field.name


def _unscale(size: float, factor: float) -> float:
    return size / factor if factor else size


def apply_visual(obj, visual: Visual) -> None:
    """The visual's color: on its render material (created when missing), else the object color."""
    if not visual.material_name:
        obj.color = visual.color
        return
    material = bpy.data.materials.get(visual.material_name) or bpy.data.materials.new(visual.material_name)
    material.diffuse_color = visual.color
    bsdf = principled_node(material)
    if bsdf is not None:
        bsdf.inputs["Base Color"].default_value = visual.color
    if obj.data.materials:
        obj.data.materials[0] = material
    else:
        obj.data.materials.append(material)


def apply_settings(scene, desc: PhysicsScene, keep_materials: bool = False) -> None:
    """Scene settings, world name and physics materials (the list is replaced unless kept)."""
    props = scene.articula
    props.world_name = desc.name
    props.robot_type = desc.robot_type or ""
    write_fields(props, desc.settings, SETTINGS_FIELDS)
    write_mujoco(props.mujoco, desc.settings.mujoco)
    if keep_materials:
        return
    props.materials.clear()
    for material in desc.materials:
        write_material(props.materials.add(), material)
    props.active_material_index = 0


def merge_materials(scene, materials) -> dict[str, str]:
    """Add ``materials`` to the scene's list and keep every material already there.

    A material of the same name and values is shared; one of the same name with other values is
    added under a free name (``steel.001``). Returns those renames, old name -> new name.
    """
    items = scene.articula.materials
    present = {item.name: read_material(item) for item in items}
    renames = {}
    for material in materials:
        current = present.get(material.name)
        if current is not None and _same_material(current, material):
            continue
        name = material.name if current is None else _free_name(material.name, present)
        if name != material.name:
            renames[material.name] = name
        write_material(items.add(), replace(material, name=name))
        present[name] = material
    return renames


def _same_material(a: PhysicsMaterial, b: PhysicsMaterial) -> bool:
    """Equal up to Blender's float32 storage."""
    def close(x, y):
        if x is None or y is None:
            return x is y
        return math.isclose(x, y, rel_tol=1e-6, abs_tol=1e-9)

    return all(close(getattr(a, f.name), getattr(b, f.name))
               for f in fields(PhysicsMaterial) if f.name != "name")


def _free_name(name: str, taken) -> str:
    number = 1
    while f"{name}.{number:03d}" in taken:
        number += 1
    return f"{name}.{number:03d}"


def apply_prim_name(obj, prim_name: str) -> None:
    """Keep the USD prim name ``obj`` came from when Blender's name for it differs (else forget it)."""
    if prim_name != obj.name:
        obj[PRIM_NAME] = {"name": prim_name, "for": obj.name}
    elif PRIM_NAME in obj:
        del obj[PRIM_NAME]


def apply_tendons(scene, tendons, joint_objects: dict, prim_names: dict, append: bool = False) -> None:
    props = scene.articula
    if not append:
        props.tendons.clear()
    for tendon in tendons:
        write_tendon(props.tendons.add(), tendon, joint_objects, prim_names)
        _unique_last(props.tendons)
    props.active_tendon_index = 0


def keep_file_name(obj, name: str) -> None:
    """Keep the file's ``name`` for ``obj`` where Blender had to call it otherwise (``bthigh.001``)."""
    props = obj.articula
    props.file_name, props.file_name_for = (name, obj.name) if obj.name != name else ("", "")


def keep_file_pose(obj, pose: Pose) -> None:
    props = obj.articula
    values = (*pose.pos, *pose.rot)
    props.has_file_pose, props.file_pose = True, values
    props.file_pose_low = [v - high for v, high in zip(values, props.file_pose)]


def apply_site(obj, site: Site) -> None:
    props = obj.articula.site
    props.enabled = True
    props.size, props.color, props.group = site.size, site.color, site.group
    props.kind = site.kind.value  # last: its update draws the Empty by kind and size


def apply_camera(obj, camera: Camera, bodies: dict) -> None:
    """The camera data shows MuJoCo's vertical field of view (a vertical sensor fit) and clipping."""
    data = obj.data
    data.sensor_fit = "VERTICAL"
    data.angle_y = camera.fovy
    data.clip_start, data.clip_end = camera.clip_start, camera.clip_end
    props = obj.articula.camera
    props.enabled = True
    props.mode, props.resolution = camera.mode.value, camera.resolution
    props.target = bodies.get(camera.target)
    props.update_rate = camera.update_rate
    props.ros_link, props.ros_optical_frame = (*camera.ros_frames, "", "")[:2]
    sync_tracking(obj)  # a target-body camera looks at its target


def apply_light(obj, light) -> None:
    data = obj.data
    data.color = light.color
    data.use_shadow = light.cast_shadow
    if data.type == "SPOT":
        data.spot_size = min(max(2.0 * light.cutoff, math.radians(1.0)), math.pi)
    props = obj.articula.light
    props.enabled = True
    props.cutoff, props.exponent, props.attenuation = light.cutoff, light.exponent, light.attenuation
    props.active = light.active


def apply_sensor(obj, sensor: Sensor, targets: dict) -> None:
    """``targets``: (kind, description name) -> object, for what a sensor reads or measures in."""
    props = obj.articula.sensor
    props.enabled = True
    props.kind, props.noise, props.cutoff = sensor.kind, sensor.noise, sensor.cutoff
    props.target_kind, props.reference_kind = sensor.target_kind or "", sensor.reference_kind or ""
    props.target = targets.get((sensor.target_kind, sensor.target))
    props.target_name = (sensor.target or "") if props.target is None else ""
    props.reference = targets.get((sensor.reference_kind, sensor.reference))
    props.settings = ";".join(f"{k}={v}" for k, v in sensor.settings.items())
    props.update_rate = sensor.update_rate


def apply_filtered_pairs(scene, pairs, objects: dict, append: bool = False) -> None:
    props = scene.articula
    if not append:
        props.filtered_pairs.clear()
    for a, b in pairs:
        pair = props.filtered_pairs.add()
        pair.body_a, pair.body_b = objects.get(a), objects.get(b)


# --- display meshes for primitive colliders --------------------------------------------------

_AXIS_ROTATIONS = {"X": Matrix.Rotation(math.pi / 2, 4, "Y"), "Y": Matrix.Rotation(-math.pi / 2, 4, "X"),
                   "Z": Matrix.Identity(4)}


def fill_primitive_mesh(mesh, collider) -> None:
    """Replace ``mesh`` with a stand-in for the primitive ``collider`` props (object units)."""
    hx, hy, hz = collider.half_extents
    radius, half_height, kind = collider.radius, collider.half_height, collider.shape
    bm = bmesh.new()
    if kind == ShapeKind.BOX.value:
        bmesh.ops.create_cube(bm, size=2.0, matrix=Matrix.Diagonal((hx, hy, hz, 1.0)))
    elif kind == ShapeKind.SPHERE.value:
        bmesh.ops.create_uvsphere(bm, u_segments=16, v_segments=8, radius=radius)
    elif kind == ShapeKind.CAPSULE.value:
        bmesh.ops.create_uvsphere(bm, u_segments=16, v_segments=8, radius=radius)
        for v in bm.verts:
            v.co.z += math.copysign(half_height, v.co.z) if abs(v.co.z) > 1e-9 else 0.0
        bmesh.ops.transform(bm, matrix=_AXIS_ROTATIONS[collider.axis], verts=bm.verts)
    elif kind == ShapeKind.CYLINDER.value:
        bmesh.ops.create_cone(bm, cap_ends=True, segments=16, radius1=radius, radius2=radius,
                              depth=2.0 * half_height, matrix=_AXIS_ROTATIONS[collider.axis])
    elif kind == ShapeKind.PLANE.value:
        bmesh.ops.create_grid(bm, x_segments=1, y_segments=1, size=1.0)
    bm.to_mesh(mesh)
    bm.free()
    mesh.update()


# --- build -----------------------------------------------------------------------------------

def _own_item(items, name: str, body: Optional[str]):
    return next((i for i in items if i.name == name and i.body == body), None)


def _mesh_matches(obj, data: Optional[MeshData]) -> bool:
    if obj.type != "MESH" or data is None:
        return False
    own = mesh_data(obj)
    return own.triangles == [tuple(t) for t in data.triangles] and all(
        math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)
        for va, vb in zip(own.vertices, data.vertices) for a, b in zip(va, vb)
    ) and len(own.vertices) == len(data.vertices)


def _next_file_order(scene) -> int:
    """Where a new file's joints start: after every joint an earlier import placed, so each file keeps
    its own order and files follow one another."""
    orders = [o.articula.joint.file_order for o in scene.objects if o.articula.joint.enabled]
    return max(orders, default=-1) + 1


def _stacked(joints: list[Joint]) -> set[str]:
    """Names of the joints that share their two bodies with another joint (their order matters)."""
    pairs: dict[tuple, list[str]] = {}
    for joint in joints:
        pairs.setdefault((joint.body0, joint.body1), []).append(joint.name)
    return {name for names in pairs.values() if len(names) > 1 for name in names}


class _Builder:
    def __init__(self, context, desc: PhysicsScene, collection, merge: bool = False,
                 apply_scene_settings: bool = True):
        self.desc = desc
        self.merge = merge
        self.apply_scene_settings = apply_scene_settings
        self.collection = collection or context.scene.collection
        self.scene = context.scene
        self.objects: dict[str, bpy.types.Object] = {}  # description name -> object
        # Body lookups go through their own map: a joint or collider may share a body's name
        # (USD names are unique per parent only; the ant's joints are named after their bodies).
        self.body_objects: dict[str, bpy.types.Object] = {}
        self.joint_objects: dict[str, bpy.types.Object] = {}
        self.made: dict[tuple[str, str], bpy.types.Object] = {}  # (kind, description name) -> object
        self.done_shapes: set[str] = set()
        self.done_visuals: set[str] = set()
        self.frames = WorldFrames()  # objects never move once placed: read each world matrix once
        self.display_meshes: dict[tuple, bpy.types.Mesh] = {}  # primitive collider stand-ins by shape
        self.site_objects: dict[str, bpy.types.Object] = {}
        self.camera_objects: dict[str, bpy.types.Object] = {}

    def body_object(self, body: Body):
        visual = _own_item(self.desc.visuals, body.name, body.name)
        shape = _own_item(self.desc.shapes, body.name, body.name)
        if visual is not None:
            obj = new_object(body.name, self.collection, new_mesh(body.name, visual.mesh))
            apply_visual(obj, visual)
            self.done_visuals.add(visual.name)
            return obj, visual.scale
        if shape is not None and shape.kind.value in MESH_KINDS and shape.mesh is not None:
            obj = new_object(body.name, self.collection, new_mesh(body.name, shape.mesh))
            obj.articula.collider.collider_only = True
            return obj, shape.scale
        return new_object(body.name, self.collection, size=BODY_EMPTY_SIZE), (1.0, 1.0, 1.0)

    def add_body(self, body: Body) -> None:
        obj, scale = self.body_object(body)
        parent = self.body_objects.get(body.parent) if body.parent else None
        if parent is not None and body.hierarchy_gap:
            gap = new_object(f"{body.name}_gap", self.collection, size=BODY_EMPTY_SIZE)
            place(gap, parent, body.pose)
            parent = gap
        place(obj, parent, body.pose, scale)
        apply_body(obj, body)
        self.objects[body.name] = self.body_objects[body.name] = obj
        self.made[("body", body.name)] = obj

    def add_joint(self, joint: Joint) -> None:
        obj = new_object(joint.name, self.collection, empty_display="ARROWS", size=JOINT_EMPTY_SIZE)
        body1 = self.body_objects.get(joint.body1)
        place(obj, body1, pose_mul(self.frames.pose(body1), joint.local_pose1))
        apply_joint(obj, joint, self.body_objects, self.frames, self.desc.prim_names)
        self.record("joint", joint.name, obj)

    def record(self, kind: str, name: str, obj) -> None:
        """``obj`` is what the description's ``kind`` item ``name`` became."""
        self.objects.setdefault(name, obj)
        self.made[(kind, name)] = obj
        if kind == "joint":
            self.joint_objects[name] = obj
            keep_file_name(obj, name)

    def add_shape(self, shape: Shape) -> None:
        body = self.body_objects.get(shape.body) if shape.body else None
        own = self.body_objects.get(shape.name) if shape.body and shape.name == shape.body else None
        primitive = shape.kind.value not in MESH_KINDS and shape.height_field is None
        if own is not None and (primitive or _mesh_matches(own, shape.mesh)):
            obj = own
        else:
            obj = self.shape_object(shape)
            place(obj, body, pose_mul(self.frames.pose(body), shape.pose), shape.scale)
        apply_shape(obj, shape, shape.scale)
        if obj.type == "MESH" and not obj.data.vertices and shape.kind.value not in MESH_KINDS:
            fill_primitive_mesh(obj.data, obj.articula.collider)
        self.record("shape", shape.name, obj)

    def shape_object(self, shape: Shape):
        visual = _own_item(self.desc.visuals, shape.name, None) if shape.body is None else None
        if visual is not None and _same_mesh_source(shape, visual):
            obj = new_object(shape.name, self.collection, new_mesh(shape.name, visual.mesh))
            apply_visual(obj, visual)
            self.done_visuals.add(visual.name)
            return obj
        obj = new_object(shape.name, self.collection, self.collider_mesh(shape))
        obj.articula.collider.collider_only = True
        obj.display_type = "WIRE"
        obj.hide_render = True
        return obj

    def collider_mesh(self, shape: Shape):
        """A new mesh for the collider, or for a primitive the display mesh of an equal one
        (same kind, sizes, axis and scale): one shared stand-in, filled once."""
        if shape.kind.value in MESH_KINDS or shape.mesh is not None:
            return new_mesh(shape.name, shape.mesh)
        if shape.height_field is not None:  # terrain: the mesh is its surface, one vertex per sample
            from ...core.mjcf.primitives import height_field

            return new_mesh(shape.name, height_field(shape.height_field))
        key = (shape.kind, shape.axis, shape.half_extents, shape.radius, shape.half_height,
               tuple(shape.scale))
        mesh = self.display_meshes.get(key)
        if mesh is None:
            mesh = self.display_meshes[key] = new_mesh(shape.name, None)
        return mesh

    def add_visual(self, visual: Visual) -> None:
        body = self.body_objects.get(visual.body) if visual.body else None
        obj = new_object(visual.name, self.collection, new_mesh(visual.name, visual.mesh))
        place(obj, body, pose_mul(self.frames.pose(body), visual.pose), visual.scale)
        apply_visual(obj, visual)
        self.record("visual", visual.name, obj)

    def build(self) -> dict:
        if self.apply_scene_settings:
            apply_settings(self.scene, self.desc, keep_materials=self.merge)
        for body in parents_first(self.desc.bodies):
            self.add_body(body)
        first, stacked = _next_file_order(self.scene), _stacked(self.desc.joints)
        for i, joint in enumerate(self.desc.joints):
            self.add_joint(joint)
            obj = self.joint_objects.get(joint.name)
            if obj is not None and joint.name in stacked:
                obj.articula.joint.file_order = first + i
        for shape in self.desc.shapes:
            self.add_shape(shape)
        for visual in self.desc.visuals:
            if visual.name not in self.done_visuals:
                self.add_visual(visual)
        apply_filtered_pairs(self.scene, self.desc.filtered_pairs, self.body_objects, append=self.merge)
        self.add_frames()
        self.link_actuation()
        self.add_mujoco_model()
        return self.objects

    # --- MuJoCo's frames, sensors and model beyond the tree -----------------------------------

    def on_body(self, obj, body_name, pose: Pose) -> None:
        """Place ``obj`` on its body (or the world) at ``pose`` in that body's frame (kept in float64)."""
        body = self.body_objects.get(body_name) if body_name else None
        place(obj, body, pose_mul(self.frames.pose(body), pose))
        keep_file_pose(obj, pose)

    def frame_object(self, item, object_type: str, make):
        """The object for a site, camera or light: ``make()`` (the adopter takes Blender's own first)."""
        return make()

    def add_frames(self) -> None:
        for site in self.desc.sites:
            obj = self.frame_object(site, "EMPTY", lambda: new_object(
                site.name, self.collection, empty_display=EMPTY_DISPLAY[site.kind.value],
                size=max(max(site.size), 1e-4)))
            self.on_body(obj, site.body, site.pose)
            apply_site(obj, site)
            keep_file_name(obj, site.name)
            self.site_objects[site.name] = obj
        for camera in self.desc.cameras:
            obj = self.frame_object(camera, "CAMERA", lambda: new_object(
                camera.name, self.collection, bpy.data.cameras.new(camera.name)))
            self.on_body(obj, camera.body, camera.pose)
            obj.data.name = camera.name  # Blender's USD export names the Camera prim after its data
            apply_camera(obj, camera, self.body_objects)
            keep_file_name(obj, camera.name)
            self.camera_objects[camera.name] = obj
        for light in self.desc.lights:
            obj = self.frame_object(light, "LIGHT", lambda: new_object(
                light.name, self.collection, bpy.data.lights.new(light.name, LIGHT_TYPES[light.kind])))
            if obj.data.type != LIGHT_TYPES[light.kind]:
                obj.data.type = LIGHT_TYPES[light.kind]
            self.on_body(obj, light.body, light.pose)
            obj.data.name = light.name
            apply_light(obj, light)
            keep_file_name(obj, light.name)
        targets = self.sensor_targets()
        for sensor in self.desc.sensors:
            obj = new_object(sensor.name, self.collection, empty_display="SINGLE_ARROW",
                             size=SENSOR_EMPTY_SIZE)
            apply_sensor(obj, sensor, targets)
            holder = obj.articula.sensor.target or obj.articula.sensor.reference
            place(obj, holder, self.frames.pose(holder) if holder is not None else Pose())
            keep_file_name(obj, sensor.name)

    def sensor_targets(self) -> dict:
        targets = {("site", n): o for n, o in self.site_objects.items()}
        targets.update((("camera", n), o) for n, o in self.camera_objects.items())
        targets.update((("joint", n), o) for n, o in self.joint_objects.items())
        for kind in ("body", "xbody"):
            targets.update(((kind, n), o) for n, o in self.body_objects.items())
        targets.update((("geom", n), o) for (kind, n), o in self.made.items() if kind == "shape")
        return targets

    def add_mujoco_model(self) -> None:
        """Keyframes, equalities, contact pairs, spatial tendons, tendon equalities and frame actuators: on
        the scene."""
        props, desc = self.scene.articula, self.desc
        lists = (props.keyframes, props.equalities, props.contact_pairs, props.spatial_tendons,
                 props.tendon_equalities, props.frame_actuators)
        if not self.merge:
            for items in lists:
                items.clear()
        shapes = {n: o for (kind, n), o in self.made.items() if kind == "shape"}
        targets = {**shapes, **self.site_objects}
        for items, values, write in (
                (props.keyframes, desc.keyframes, write_keyframe),
                (props.equalities, desc.equalities,
                 lambda item, e: write_equality(item, e, self.body_objects, self.site_objects)),
                (props.contact_pairs, desc.contact_pairs,
                 lambda item, p: write_contact_pair(item, p, shapes)),
                (props.spatial_tendons, desc.spatial_tendons,
                 lambda item, t: write_spatial_tendon(item, t, targets, desc.prim_names)),
                (props.tendon_equalities, desc.tendon_equalities,
                 lambda item, e: write_tendon_equality(item, e, self._tendon_item_names())),
                (props.frame_actuators, desc.frame_actuators,
                 lambda item, a: write_actuator(item, a, desc.prim_names.get(a.name, "")))):
            for value in values:
                write(items.add(), value)
                _unique_last(items)

    def _tendon_item_names(self) -> dict:
        """Each description tendon's name -> its scene list item's (the items just added, in order)."""
        props, desc, names = self.scene.articula, self.desc, {}
        for items, tendons in ((props.tendons, desc.tendons), (props.spatial_tendons, desc.spatial_tendons)):
            added = list(items)[len(items) - len(tendons):] if tendons else []
            names.update((t.name, item.name) for t, item in zip(tendons, added))
        return names

    def link_actuation(self) -> None:
        """What points at joints (mimic leaders, tendons) once every joint object exists; and each
        object's USD prim name (named last: the adopter renames objects after building)."""
        for joint in self.desc.joints:
            obj = self.joint_objects.get(joint.name)
            if obj is not None:
                write_mimic(obj.articula.joint, joint.mimic, self.joint_objects)
        apply_tendons(self.scene, self.desc.tendons, self.joint_objects, self.desc.prim_names,
                      append=self.merge)

    def keep_prim_names(self) -> None:
        bodies = set(self.body_objects.values())
        for (kind, name), obj in self.made.items():
            if kind != "body" and obj in bodies:
                continue  # a collider or visual on its body's own object: the body's prim
            apply_prim_name(obj, self.prim_name(kind, name))

    def prim_name(self, kind: str, name: str) -> str:
        """The prim name the item leaves under: the file's where the reader kept it (``tn__...``),
        else its description name (also for an object Blender had to call ``name.001``)."""
        return self.desc.prim_names.get(name, name)


def scene_actuator_names(scene) -> set:
    """The names of every actuator the scene's robots have (on DOFs, tendons, frames)."""
    props = scene.articula
    names = {a.name for owner in (*props.tendons, *props.spatial_tendons) for a in owner.actuators}
    names.update(a.name for a in props.frame_actuators)
    for obj in scene.objects:
        if obj.articula.joint.enabled:
            names.update(a.name for dof in obj.articula.joint.dofs for a in dof.actuators)
    return names


def with_free_actuator_names(scene, desc: PhysicsScene) -> PhysicsScene:
    """``desc`` (a copy where anything changes) with its actuators named apart from the scene's (a
    robot imported twice: ``elbow_motor.001``), and what names them (keyframe controls, sensors)."""
    import copy

    taken = scene_actuator_names(scene)
    actuators = [a for a, *_ in desc.actuators()]
    actuators += [*desc.frame_actuators, *(a for t in desc.spatial_tendons for a in t.actuators)]
    if not any(a.name in taken for a in actuators):
        return desc
    desc = copy.deepcopy(desc)
    actuators = [a for a, *_ in desc.actuators()]
    actuators += [*desc.frame_actuators, *(a for t in desc.spatial_tendons for a in t.actuators)]
    renames = {}
    for actuator in actuators:
        if actuator.name in taken:
            renames[actuator.name] = actuator.name = _free_name(actuator.name, taken)
        taken.add(actuator.name)
    for keyframe in desc.keyframes:
        keyframe.controls = {renames.get(n, n): v for n, v in keyframe.controls.items()}
    for sensor in desc.sensors:
        if sensor.target_kind == "actuator":
            sensor.target = renames.get(sensor.target, sensor.target)
    return desc


def _unique_last(items) -> None:
    """The list's last item renamed where an earlier item has its name (a robot imported twice keeps
    its two keyframes ``home`` apart as ``home`` and ``home.001``)."""
    item = items[-1]
    taken = {other.name for other in list(items)[:-1]}
    if item.name in taken:
        item.name = _free_name(item.name, taken)


def _same_mesh_source(shape: Shape, visual: Visual) -> bool:
    """A static shape and visual of one name share an object when their mesh and frame agree."""
    if shape.kind.value in MESH_KINDS and shape.mesh != visual.mesh:
        return False
    return shape.pose == visual.pose and tuple(shape.scale) == tuple(visual.scale)


def build_scene(context, desc: PhysicsScene, collection=None, merge: bool = False,
                apply_scene_settings: bool = True) -> dict:
    """Create ``desc``'s objects in ``collection`` (default: the scene's) and set every property.

    By default the scene's physics settings, material list and filtered pairs become ``desc``'s.
    With ``merge`` (an import into a scene that has its own robot) the scene keeps its materials
    and filtered pairs and gets ``desc``'s added (see :func:`merge_materials`), and its settings
    change only with ``apply_scene_settings``. Returns the objects by description name (bodies,
    joints, shapes and visuals).
    """
    if merge:
        renames = merge_materials(context.scene, desc.materials)
        desc = replace(desc, materials=[], shapes=[
            replace(s, material=renames.get(s.material, s.material)) for s in desc.shapes])
        desc = with_free_actuator_names(context.scene, desc)
    builder = _Builder(context, desc, collection, merge, apply_scene_settings)
    objects = builder.build()
    builder.keep_prim_names()
    context.view_layer.update()
    return objects


# --- adopting the objects Blender's own USD importer made ------------------------------------

POSE_TOLERANCE = 1e-5


def children_index() -> dict:
    """Object -> its children, for every object of the file, in one pass (``Object.children``
    scans every object of the file on each call: quadratic over an import)."""
    index: dict = {}
    for obj in bpy.data.objects:
        if obj.parent is not None:
            index.setdefault(obj.parent, []).append(obj)
    return index


def _settle_world_matrices(made, index: dict) -> None:
    """Give the objects Blender's importer just made their world matrices, parents first, as a
    depsgraph update would: the importer leaves ``matrix_world`` unset until the next update, and
    ``view_layer.update()`` would also evaluate every mesh (0.5 s at 8,000 objects), which Blender
    does anyway once the import ends. Objects from before the import are already evaluated."""
    made = set(made)
    level = [obj for obj in made if obj.parent not in made]  # below them, everything is new too
    while level:
        following = []
        for obj in level:
            parent = obj.parent
            basis = obj.matrix_basis
            obj.matrix_world = parent.matrix_world @ obj.matrix_parent_inverse @ basis if parent else basis
            following.extend(index.get(obj, ()))
        level = following


def _reparent_keep_world(obj, parent, index: dict) -> None:
    """Parent ``obj`` to ``parent`` without moving it (exact: the parent inverse takes the rest)."""
    if obj.parent is parent:
        return
    world = obj.matrix_world.copy()
    if obj.parent is not None and obj in index.get(obj.parent, ()):
        index[obj.parent].remove(obj)
    obj.parent = parent
    if parent is None:  # Blender ignores the parent inverse of an object without a parent
        obj.matrix_parent_inverse = Matrix.Identity(4)
        obj.matrix_world = world
        return
    index.setdefault(parent, []).append(obj)
    obj.matrix_parent_inverse = parent.matrix_world.inverted() @ world @ obj.matrix_basis.inverted()


def _set_world_keep_children(obj, matrix: Matrix, index: dict) -> None:
    """Put ``obj`` at the world ``matrix`` (loc/rot/scale) and leave its children where they are."""
    old = obj.matrix_world.copy()
    parent_world = obj.parent.matrix_world if obj.parent is not None else Matrix.Identity(4)
    obj.matrix_parent_inverse = parent_world.inverted()
    obj.matrix_world = matrix
    correction = matrix.inverted() @ old
    for child in index.get(obj, ()):
        child.matrix_parent_inverse = correction @ child.matrix_parent_inverse


def _apply_scale_to_mesh(obj, scale) -> None:
    """Move an object's scale into its own mesh (a copy when shared), as Ctrl+A does: bodies are
    rigid frames, so a body that is itself a scaled mesh keeps its shape in its vertices."""
    if obj.data.users > 1:
        obj.data = obj.data.copy()
    obj.data.transform(Matrix.Diagonal((*scale, 1.0)))
    if scale[0] * scale[1] * scale[2] < 0.0:
        obj.data.flip_normals()
    obj.data.update()


def _keep_mesh_in_world(obj, old_world) -> None:
    """Move a re-placed object's own mesh so it stays where it was in the world (a copy when
    shared): cheaper than a new stand-in mesh and removing Blender's (1 s per 2,000 colliders)."""
    if obj.data.users > 1:
        obj.data = obj.data.copy()
    correction = obj.matrix_world.inverted_safe() @ old_world
    obj.data.transform(correction)
    if correction.determinant() < 0.0:
        obj.data.flip_normals()
    obj.data.update()


def _clear_materials(mesh) -> None:
    """Empty a mesh's material slots: ``materials.clear()`` checks every object of the file
    (quadratic over an import, 0.18 s for 2,000 meshes), popping the slots does not."""
    materials = mesh.materials
    for _ in range(len(materials)):
        materials.pop()


def _hide_from_render(objects) -> None:
    """``hide_render`` on many objects at once: each RNA set re-syncs every collection of the file
    (quadratic, 0.12 s for 2,000 colliders), one ``foreach_set`` and one synced set do not."""
    if not objects:
        return
    everything = bpy.data.objects
    hidden = [False] * len(everything)
    everything.foreach_get("hide_render", hidden)
    wanted = {obj.as_pointer() for obj in objects}
    for i, obj in enumerate(everything):
        if obj.as_pointer() in wanted:
            hidden[i] = True
    everything.foreach_set("hide_render", hidden)
    objects[-1].hide_render = True  # through RNA once: the collections sync, the depsgraph is told


def _poses_close(a: Pose, b: Pose) -> bool:
    from ...core.transforms import poses_close

    return poses_close(a, b, pos_tol=POSE_TOLERANCE, rot_tol=POSE_TOLERANCE)


class _Adopter(_Builder):
    """The builder, taking for each description item the object Blender's importer made for its
    prim (by prim path, never by name) and creating only what Blender did not make."""

    def __init__(self, context, desc: PhysicsScene, collection, merge: bool, apply_scene_settings: bool,
                 prim_paths: dict, prim_objects: dict):
        super().__init__(context, desc, collection, merge, apply_scene_settings)
        self.prim_paths = prim_paths
        self.prim_objects = prim_objects  # prim path (str) -> the Object Blender made for it
        self.adopted: set = set()
        self.body_set: set = set()
        self.orphans: list = []  # Blender's data replaced by ours (removed when left unused)
        self.children: dict = {}  # object -> its children (children_index), kept up to date
        self.hidden_from_render: list = []  # colliders Blender made, hidden from renders at the end
        self._frames: Optional[dict] = None  # (parent prim path, prim name) -> Blender's objects there
        self.stand_ins: list = []  # Blender's objects for prims Articula makes its own object for
        self._read_ahead: Optional[dict] = None  # see current_frame

    def build(self) -> dict:
        drawn_by_instances, stripped = self.sort_instancers()
        self.done_visuals.update(drawn_by_instances)
        if stripped:  # first: the names Blender's prototype copies hold free up
            items = {self.prim_objects[path] for path in self.prim_paths.values()
                     if path in self.prim_objects}
            _strip_instancers(stripped, items, self.children, self.prim_objects)
        objects = super().build()
        self.remove_stand_ins()
        _hide_from_render(self.hidden_from_render)
        self.claim_names()
        self.keep_prim_names()
        for name, obj in self.joint_objects.items():  # after the claims: the names they ended with
            keep_file_name(obj, name)
        return objects

    def sort_instancers(self) -> tuple[set, list]:
        """Blender draws a scene instance (``instanceable = true``) as an Empty instancing a
        prototype collection, while the reader sees its prims as instance proxies, which have no
        object of their own. An instance of visuals alone (Isaac Sim's instanceable visuals) stays
        Blender's: its visuals are not built again. Any other (colliders, bodies) is built by
        Articula, so its instancer goes. Returns (visual names drawn by instancers, instancers to strip)."""
        instancers = {path: obj for path, obj in self.prim_objects.items()
                      if obj.instance_type == "COLLECTION" and obj.instance_collection is not None}
        if not instancers:
            return set(), []
        kinds: dict = {}  # instancer -> {kind: [description names]}
        for key, path in self.prim_paths.items():
            kind, _, name = key.partition(":")
            if kind not in ("body", "joint", "shape", "visual") or path in self.prim_objects:
                continue
            ancestor = path.rpartition("/")[0]
            while ancestor and ancestor not in instancers:
                ancestor = ancestor.rpartition("/")[0]
            if ancestor:
                kinds.setdefault(instancers[ancestor], {}).setdefault(kind, []).append(name)
        drawn, stripped = set(), []
        for obj, found in kinds.items():
            if set(found) == {"visual"}:
                drawn.update(found["visual"])
            else:
                stripped.append(obj)
        return drawn, stripped

    def claim_names(self) -> None:
        """Each adopted object takes its description name (the reader's: the prim's name, made
        unique per kind as ``name_1``), bodies first, as ``build_scene`` names what it creates.
        A name held by another object of this import that has not claimed it goes over to the
        description's owner (Blender named a joint prim before its body); a name the user's
        objects or an earlier claim hold gets Blender's suffix."""
        made = set(self.prim_objects.values())
        claimed = set()
        groups = (("body", self.desc.bodies), ("joint", self.desc.joints), ("shape", self.desc.shapes),
                  ("visual", self.desc.visuals))
        for kind, items in groups:
            for item in items:
                obj = self.imported(kind, item.name)
                if obj is None or obj not in self.adopted or obj in claimed:
                    continue
                claimed.add(obj)
                if obj.name == item.name:
                    continue
                holder = bpy.data.objects.get(item.name)
                if holder is not None and holder in made and holder not in claimed:
                    holder.name = item.name + ".articula_tmp"
                    obj.name = item.name
                    holder.name = item.name
                else:  # free, or Blender suffixes it (``bthigh.001``), as build_scene's objects
                    obj.name = item.name

    def frame_object(self, item, object_type: str, make):
        """Blender's object for the site's, camera's or light's prim (a child of its body's prim named
        after it), else ``make()``."""
        if self._frames is None:
            self._frames = {}
            for path, obj in self.prim_objects.items():
                parent, _, leaf = path.rpartition("/")
                self._frames.setdefault((parent, leaf), []).append(obj)
        body_path = self.prim_paths.get(f"body:{item.body}") if item.body else None
        leaf = self.desc.prim_names.get(item.name, item.name)
        if body_path is not None:
            candidates = self._frames.get((body_path, leaf), [])
        else:
            bodies = {p for k, p in self.prim_paths.items() if k.startswith("body:")}
            candidates = [o for (parent, name), found in self._frames.items()
                          if name == leaf and parent not in bodies for o in found]
        obj = next((o for o in candidates if o not in self.adopted), None)
        if obj is not None and obj.type != object_type:
            if object_type == "EMPTY" and obj.type == "MESH" and not self.children.get(obj):
                self.stand_ins.append(obj)  # a site's gprim Blender drew: the site's Empty replaces it
            obj = None
        if obj is None:
            return make()
        self.adopted.add(obj)
        return obj

    def remove_stand_ins(self) -> None:
        gone = {obj.as_pointer() for obj in self.stand_ins}
        for path in [path for path, obj in self.prim_objects.items() if obj.as_pointer() in gone]:
            del self.prim_objects[path]
        meshes = {obj.data for obj in self.stand_ins if obj.data is not None}
        bpy.data.batch_remove(self.stand_ins)
        bpy.data.batch_remove([m for m in meshes if m.users == 0])
        self.stand_ins = []
        for name, obj in self.site_objects.items():  # the names the stand-ins held are free now
            if obj.name != name and bpy.data.objects.get(name) is None:
                obj.name = name
                keep_file_name(obj, name)

    def imported(self, kind: str, name: str):
        path = self.prim_paths.get(f"{kind}:{name}")
        if path is None:
            return None
        obj = self.prim_objects.get(path)
        if obj is None and kind in ("visual", "shape"):  # a Mesh Blender merged into its parent Xform
            parent = self.prim_objects.get(path.rpartition("/")[0])
            if parent is not None and parent.type == "MESH":
                return parent
        return obj

    def current_frame(self, obj) -> tuple:
        """``world_pose_and_scale(obj)``: from one read of every object's world matrix
        (``world_poses_and_scales``, the same numbers) the first time an object is asked for, live
        after. An object is moved only after it was asked for (reparenting keeps its world matrix)."""
        if self._read_ahead is None:
            self._read_ahead = world_poses_and_scales(bpy.data.objects)
        found = self._read_ahead.pop(obj, None)
        return found if found is not None else world_pose_and_scale(obj)

    def owner(self, obj):
        current = obj.parent
        while current is not None:
            if current in self.body_set:
                return current
            current = current.parent
        return None

    def add_body(self, body: Body) -> None:
        obj = self.imported("body", body.name)
        if obj is None:
            super().add_body(body)
            self.body_set.add(self.body_objects[body.name])
            return
        self.adopted.add(obj)
        parent = self.body_objects.get(body.parent) if body.parent else None
        if obj.parent is not parent and (parent is not None or self.owner(obj) is not None):
            _reparent_keep_world(obj, parent, self.children)
        pose, scale = self.current_frame(obj)
        moved = True
        if obj.type == "EMPTY":
            obj.empty_display_size = BODY_EMPTY_SIZE
            if not _poses_close(pose, body.pose) or any(abs(s - 1.0) > 1e-6 for s in scale):
                # its scale stays on its children
                _set_world_keep_children(obj, pose_matrix(body.pose), self.children)
            else:
                moved = False
        elif any(abs(s - 1.0) > 1e-6 for s in scale):  # a scaled gprim as a body (Newton's cartpole)
            _apply_scale_to_mesh(obj, scale)
            _set_world_keep_children(obj, pose_matrix(body.pose), self.children)
        elif not _poses_close(pose, body.pose):
            _set_world_keep_children(obj, pose_matrix(body.pose, scale), self.children)
        else:
            moved = False
        apply_body(obj, body)
        if not moved and self.frames.anchor(obj) is None:
            self.frames[obj] = (pose, scale)  # it stays: the frame its joints, colliders and visuals need
        self.objects[body.name] = self.body_objects[body.name] = obj
        self.made[("body", body.name)] = obj
        self.body_set.add(obj)

    def add_joint(self, joint: Joint) -> None:
        obj = self.imported("joint", joint.name)
        if obj is None or obj.type != "EMPTY" or self.children.get(obj) or obj in self.adopted:
            return super().add_joint(joint)
        self.adopted.add(obj)
        obj.empty_display_type, obj.empty_display_size = "ARROWS", JOINT_EMPTY_SIZE
        body1 = self.body_objects.get(joint.body1)
        place(obj, body1, pose_mul(self.frames.pose(body1), joint.local_pose1))
        apply_joint(obj, joint, self.body_objects, self.frames, self.desc.prim_names)
        self.record("joint", joint.name, obj)

    def add_shape(self, shape: Shape) -> None:
        obj = self.imported("shape", shape.name)
        if obj is None or obj.type != "MESH":
            return super().add_shape(shape)
        body = self.body_objects.get(shape.body) if shape.body else None
        own = obj in self.adopted  # the collider is the body prim itself
        self.adopted.add(obj)
        if not own:
            if self.owner(obj) is not body:
                _reparent_keep_world(obj, body, self.children)
            pose, scale = self.current_frame(obj)
            expected = pose_mul(self.frames.pose(body), shape.pose)
            primitive = shape.kind.value not in MESH_KINDS
            unscaled = all(abs(abs(c) - 1.0) <= 1e-6 for c in scale)  # primitives: sizes carry the scale
            if not _poses_close(pose, expected) or (primitive and not unscaled):
                scale = (1.0, 1.0, 1.0) if primitive else shape.scale
                old_world = obj.matrix_world.copy()
                _set_world_keep_children(obj, pose_matrix(expected, scale), self.children)
                if primitive:  # sizes carry the scale now: the mesh Blender made keeps its place
                    _keep_mesh_in_world(obj, old_world)
            obj.display_type = "WIRE"
            self.hidden_from_render.append(obj)
        else:
            scale = world_pose_and_scale(obj)[1]
        obj.articula.collider.collider_only = True
        apply_shape(obj, shape, scale)
        if not obj.data.vertices and shape.kind.value not in MESH_KINDS:
            fill_primitive_mesh(obj.data, obj.articula.collider)
        self.record("shape", shape.name, obj)

    def add_visual(self, visual: Visual) -> None:
        obj = self.imported("visual", visual.name)
        if obj is None or obj.type != "MESH":
            return super().add_visual(visual)
        body = self.body_objects.get(visual.body) if visual.body else None
        if obj not in self.adopted and body is not None and self.owner(obj) is not body:
            _reparent_keep_world(obj, body, self.children)
        self.adopted.add(obj)
        if visual.material_name is None:  # no material of its own in the file: the object color
            self.orphans.extend(m for m in obj.data.materials if m is not None)
            _clear_materials(obj.data)
            obj.color = visual.color
        self.record("visual", visual.name, obj)


def _strip_instancers(instancers: list, items: set, children: dict, prim_objects: dict) -> None:
    """Instancers whose prims Articula builds: one that is a description item's object (a body
    Blender merged its instance into) stops instancing, a childless other goes; prototype
    collections no object instances any more go with their objects (Blender's copies of what
    Articula builds). What goes leaves ``prim_objects`` too."""
    prototypes = {obj.instance_collection for obj in instancers}
    for obj in instancers:
        obj.instance_type, obj.instance_collection = "NONE", None
    doomed = [obj for obj in instancers if obj not in items and not children.get(obj)]
    still_used = {obj.instance_collection for obj in bpy.data.objects if obj.instance_collection is not None}
    unused = [c for c in prototypes if c not in still_used]
    content = [obj for c in unused for obj in c.all_objects
               if all(owner in unused for owner in obj.users_collection)]
    parents = [c for c in bpy.data.collections if any(child in unused for child in c.children)]
    gone = {obj.as_pointer() for obj in doomed + content}
    for path in [path for path, obj in prim_objects.items() if obj.as_pointer() in gone]:
        del prim_objects[path]
    data = [obj.data for obj in content if obj.data is not None]
    bpy.data.batch_remove(doomed + content + unused)
    bpy.data.batch_remove([d for d in set(data) if d.users == 0])
    bpy.data.batch_remove([c for c in parents if not c.children and not c.objects])  # Blender's "prototypes"


def adopt_imported(context, desc: PhysicsScene, prim_paths: dict, prim_objects: dict, collection=None,
                   merge: bool = False, apply_scene_settings: bool = True, dissolve=(),
                   taken: Optional[set] = None) -> dict:
    """:func:`build_scene` onto the objects Blender's USD importer made: ``prim_objects`` maps
    prim paths to them, ``prim_paths`` each description item (``"body:<name>"``...) to its prim.
    Bodies, joints, colliders and visuals Blender made are taken over (their meshes, materials and
    UVs kept), the rest is created as ``build_scene`` does. ``dissolve``: prim paths whose Empties
    go, their children staying where they are (articulation-root wrappers around a body, which the
    export writes again). Returns the objects by description name; ``taken`` (a set) receives every
    object of ``prim_objects`` that became part of the robot."""
    if merge:
        renames = merge_materials(context.scene, desc.materials)
        desc = replace(desc, materials=[], shapes=[  # a copy only where renamed: the builder changes none
            replace(s, material=renames[s.material]) if s.material in renames else s for s in desc.shapes])
        desc = with_free_actuator_names(context.scene, desc)
    index = children_index()
    _settle_world_matrices(prim_objects.values(), index)
    wrappers = [prim_objects.pop(path) for path in dissolve if path in prim_objects]
    wrappers = [obj for obj in wrappers if obj.type == "EMPTY"]
    for wrapper in wrappers:
        for child in list(index.get(wrapper, ())):
            _reparent_keep_world(child, wrapper.parent, index)
        index.pop(wrapper, None)
    if wrappers:
        bpy.data.batch_remove(wrappers)
    adopter = _Adopter(context, desc, collection, merge, apply_scene_settings, prim_paths, prim_objects)
    adopter.children = index
    objects = adopter.build()
    if taken is not None:
        taken.update(adopter.adopted)
    unused = {item.as_pointer(): item for item in adopter.orphans if item.users == 0}
    if unused:
        bpy.data.batch_remove(list(unused.values()))
    # No depsgraph update here: every matrix_world changed was set, the others kept their value.
    return objects
