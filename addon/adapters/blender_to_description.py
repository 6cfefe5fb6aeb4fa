"""Blender objects and their ``articula`` properties -> the core description.

The Blender data model:
- a body is an object with ``articula.body.enabled``; its pose is its world matrix without
  scale; its parent is the nearest body up the Blender parent chain (``hierarchy_gap`` when a
  non-body object lies in between);
- a joint is an object (an Empty) with ``articula.joint.enabled``, parented to body1; its world
  matrix is the joint frame, from which ``local_pose1`` (body1) and ``local_pose0`` (body0, with
  ``body0_frame_offset``) follow;
- a collider is an object with ``articula.collider.enabled``: the body object itself, an object
  under a body (nearest body up the chain), or static (no body above);
- a visual is a mesh object: a body's own mesh (unless it is a collider-only collider), a
  non-collider mesh under a body, or a static mesh (again unless collider-only);
- a site (an Empty), robot camera or light (Blender's own) is on the nearest body above it; a sensor is an
  Empty pointing at what it reads; the rest of MuJoCo's model is the scene's lists and settings.
World scales within 1e-6 of 1 are taken as exactly 1 (float32 rotation noise).
"""

from __future__ import annotations

import math
from collections import Counter
from array import array
from operator import attrgetter
from typing import Iterable, Optional

from ...core.model import (Body, Camera, CameraMode, Joint, JointType, Keyframe, Light, LightKind,
                           MassProperties, MeshData, PhysicsScene, Pose, Sensor, Shape, ShapeKind, Site,
                           SiteKind, Visual, make_joint)
from ...core.transforms import pose_inverse, pose_mul, pose_relative, quat_from_matrix, quat_normalize
from ..properties.camera_props import authored_matrix_world, tracking_constraint
from ..properties.collider_props import MESH_KINDS, size_factors
from ..properties.sensor_props import OBJECT_KINDS
from .fields import (BODY_FIELDS, JOINT_FIELDS, SHAPE_FIELDS, read_actuator, read_contact,
                     read_contact_pair, read_dof, read_equality, read_fields, read_keyframe, read_material,
                     read_mimic, read_optional, read_settings, read_spatial_tendon, read_tendon,
                     read_tendon_equality)
from .mesh_to_height_field import has_faces, read_height_field

SCALE_SNAP = 1e-6

# A custom property ``{"name": prim name, "for": object name}``: the USD prim name an object came
# from where it differs from the object's name (a converter's ``tn__...`` encoding, a joint Blender
# renamed ``x.001`` beside a body ``x``), and the object's name then: an object the user renames
# since takes its new name to USD. A group, so Blender's USD export does not write it as userProperties.
PRIM_NAME = "articula_prim"


def object_prim_name(obj) -> Optional[str]:
    """The prim name ``obj`` came from, while it keeps the name it was imported under (else None)."""
    stored = obj.get(PRIM_NAME)
    if stored is None or not hasattr(stored, "get") or stored.get("for") != obj.name:
        return None
    prim_name = stored.get("name")
    return prim_name if isinstance(prim_name, str) else None


# --- object frames ---------------------------------------------------------------------------

def world_pose_and_scale(obj) -> tuple[Pose, tuple[float, float, float]]:
    """The object's world matrix split into a rigid pose and a per-axis scale (float64 math)."""
    (a, b, c, tx), (d, e, f, ty), (g, h, i, tz), _ = obj.matrix_world  # one RNA read, by rows
    columns = ((a, d, g), (b, e, h), (c, f, i))
    scale = [math.sqrt(x * x + y * y + z * z) for x, y, z in columns]
    if a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g) < 0.0:
        scale[0] = -scale[0]  # a mirror: one negative scale keeps the rotation proper
    rot = [[row[k] / scale[k] if scale[k] else float(r == k) for k in range(3)]
           for r, row in enumerate(((a, b, c), (d, e, f), (g, h, i)))]
    snapped = tuple(math.copysign(1.0, s) if abs(abs(s) - 1.0) <= SCALE_SNAP else s for s in scale)
    return Pose(pos=(tx, ty, tz), rot=quat_normalize(quat_from_matrix(rot))), snapped


def world_poses_and_scales(objects) -> dict:
    """:func:`world_pose_and_scale` of every object of a Blender collection (``scene.objects``) at
    once: one ``foreach_get`` of the world matrices and the same float64 operations, in the same
    order, on arrays (bit for bit the same poses; 800 objects: 1 ms against 9)."""
    import numpy as np

    items = list(objects)
    if not items:
        return {}
    flat = np.empty(16 * len(items), dtype=np.float32)
    objects.foreach_get("matrix_world", flat)
    m = flat.astype(np.float64).reshape(-1, 4, 4)  # [object, column, row]
    a, b, c, tx = m[:, 0, 0], m[:, 1, 0], m[:, 2, 0], m[:, 3, 0]
    d, e, f, ty = m[:, 0, 1], m[:, 1, 1], m[:, 2, 1], m[:, 3, 1]
    g, h, i, tz = m[:, 0, 2], m[:, 1, 2], m[:, 2, 2], m[:, 3, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = [np.sqrt(x * x + y * y + z * z) for x, y, z in ((a, d, g), (b, e, h), (c, f, i))]
        mirrored = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g) < 0.0
        scale[0] = np.where(mirrored, -scale[0], scale[0])
        rot = [[np.where(scale[k] != 0.0, row[k] / scale[k], float(r == k)) for k in range(3)]
               for r, row in enumerate(((a, b, c), (d, e, f), (g, h, i)))]
        quat = _normalized(_quats_from_matrices(rot))
        quat = _normalized(quat)
    snapped = [np.where(np.abs(np.abs(s) - 1.0) <= SCALE_SNAP, np.copysign(1.0, s), s) for s in scale]
    position = np.stack([tx, ty, tz], axis=1).tolist()
    quat = np.stack(quat, axis=1).tolist()
    scales = np.stack(snapped, axis=1).tolist()
    return {obj: (Pose(tuple(p), tuple(q)), tuple(s)) for obj, p, q, s in zip(items, position, quat, scales)}


