"""Grab a simulated body with the mouse and pull it, or push it (bpy-free).

    grab = Grab(sim, stiffness=500.0, max_acceleration=5.0)
    result = grab.pick(ray_start, ray_dir)     # GRABBED, KINEMATIC, STATIC or MISSED
    grab.drag(ray_start, ray_dir)              # the target follows the ray at the grab depth
    sim.advance(1 / 24)                        # the spring pulls on every step
    grab.release()                             # no force left behind

The hit test is MuJoCo's ``mj_ray`` on the MuJoCo path (:mod:`sim.mujoco_spec`; neither Newton nor Warp
is loaded there), Newton's picking ray cast (``newton.viewer.Picking``, :mod:`sim.picking_newton`) on
Newton's, on the simulation's own colliders, replica 0 only.
The force is Newton's picking spring, evaluated before every physics step on whichever path steps the
simulation (:meth:`sim.simulation.Simulation.set_body_pull`): the grab
point is pulled toward the target with an acceleration ``stiffness * offset - damping * velocity``,
turned into a force by the operational-space inertia felt at the grab point,
``(J M^-1 J^T)^-1`` (Newton's picking on Newton's path; ``mj_jac`` and ``mj_solveM`` on MuJoCo's), so a
light wrist on a heavy robot is pulled as readily as its torso. That inertia changes as the robot moves
(an arm stretched out is heavy along itself, light once bent): it is computed again every
``INERTIA_REFRESH`` seconds of simulated time, since a stale one pushes a light direction with a heavy
one's force and the pull overshoots and blows up. Its directions are capped at the
articulation's mass (what the joints block), the force at ``max_acceleration`` g times the
articulation's mass, and the torque is the lever arm about the centre of mass crossed with it, capped
at the same rotational acceleration of the body alone. A push is an impulse through the same inertia:
the grabbed point gets the speed asked.

XPBD (maximal coordinates, joints projected after each step) has no armature, so the inertia leaves it
out there; it moves a body by the force on it alone before its joints pull it back, so a step's pull
is kept within ``picking_newton.XPBD_STEP_REACH`` of that motion, and a push is given as the joint
velocities the impulse makes (``H^-1 J^T``, Newton's Jacobian and mass matrix) instead of a one-step force.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .rotations import quat_wxyz_matrix
from .wrenches import BodyMotion

GRAVITY = 9.81
INERTIA_REFRESH = 1.0 / 120.0  # s of simulated time between two computations of the grab's inertia
GRABBED, KINEMATIC, STATIC, MISSED = "GRABBED", "KINEMATIC", "STATIC", "MISSED"


@dataclass
class PickResult:
    kind: str  # GRABBED, KINEMATIC, STATIC (a static shape or a body fixed to the world) or MISSED
    row: int = -1  # the body's row in sim.body_keys
    point: Optional[np.ndarray] = None  # the hit point, world (m)
    body: Optional[str] = None  # the body's name


class Grab:
    """A spring from a point of a body to a target that follows the mouse ray (see the module)."""

    def __init__(self, sim, stiffness: float = 500.0, damping: Optional[float] = None,
                 max_acceleration: float = 5.0):
        self.sim = sim
        self.stiffness = float(stiffness)
        self.damping = 2.0 * math.sqrt(self.stiffness) if damping is None else float(damping)
        if not math.isfinite(max_acceleration) or max_acceleration < 0:
            raise ValueError("the grab's maximum acceleration must be finite and not negative")
        self.max_acceleration = float(max_acceleration)
        self._bodies = _bodies_of(sim)
        self._mass, self._articulation_mass = self._bodies.mass, self._bodies.articulation_mass
        self._inv_inertia = self._bodies.inv_inertia
        self.row = -1
        self._body = -1
        self.local_point: Optional[np.ndarray] = None  # the grab point in the body frame
        self.point: Optional[np.ndarray] = None  # the grab point, world, as of the last step
        self.target: Optional[np.ndarray] = None
        self._depth = 0.0
        self.largest_force = 0.0  # the largest force applied since the grab (N)
        self.last_force = np.zeros(3)
        self._os_inertia = np.zeros((3, 3))  # at the grab point, body frame: it turns with the body
        self._inertia_time = 0.0  # the simulated time it was computed at
        self._step_cap = math.inf  # the solver's own bound on a step's force (XPBD)

    # the mouse ------------------------------------------------------------------------------

    def hit(self, ray_start, ray_dir) -> PickResult:
        """What the ray hits first, replica 0 only."""
        start, direction = _ray(ray_start, ray_dir)
        distance, row = self._bodies.cast(start, direction)
        if not math.isfinite(distance):
            return PickResult(MISSED)
        point = start + direction * distance
        if row < 0:
            return PickResult(STATIC, point=point)
        name = self.sim.body_keys[row][0]
        body = self._bodies.of_row(row)
        if self._bodies.welded[body]:
            return PickResult(STATIC, row, point, name)
        kinematic = bool(self._bodies.kinematic[body])
        weightless = self._mass[body] <= 0 and self._articulation_mass[body] <= 0  # nothing to pull
        return PickResult(KINEMATIC if kinematic or weightless else GRABBED, row, point, name)

    def pick(self, ray_start, ray_dir) -> PickResult:
        """Grab the point the ray hits, if it is on a body that moves (else nothing is held)."""
        self.release()
        result = self.hit(ray_start, ray_dir)
        if result.kind == GRABBED:
            self.grab_point(result.row, result.point, ray_start)
        return result

    def grab_point(self, row: int, point, ray_start=None):
        """Hold body ``row`` at the world ``point`` (the target starts there)."""
        self.release()
        self.row, self._body = row, self._bodies.of_row(row)
        pose = self.sim.body_poses()[row]
        rotation = quat_wxyz_matrix(pose[3:])
        point = np.asarray(point, dtype=np.float64)
        self.local_point = rotation.T @ (point - pose[:3])
        self.point, self.target = point.copy(), point.copy()
        self._os_inertia = rotation.T @ self._bodies.os_inertia(self._body, point) @ rotation
        self._inertia_time = self.sim.time
        self._depth = float(np.linalg.norm(point - np.asarray(ray_start, dtype=np.float64))) \
            if ray_start is not None else 0.0
        self.largest_force = 0.0
        self._step_cap = self._bodies.step_force_cap(self._body, _solver_step(self.sim))
        self.sim.set_body_pull(row, self._wrench)

    def drag(self, ray_start, ray_dir):
        """Move the target onto the ray, at the depth it was grabbed at."""
        if self.row < 0:
            return
        start, direction = _ray(ray_start, ray_dir)
        self.target = start + direction * self._depth

    def release(self):
        if self.row >= 0:
            self.sim.clear_body_wrench(self.row)
        self.row, self._body = -1, -1
        self.point = self.target = self.local_point = None
        self.last_force = np.zeros(3)

    @property
    def holding(self) -> bool:
        return self.row >= 0

    @property
    def max_force(self) -> float:
        """The cap on the force (N): the maximum acceleration times the articulation's mass."""
        if not self.holding:
            return 0.0
        return self.max_acceleration * GRAVITY * float(self._articulation_mass[self._body])

    # the spring -------------------------------------------------------------------------------

    def _wrench(self, motion: BodyMotion):
        body = self._body
        point = motion.position + motion.rotation @ self.local_point
        self.point = point
        acceleration = self.stiffness * (self.target - point) - self.damping * motion.point_velocity(point)
        if self.sim.time - self._inertia_time >= INERTIA_REFRESH - 1e-12:
            self._inertia_time = self.sim.time
            self._os_inertia = motion.rotation.T @ self._bodies.os_inertia(body, point) @ motion.rotation
        force = motion.rotation @ (self._os_inertia @ (motion.rotation.T @ acceleration))
        cap = min(self.max_acceleration * GRAVITY * self._articulation_mass[body], self._step_cap)
        size = float(np.linalg.norm(force))
        if size > cap:
            force *= cap / size
        torque = np.cross(point - motion.com, force)
        torque = self._cap_torque(torque, motion.rotation, body)
        self.last_force = force
        self.largest_force = max(self.largest_force, float(np.linalg.norm(force)))
        return force, torque

    def _cap_torque(self, torque, rotation, body):
        mass = self._mass[body]
        if mass <= 0:
            return torque
        limit = self.max_acceleration * GRAVITY
        local = rotation.T @ torque
        squared = float(local @ (self._inv_inertia[body] @ local)) / mass
        if not math.isfinite(squared):
            return np.zeros(3)
        if squared > limit * limit:
            return torque * (limit / math.sqrt(squared))
        return torque


