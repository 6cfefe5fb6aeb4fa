"""Quaternion paths of kinematic bodies and rotation matrices, in numpy (paths in (x, y, z, w) order, as Warp
orders them)."""

from __future__ import annotations

import math

import numpy as np


def slerp(a: np.ndarray, b: np.ndarray, t: float) -> np.ndarray:
    """Shortest-arc interpolation of (x, y, z, w) quaternions."""
    if np.dot(a, b) < 0.0:
        b = -b
    dot = min(1.0, float(np.dot(a, b)))
    if dot > 0.9995:
        q = a + t * (b - a)
        return q / np.linalg.norm(q)
    theta = np.arccos(dot)
    return (np.sin((1 - t) * theta) * a + np.sin(t * theta) * b) / np.sin(theta)


def angular_velocity(a: np.ndarray, b: np.ndarray, dt: float) -> np.ndarray:
    """World angular velocity turning (x, y, z, w) quaternion ``a`` into ``b`` in ``dt``."""
    if np.dot(a, b) < 0.0:
        b = -b
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    # delta = b * conj(a), world frame
    w = bw * aw + bx * ax + by * ay + bz * az
    x = -bw * ax + bx * aw - by * az + bz * ay
    y = -bw * ay + by * aw - bz * ax + bx * az
    z = -bw * az + bz * aw - bx * ay + by * ax
    v = np.array([x, y, z])
    s = np.linalg.norm(v)
    if s < 1e-12:
        return np.zeros(3)
    angle = 2.0 * np.arctan2(s, w)
    return v / s * angle / dt


def quat_xyzw_matrix(q) -> np.ndarray:
    """The rotation matrix of an (x, y, z, w) quaternion (Warp's and Newton's order)."""
    x, y, z, w = (float(v) for v in q)
    return quat_wxyz_matrix((w, x, y, z))


def quat_wxyz_matrix(q) -> np.ndarray:
    """The rotation matrix of a (w, x, y, z) quaternion, normalised first."""
    w, x, y, z = (float(v) for v in q)
    n = math.sqrt(w * w + x * x + y * y + z * z) or 1.0
    w, x, y, z = w / n, x / n, y / n, z / n
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