def _quats_from_matrices(m) -> list:
    """``core.transforms.quat_from_matrix`` (before its normalization) on arrays of matrices."""
    import numpy as np

    tr = m[0][0] + m[1][1] + m[2][2]
    first = tr > 0.0
    second = ~first & (m[0][0] > m[1][1]) & (m[0][0] > m[2][2])
    third = ~first & ~second & (m[1][1] > m[2][2])
    s1 = np.sqrt(tr + 1.0) * 2.0
    s2 = np.sqrt(1.0 + m[0][0] - m[1][1] - m[2][2]) * 2.0
    s3 = np.sqrt(1.0 + m[1][1] - m[0][0] - m[2][2]) * 2.0
    s4 = np.sqrt(1.0 + m[2][2] - m[0][0] - m[1][1]) * 2.0
    branches = (
        (0.25 * s1, (m[2][1] - m[1][2]) / s1, (m[0][2] - m[2][0]) / s1, (m[1][0] - m[0][1]) / s1),
        ((m[2][1] - m[1][2]) / s2, 0.25 * s2, (m[0][1] + m[1][0]) / s2, (m[0][2] + m[2][0]) / s2),
        ((m[0][2] - m[2][0]) / s3, (m[0][1] + m[1][0]) / s3, 0.25 * s3, (m[1][2] + m[2][1]) / s3),
        ((m[1][0] - m[0][1]) / s4, (m[0][2] + m[2][0]) / s4, (m[1][2] + m[2][1]) / s4, 0.25 * s4),
    )
    return [np.where(first, q1, np.where(second, q2, np.where(third, q3, q4)))
            for q1, q2, q3, q4 in zip(*branches)]


def _normalized(q: list) -> list:
    """``core.transforms.quat_normalize`` on arrays (zero quaternions become the identity)."""
    import numpy as np

    w, x, y, z = q
    n = np.sqrt(w * w + x * x + y * y + z * z)
    zero = n == 0.0
    w, x, y, z = (np.where(zero, identity, c / np.where(zero, 1.0, n)) for c, identity in
                  zip((w, x, y, z), (1.0, 0.0, 0.0, 0.0)))
    flip = (w < 0.0) | ((w == 0.0) & ((x < 0.0) | ((x == 0.0) & ((y < 0.0) | ((y == 0.0) & (z < 0.0))))))
    return [np.where(flip, -c, c) for c in (w, x, y, z)]


BAKE_MARK = "articula_bake"  # on the bake's action (``simulation_to_keyframes``)


def is_bake_animated(obj) -> bool:
    anim = obj.animation_data
    return anim is not None and anim.action is not None and bool(anim.action.get(BAKE_MARK))


def away_from_rest(obj) -> bool:
    """A body whose current pose is a state, not its rest: kept from a simulation or baked."""
    return obj.articula.body.enabled and (obj.articula.body.posed or is_bake_animated(obj))


def stored_rest(obj) -> Pose:
    props = obj.articula.body
    return Pose(pos=tuple(props.rest_location), rot=quat_normalize(tuple(props.rest_rotation)))


def capture_rest(objects: Iterable, frames: Optional["WorldFrames"] = None) -> int:
    """Store the current pose as the rest of every body in ``objects`` that is at rest (a body
    away from its rest keeps the rest it has). Returns the bodies captured. ``frames``: the world
    matrices already read (:meth:`WorldFrames.read_all`)."""
    captured = 0
    for obj in objects:
        props = obj.articula.body
        if props.enabled and not (props.posed or is_bake_animated(obj)):  # not away_from_rest
            pose = frames.current_pose(obj) if frames is not None else world_pose(obj)
            props.rest_location, props.rest_rotation = pose.pos, pose.rot
            captured += 1
    return captured


def rest_anchor(obj) -> Optional[object]:
    """The nearest body at or above ``obj`` that is away from its rest (None: ``obj`` is at rest)."""
    current = obj
    while current is not None:
        if away_from_rest(current):
            return current
        current = current.parent
    return None


