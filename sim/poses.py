"""Simulated world poses -> parent-relative location/rotation of parented objects, batched.

A body object is parented (its parent body, or a plain object, or nothing), so its location and
rotation are in its parent frame ``F``: for a body parent, ``F = parent pose * offset`` where the
offset (the parent's own scale and the child's parent-inverse matrix) stays fixed while simulating;
otherwise ``F`` is a fixed world frame. ``F`` must be a similarity (rotation, translation, one scale).

One Warp kernel on the CPU does the math (numpy's per-call overhead made it the larger part of a
1000-body write-back). Quaternions are (w, x, y, z) rows, as in :mod:`core.transforms`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import warp as wp


@dataclass
class Frames:
    """Per object: the parent body row (-1: none) and the similarity ``offset`` (t, q, s).

    With a parent body ``F = pose(parent) * offset``; without one ``F = offset`` (world)."""

    parent: np.ndarray  # (n,) int
    translation: np.ndarray  # (n, 3)
    rotation: np.ndarray  # (n, 4) w, x, y, z
    scale: np.ndarray  # (n,)


@wp.func
def _quat(row: wp.array2d(dtype=wp.float64), i: int, first: int):
    """Row ``i``'s (w, x, y, z) columns starting at ``first`` as a Warp (x, y, z, w) quaternion."""
    return wp.quatf(wp.float32(row[i, first + 1]), wp.float32(row[i, first + 2]),
                    wp.float32(row[i, first + 3]), wp.float32(row[i, first]))


@wp.kernel
def _world_to_local(
    poses: wp.array2d(dtype=wp.float64),  # (m, 7): px, py, pz, qw, qx, qy, qz
    rows: wp.array(dtype=wp.int64),
    parent: wp.array(dtype=wp.int64),
    offsets: wp.array2d(dtype=wp.float64),  # (n, 8): tx, ty, tz, qw, qx, qy, qz, s
    location: wp.array2d(dtype=wp.float32),  # (k, 3)
    rotation: wp.array2d(dtype=wp.float32),  # (k, 4): w, x, y, z
):
    k = wp.tid()
    i = int(rows[k])
    t = wp.vec3f(wp.float32(offsets[i, 0]), wp.float32(offsets[i, 1]), wp.float32(offsets[i, 2]))
    q = _quat(offsets, i, 3)
    p = int(parent[i])
    if p >= 0:
        qp = _quat(poses, p, 3)
        t = wp.vec3f(wp.float32(poses[p, 0]), wp.float32(poses[p, 1]), wp.float32(poses[p, 2])) + wp.quat_rotate(qp, t)
        q = qp * q
    target = wp.vec3f(wp.float32(poses[i, 0]), wp.float32(poses[i, 1]), wp.float32(poses[i, 2]))
    inverse = wp.quat_inverse(q)
    local = wp.quat_rotate(inverse, target - t) / wp.float32(offsets[i, 7])
    r = inverse * _quat(poses, i, 3)
    sign = wp.float32(1.0)
    if r[3] < wp.float32(0.0):  # one sign per rotation (as core does)
        sign = wp.float32(-1.0)
    for c in range(3):
        location[k, c] = local[c]
    rotation[k, 0] = sign * r[3]
    rotation[k, 1] = sign * r[0]
    rotation[k, 2] = sign * r[1]
    rotation[k, 3] = sign * r[2]


class LocalPoses:
    """World poses -> local location/rotation of ``rows`` (fixed at construction), on the CPU."""

    def __init__(self, frames: Frames, rows: np.ndarray):
        self.frames = frames
        self.rows = wp.array(np.asarray(rows, dtype=np.int64), dtype=wp.int64, device="cpu")
        self.parent = wp.array(np.asarray(frames.parent, dtype=np.int64), dtype=wp.int64, device="cpu")
        offsets = np.concatenate([frames.translation, frames.rotation, frames.scale[:, None]], axis=1)
        self.offsets = wp.array(offsets.astype(np.float64), dtype=wp.float64, device="cpu")
        self.location = np.empty((len(rows), 3), dtype=np.float32)
        self.rotation = np.empty((len(rows), 4), dtype=np.float32)
        self._location = wp.array(self.location, dtype=wp.float32, device="cpu", copy=False)
        self._rotation = wp.array(self.rotation, dtype=wp.float32, device="cpu", copy=False)

    def __call__(self, poses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(location, rotation) arrays, reused between calls: copy them to keep them."""
        if not len(self.location):
            return self.location, self.rotation
        world = wp.array(np.ascontiguousarray(poses, dtype=np.float64), dtype=wp.float64, device="cpu", copy=False)
        wp.launch(_world_to_local, dim=len(self.location), device="cpu",
                  inputs=[world, self.rows, self.parent, self.offsets, self._location, self._rotation])
        return self.location, self.rotation


def world_to_local(frames: Frames, poses: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One-off :class:`LocalPoses` (copies of its results)."""
    location, rotation = LocalPoses(frames, rows)(poses)
    return location.copy(), rotation.copy()
