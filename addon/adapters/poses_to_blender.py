"""Simulated world poses -> Blender body objects: a batched ``foreach_set`` write-back, and restore.

The pose math (world poses -> each object's location/rotation in its parent frame) is bpy-free
(:mod:`sim.poses`); this module reads the fixed parent frames from Blender and writes the results.
"""

from __future__ import annotations

import bpy
import numpy as np
from mathutils import Matrix, Quaternion, Vector

from .errors import SimulationSetupError


def _similarity(matrix: Matrix, subject: str) -> tuple[np.ndarray, np.ndarray, float]:
    """(translation, rotation w-x-y-z, scale) of a matrix that must be a uniform-scale transform."""
    location, rotation, scale = matrix.decompose()
    if max(scale) - min(scale) > 1e-4 * max(abs(max(scale)), 1e-9):
        raise SimulationSetupError(f"{subject}: non-uniform scale {tuple(round(s, 4) for s in scale)} "
                                   "on a body's parent frame; apply the scale to its colliders")
    return np.array(location), np.array(rotation), float(scale[0])


class BodyWriter:
    """Writes simulated world poses onto body objects (batched ``foreach_set``), and restores them."""

    def __init__(self, objects: list, poses: np.ndarray, rows: list[int], row_of: dict):
        from ...sim.poses import Frames, LocalPoses

        self.objects = [objects[r] for r in rows]
        self.rows = np.asarray(rows, dtype=np.int64)
        self.saved = [(o.rotation_mode, o.matrix_basis.copy()) for o in self.objects]
        for obj, (mode, _) in zip(self.objects, self.saved):
            if mode != "QUATERNION":
                obj.rotation_mode = "QUATERNION"  # converts the current rotation
        n = len(objects)
        parent = np.full(n, -1)
        t, q, s = np.zeros((n, 3)), np.tile([1.0, 0.0, 0.0, 0.0], (n, 1)), np.ones(n)
        for i, obj in enumerate(objects):
            if obj.parent is None:
                continue
            frame = obj.parent.matrix_world @ obj.matrix_parent_inverse
            if obj.parent.name in row_of:  # offset from the parent body's pose: fixed while simulating
                parent[i] = row_of[obj.parent.name]
                pose = poses[parent[i]]
                parent_pose = Matrix.LocRotScale(Vector(pose[:3]), Quaternion(pose[3:]), None)
                frame = parent_pose.inverted() @ frame
            t[i], q[i], s[i] = _similarity(frame, obj.name)
        self.frames = Frames(parent, t, q, s)
        self.local = LocalPoses(self.frames, self.rows)
        self._index()

    def _index(self):
        data = bpy.data.objects
        self.count = len(data)
        index = {obj.name: i for i, obj in enumerate(data)}
        self.slots = np.array([index[o.name] for o in self.objects], dtype=np.int64)
        self.location = np.empty(self.count * 3, dtype=np.float32)
        self.rotation = np.empty(self.count * 4, dtype=np.float32)
        self.refresh()

    def refresh(self):
        """Re-read every object's location/rotation (after the frame changed other objects)."""
        if len(bpy.data.objects) != self.count:
            self._index()
            return
        bpy.data.objects.foreach_get("location", self.location)
        bpy.data.objects.foreach_get("rotation_quaternion", self.rotation)

    def write(self, poses: np.ndarray):
        if not len(self.rows):
            return
        location, rotation = self.local(poses)
        self.location.reshape(-1, 3)[self.slots] = location
        self.rotation.reshape(-1, 4)[self.slots] = rotation
        bpy.data.objects.foreach_set("location", self.location)
        bpy.data.objects.foreach_set("rotation_quaternion", self.rotation)
        for obj in self.objects:
            obj.update_tag(refresh={"OBJECT"})

    def restore(self):
        for obj, (mode, basis) in zip(self.objects, self.saved):
            obj.rotation_mode = mode
            obj.matrix_basis = basis