def push(sim, row: int, point, direction, speed: float = 1.0):
    """An impulse at ``point`` (world) that gives that point ``speed`` m/s along ``direction``
    (the operational-space inertia there times the speed), given over the next step."""
    bodies = _bodies_of(sim)
    body = bodies.of_row(row)
    direction = np.asarray(direction, dtype=np.float64)
    direction = direction / (np.linalg.norm(direction) or 1.0)
    point = np.asarray(point, dtype=np.float64)
    if bodies.push_by_velocity():
        bodies.give_point_velocity(body, point, direction * speed)
        return bodies.os_inertia(body, point) @ (direction * speed)
    force = bodies.os_inertia(body, point) @ (direction * speed) / _solver_step(sim)
    steps = [0]

    def once(motion: BodyMotion):
        if steps[0]:
            return None
        steps[0] = 1
        return force, np.cross(point - motion.com, force)

    sim.set_body_pull(row, once)
    return force * _solver_step(sim)


class _MuJoCoBodies:
    """MuJoCo's bodies of a :class:`sim.mujoco_spec.MuJoCoSimulation` as picking reads them (by MuJoCo
    body id): a mocap body is kinematic, a body welded to the world (``body_weldid`` 0) static, the
    articulation's mass its tree's (``body_subtreemass`` of its root)."""

    def __init__(self, sim):
        m = sim.mj_model
        self.mass = np.array(m.body_mass, dtype=np.float64)
        self.articulation_mass = np.array(m.body_subtreemass[m.body_rootid], dtype=np.float64)
        self.inv_inertia = np.zeros((m.nbody, 3, 3))
        for b in range(m.nbody):
            if (m.body_inertia[b] > 0).all():
                turn = quat_wxyz_matrix(m.body_iquat[b])
                # about the centre of mass, in the body frame
                self.inv_inertia[b] = turn @ np.diag(1.0 / m.body_inertia[b]) @ turn.T
        self.kinematic = np.array(m.body_mocapid) >= 0
        self.welded = (np.array(m.body_weldid) == 0) & ~self.kinematic
        self._ids, self._sim = sim.layout.body_ids, sim

    def of_row(self, row: int) -> int:
        return int(self._ids[row % len(self._ids)])

    def step_force_cap(self, body: int, dt: float) -> float:
        return math.inf  # MuJoCo's joints hold whatever a step's force

    def push_by_velocity(self) -> bool:
        return False

    def cast(self, start, direction) -> tuple[float, int]:
        return self._sim.ray_hit(start, direction)

    def os_inertia(self, body: int, point) -> np.ndarray:
        """The inertia felt at world ``point`` of ``body`` (3x3, world frame): ``(J M^-1 J^T)^-1``
        from ``mj_jac`` and ``mj_solveM`` at the current pose, its directions capped at the
        articulation's mass as Newton's picking caps them; the body's own mass where nothing moves."""
        import mujoco

        m, d = self._sim.mj_model, mujoco.MjData(self._sim.mj_model)
        d.qpos[:] = self._sim.mj_data.qpos
        mujoco.mj_fwdPosition(m, d)  # kinematics and the factored mass matrix, on a copy
        upper, mass = float(self.articulation_mass[body]), float(self.mass[body])
        jacobian = np.zeros((3, m.nv))
        mujoco.mj_jac(m, d, jacobian, None, np.asarray(point, dtype=np.float64), body)
        if upper <= 0 or not jacobian.any():
            return np.eye(3) * (mass if mass > 0 else upper)
        solved = np.zeros((3, m.nv))
        mujoco.mj_solveM(m, d, solved, jacobian)
        values, vectors = np.linalg.eigh(jacobian @ solved.T)
        return vectors @ np.diag(1.0 / np.maximum(values, 1.0 / upper)) @ vectors.T


def _bodies_of(sim):
    """The bodies of ``sim`` as picking reads them: MuJoCo's (nothing of Newton's or Warp's loaded) or
    Newton's."""
    if hasattr(sim, "mj_model"):
        return _MuJoCoBodies(sim)
    from .picking_newton import NewtonBodies

    return NewtonBodies(sim)


def _solver_step(sim) -> float:
    """The step a wrench is applied over: the solver's own (a Newton step may be split in several)."""
    return float(getattr(sim, "solver_dt", sim.dt))


def _ray(start, direction) -> tuple[np.ndarray, np.ndarray]:
    start = np.asarray(start, dtype=np.float64)
    direction = np.asarray(direction, dtype=np.float64)
    return start, direction / (np.linalg.norm(direction) or 1.0)
