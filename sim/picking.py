"""Grab a simulated body with the mouse and pull it, or push it (bpy-free).

    grab = Grab(sim, stiffness=500.0, max_acceleration=5.0)
    result = grab.pick(ray_start, ray_dir)     # GRABBED, KINEMATIC, STATIC or MISSED
    grab.drag(ray_start, ray_dir)              # the target follows the ray at the grab depth
    sim.advance(1 / 24)                        # the spring pulls on every step
    grab.release()                             # no force left behind

The hit test is MuJoCo's ``mj_ray`` on the MuJoCo path (:mod:`sim.mujoco_spec`), Newton's picking
ray cast (``newton.viewer.Picking``) on Newton's, on the simulation's own colliders, replica 0 only.
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
is kept within ``XPBD_STEP_REACH`` of that motion, and a push is given as the joint velocities the
impulse makes (``H^-1 J^T``, Newton's Jacobian and mass matrix) instead of a one-step force.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np
import warp as wp

import newton

from .wrenches import BodyMotion

GRAVITY = 9.81
INERTIA_REFRESH = 1.0 / 120.0  # s of simulated time between two computations of the grab's inertia
#: XPBD moves a body by the force on it alone before its joints pull it back: a step's push on the
#: grabbed body is kept within this reach (m), which its joint projection can take back.
XPBD_STEP_REACH = 0.01
GRABBED, KINEMATIC, STATIC, MISSED = "GRABBED", "KINEMATIC", "STATIC", "MISSED"


class _RayCast(newton.viewer.Picking):
    """Newton's picking, used for its ray cast and its operational-space inertia (the spring is
    :class:`Grab`'s): the ray cast skips the inertia, :meth:`os_inertia` asks for it."""

    def _update_os_inertia(self, state, body, point_world):
        pass

    def os_inertia(self, state, body: int, point, armature: bool = True) -> np.ndarray:
        """The operational-space inertia at world ``point`` of Newton body ``body``, world frame,
        its directions capped at the articulation's mass (Newton's picking); without the joints'
        armature where the solver does not simulate it (XPBD): there it would make light links heavy."""
        model = self.model
        kept = model.joint_armature
        if not armature:
            model.joint_armature = wp.zeros_like(kept)
        try:
            newton.viewer.Picking._update_os_inertia(self, state, body, wp.vec3(*point))
        finally:
            model.joint_armature = kept
        rotation = _quat_xyzw_matrix(state.body_q.numpy()[body, 3:7])
        inertia = self._pick_os_inertia.numpy()[0].astype(np.float64)  # in the body frame
        return rotation @ inertia @ rotation.T

    def joint_velocity_change(self, state, body: int, point, impulse) -> Optional[tuple[int, np.ndarray]]:
        """(first DOF, joint velocity change) an ``impulse`` (N*s, world) at world ``point`` of Newton
        body ``body`` gives its articulation, ``H^-1 J^T impulse`` without armature (Newton's Jacobian
        and mass matrix, as its picking uses them); None outside an articulation."""
        model = self.model
        art = int(self._body_art[body])
        if art < 0:
            return None
        first, end = int(self._art_start[art]), int(self._art_end[art])
        dof_start, dof_end = (int(i) for i in model.joint_qd_start.numpy()[[first, end]])
        jacobian = newton.eval_jacobian(model, state)
        mass = newton.eval_mass_matrix(model, state, J=jacobian, include_armature=False)
        ndof = dof_end - dof_start
        jac = jacobian.numpy()[art, : 6 * (end - first), :ndof].astype(np.float64).reshape(-1, 6, ndof)
        h = mass.numpy()[art, :ndof, :ndof].astype(np.float64)
        rotation = _quat_xyzw_matrix(state.body_q.numpy()[body, 3:7])
        com = state.body_q.numpy()[body, :3] + rotation @ model.body_com.numpy()[body]
        row = int(self._body_joint[body]) - first
        jac_point = jac[row, :3] + np.cross(jac[row, 3:].T, np.asarray(point, dtype=np.float64) - com).T
        try:
            return dof_start, np.linalg.solve(h, jac_point.T @ np.asarray(impulse, dtype=np.float64))
        except np.linalg.LinAlgError:
            return None

    def cast(self, state, start, direction) -> tuple[float, int]:
        """(distance, Newton body) of the first shape the ray hits; body -1 for a static shape,
        distance inf for nothing."""
        self.pick(state, wp.vec3(*start), wp.vec3(*direction))
        self.release()
        if self._min_dist is None:
            return math.inf, -1
        distance = float(self._min_dist.numpy()[0])
        return (distance if distance < 1.0e10 else math.inf), int(self._min_body_index.numpy()[0])


def articulation_masses(model) -> tuple[np.ndarray, np.ndarray]:
    """(each body's mass, the mass of its articulation: its own for a free body), as Newton's picking."""
    body_mass = model.body_mass.numpy().astype(np.float64)
    body_art = np.full(model.body_count, -1, dtype=np.int64)
    if model.joint_count:
        child = model.joint_child.numpy()
        art = model.joint_articulation.numpy()
        tree = np.nonzero((art >= 0) & (child >= 0))[0]
        body_art[child[tree]] = art[tree]
    in_art = body_art >= 0
    total = np.bincount(body_art[in_art], weights=body_mass[in_art],
                        minlength=max(1, model.articulation_count))
    effective = body_mass.copy()
    effective[in_art] = total[body_art[in_art]]
    return body_mass, effective