class WorldFrames(dict):
    """``world_pose_and_scale`` per object, computed once: one description read asks for the
    same body frames again and again (each of its joints, colliders and visuals).

    With ``rest`` (the default) the frames are the robot's rest pose: a body away from its rest
    (:func:`away_from_rest`) sits at its stored rest and everything under it follows rigidly, so
    joint frames, colliders and visuals keep their authored offsets whatever state is shown.
    ``rest=False`` reads the objects where they are now (the state).

    It also keeps what else both passes ask of each object: its roles (:meth:`role`) and the
    inverse of a body's frame (:meth:`relative`)."""

    def __init__(self, rest: bool = True):
        super().__init__()
        self.rest = rest
        self._anchors: dict = {}
        self._read: dict = {}  # world_pose_and_scale read ahead (read_all)
        self._roles: dict = {}
        self._inverses: dict = {}

    def role(self, obj) -> tuple:
        """(body, joint, collider): ``obj``'s PropertyGroups of the roles it has on, None for the
        others; read once (each ``obj.articula.<group>`` is an RNA lookup chain)."""
        found = self._roles.get(obj)
        if found is None:
            body, joint, collider = _ROLE_GROUPS(obj.articula)
            found = self._roles[obj] = (body if body.enabled else None, joint if joint.enabled else None,
                                        collider if collider.enabled else None)
        return found

    def relative(self, owner, pose: Pose) -> Pose:
        """``pose`` (world) in ``owner``'s frame: ``pose_relative``, the owner's inverse made once."""
        inverse = self._inverses.get(owner)
        if inverse is None:
            inverse = self._inverses[owner] = pose_inverse(self.pose(owner))
        return _pose_mul(inverse, pose)

    def read_all(self, objects) -> "WorldFrames":
        """Read the world matrices of a whole Blender collection (``scene.objects``) at once."""
        self._read = world_poses_and_scales(objects)
        return self

    def current_pose(self, obj) -> Pose:
        """``obj``'s world pose where it is now, whatever its rest (:func:`world_pose`)."""
        read = self._read.get(obj)
        return read[0] if read is not None else world_pose(obj)

    def anchor(self, obj):
        """:func:`rest_anchor`, remembered along the parent chains (one read per object); up to
        the nearest object known, then down again: a loop, for chains of any length."""
        chain = []
        while obj is not None and obj not in self._anchors:
            chain.append(obj)
            obj = obj.parent
        found = self._anchors[obj] if obj is not None else None
        for current in reversed(chain):
            body = self.role(current)[0]
            if body is not None and (body.posed or is_bake_animated(current)):  # away_from_rest
                found = current
            self._anchors[current] = found
        return found

    def __missing__(self, obj):
        read = self._read.get(obj)
        pose, scale = read if read is not None else world_pose_and_scale(obj)
        anchor = self.anchor(obj) if self.rest else None
        if anchor is obj:
            pose = stored_rest(obj)
        elif anchor is not None:
            pose = pose_mul(self[anchor][0], pose_relative(self.current_pose(anchor), pose))
        frame = self[obj] = (pose, scale)
        return frame

    def pose(self, obj) -> Pose:
        return self[obj][0] if obj is not None else Pose()


_ROLE_GROUPS = attrgetter("body", "joint", "collider")


def _pose_mul(a: Pose, b: Pose) -> Pose:
    """``core.transforms.pose_mul`` with its quaternion helpers written out: the same float
    operations in the same order (bit for bit the same pose), without four calls per pose."""
    w, x, y, z = a.rot
    vx, vy, vz = b.pos
    tx, ty, tz = 2.0 * (y * vz - z * vy), 2.0 * (z * vx - x * vz), 2.0 * (x * vy - y * vx)
    px, py, pz = a.pos
    bw, bx, by, bz = b.rot
    return Pose((px + (vx + w * tx + (y * tz - z * ty)), py + (vy + w * ty + (z * tx - x * tz)),
                 pz + (vz + w * tz + (x * ty - y * tx))),
                quat_normalize((w * bw - x * bx - y * by - z * bz, w * bx + x * bw + y * bz - z * by,
                                w * by - x * bz + y * bw + z * bx, w * bz + x * by - y * bx + z * bw)))


def world_pose(obj) -> Pose:
    return world_pose_and_scale(obj)[0]


def is_uniform(scale, tolerance: float = 1e-5) -> bool:
    return max(abs(s) for s in scale) - min(abs(s) for s in scale) <= tolerance * max(1.0, *map(abs, scale))


def children_index(objects: Iterable) -> dict:
    """Object -> its children among ``objects`` (in their order), in one pass: ``Object.children``
    scans every object of the file on each call, quadratic when asked of every object."""
    index: dict = {}
    for obj in objects:
        if obj.parent is not None:
            index.setdefault(obj.parent, []).append(obj)
    return index


# --- object roles ----------------------------------------------------------------------------

def is_body(obj) -> bool:
    return obj.articula.body.enabled


def is_joint(obj) -> bool:
    return obj.articula.joint.enabled


def is_collider(obj) -> bool:
    return obj.articula.collider.enabled


def owner_body(obj, bodies: set) -> Optional[object]:
    """The body an object belongs to: itself when a body, else the nearest body above it."""
    current = obj
    while current is not None:
        if current in bodies:
            return current
        current = current.parent
    return None


