"""MuJoCo's C library stepped directly between frames (CPU, one world, the MUJOCO solver).

Newton's ``SolverMuJoCo(use_mujoco_cpu=True)`` converts the whole state between its Warp arrays
and MuJoCo's ``MjData`` around every ``mj_step`` (joint coordinates both ways, forward kinematics,
controls): about 30 times the cost of the step itself on a humanoid. :class:`DirectMuJoCo` keeps
that solver's own ``MjModel``/``MjData`` (the same compiled model) and calls ``mujoco.mj_step`` on
them; Newton's conversions run only when something crosses between the two:

- into MuJoCo (:meth:`push_state`, :meth:`push_controls`): Newton's own ``_update_mjc_data`` and
  ``_apply_mjc_control`` (its mapping arrays and kernels, the kernels already loaded by the solver's
  build), after a reset, new start poses or velocities, and when controls, drive targets or applied
  efforts change (at most once a frame). Controls and drive targets alone, the per-frame case of an
  animated robot, go through :class:`ControlMap` instead: the same rule in numpy on Newton's own
  actuator mapping arrays (Newton's call costs about a millisecond, several frames' steps);
- out of MuJoCo: body poses straight from ``xpos``/``xquat`` (after ``mj_kinematics``: ``mj_step``
  leaves them one step behind ``qpos``) through Newton's body map, only when a frame is read; the
  whole Newton state (:meth:`pull_state`) only for joint coordinates or velocities.

So the physics is the same compiled model stepped the same way; what differs from Newton's path is
that ``qpos``/``qvel`` stay float64 between steps instead of passing through float32 arrays each
step (differences at float32 precision that grow only as the motion itself is sensitive).

What needs Newton between steps is not done here, and the simulation keeps Newton's path for it
(:func:`direct_refusal` says which): kinematic bodies (moved along their path every step), joint
friction and velocity limits (Articula's kernels read the state every step), more than one world.
"""

from __future__ import annotations

from typing import Optional

import numpy as np


def direct_refusal(sim) -> Optional[str]:
    """Why ``sim`` (a :class:`sim.simulation.Simulation`) must step through Newton, or None."""
    solver = sim.solver
    if not getattr(solver, "use_mujoco_cpu", False):
        return "MuJoCo Warp steps every world (several worlds, or CUDA)"
    if sim.kinematic.count:
        return "kinematic bodies move along their path every step"
    if sim.effects.writes_joint_f:
        return "joint friction is applied every step"
    if sim.effects.limit_count:
        return "velocity limits are applied every step"
    if sim.actuator_forces.count:
        return "actuator forces are applied every step"
    if getattr(solver, "mjc_body_to_newton", None) is None:
        return "the solver has no body map"
    return None


class DirectMuJoCo:
    """SolverMuJoCo's ``mj_model``/``mj_data`` stepped with ``mujoco.mj_step``.

    ``body_index``: the Newton body of each output row (``BuiltModel.body_index``).
    """

    def __init__(self, solver, model, body_index: np.ndarray, dt: float):
        import mujoco

        self._mujoco = mujoco
        self.solver = solver
        self.newton_model = model
        self.m, self.d = solver.mj_model, solver.mj_data
        self.m.opt.timestep = dt  # what SolverMuJoCo.step sets before every mj_step
        body_to_newton = solver.mjc_body_to_newton.numpy()[0]
        mj_body = np.full(model.body_count, -1, dtype=np.int64)
        mapped = body_to_newton >= 0
        mj_body[body_to_newton[mapped]] = np.flatnonzero(mapped)
        self.rows = mj_body[np.asarray(body_index, dtype=np.int64)]
        self.complete = bool((self.rows >= 0).all())
        self.controls = ControlMap.of(solver)
        self._kinematics_current = False

    # crossing between Newton and MuJoCo ---------------------------------------------------

    def push_state(self, state) -> None:
        """Newton's state -> ``qpos``/``qvel`` (and fixed roots' mocap poses), Newton's own way."""
        self.solver._update_mjc_data(self.d, self.newton_model, state)
        self._kinematics_current = False

    def push_controls(self, state, control, efforts: bool = True) -> None:
        """Controls, drive targets and applied efforts -> ``ctrl``, ``qfrc_applied``, ``xfrc_applied``.

        ``efforts``: efforts were applied (``control.joint_f``); without them, and without ball-joint
        actuators, only ``ctrl`` changes and :class:`ControlMap` writes it."""
        if efforts or self.controls is None:
            self.solver._apply_mjc_control(self.newton_model, state, control, self.d)
        else:
            self.controls.write(control, self.d.ctrl)

    def pull_state(self, state) -> None:
        """``qpos``/``qvel`` -> Newton's joint coordinates, velocities and body state."""
        self.solver._update_newton_state(self.newton_model, state, self.d, state_prev=state)

    # stepping and reading -----------------------------------------------------------------

    def step(self, count: int = 1) -> None:
        if count == 1:
            self._mujoco.mj_step(self.m, self.d)
        else:
            self._mujoco.mj_step(self.m, self.d, count)
        self._kinematics_current = False

    def step_with_forces(self, count: int, apply_forces) -> None:
        """``count`` steps, each split where MuJoCo has the step's positions and velocities but no forces
        yet (``mj_step1``/``mj_step2``), so ``apply_forces(m, d)`` can set ``xfrc_applied`` from them."""
        for _ in range(count):
            self._mujoco.mj_step1(self.m, self.d)
            apply_forces(self.m, self.d)
            self._mujoco.mj_step2(self.m, self.d)
        self._kinematics_current = False

    def body_poses(self) -> np.ndarray:
        """(n, 7) px, py, pz, qw, qx, qy, qz of the output rows, at the current ``qpos``."""
        if not self._kinematics_current:
            self._mujoco.mj_kinematics(self.m, self.d)
            self._kinematics_current = True
        return np.concatenate([self.d.xpos[self.rows], self.d.xquat[self.rows]], axis=1)

    def first_bad_row(self, limit: float) -> Optional[int]:
        """The first output row whose pose is not finite or lies further than ``limit``, else None."""
        poses = self.body_poses()
        if np.abs(poses).max(initial=0.0) <= limit:  # a NaN fails the comparison; |quaternion| <= 1
            return None
        bad = ~np.isfinite(poses).all(axis=1) | (np.abs(poses[:, :3]).max(axis=1) > limit)
        return int(np.flatnonzero(bad)[0])


