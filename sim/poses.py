"""Simulated world poses -> parent-relative location/rotation of parented objects, batched (numpy).

A body object is parented (its parent body, or a plain object, or nothing), so its location and
rotation are in its parent frame ``F``: for a body parent, ``F = parent pose * offset`` where the
offset (the parent's own scale and the child's parent-inverse matrix) stays fixed while simulating;
otherwise ``F`` is a fixed world frame. ``F`` must be a similarity (rotation, translation, one scale).

Quaternions are (w, x, y, z) rows: the vectorized twins of :mod:`core.transforms`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    aw, ax, ay, az = np.moveaxis(a, -1, 0)
    bw, bx, by, bz = np.moveaxis(b, -1, 0)
    return np.stack([
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    ], axis=-1)


def quat_conjugate(q: np.ndarray) -> np.ndarray:
    return q * np.array([1.0, -1.0, -1.0, -1.0])


def quat_rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    w = q[..., :1]
    u = q[..., 1:]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


@dataclass
class Frames:
    """Per object: the parent body row (-1: none) and the similarity ``offset`` (t, q, s).

    With a parent body ``F = pose(parent) * offset``; without one ``F = offset`` (world)."""

    parent: np.ndarray  # (n,) int
    translation: np.ndarray  # (n, 3)
    rotation: np.ndarray  # (n, 4) w, x, y, z
    scale: np.ndarray  # (n,)


def parent_frames(frames: Frames, poses: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """World (t, q, s) of each object's parent frame, given body world poses (m, 7: p, q)."""
    t, q, s = frames.translation.copy(), frames.rotation.copy(), frames.scale.copy()
    has = frames.parent >= 0
    if has.any():
        parent = poses[frames.parent[has]]
        t[has] = parent[:, :3] + quat_rotate(parent[:, 3:], frames.translation[has])
        q[has] = quat_mul(parent[:, 3:], frames.rotation[has])
    return t, q, s


def world_to_local(frames: Frames, poses: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Location (k, 3) and rotation quaternion (k, 4) in the parent frames of ``rows``.

    ``poses`` holds every body's world pose (m, 7: px, py, pz, qw, qx, qy, qz); ``rows`` selects
    the objects to place (frames has one entry per pose row)."""
    t, q, s = parent_frames(frames, poses)
    t, q, s = t[rows], q[rows], s[rows]
    target = poses[rows]
    inverse = quat_conjugate(q)
    location = quat_rotate(inverse, target[:, :3] - t) / s[:, None]
    rotation = quat_mul(inverse, target[:, 3:])
    rotation *= np.where(rotation[:, :1] < 0.0, -1.0, 1.0)  # one sign per rotation (as core does)
    return location, rotation