def parent_body(obj, bodies: set) -> tuple[Optional[object], bool]:
    """(nearest body above ``obj``, whether a non-body object lies between them)."""
    gap = False
    current = obj.parent
    while current is not None:
        if current in bodies:
            return current, gap
        if is_body(current):
            return None, False  # a body left out of ``objects``: this one is a root
        gap = True
        current = current.parent
    return None, False


def is_visual(obj, bodies: set) -> bool:
    return _is_visual(obj, bodies, is_joint(obj), is_collider(obj))


def _is_visual(obj, bodies: set, joint: bool, collider: bool, collider_props=None) -> bool:
    if joint or obj.type != "MESH":
        return False
    if not collider:
        return True
    own_object = obj in bodies or owner_body(obj, bodies) is None
    props = obj.articula.collider if collider_props is None else collider_props
    return own_object and not props.collider_only


# --- readers ---------------------------------------------------------------------------------

def mesh_data(obj) -> MeshData:
    """The object's own mesh (modifiers not applied) as vertices and triangles."""
    mesh = obj.data
    mesh.calc_loop_triangles()
    vertices, triangles = mesh.vertices, mesh.loop_triangles
    coordinates = array("f", bytes(4 * 3 * len(vertices)))
    vertices.foreach_get("co", coordinates)
    corners = array("i", bytes(4 * 3 * len(triangles)))
    triangles.foreach_get("vertices", corners)
    return MeshData(vertices=_triples(coordinates.tolist()), triangles=_triples(corners.tolist()))


def _triples(flat: list) -> list[tuple]:
    items = iter(flat)
    return list(zip(items, items, items))


def read_mass(props) -> Optional[MassProperties]:
    if props.mass_mode != "MANUAL":
        return None
    return MassProperties(mass=props.mass, center_of_mass=tuple(props.center_of_mass),
                          diagonal_inertia=tuple(props.diagonal_inertia),
                          principal_axes=tuple(props.principal_axes))


def read_body(obj, bodies: set, frames: WorldFrames, props=None) -> Body:
    """``props``: ``obj.articula.body`` where the caller has it."""
    props = obj.articula.body if props is None else props
    parent, gap = parent_body(obj, bodies)
    return Body(name=obj.name, pose=frames.pose(obj), parent=parent.name if parent else None,
                hierarchy_gap=gap, mass=read_mass(props), free_joint_name=props.free_joint_name or None,
                **read_fields(props, BODY_FIELDS))


def _unique_free_joint_names(bodies: list[Body]) -> list[Body]:
    """A free joint name another body's free joint has already is left out (a robot imported twice)."""
    taken = set()
    for body in bodies:
        if body.free_joint_name in taken:
            body.free_joint_name = None
        elif body.free_joint_name:
            taken.add(body.free_joint_name)
    return bodies


def read_joint(obj, frames: WorldFrames, props=None) -> Joint:
    """``props``: ``obj.articula.joint`` where the caller has it."""
    props = obj.articula.joint if props is None else props
    frame = frames.pose(obj)
    body0, body1, joint_type, axis, active, dofs = _JOINT_READ(props)
    offset = Pose(props.body0_frame_offset_location[:],  # a Vector's slice: its tuple
                  quat_normalize(props.body0_frame_offset_rotation[:]))
    return Joint(
        name=obj.name,
        type=JointType(joint_type),
        body0=body0.name if body0 else None,
        body1=body1.name if body1 else "",
        local_pose0=frames.relative(body0, _pose_mul(frame, offset)),
        local_pose1=frames.relative(body1, frame),
        axis=axis,
        dofs=[read_dof(d) for d in dofs],
        enabled=active,
        mimic=read_mimic(props),
        **read_fields(props, JOINT_FIELDS),
    )


_JOINT_READ = attrgetter("body0", "body1", "type", "axis", "active", "dofs")


FIXED_BASE_SUFFIX = "_fixed_base"


def fixed_base_joints(body_objects: list, joints: list[Joint], frames: WorldFrames) -> list[Joint]:
    """A fixed joint to the world for each body with Fixed Base on (unless a joint from the world
    already holds it), at the body's rest pose."""
    anchored = {j.body1 for j in joints if j.body0 is None}
    added = []
    for obj in body_objects:
        props = frames.role(obj)[0]
        if (obj.articula.body if props is None else props).fixed_base and obj.name not in anchored:
            joint = make_joint(obj.name + FIXED_BASE_SUFFIX, JointType.FIXED, None, obj.name)
            joint.local_pose0, joint.local_pose1 = frames.pose(obj), Pose()
            added.append(joint)
    return added


def read_shape(obj, bodies: set, frames: WorldFrames, props=None) -> Shape:
    """``props``: ``obj.articula.collider`` where the caller has it."""
    props = obj.articula.collider if props is None else props
    owner = owner_body(obj, bodies)
    pose, scale = frames[obj]
    shape, axis, half_extents, radius, half_height, material = _SHAPE_READ(props)
    extents, radius_factor, height_factor = size_factors(shape, axis, scale)
    kind = ShapeKind(shape)
    field = None
    if kind == ShapeKind.HEIGHT_FIELD:  # final sizes, its frame at the surface's centre and lowest point
        field, origin = read_height_field(obj, props, scale)
        pose, scale = _pose_mul(pose, Pose(pos=origin)), (1.0, 1.0, 1.0)
    return Shape(
        name=obj.name,
        kind=kind,
        body=owner.name if owner else None,
        pose=frames.relative(owner, pose) if owner else pose,
        height_field=field,
        half_extents=tuple([h * f for h, f in zip(half_extents, extents)]),
        radius=radius * radius_factor,
        half_height=half_height * height_factor,
        mesh=mesh_data(obj) if kind.value in MESH_KINDS and obj.type == "MESH" else None,
        scale=scale,
        material=material or None,
        density=read_optional(props, "density"),
        contact=read_contact(props),
        **read_fields(props, SHAPE_FIELDS),
    )