def welded_to_world(model) -> np.ndarray:
    """For each body: True when a chain of fixed joints holds it to the world (it cannot move)."""
    welded = np.zeros(model.body_count, dtype=bool)
    if not model.joint_count:
        return welded
    child, parent = model.joint_child.numpy(), model.joint_parent.numpy()
    fixed = model.joint_type.numpy() == int(newton.JointType.FIXED)
    holder = {int(c): (int(p), bool(f)) for c, p, f in zip(child, parent, fixed) if c >= 0}
    for body in range(model.body_count):
        seen, current = set(), body
        while current in holder and current not in seen:
            seen.add(current)
            up, is_fixed = holder[current]
            if not is_fixed:
                break
            if up < 0:
                welded[body] = True
                break
            current = up
    return welded


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
        self._bodies = _MuJoCoBodies(sim) if hasattr(sim, "mj_model") else _NewtonBodies(sim)
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
        rotation = _quat_wxyz_matrix(pose[3:])
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
    bodies = _MuJoCoBodies(sim) if hasattr(sim, "mj_model") else _NewtonBodies(sim)
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


class _NewtonBodies:
    """Newton's bodies of a simulation as picking reads them (by Newton body index)."""

    def __init__(self, sim):
        model = sim.model
        self.mass, self.articulation_mass = articulation_masses(model)
        self.inv_inertia = model.body_inv_inertia.numpy().astype(np.float64)
        self.kinematic = (model.body_flags.numpy() & int(newton.BodyFlags.KINEMATIC)) != 0
        self.welded = welded_to_world(model)
        self._index = sim.built.body_index
        self._row_of_body = {int(b): r for r, b in enumerate(self._index)}
        self._model, self._sim = model, sim
        self._ray = None

    def of_row(self, row: int) -> int:
        return int(self._index[row])

    def step_force_cap(self, body: int, dt: float) -> float:
        """The largest force a step may put on ``body``: on XPBD what moves it alone by
        ``XPBD_STEP_REACH`` in the step (its joints then take that back); unbounded elsewhere."""
        if self._sim.caps.reduced or self.mass[body] <= 0 or dt <= 0:
            return math.inf
        return float(self.mass[body]) * XPBD_STEP_REACH / (dt * dt)

    def _picking(self) -> _RayCast:
        if self._ray is None:
            worlds = self._model.world_count
            mask = wp.array([1] + [0] * (worlds - 1), dtype=int, device=self._model.device) \
                if worlds > 1 else None
            self._ray = _RayCast(self._model, visible_worlds_mask=mask)
        return self._ray

    def cast(self, start, direction) -> tuple[float, int]:
        distance, body = self._picking().cast(self._sim.state_0, start, direction)
        return distance, self._row_of_body.get(body, -1)

    def _current_state(self):
        """The state with its joint coordinates current (XPBD keeps bodies' poses only)."""
        state = self._sim.state_0
        if not self._sim.caps.reduced:
            newton.eval_ik(self._model, state, state.joint_q, state.joint_qd)
        return state

    def os_inertia(self, body: int, point) -> np.ndarray:
        """The inertia felt at world ``point`` of ``body`` (3x3, world frame), with the joints'
        armature only where the solver simulates it."""
        return self._picking().os_inertia(self._current_state(), body, point, self._sim.caps.armature)

    def push_by_velocity(self) -> bool:
        """Whether a push is best given as joint velocities: XPBD moves the pushed body by a step's
        impulse alone before projecting its joints, and overshoots on a light link."""
        return not self._sim.caps.reduced

    def give_point_velocity(self, body: int, point, velocity) -> None:
        """Change the joint velocities of ``body``'s articulation so that world ``point`` of it gains
        ``velocity`` with the least kinetic energy (what an impulse there does): ``H^-1 J^T Λ v``; a
        body outside an articulation gets it as its own velocity."""
        model, state = self._model, self._current_state()
        impulse = self.os_inertia(body, point) @ velocity
        change = self._picking().joint_velocity_change(state, body, point, impulse)
        if change is None:
            qd = state.body_qd.numpy()
            qd[body, :3] += velocity
            state.body_qd.assign(qd)
            return
        first, dqd = change
        qd = state.joint_qd.numpy().copy()
        qd[first:first + len(dqd)] += dqd
        state.joint_qd.assign(qd)
        newton.eval_fk(model, state.joint_q, state.joint_qd, state)


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
                turn = _quat_wxyz_matrix(m.body_iquat[b])
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


def _solver_step(sim) -> float:
    """The step a wrench is applied over: the solver's own (a Newton step may be split in several)."""
    return float(getattr(sim, "solver_dt", sim.dt))


def _ray(start, direction) -> tuple[np.ndarray, np.ndarray]:
    start = np.asarray(start, dtype=np.float64)
    direction = np.asarray(direction, dtype=np.float64)
    return start, direction / (np.linalg.norm(direction) or 1.0)


def _quat_xyzw_matrix(q) -> np.ndarray:
    x, y, z, w = (float(v) for v in q)
    return _quat_wxyz_matrix((w, x, y, z))


def _quat_wxyz_matrix(q) -> np.ndarray:
    w, x, y, z = (float(v) for v in q)
    n = math.sqrt(w * w + x * x + y * y + z * z) or 1.0
    w, x, y, z = w / n, x / n, y / n, z / n
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
