"""Quaternion paths of kinematic bodies, in numpy: (x, y, z, w) quaternions, as Warp orders them."""

from __future__ import annotations

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