_SHAPE_READ = attrgetter("shape", "axis", "half_extents", "radius", "half_height", "material")


def visual_color(obj) -> tuple[tuple[float, float, float, float], Optional[str]]:
    """(RGBA, render material name): the first material's base color, else the object color."""
    material = obj.material_slots[0].material if obj.material_slots else None
    if material is None:
        return tuple(obj.color), None
    bsdf = principled_node(material)
    color = bsdf.inputs["Base Color"].default_value if bsdf else material.diffuse_color
    return tuple(color), material.name


def principled_node(material):
    tree = material.node_tree
    return next((n for n in tree.nodes if n.type == "BSDF_PRINCIPLED"), None) if tree else None


def read_visual(obj, bodies: set, frames: WorldFrames, with_mesh: bool = True) -> Visual:
    """``with_mesh``: False leaves the visual's mesh empty (see :func:`scene_from_blender`)."""
    owner = owner_body(obj, bodies)
    pose, scale = frames[obj]
    color, material_name = visual_color(obj)
    return Visual(name=obj.name, body=owner.name if owner else None,
                  mesh=mesh_data(obj) if with_mesh else MeshData(),
                  pose=frames.relative(owner, pose) if owner else pose, scale=scale,
                  color=color, material_name=material_name)


def parents_first(bodies: list[Body]) -> list[Body]:
    """``bodies`` reordered so that every parent comes before its children (stable otherwise)."""
    by_name = {b.name: b for b in bodies}
    ordered, placed = [], set()

    for body in bodies:  # up the unplaced ancestors (a cycle stops), then placed top down
        chain, trail, current = [], set(), body
        while current is not None and current.name not in placed and current.name not in trail:
            chain.append(current)
            trail.add(current.name)
            current = by_name.get(current.parent)
        for ancestor in reversed(chain):
            placed.add(ancestor.name)
            ordered.append(ancestor)
    return ordered


def in_file_order(joint_objects: list, joint_props: Optional[list] = None) -> list:
    """Joint objects in object order, except that joints stacked between the same two bodies take
    the order of the file they came from among themselves (Newton merges them into one D6 in that
    order); stacked joints made in Blender follow, in object order. ``joint_props``: their
    ``articula.joint`` groups, in the same order, where the caller has them."""
    groups: dict[tuple, list[int]] = {}
    if joint_props is None:
        joint_props = [obj.articula.joint for obj in joint_objects]
    for i, props in enumerate(joint_props):
        groups.setdefault((props.body0, props.body1), []).append(i)
    ordered = list(joint_objects)
    for places in groups.values():
        if len(places) > 1:
            stack = sorted((joint_objects[i] for i in places),
                           key=lambda o: (o.articula.joint.file_order < 0, o.articula.joint.file_order))
            for i, obj in zip(places, stack):
                ordered[i] = obj
    return ordered


def scene_from_blender(scene, objects: Optional[Iterable] = None,
                       frames: Optional[WorldFrames] = None, visual_meshes: bool = True,
                       file_names: Optional[dict] = None) -> PhysicsScene:
    """The description of ``scene``'s objects (all of them, or only ``objects``).

    Bodies come parents first; joints, shapes and visuals in object order (stacked joints in their
    file's: :func:`in_file_order`). ``frames`` may carry
    world frames already read (by :func:`blender_problems` on the same, unchanged objects); without it
    the whole scene's are read at once.
    ``visual_meshes``: False leaves the visuals' meshes empty, for whoever takes them from Blender
    itself (the NESTED USD export: Blender's exporter writes them) or needs none (the simulation);
    reading a real robot's render meshes is most of reading the robot. ``file_names`` (a dict)
    receives each joint's file name where it differs from its object's (see :func:`file_name`).
    """
    if frames is None:
        frames = WorldFrames() if objects is not None else WorldFrames().read_all(scene.objects)
    objects = list(scene.objects if objects is None else objects)
    roles = [(o, *frames.role(o)) for o in objects]  # (object, body, joint, collider props or None)
    body_roles = [(o, body) for o, body, _, _ in roles if body is not None]
    bodies = {o for o, _ in body_roles}
    joint_roles = [(o, joint) for o, _, joint, _ in roles if joint is not None]
    settings = scene.articula
    ordered = _joints_in_file_order(joint_roles)
    joints = [read_joint(o, frames, props) for o, props in ordered]
    if file_names is not None:
        named = ((o, file_name(o)) for o, _ in ordered)
        file_names.update((o.name, name) for o, name in named if name != o.name)
    actuated = {o for (o, _), joint in zip(ordered, joints) if any(d.actuators for d in joint.dofs)}
    joint_names = {j.name for j in joints}
    return PhysicsScene(
        name=settings.world_name,
        robot_type=settings.robot_type or None,
        settings=read_settings(settings),
        bodies=_unique_free_joint_names(parents_first([read_body(o, bodies, frames, props)
                                                       for o, props in body_roles])),
        joints=joints + fixed_base_joints([o for o, _ in body_roles], joints, frames),
        shapes=[read_shape(o, bodies, frames, collider) for o, _, _, collider in roles
                if collider is not None],
        visuals=[read_visual(o, bodies, frames, visual_meshes) for o, _, joint, collider in roles
                 if _is_visual(o, bodies, joint is not None, collider is not None, collider)],
        materials=[read_material(m) for m in settings.materials],
        filtered_pairs=[(p.body_a.name, p.body_b.name) for p in settings.filtered_pairs
                        if p.body_a and p.body_b],
        tendons=[read_tendon(t) for t in settings.tendons
                 if any(j.joint is not None and j.joint.name in joint_names for j in t.joints)],
        # only the joints with actuators have DOFs to look through for their prim names
        prim_names=prim_names(objects, settings.tendons,
                              [props.dofs for o, props in joint_roles if o in actuated]),
        **read_mujoco_model(settings, objects, bodies, frames, [o for o, _ in joint_roles]),
    )


