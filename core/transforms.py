"""Rigid-transform math on plain tuples: the one place every layer composes poses."""

from __future__ import annotations

import math

from .model import IDENTITY_QUAT, Pose, Quat, Vec3


def quat_normalize(q: Quat) -> Quat:
    w, x, y, z = q
    n = math.sqrt(w * w + x * x + y * y + z * z)  # unrolled: called for every pose made (hot)
    if n == 0.0:
        return IDENTITY_QUAT
    w, x, y, z = w / n, x / n, y / n, z / n
    # One sign per rotation keeps comparisons and round trips exact.
    if w < 0.0 or (w == 0.0 and (x, y, z) < (0.0, 0.0, 0.0)):
        w, x, y, z = -w, -x, -y, -z
    return (w, x, y, z)


def quat_mul(a: Quat, b: Quat) -> Quat:
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    )


def quat_conjugate(q: Quat) -> Quat:
    return (q[0], -q[1], -q[2], -q[3])


def quat_rotate(q: Quat, v: Vec3) -> Vec3:
    w, x, y, z = q
    vx, vy, vz = v
    # t = 2 * cross(q.xyz, v); v' = v + w * t + cross(q.xyz, t)
    tx = 2.0 * (y * vz - z * vy)
    ty = 2.0 * (z * vx - x * vz)
    tz = 2.0 * (x * vy - y * vx)
    return (
        vx + w * tx + (y * tz - z * ty),
        vy + w * ty + (z * tx - x * tz),
        vz + w * tz + (x * ty - y * tx),
    )


def quat_from_axis_angle(axis: Vec3, angle: float) -> Quat:
    n = math.sqrt(sum(c * c for c in axis)) or 1.0
    s = math.sin(angle / 2.0) / n
    return (math.cos(angle / 2.0), axis[0] * s, axis[1] * s, axis[2] * s)


def quat_to_matrix(q: Quat) -> list[list[float]]:
    w, x, y, z = q
    return [
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ]


def quat_from_matrix(m) -> Quat:
    """Quaternion of a 3x3 rotation matrix (rows), robust for every trace sign."""
    tr = m[0][0] + m[1][1] + m[2][2]
    if tr > 0.0:
        s = math.sqrt(tr + 1.0) * 2.0
        q = (0.25 * s, (m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s)
    elif m[0][0] > m[1][1] and m[0][0] > m[2][2]:
        s = math.sqrt(1.0 + m[0][0] - m[1][1] - m[2][2]) * 2.0
        q = ((m[2][1] - m[1][2]) / s, 0.25 * s, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s)
    elif m[1][1] > m[2][2]:
        s = math.sqrt(1.0 + m[1][1] - m[0][0] - m[2][2]) * 2.0
        q = ((m[0][2] - m[2][0]) / s, (m[0][1] + m[1][0]) / s, 0.25 * s, (m[1][2] + m[2][1]) / s)
    else:
        s = math.sqrt(1.0 + m[2][2] - m[0][0] - m[1][1]) * 2.0
        q = ((m[1][0] - m[0][1]) / s, (m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, 0.25 * s)
    return quat_normalize(q)


def pose_mul(a: Pose, b: Pose) -> Pose:
    """``a * b``: ``b`` expressed in ``a``'s frame, brought out to ``a``'s parent frame."""
    p = quat_rotate(a.rot, b.pos)
    return Pose(
        pos=(a.pos[0] + p[0], a.pos[1] + p[1], a.pos[2] + p[2]),
        rot=quat_normalize(quat_mul(a.rot, b.rot)),
    )


def pose_inverse(a: Pose) -> Pose:
    inv = quat_conjugate(a.rot)
    p = quat_rotate(inv, a.pos)
    return Pose(pos=(-p[0], -p[1], -p[2]), rot=quat_normalize(inv))


def pose_relative(parent_world: Pose, child_world: Pose) -> Pose:
    """The child's pose in the parent's frame: ``parent^-1 * child``."""
    return pose_mul(pose_inverse(parent_world), child_world)


def transform_point(a: Pose, p: Vec3) -> Vec3:
    r = quat_rotate(a.rot, p)
    return (a.pos[0] + r[0], a.pos[1] + r[1], a.pos[2] + r[2])


def poses_close(a: Pose, b: Pose, pos_tol: float = 1e-6, rot_tol: float = 1e-6) -> bool:
    (ax, ay, az), (bx, by, bz) = a.pos, b.pos
    if abs(ax - bx) > pos_tol or abs(ay - by) > pos_tol or abs(az - bz) > pos_tol:
        return False
    (aw, ai, aj, ak), (bw, bi, bj, bk) = quat_normalize(a.rot), quat_normalize(b.rot)
    return 1.0 - abs(aw * bw + ai * bi + aj * bj + ak * bk) <= rot_tol


AXIS_VECTORS: dict[str, Vec3] = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}
