"""Replicas 1..N-1 of the simulated robots, drawn in Blender by Geometry Nodes instancing.

Replica 0 is the real objects. Every other replica is shown by one points object per visual (a
mesh object of a body): its points carry the body's simulated world pose (position and a
``QUATERNION`` point attribute), and a shared node group instances the visual there (Object
Info in ORIGINAL space, as an instance, moved by the visual's fixed offset from its body). So a
frame is one batched ``foreach_set`` of positions and one of rotations per visual, whatever the
replica count (FACTS: 0.13 ms for 1000 points), and the poses need no per-replica math: they are
rows of the simulation's ``body_poses()``.

The points objects are hair-curves objects of one-point curves, not meshes: a mesh would read as
a static visual to ``scene_from_blender`` (and so be exported and simulated); curves are not.

A baked display holds every frame's points with a frame attribute; the node group shows the
points of the scene's current frame (clamped to the baked range), so the timeline plays it back
with no handler. Everything lives in the collection :data:`COLLECTION`; :func:`remove_replicas`
deletes all of it, :meth:`ReplicaDisplay.remove` only what that display created.
"""

from __future__ import annotations

from dataclasses import dataclass

import bpy
import numpy as np
from mathutils import Matrix

COLLECTION = "Articula Replicas"
NODE_GROUP = "Articula Replica Instances"
MARK = "articula_replicas"  # on every ID a display creates
ROTATION = "articula_rotation"
FRAME = "articula_frame"

#: Node group inputs after the geometry: (name, socket type).
INPUTS = (("Visual", "NodeSocketObject"), ("Offset Location", "NodeSocketVector"),
          ("Offset Rotation", "NodeSocketVector"), ("Offset Scale", "NodeSocketVector"),
          ("Baked", "NodeSocketBool"), ("Frame Start", "NodeSocketFloat"), ("Frame End", "NodeSocketFloat"))


@dataclass
class ReplicaVisual:
    """One visual shown for the replicas: the object, its bodies' pose rows, its body-frame offset."""

    visual: bpy.types.Object
    rows: np.ndarray  # rows of Simulation.body_poses(), one per replica shown
    offset: Matrix  # the visual's world matrix in its body's (unscaled) frame


def replica_visuals(scene, visuals, body_keys: list[tuple[str, int]]) -> list[ReplicaVisual]:
    """The visuals (``core.model.Visual``) of bodies that have replicas beyond 0.

    ``body_keys`` is the simulation's (body, replica) row order. Static visuals are not replicated.
    """
    rows_of: dict[str, list[int]] = {}
    for row, (name, replica) in enumerate(body_keys):
        if replica > 0:
            rows_of.setdefault(name, []).append(row)
    shown = []
    for visual in visuals:
        rows = rows_of.get(visual.body) if visual.body else None
        if not rows:
            continue
        obj, body = scene.objects[visual.name], scene.objects[visual.body]
        location, rotation, _ = body.matrix_world.decompose()
        frame = Matrix.LocRotScale(location, rotation, None)
        shown.append(ReplicaVisual(obj, np.asarray(rows, dtype=np.int64), frame.inverted() @ obj.matrix_world))
    return shown