# --- MuJoCo's frames, sensors and model beyond the tree ------------------------------------------

def file_name(obj) -> str:
    """The name ``obj`` leaves in a file: the file's own while the object keeps the name it came with
    (the joint ``bthigh`` that is the object ``bthigh.001`` beside its body)."""
    props = obj.articula
    return props.file_name if props.file_name and props.file_name_for == obj.name else obj.name


def described_name(obj) -> Optional[str]:
    """``obj``'s name in the description read from Blender: a body's, joint's or collider's is the
    object's (an export gives joints their file names back), a site's, camera's or sensor's its file name."""
    if obj is None:
        return None
    props = obj.articula
    if props.body.enabled or props.joint.enabled or props.collider.enabled:
        return obj.name
    return file_name(obj)


def read_mujoco_model(settings, objects: list, bodies: set, frames: WorldFrames, joint_objects: list) -> dict:
    """The description's sites, cameras, lights, sensors (objects), keyframes, equalities, contact
    pairs, spatial tendons, tendon equalities and frame actuators (the scene's lists), as ``PhysicsScene``
    keywords.
    Scene items whose objects are not among ``objects`` are left out."""
    present = _LazySet(objects)
    kinds = {"sites": [], "cameras": [], "lights": [], "sensors": []}
    for obj in objects:
        kind = obj.type
        if kind not in _FRAME_TYPES or any(frames.role(obj)[:2]):  # bodies and joints are neither
            continue
        props = obj.articula
        if kind == "CAMERA" and props.camera.enabled:
            kinds["cameras"].append(obj)
        elif kind == "LIGHT" and props.light.enabled:
            kinds["lights"].append(obj)
        elif kind == "EMPTY" and props.site.enabled:
            kinds["sites"].append(obj)
        elif kind == "EMPTY" and props.sensor.enabled and _reads_something(props.sensor, present):
            kinds["sensors"].append(obj)
    names = _frame_names(kinds)

    def described(obj):
        return names.get(obj) or described_name(obj)

    found = {"sites": [read_site(o, bodies, frames, names[o]) for o in kinds["sites"]],
             "cameras": [read_camera(o, bodies, frames, names[o]) for o in kinds["cameras"]],
             "lights": [read_light(o, bodies, frames, names[o]) for o in kinds["lights"]],
             "sensors": [read_sensor(o, names[o], described) for o in kinds["sensors"]]}
    named = settings.keyframes or any(a.target_kind == "joint" for a in settings.frame_actuators)
    # keyframes name joints as their file does (read only where something names a joint)
    joints = {file_name(o): o.name for o in joint_objects} if named else {}

    def name_of(obj):
        return described(obj) if obj is None or obj in present else False

    def complete(*names):
        return all(n is not False for n in names)

    equalities = [read_equality(e, name_of) for e in settings.equalities]
    pairs = [read_contact_pair(p, name_of) for p in settings.contact_pairs]
    tendons = [read_spatial_tendon(t, name_of) for t in settings.spatial_tendons]
    actuators = [read_actuator(a) for a in settings.frame_actuators]
    for actuator in actuators:
        if actuator.target_kind == "joint":
            actuator.target = joints.get(actuator.target, actuator.target)
    return dict(
        found,
        keyframes=[_with_joint_names(read_keyframe(k), joints) for k in settings.keyframes],
        equalities=[e for e in equalities if complete(e.body0, e.body1, e.site0, e.site1)],
        contact_pairs=[p for p in pairs if complete(p.shape0, p.shape1)],
        spatial_tendons=[t for t in tendons if all(complete(w.target, w.side_site) for w in t.path)],
        tendon_equalities=[read_tendon_equality(e) for e in settings.tendon_equalities],
        frame_actuators=actuators,
        object_names={f"{kind[:-1]}:{name}": obj.name for kind, objects in kinds.items() for obj in objects
                      if (name := names[obj]) != obj.name},
    )


