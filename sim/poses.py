"""Simulated world poses -> parent-relative location/rotation of parented objects, batched.

A body object is parented (its parent body, or a plain object, or nothing), so its location and
rotation are in its parent frame ``F``: for a body parent, ``F = parent pose * offset`` where the
offset (the parent's own scale and the child's parent-inverse matrix) stays fixed while simulating;
otherwise ``F`` is a fixed world frame. ``F`` must be a similarity (rotation, translation, one scale).

Plain numpy, one column per component (no Warp: MuJoCo on the CPU writes poses back without loading
Warp or building a kernel). Quaternions are (w, x, y, z), as in :mod:`core.transforms`.
"""

from __future__ import annotations

import numpy as np


class Frames:
    """Per object: the parent body row (-1: none) and the similarity ``offset`` (t, q, s).

    With a parent body ``F = pose(parent) * offset``; without one ``F = offset`` (world). A plain class:
    a dataclass's generated methods cost about a millisecond at a first Bake's import."""

    __slots__ = ("parent", "translation", "rotation", "scale")

    def __init__(self, parent: np.ndarray, translation: np.ndarray, rotation: np.ndarray, scale: np.ndarray):
        self.parent = parent  # (n,) int
        self.translation = translation  # (n, 3)
        self.rotation = rotation  # (n, 4) w, x, y, z
        self.scale = scale  # (n,)


def _multiply(a, b):
    """Quaternion products ``a * b`` of (w, x, y, z) column tuples."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw)


def _rotate(q, v):
    """Vectors ``v`` (x, y, z columns) turned by unit quaternions ``q``."""
    w, x, y, z = q
    vx, vy, vz = v
    tx, ty, tz = 2.0 * (y * vz - z * vy), 2.0 * (z * vx - x * vz), 2.0 * (x * vy - y * vx)
    return (vx + w * tx + (y * tz - z * ty),
            vy + w * ty + (z * tx - x * tz),
            vz + w * tz + (x * ty - y * tx))


class LocalPoses:
    """World poses -> local location/rotation of ``rows`` (fixed at construction)."""

    def __init__(self, frames: Frames, rows: np.ndarray):
        self.frames = frames
        self.rows = np.asarray(rows, dtype=np.int64)
        self._parent = np.asarray(frames.parent, dtype=np.int64)[self.rows]  # -1: the identity column
        w, x, y, z = np.asarray(frames.rotation, dtype=np.float64)[self.rows].T
        self._offset_inverse = (w, -x, -y, -z)
        translation = np.asarray(frames.translation, dtype=np.float64)[self.rows].T
        self._offset_back = _rotate(self._offset_inverse, tuple(translation))
        self._inverse_scale = 1.0 / np.asarray(frames.scale, dtype=np.float64)[self.rows]
        self._columns = np.zeros((7, 0))  # the poses' columns, then the identity pose
        self.location = np.empty((len(self.rows), 3), dtype=np.float32)
        self.rotation = np.empty((len(self.rows), 4), dtype=np.float32)

    def __call__(self, poses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(location, rotation) arrays, reused between calls: copy them to keep them.

        ``F^-1 * pose = offset^-1 * parent^-1 * pose``: one frame ``offset^-1 * parent^-1`` per row."""
        if not len(self.rows):
            return self.location, self.rotation
        if self._columns.shape[1] != len(poses) + 1:
            self._columns = np.zeros((7, len(poses) + 1))
            self._columns[3, -1] = 1.0
        columns = self._columns
        columns[:, :-1] = np.asarray(poses).T
        own, up = columns[:, self.rows], columns[:, self._parent]
        frame = _multiply(self._offset_inverse, (up[3], -up[4], -up[5], -up[6]))
        local = _rotate(frame, (own[0] - up[0], own[1] - up[1], own[2] - up[2]))
        for c in range(3):
            self.location[:, c] = (local[c] - self._offset_back[c]) * self._inverse_scale
        rotation = _multiply(frame, (own[3], own[4], own[5], own[6]))
        sign = np.where(rotation[0] < 0.0, -1.0, 1.0)  # one sign per rotation (as core does)
        for c in range(4):
            self.rotation[:, c] = rotation[c] * sign
        return self.location, self.rotation


def world_to_local(frames: Frames, poses: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One-off :class:`LocalPoses` (copies of its results)."""
    location, rotation = LocalPoses(frames, rows)(poses)
    return location.copy(), rotation.copy()
