"""Kinematic bodies: follow given world poses and carry what hangs from them.

Every kinematic body is a kinematic Newton root on a free joint (see :mod:`sim.builder`), so
its pose is its joint coordinates. A new pose is given once per frame; within the frame each
substep moves the body along the straight line / shortest arc from the previous pose, with the
matching velocity, so dynamic bodies jointed to it are carried smoothly.
"""

from __future__ import annotations

import numpy as np
import warp as wp

import newton

from .rotations import angular_velocity, slerp


@wp.kernel
def _write_free_joints(
    poses: wp.array(dtype=wp.transform),
    velocities: wp.array(dtype=wp.spatial_vector),
    q_start: wp.array(dtype=int),
    qd_start: wp.array(dtype=int),
    joint_q: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
):
    i = wp.tid()
    p = wp.transform_get_translation(poses[i])
    r = wp.transform_get_rotation(poses[i])
    q0 = q_start[i]
    d0 = qd_start[i]
    for k in range(3):
        joint_q[q0 + k] = p[k]
    for k in range(4):
        joint_q[q0 + 3 + k] = r[k]
    for k in range(6):
        joint_qd[d0 + k] = velocities[i][k]


class KinematicDriver:
    """Moves the kinematic roots of a model; poses are (px, py, pz, qx, qy, qz, qw) per root."""

    def __init__(self, model: newton.Model, bodies: list[int], q_starts: list[int], qd_starts: list[int]):
        self.model = model
        self.count = len(bodies)
        if not self.count:
            return
        self.bodies = np.asarray(bodies)
        device = model.device
        self.q_start = wp.array(np.asarray(q_starts, dtype=np.int32), dtype=int, device=device)
        self.qd_start = wp.array(np.asarray(qd_starts, dtype=np.int32), dtype=int, device=device)
        self.com = model.body_com.numpy()[self.bodies].astype(np.float64)
        q = model.joint_q.numpy()
        self.start = np.stack([q[s:s + 7] for s in q_starts]).astype(np.float64)
        self.goal = self.start.copy()
        self.poses = wp.zeros(self.count, dtype=wp.transform, device=device)
        self.velocities = wp.zeros(self.count, dtype=wp.spatial_vector, device=device)

    def set_goal(self, poses: np.ndarray):
        """The poses the kinematic roots reach at the end of the coming frame."""
        self.start = self.goal.copy()
        self.goal = np.asarray(poses, dtype=np.float64).reshape(self.count, 7)

    def place(self, state: newton.State, t: float, duration: float):
        """Put the roots at fraction ``t`` of the way to the goal, moving at the frame's speed."""
        if not self.count:
            return
        pose, velocity = self.motion(t, duration)
        self.poses.assign(pose.astype(np.float32))
        self.velocities.assign(velocity.astype(np.float32))
        wp.launch(_write_free_joints, dim=self.count, device=self.model.device,
                  inputs=[self.poses, self.velocities, self.q_start, self.qd_start, state.joint_q, state.joint_qd])
        newton.eval_fk(self.model, state.joint_q, state.joint_qd, state,
                       body_flag_filter=newton.BodyFlags.KINEMATIC)

    def motion(self, t: float, duration: float) -> tuple[np.ndarray, np.ndarray]:
        """The roots' free-joint coordinates at fraction ``t`` of the way to the goal: poses (n, 7)
        (px, py, pz, qx, qy, qz, qw) and velocities (n, 6) (linear at the centre of mass, angular;
        world frame), moving at the speed that covers the way in ``duration``."""
        pose = np.empty((self.count, 7))
        velocity = np.empty((self.count, 6))
        for i in range(self.count):
            a, b = self.start[i], self.goal[i]
            rot = slerp(a[3:], b[3:], t)
            omega = angular_velocity(a[3:], b[3:], duration)
            linear = (b[:3] - a[:3]) / duration
            pose[i, :3] = a[:3] + t * (b[:3] - a[:3])
            pose[i, 3:] = rot
            # Free-joint velocities are referenced to the centre of mass.
            com_world = _rotate(rot, self.com[i])
            velocity[i, :3] = linear + cross(omega, com_world)
            velocity[i, 3:] = omega
        return pose, velocity

    def hold(self):
        """Stop: the next frames keep the goal pose (no velocity)."""
        if self.count:
            self.start = self.goal.copy()


def _rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    x, y, z, w = q
    u = np.array([x, y, z])
    t = 2.0 * cross(u, v)
    return v + w * t + cross(u, t)


def cross(a, b) -> np.ndarray:
    """``np.cross`` of two 3-vectors (the same sums), without its general-axis overhead (~20 us)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])
