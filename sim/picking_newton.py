"""Newton's side of :mod:`sim.picking`: its bodies as picking reads them, and the ray cast and
operational-space inertia of Newton's own picking (``newton.viewer.Picking``). Loaded only for a
simulation Newton steps."""

from __future__ import annotations

import math
from typing import Optional

import numpy as np
import warp as wp

import newton

from .rotations import quat_xyzw_matrix

#: XPBD moves a body by the force on it alone before its joints pull it back: a step's push on the
#: grabbed body is kept within this reach (m), which its joint projection can take back.
XPBD_STEP_REACH = 0.01


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
        rotation = quat_xyzw_matrix(state.body_q.numpy()[body, 3:7])
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
        rotation = quat_xyzw_matrix(state.body_q.numpy()[body, 3:7])
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


class NewtonBodies:
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