_FRAME_TYPES = frozenset(("EMPTY", "CAMERA", "LIGHT"))


def _frame_names(kinds: dict) -> dict:
    """Object -> its name in the description: its file's name, unless another object of its kind
    takes that name too (a robot imported twice), then its own (Blender's are unique)."""
    names = {}
    for objects in kinds.values():
        wanted = [(obj, file_name(obj)) for obj in objects]
        counts = Counter(name for _, name in wanted)
        names.update((obj, name if counts[name] == 1 or name == obj.name else obj.name)
                     for obj, name in wanted)
    return names


class _LazySet:
    """``in`` on a set of ``items`` made on the first question (most robots never ask)."""

    def __init__(self, items):
        self.items, self.made = items, None

    def __contains__(self, item) -> bool:
        if self.made is None:
            self.made = set(self.items)
        return item in self.made


def _reads_something(props, present: set) -> bool:
    """A sensor whose target (and reference) objects are among those read: one whose object was
    deleted, or left out of a selection, is left out with it."""
    reference = props.reference
    if props.reference_kind and reference is None or reference is not None and reference not in present:
        return False  # its frame is gone (a deleted object's pointer is cleared)
    if props.target is not None:
        return props.target in present
    return props.target_kind not in OBJECT_KINDS or bool(props.target_name)


def _with_joint_names(keyframe: Keyframe, joints: dict) -> Keyframe:
    """``keyframe`` with its joints by their description names (``joints``: file name -> it)."""
    keyframe.joint_positions = {(joints.get(j, j), a): v for (j, a), v in keyframe.joint_positions.items()}
    keyframe.joint_velocities = {(joints.get(j, j), a): v for (j, a), v in keyframe.joint_velocities.items()}
    keyframe.ball_rotations = {joints.get(j, j): q for j, q in keyframe.ball_rotations.items()}
    return keyframe


def _placed(obj, bodies: set, frames: WorldFrames) -> tuple[Optional[str], Pose]:
    """(the body ``obj`` sits on, its pose in that body's frame; the world's when on none)."""
    owner = owner_body(obj, bodies)
    pose = frames.pose(obj)
    pose = frames.relative(owner, pose) if owner is not None else pose
    return (owner.name if owner is not None else None), _file_pose(obj, pose)


FILE_POSE_TOLERANCE = 1e-5  # m and quaternion units: where float32 storage leaves a file's pose


def _file_pose(obj, pose: Pose) -> Pose:
    """The file's pose kept in float64 while ``pose`` (Blender's) is it within float32, else ``pose``."""
    from ...core.transforms import poses_close

    props = obj.articula
    if not props.has_file_pose:
        return pose
    v = [high + low for high, low in zip(props.file_pose, props.file_pose_low)]
    kept = Pose(tuple(v[:3]), tuple(v[3:]))
    return kept if poses_close(pose, kept, FILE_POSE_TOLERANCE, FILE_POSE_TOLERANCE) else pose


def read_site(obj, bodies: set, frames: WorldFrames, name: Optional[str] = None) -> Site:
    props = obj.articula.site
    body, pose = _placed(obj, bodies, frames)
    name = name or file_name(obj)
    return Site(name=name, body=body, pose=pose, kind=SiteKind(props.kind), size=tuple(props.size),
                color=tuple(props.color), group=props.group)


def read_camera(obj, bodies: set, frames: WorldFrames, name: Optional[str] = None) -> Camera:
    props, data = obj.articula.camera, obj.data
    body, pose = _camera_placed(obj, bodies, frames)
    name = name or file_name(obj)
    return Camera(name=name, body=body, pose=pose, fovy=data.angle_y, mode=CameraMode(props.mode),
                  target=props.target.name if props.target is not None else None,
                  resolution=tuple(props.resolution), clip_start=data.clip_start, clip_end=data.clip_end,
                  update_rate=props.update_rate, ros_frames=_ros_frames(props))


def _camera_placed(obj, bodies: set, frames: WorldFrames) -> tuple[Optional[str], Pose]:
    """:func:`_placed` of the camera's authored pose: a target-body camera's Track To turns what is
    drawn, the pose it keeps is where it was put (rigid on its body, so any state of the robot gives it)."""
    if tracking_constraint(obj) is None:
        return _placed(obj, bodies, frames)
    owner = owner_body(obj, bodies)
    world = authored_matrix_world(obj)
    local = owner.matrix_world.inverted() @ world if owner is not None else world
    location, rotation, _ = local.decompose()
    pose = Pose(tuple(location), quat_normalize(tuple(rotation)))
    return (owner.name if owner is not None else None), _file_pose(obj, pose)


def _ros_frames(props) -> tuple[str, ...]:
    """``Camera.ros_frames``: the link, then its optical frame, where named."""
    if not props.ros_link:
        return ()
    return (props.ros_link, props.ros_optical_frame) if props.ros_optical_frame else (props.ros_link,)


_LIGHT_KINDS = {"SPOT": LightKind.SPOT, "SUN": LightKind.DIRECTIONAL}