#: ``SolverMuJoCo.mjc_actuator_ctrl_source`` values.
_FROM_TARGETS, _FROM_CTRL = 0, 1


class ControlMap:
    """MuJoCo's ``ctrl`` from Newton's control, as ``apply_mjc_control_kernel`` computes it for one
    world: a position actuator reads ``joint_target_q`` (plus the DOF's reference ``dof_ref``), a
    velocity actuator ``joint_target_qd``, a direct one ``control.mujoco.ctrl``; an unmapped one
    gets 0. Float32 sums, as the kernel's. Ball-joint actuators (rotated by the joint's current
    pose) are not covered: :meth:`of` then gives None and Newton's own call does it."""

    def __init__(self, source, index, target_index, dof_ref):
        self.count = len(source)
        position = (source == _FROM_TARGETS) & (index >= 0) & (target_index >= 0)
        velocity = (source == _FROM_TARGETS) & (index <= -2)
        direct = source == _FROM_CTRL
        self.position_rows, self.position_from = np.flatnonzero(position), target_index[position]
        self.position_ref = (dof_ref[index[position]] if dof_ref is not None
                             else np.zeros(int(position.sum()), dtype=np.float32))
        self.velocity_rows, self.velocity_from = np.flatnonzero(velocity), -(index[velocity] + 2)
        self.direct_rows, self.direct_from = np.flatnonzero(direct), index[direct]

    @classmethod
    def of(cls, solver) -> Optional["ControlMap"]:
        source = getattr(solver, "mjc_actuator_ctrl_source", None)
        if source is None or getattr(solver, "mjc_actuator_to_newton_idx", None) is None:
            return cls(*(np.zeros(0, dtype=np.int32),) * 3, None)
        source = source.numpy()
        axis = solver.mjc_actuator_to_target_q_axis_idx.numpy()
        index = solver.mjc_actuator_to_newton_idx.numpy()
        if ((axis >= 0) & (source == _FROM_TARGETS) & (index != -1)).any():
            return None
        dof_ref = getattr(getattr(solver.model, "mujoco", None), "dof_ref", None)
        return cls(source, index, solver.mjc_actuator_to_newton_target_q_idx.numpy(),
                   dof_ref.numpy() if dof_ref is not None else None)

    def write(self, control, ctrl: np.ndarray) -> None:
        values = np.zeros(self.count, dtype=np.float32)
        if len(self.position_rows):
            values[self.position_rows] = control.joint_target_q.numpy()[self.position_from] + self.position_ref
        if len(self.velocity_rows):
            values[self.velocity_rows] = control.joint_target_qd.numpy()[self.velocity_from]
        if len(self.direct_rows):
            values[self.direct_rows] = control.mujoco.ctrl.numpy()[self.direct_from]
        ctrl[:] = values