class ReplicaDisplay:
    """Points objects instancing ``visuals`` at their replicas' poses, ``frames`` poses per point."""

    def __init__(self, scene, visuals: list[ReplicaVisual], frames: int = 1):
        self.visuals = visuals
        self.rows = np.concatenate([v.rows for v in visuals]) if visuals else np.zeros(0, dtype=np.int64)
        ends = np.cumsum([len(v.rows) for v in visuals], dtype=np.int64)
        self.spans = list(zip(np.concatenate([[0], ends[:-1]]).tolist(), ends.tolist()))
        # Per visual: its rows as a slice when evenly spaced (body_poses is replica-major, so they
        # are): a strided view, cast into ready float32 buffers, beats fancy indexing per frame.
        self._rows = [_as_slice(v.rows) for v in visuals]
        self._position = [np.empty((len(v.rows), 3), np.float32) for v in visuals]
        self._rotation = [np.empty((len(v.rows), 4), np.float32) for v in visuals]
        self.created: list = []  # IDs this display made, oldest first
        self.objects: list = []
        try:
            self.collection = self._collection(scene)
            self.node_group = self._node_group()
            self.objects = [self._points_object(v, frames) for v in visuals]
        except Exception:
            self.remove()
            raise

    # construction ------------------------------------------------------------------------

    def _own(self, data):
        data[MARK] = True
        self.created.append(data)
        return data

    def _collection(self, scene):
        collection = bpy.data.collections.get(COLLECTION)
        if collection is None or not collection.get(MARK):
            collection = self._own(bpy.data.collections.new(COLLECTION))
        if collection.name not in scene.collection.children:
            scene.collection.children.link(collection)
        return collection

    def _node_group(self):
        group = bpy.data.node_groups.get(NODE_GROUP)
        if group is not None and group.get(MARK):
            return group
        return self._own(build_node_group())

    def _points_object(self, shown: ReplicaVisual, frames: int):
        points = self._own(bpy.data.hair_curves.new(f"{shown.visual.name} Replicas"))
        points.add_curves([1] * (len(shown.rows) * frames))
        points.attributes.new(ROTATION, "QUATERNION", "POINT")
        obj = self._own(bpy.data.objects.new(points.name, points))
        self.collection.objects.link(obj)
        obj.hide_select = True  # a display, not something to edit
        modifier = obj.modifiers.new("Articula Replicas", "NODES")
        modifier.node_group = self.node_group
        location, rotation, scale = shown.offset.decompose()
        inputs = input_identifiers(self.node_group)
        set_input(modifier, inputs["Visual"], shown.visual)
        set_input(modifier, inputs["Offset Location"], tuple(location))
        set_input(modifier, inputs["Offset Rotation"], tuple(rotation.to_euler("XYZ")))
        set_input(modifier, inputs["Offset Scale"], tuple(scale))
        return obj

    # writing -----------------------------------------------------------------------------

    def gather(self, poses: np.ndarray) -> np.ndarray:
        """(points, 7) float32: the replica rows of ``body_poses()``, visual after visual."""
        return poses[self.rows].astype(np.float32)

    def write(self, poses: np.ndarray):
        """Show ``poses`` (all rows of ``body_poses()``): one batch per points object."""
        for obj, rows, position, rotation in zip(self.objects, self._rows, self._position, self._rotation):
            block = poses[rows]
            np.copyto(position, block[:, :3], casting="same_kind")
            np.copyto(rotation, block[:, 3:], casting="same_kind")
            _set_points(obj.data, position, rotation)

    def write_frames(self, first_frame: int, gathered: np.ndarray):
        """Bake: ``gathered`` (frames, points, 7) from :meth:`gather`, shown frame by frame."""
        count = gathered.shape[0]
        per_visual = [np.ascontiguousarray(gathered[:, s:e]).reshape(-1, 7) for s, e in self.spans]
        self._write_points(np.concatenate(per_visual) if per_visual else np.zeros((0, 7), np.float32),
                           frames=count)
        inputs = input_identifiers(self.node_group)
        for obj, (start, end) in zip(self.objects, self.spans):
            frame = np.repeat(np.arange(first_frame, first_frame + count, dtype=np.float32), end - start)
            obj.data.attributes.new(FRAME, "FLOAT", "POINT").data.foreach_set("value", frame)
            modifier = obj.modifiers[0]
            set_input(modifier, inputs["Baked"], True)
            set_input(modifier, inputs["Frame Start"], float(first_frame))
            set_input(modifier, inputs["Frame End"], float(first_frame + count - 1))
            obj.update_tag()

    def _write_points(self, points: np.ndarray, frames: int = 1):
        position = np.ascontiguousarray(points[:, :3])
        rotation = np.ascontiguousarray(points[:, 3:])
        for obj, (start, end) in zip(self.objects, self.spans):
            start, end = start * frames, end * frames
            _set_points(obj.data, position[start:end], rotation[start:end])

    def remove(self):
        """Delete what this display created (the collection and node group once unused)."""
        for data in reversed(self.created):
            _remove_unused(data)
        self.created.clear()
        self.objects.clear()


def _as_slice(rows: np.ndarray):
    """``rows`` as an equivalent slice when they are evenly spaced and increasing, else as they are."""
    if len(rows) > 1:
        step = int(rows[1] - rows[0])
        if step > 0 and np.array_equal(np.diff(rows), np.full(len(rows) - 1, step)):
            return slice(int(rows[0]), int(rows[-1]) + 1, step)
    return rows


def _set_points(data, position: np.ndarray, rotation: np.ndarray):
    """One batch each: positions and rotations (contiguous float32) of a points object."""
    data.attributes["position"].data.foreach_set("vector", position.reshape(-1))
    data.attributes[ROTATION].data.foreach_set("value", rotation.reshape(-1))
    data.update_tag()


def input_identifiers(group) -> dict[str, str]:
    """Node group input name -> the identifier a modifier stores its value under."""
    return {item.name: item.identifier for item in group.interface.items_tree
            if item.item_type == "SOCKET" and item.in_out == "INPUT"}


def set_input(modifier, identifier: str, value):
    """Set a Geometry Nodes modifier input, on every supported Blender.

    Blender 5.2 keeps the inputs in ``modifier.properties.inputs.<identifier>.value`` and refuses ID
    properties on the modifier ("id properties not supported for this type"); 4.5 (which has no
    ``properties``) stores them as the modifier's ID properties, ``modifier[identifier]``.
    """
    inputs = getattr(getattr(modifier, "properties", None), "inputs", None)
    if inputs is None:
        modifier[identifier] = value
    else:
        getattr(inputs, identifier).value = value