def read_light(obj, bodies: set, frames: WorldFrames, name: Optional[str] = None) -> Light:
    props, data = obj.articula.light, obj.data
    body, pose = _placed(obj, bodies, frames)
    cutoff = props.cutoff
    if data.type == "SPOT" and not math.isclose(data.spot_size, min(2.0 * cutoff, math.pi), abs_tol=1e-6):
        cutoff = data.spot_size / 2.0  # the user turned the spot size
    name = name or file_name(obj)
    return Light(name=name, body=body, pose=pose, kind=_LIGHT_KINDS.get(data.type, LightKind.POINT),
                 color=tuple(data.color), cutoff=cutoff, exponent=props.exponent,
                 attenuation=tuple(props.attenuation), cast_shadow=data.use_shadow, active=props.active)


def read_sensor(obj, name: Optional[str] = None, described=described_name) -> Sensor:
    """``described``: the description's name of an object it reads (:func:`described_name`)."""
    props = obj.articula.sensor
    target = described(props.target) if props.target is not None else (props.target_name or None)
    settings = dict(item.split("=", 1) for item in props.settings.split(";") if "=" in item)
    name = name or file_name(obj)
    return Sensor(name=name, kind=props.kind, target=target, target_kind=props.target_kind or None,
                  reference=described(props.reference), reference_kind=props.reference_kind or None,
                  noise=props.noise, cutoff=props.cutoff, settings=settings,
                  update_rate=props.update_rate)


def _joints_in_file_order(joint_roles: list) -> list:
    """(object, joint props) pairs in :func:`in_file_order`."""
    ordered = in_file_order([o for o, _ in joint_roles], [props for _, props in joint_roles])
    props = dict(joint_roles)
    return [(o, props[o]) for o in ordered]


def prim_names(objects: list, tendons, joint_dofs) -> dict[str, str]:
    """``PhysicsScene.prim_names`` from the objects, tendons and actuators that keep a file's prim name
    (``joint_dofs``: the DOF collections of the joints that have actuators)."""
    names = {}
    for obj in objects:
        prim_name = object_prim_name(obj)
        if prim_name and prim_name != obj.name:
            names.setdefault(obj.name, prim_name)
    actuators = [a for dofs in joint_dofs for d in dofs for a in d.actuators]
    for item in [*tendons, *actuators, *(a for t in tendons for a in t.actuators)]:
        if item.prim_name and item.prim_name != item.name:
            names.setdefault(item.name, item.prim_name)
    return names


def blender_problems(scene, objects: Optional[Iterable] = None, frames: Optional[WorldFrames] = None) -> list:
    """Problems only Blender can see: scaled bodies, joints away from body1, meshless mesh colliders,
    height fields without a surface or with too few samples.

    ``frames`` collects the world frames read, for a :func:`scene_from_blender` that follows."""
    from ...core import validation

    frames = WorldFrames() if frames is None else frames
    problems = []
    in_scene = set(scene.objects)  # scene.objects.get(name) is a linear search: O(objects) per joint
    for obj in list(scene.objects if objects is None else objects):
        body_props, joint_props, collider_props = frames.role(obj)
        if body_props is not None:
            scale = frames[obj][1]
            if not is_uniform(scale):
                problems.append(validation.non_uniform_scale(obj.name, scale))
        if joint_props is not None:
            body0, body1 = joint_props.body0, joint_props.body1
            for side, body in (("0", body0), ("1", body1)):
                if body is not None and body not in in_scene:
                    problems.append(validation.error(
                        obj.name, f"its body {side} {body.name!r} is no longer in the scene (deleted?); "
                        "delete this joint or pick another body (Delete Bodies and Their Joints removes "
                        "a body with its joints)", "joint_body_deleted"))
            if body1 is not None and obj.parent != body1:
                problems.append(validation.warning(
                    obj.name, f"the joint is not parented to its body 1 {body1.name!r}, so it does not "
                    "follow that body; parent it (Ctrl+P, keep transform)", "joint_not_on_body1"))
        if collider_props is not None and collider_props.shape in MESH_KINDS and obj.type != "MESH":
            problems.append(validation.error(
                obj.name, "the collider is a mesh shape but the object has no mesh; pick a "
                "primitive shape or use a mesh object", "mesh_collider_without_mesh"))
        if collider_props is not None and collider_props.shape == ShapeKind.HEIGHT_FIELD.value:
            problems += height_field_problems(obj, collider_props)
    return problems


def height_field_problems(obj, props) -> list:
    """A height field needs a surface (a mesh with faces) and, where set, at least 2 rows and columns."""
    from ...core import validation

    if not has_faces(obj):
        return [validation.error(obj.name, "the height field has no surface: its mesh has no faces (a "
                                 "non-mesh object has none); use a Grid or another mesh with faces",
                                 "height_field_without_faces")]
    counts = (props.hfield_rows, props.hfield_columns)
    if any(n == 1 for n in counts) or (0 in counts and counts != (0, 0)):
        return [validation.error(obj.name, f"the height field needs at least 2 rows and 2 columns (has "
                                 f"{counts[0]} x {counts[1]}; 0 x 0: the mesh's own grid)",
                                 "height_field_too_few_samples")]
    return []