def get_input(modifier, identifier: str):
    """The value of a Geometry Nodes modifier input (see :func:`set_input`)."""
    inputs = getattr(getattr(modifier, "properties", None), "inputs", None)
    return modifier[identifier] if inputs is None else getattr(inputs, identifier).value


def build_node_group():
    """Instance ``Visual`` (moved by its offset) on every point that is shown, rotated by ROTATION.

    Shown: all points, or when ``Baked`` those whose FRAME is the scene frame (clamped to the bake).
    """
    group = bpy.data.node_groups.new(NODE_GROUP, "GeometryNodeTree")
    group.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    group.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    for name, socket_type in INPUTS:
        group.interface.new_socket(name, in_out="INPUT", socket_type=socket_type)
    nodes, link = group.nodes, group.links.new
    given, out = nodes.new("NodeGroupInput"), nodes.new("NodeGroupOutput")

    info = nodes.new("GeometryNodeObjectInfo")
    info.transform_space = "ORIGINAL"
    info.inputs["As Instance"].default_value = True
    link(given.outputs["Visual"], info.inputs["Object"])
    euler = nodes.new("FunctionNodeEulerToRotation")
    link(given.outputs["Offset Rotation"], euler.inputs["Euler"])
    offset = nodes.new("GeometryNodeTransform")
    link(info.outputs["Geometry"], offset.inputs["Geometry"])
    link(given.outputs["Offset Location"], offset.inputs["Translation"])
    link(euler.outputs["Rotation"], offset.inputs["Rotation"])
    link(given.outputs["Offset Scale"], offset.inputs["Scale"])

    rotation = _named_attribute(nodes, ROTATION, "QUATERNION")
    instance = nodes.new("GeometryNodeInstanceOnPoints")
    link(given.outputs["Geometry"], instance.inputs["Points"])
    link(offset.outputs["Geometry"], instance.inputs["Instance"])
    link(rotation.outputs["Attribute"], instance.inputs["Rotation"])
    link(_shown(nodes, link, given), instance.inputs["Selection"])
    link(instance.outputs["Instances"], out.inputs["Geometry"])
    return group


def _named_attribute(nodes, name: str, data_type: str):
    node = nodes.new("GeometryNodeInputNamedAttribute")
    node.data_type = data_type
    node.inputs["Name"].default_value = name
    return node


def _shown(nodes, link, given):
    """Baked IMPLY (FRAME == round(clamp(scene frame, Frame Start, Frame End)))."""
    clamp = nodes.new("ShaderNodeClamp")
    link(nodes.new("GeometryNodeInputSceneTime").outputs["Frame"], clamp.inputs["Value"])
    link(given.outputs["Frame Start"], clamp.inputs["Min"])
    link(given.outputs["Frame End"], clamp.inputs["Max"])
    rounded = nodes.new("ShaderNodeMath")
    rounded.operation = "ROUND"
    link(clamp.outputs["Result"], rounded.inputs[0])
    equal = nodes.new("FunctionNodeCompare")
    equal.data_type, equal.operation = "FLOAT", "EQUAL"
    equal.inputs["Epsilon"].default_value = 0.25
    link(_named_attribute(nodes, FRAME, "FLOAT").outputs["Attribute"], equal.inputs["A"])
    link(rounded.outputs["Value"], equal.inputs["B"])
    shown = nodes.new("FunctionNodeBooleanMath")
    shown.operation = "IMPLY"
    link(given.outputs["Baked"], shown.inputs[0])
    link(equal.outputs["Result"], shown.inputs[1])
    return shown.outputs["Boolean"]


def _remove_unused(data):
    """Remove ``data``; a collection or node group only while nothing else uses it."""
    try:
        data.name  # noqa: B018  (raises once the ID is gone)
    except ReferenceError:
        return
    if isinstance(data, bpy.types.Collection):
        if not data.objects:
            bpy.data.collections.remove(data)
    elif isinstance(data, bpy.types.NodeTree):
        if not data.users:
            bpy.data.node_groups.remove(data)
    elif isinstance(data, bpy.types.Object):
        bpy.data.objects.remove(data)
    else:
        bpy.data.hair_curves.remove(data)


def remove_replicas() -> int:
    """Delete every replica display (objects, their curves, the collection, the node group); returns
    the objects removed."""
    objects = [o for o in bpy.data.objects if o.get(MARK)]
    curves = [c for c in bpy.data.hair_curves if c.get(MARK)]
    for obj in objects:
        bpy.data.objects.remove(obj)
    for data in curves:
        bpy.data.hair_curves.remove(data)
    for collection in [c for c in bpy.data.collections if c.get(MARK)]:
        bpy.data.collections.remove(collection)
    for group in [g for g in bpy.data.node_groups if g.get(MARK)]:
        bpy.data.node_groups.remove(group)
    return len(objects)

