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

What Newton's path does around every step, :class:`StepRules` does on MjData, the same rule in
numpy: kinematic bodies placed along their path (their free joint's ``qpos``/``qvel`` and weld, or
their mocap pose), joint friction (``sim.friction``'s formula, float32 as its kernel) into
``qfrc_applied`` before the step, velocity limits clamped after it. A scene with none of these
steps in one ``mj_step`` call per frame; with them, one call per step.

What cannot be done here keeps Newton's path (:func:`direct_refusal` says why): more than one world
(MuJoCo Warp), friction or a velocity limit on a joint MuJoCo has no joint for (a loop joint).
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from .kinematic import cross


def direct_refusal(sim) -> Optional[str]:
    """Why ``sim`` (a :class:`sim.simulation.Simulation`) must step through Newton, or None."""
    solver = sim.solver
    if not getattr(solver, "use_mujoco_cpu", False):
        return "MuJoCo Warp steps every world (several worlds, or CUDA)"
    if getattr(solver, "mjc_body_to_newton", None) is None:
        return "the solver has no body map"
    if sim.actuator_forces.count:  # FEATHERSTONE/XPBD's force kernel; MUJOCO's actuators are MuJoCo's
        return "actuator forces are applied every step"
    if sim.effects.drive_count:  # FEATHERSTONE's clamped drives; MUJOCO clamps its own
        return "clamped drives are applied every step"
    return StepRules.refusal(solver, sim.model, sim.effects, sim.kinematic)


class DirectMuJoCo:
    """SolverMuJoCo's ``mj_model``/``mj_data`` stepped with ``mujoco.mj_step``.

    ``body_index``: the Newton body of each output row (``BuiltModel.body_index``).
    """

    def __init__(self, solver, model, body_index: np.ndarray, dt: float, kinematic=None, effects=None):
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
        #: The per-step rules (kinematic bodies, friction, velocity limits), None when there are none.
        self.rules = StepRules.of(solver, model, dt, kinematic, effects)
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
        if self.rules is not None:
            self.rules.before_pull(state)
        self.solver._update_newton_state(self.newton_model, state, self.d, state_prev=state)

    # stepping and reading -----------------------------------------------------------------

    def frame(self, done: int, count: int) -> None:
        """The coming steps are steps ``done + 1``, ... of a frame of ``count`` steps (kinematic bodies
        reach their goal at its end)."""
        if self.rules is not None:
            self.rules.frame(done, count)

    def step(self, count: int = 1) -> None:
        rules = self.rules
        if rules is not None:
            for _ in range(count):
                rules.before_step(self.m, self.d)
                self._mujoco.mj_step(self.m, self.d)
                rules.after_step(self.d)
        elif count == 1:
            self._mujoco.mj_step(self.m, self.d)
        else:
            self._mujoco.mj_step(self.m, self.d, count)
        self._kinematics_current = False

    def step_with_forces(self, count: int, apply_forces) -> None:
        """``count`` steps, each split where MuJoCo has the step's positions and velocities but no forces
        yet (``mj_step1``/``mj_step2``), so ``apply_forces(m, d)`` can set ``xfrc_applied`` from them."""
        rules = self.rules
        for _ in range(count):
            if rules is not None:
                rules.before_step(self.m, self.d)
            self._mujoco.mj_step1(self.m, self.d)
            apply_forces(self.m, self.d)
            self._mujoco.mj_step2(self.m, self.d)
            if rules is not None:
                rules.after_step(self.d)
        self._kinematics_current = False

    def body_poses(self) -> np.ndarray:
        """(n, 7) px, py, pz, qw, qx, qy, qz of the output rows, at the current ``qpos``."""
        if not self._kinematics_current:
            self._mujoco.mj_kinematics(self.m, self.d)
            self._kinematics_current = True
        return np.concatenate([self.d.xpos[self.rows], self.d.xquat[self.rows]], axis=1)

    def first_bad_row(self, limit: float) -> Optional[int]:
        """The first output row whose pose is not finite or lies further than ``limit``, else None."""
        return first_bad_pose_row(self.body_poses(), limit)


def first_bad_pose_row(poses: np.ndarray, limit: float) -> Optional[int]:
    """The first row of (n, 7) ``poses`` that is not finite or lies further than ``limit``, else None."""
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


# per-step rules -----------------------------------------------------------------------------


def _joints_of(starts: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """The joint of each coordinate or DOF index, given each joint's first index (``joint_q_start``)."""
    return np.searchsorted(starts, indices, side="right") - 1


def _dof_addresses(solver, model, q_index: np.ndarray, qd_index: np.ndarray):
    """Newton DOFs -> (MuJoCo qpos address, -1 without a coordinate; MuJoCo DOF address, -1 where
    MuJoCo has none; the Newton joint of each), as Newton's coordinate conversion maps them."""
    q_starts, qd_starts = model.joint_q_start.numpy(), model.joint_qd_start.numpy()
    mj_q, mj_qd = solver.mj_q_start.numpy(), solver.mj_qd_start.numpy()
    joint = _joints_of(qd_starts, qd_index)
    dof = np.where(mj_qd[joint] >= 0, mj_qd[joint] + qd_index - qd_starts[joint], -1)
    qpos = np.where((q_index >= 0) & (mj_q[joint] >= 0), mj_q[joint] + q_index - q_starts[joint], -1)
    return qpos, dof, joint


def _unsupported_dof(solver, model, q_index, qd_index) -> Optional[str]:
    """Why the rule of these DOFs cannot run on MjData (a joint MuJoCo lacks: a loop joint), or None."""
    if not len(qd_index):
        return None
    _, dof, joint = _dof_addresses(solver, model, np.asarray(q_index), np.asarray(qd_index))
    for i in np.flatnonzero(dof < 0):
        return f"joint {model.joint_label[int(joint[i])]!r} has no MuJoCo joint"
    return None


class _BallJoints:
    """The ball joints among some DOFs. Newton's velocity of a ball joint is MuJoCo's ``qvel`` turned
    by ``inverse(X_c.q) * q`` (``q`` the joint's rotation in ``qpos``), and its effort reaches
    ``qfrc_applied`` turned back (Newton's ``convert_mj_coords_to_warp_kernel`` and
    ``apply_mjc_qfrc_kernel``). ``rows``: the DOFs on ball joints; ``joint``/``axis``: each one's
    ball joint (index into this) and component."""

    def __init__(self, solver, model, qd_index: np.ndarray):
        import newton

        qd_starts = model.joint_qd_start.numpy()
        joints = _joints_of(qd_starts, qd_index)
        ball = model.joint_type.numpy()[joints] == int(newton.JointType.BALL)
        self.rows = np.flatnonzero(ball)
        self.joints, self.joint = np.unique(joints[ball], return_inverse=True)
        self.axis = qd_index[ball] - qd_starts[joints[ball]]
        self.count = len(self.joints)
        mj_q, mj_qd = solver.mj_q_start.numpy(), solver.mj_qd_start.numpy()
        self.qpos = mj_q[self.joints][:, None] + np.arange(4)  # w, x, y, z
        self.dof = mj_qd[self.joints][:, None] + np.arange(3)
        self.newton_dof = qd_starts[self.joints][:, None] + np.arange(3)
        child_rot = model.joint_X_c.numpy()[self.joints, 3:].astype(np.float64)
        self.child_inverse = child_rot * (-1.0, -1.0, -1.0, 1.0)

    def rotations(self, d) -> np.ndarray:
        """(n, 3, 3): MuJoCo's joint velocity frame -> Newton's, per ball joint."""
        w, x, y, z = d.qpos[self.qpos].T
        q = np.stack([_quat_multiply(c, (qx, qy, qz, qw))
                      for c, qx, qy, qz, qw in zip(self.child_inverse, x, y, z, w)])
        q /= np.linalg.norm(q, axis=1)[:, None]
        x, y, z, w = q.T
        return np.stack([
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], axis=1),
            np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], axis=1),
            np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], axis=1)], axis=1)


def _sign(x: np.ndarray) -> np.ndarray:
    """Warp's ``sign``: 1 at zero."""
    return np.where(x < 0, np.float32(-1.0), np.float32(1.0))


def _quat_multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(x, y, z, w) quaternions."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz])


def _quat_rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    u, w = q[:3], q[3]
    t = 2.0 * cross(u, v)
    return v + w * t + cross(u, t)


def _conjugate(q: np.ndarray) -> np.ndarray:
    return np.array([-q[0], -q[1], -q[2], q[3]])


class _Friction:
    """``sim.friction.joint_friction_kernel`` on MjData (float32, as the kernel), its stuck/anchor
    state shared with the kernel's arrays (CPU arrays: numpy views), so either path can go on."""

    def __init__(self, solver, model, effects):
        self.qpos, self.dof, _ = _dof_addresses(solver, model, effects.f_q.numpy(), effects.f_qd.numpy())
        if (self.dof < 0).any():  # loop joints are refused before
            raise ValueError("joint friction on a DOF without a MuJoCo joint")
        self.qd = effects.f_qd.numpy()
        self.balls = _BallJoints(solver, model, self.qd)
        self.plain = np.flatnonzero(~np.isin(np.arange(len(self.qd)), self.balls.rows))
        dof_ref = getattr(getattr(model, "mujoco", None), "dof_ref", None)
        ref = dof_ref.numpy()[self.qd] if dof_ref is not None else np.zeros(len(self.qd))
        self.ref = ref.astype(np.float32)[self.plain]
        self.static, self.dynamic = effects.f_static.numpy(), effects.f_dynamic.numpy()
        self.can_stick = self.static > 0.0
        # The kernel's negations, taken once (exact: the products are the same floats).
        self.neg_viscous, self.neg_kp = -effects.f_viscous.numpy(), -effects.f_kp.numpy()
        self.neg_dynamic = -self.dynamic
        self.kd, self.rest = effects.f_kd.numpy(), effects.f_rest.numpy()
        self.stuck, self.anchor = effects.stuck.numpy(), effects.anchor.numpy()
        self.applied = effects.applied_f.numpy()

    def apply(self, d) -> None:
        """This step's friction efforts (plus the applied ones) into ``qfrc_applied``."""
        plain, balls = self.plain, self.balls
        q = np.zeros(len(self.qd), dtype=np.float32)  # a ball joint's DOFs have no coordinate: 0
        q[plain] = d.qpos[self.qpos[plain]].astype(np.float32) - self.ref
        qd = np.empty(len(self.qd), dtype=np.float32)
        qd[plain] = d.qvel[self.dof[plain]]
        if balls.count:
            turn = balls.rotations(d)
            velocity = np.einsum("nij,nj->ni", turn, d.qvel[balls.dof])
            qd[balls.rows] = velocity[balls.joint, balls.axis]
        stuck = self.stuck
        moving = stuck == 0
        sticking = moving & (np.abs(qd) <= self.rest) & self.can_stick
        if sticking.any():
            stuck[sticking] = 1
            self.anchor[sticking] = q[sticking]
            moving &= ~sticking
        coulomb = self.neg_dynamic * _sign(qd)
        if not moving.all():  # held joints: the hold spring, or breakaway when it cannot hold
            spring = self.neg_kp * (q - self.anchor)
            within = np.abs(spring) <= self.static
            hold = ~moving & within
            coulomb[hold] = np.clip(spring - self.kd * qd, -self.static, self.static)[hold]
            breaking = ~moving & ~within
            if breaking.any():
                stuck[breaking] = 0
                coulomb[breaking] = (_sign(spring) * self.dynamic)[breaking]
        efforts = self.applied[self.qd] + self.neg_viscous * qd + coulomb
        d.qfrc_applied[self.dof[plain]] = efforts[plain]
        if balls.count:  # the ball joint's whole effort (applied, friction) turned into MuJoCo's frame
            torque = self.applied[balls.newton_dof].astype(np.float64)
            torque[balls.joint, balls.axis] = efforts[balls.rows]
            d.qfrc_applied[balls.dof] = np.einsum("nji,nj->ni", turn, torque)


class _VelocityLimits:
    """``sim.friction.clamp_velocity_kernel`` on MjData: after a step, a DOF's speed clamped to its
    limit and the distance the excess covered taken back."""

    def __init__(self, solver, model, effects, dt: float):
        qpos, dof, _ = _dof_addresses(solver, model, effects.v_q.numpy(), effects.v_qd.numpy())
        limit = effects.v_limit.numpy().astype(np.float64)
        self.balls = _BallJoints(solver, model, effects.v_qd.numpy())
        plain = np.flatnonzero(~np.isin(np.arange(len(dof)), self.balls.rows))
        self.qpos, self.dof, self.limit = qpos[plain], dof[plain], limit[plain]
        self.ball_limit = np.full((self.balls.count, 3), np.inf)
        self.ball_limit[self.balls.joint, self.balls.axis] = limit[self.balls.rows]
        self.dt = float(np.float32(dt))

    def apply(self, d) -> None:
        qd = d.qvel[self.dof]
        clamped = np.clip(qd, -self.limit, self.limit)
        if not (clamped == qd).all():
            d.qvel[self.dof] = clamped
            d.qpos[self.qpos] -= self.dt * (qd - clamped)
        if self.balls.count:  # clamped in Newton's frame of the joint; a ball joint has no coordinate
            turn = self.balls.rotations(d)
            velocity = np.einsum("nij,nj->ni", turn, d.qvel[self.balls.dof])
            clamped = np.clip(velocity, -self.ball_limit, self.ball_limit)
            if not (clamped == velocity).all():
                d.qvel[self.balls.dof] = np.einsum("nji,nj->ni", turn, clamped)


class _KinematicRoots:
    """Kinematic bodies placed along their path before every step, as ``KinematicDriver.place`` and
    Newton's conversion do it on Newton's path: a root with mass is a MuJoCo free joint held by a
    weld (``qpos``/``qvel`` written, the weld re-centred by Newton's own
    ``_update_kinematic_weld_references``), a massless one a mocap body (``mocap_pos``/``mocap_quat``)."""

    def __init__(self, solver, model, driver):
        self.solver, self.driver = solver, driver
        q_starts = model.joint_q_start.numpy()
        joints = _joints_of(q_starts, driver.q_start.numpy())
        mj_q, mj_qd = solver.mj_q_start.numpy(), solver.mj_qd_start.numpy()
        jnt_mocap = solver._jnt_mocap.numpy() if getattr(solver, "_jnt_mocap", None) is not None else None
        X_p, X_c = model.joint_X_p.numpy().astype(np.float64), model.joint_X_c.numpy().astype(np.float64)
        self.parent = [(X_p[j, :3], X_p[j, 3:]) for j in joints]
        self.child_inverse = []
        for j in joints:
            q_inv = _conjugate(X_c[j, 3:])
            self.child_inverse.append((-_quat_rotate(q_inv, X_c[j, :3]), q_inv))
        self.com = driver.com
        self.mocap = np.array([jnt_mocap[j] if jnt_mocap is not None else -1 for j in joints])
        self.qpos = np.array([mj_q[j] for j in joints])
        self.qvel = np.array([mj_qd[j] for j in joints])
        self.welds = self._welds(solver, joints)
        self.missing = [model.body_label[int(b)] for b, m, q in zip(driver.bodies, self.mocap, self.qpos)
                        if m < 0 and q < 0]
        self.q_start, self.qd_start = driver.q_start.numpy(), driver.qd_start.numpy()
        self.done, self.count = 0, 1
        self.placed = None  # (pose, velocity) of the last step, Newton's free-joint coordinates
        self.placed_mujoco: list[tuple[int, np.ndarray, int, np.ndarray]] = []  # qpos/qvel written

    def place(self, m, d, dt: float) -> None:
        self.done += 1
        pose, velocity = self.driver.motion(self.done / self.count, self.count * dt)
        self.placed = pose, velocity
        self.placed_mujoco = []
        for i in range(len(pose)):
            (pp, qp), (pc, qc) = self.parent[i], self.child_inverse[i]
            # world = X_p * joint * inverse(X_c), as Newton's conversion composes it
            p = pp + _quat_rotate(qp, pose[i, :3])
            q = _quat_multiply(qp, pose[i, 3:])
            world_p, world_q = p + _quat_rotate(q, pc), _quat_multiply(q, qc)
            wxyz = (world_q[3], world_q[0], world_q[1], world_q[2])
            if self.mocap[i] >= 0:
                d.mocap_pos[self.mocap[i]] = world_p
                d.mocap_quat[self.mocap[i]] = wxyz
                continue
            a, v = self.qpos[i], self.qvel[i]
            d.qpos[a:a + 3], d.qpos[a + 3:a + 7] = world_p, wxyz
            w_world = _quat_rotate(qp, velocity[i, 3:])
            v_com = _quat_rotate(qp, velocity[i, :3])
            d.qvel[v:v + 3] = v_com - cross(w_world, _quat_rotate(world_q, self.com[i]))
            d.qvel[v + 3:v + 6] = _quat_rotate(_conjugate(world_q), w_world)
            self.placed_mujoco.append((a, d.qpos[a:a + 7].copy(), v, d.qvel[v:v + 6].copy()))
        if self.welds is None:
            self.solver._update_kinematic_weld_references()
        else:
            self._recentre_welds(m, d)

    def _welds(self, solver, joints) -> Optional[list[tuple[int, int]]]:
        """(weld equality, qpos address) of each weld-held root; None where a weld Newton keeps active
        is not one of these roots' (Newton's own re-centring then runs)."""
        m = solver.mj_model
        eqs = getattr(solver, "_kinematic_weld_eq_np", None)
        active = eqs[solver.mj_data.eq_active[eqs]] if eqs is not None else np.zeros(0, dtype=int)
        by_body = {int(m.eq_obj1id[eq]): int(eq) for eq in active}
        welds = []
        for mocap, qpos, joint in zip(self.mocap, self.qpos, joints):
            if mocap >= 0 or qpos < 0:
                continue
            body = int(m.jnt_bodyid[int(np.flatnonzero(m.jnt_qposadr == qpos)[0])])
            if body not in by_body:
                return None
            welds.append((by_body.pop(body), int(qpos)))
        return None if by_body else welds

    def _recentre_welds(self, m, d) -> None:
        """Newton's ``_update_kinematic_weld_references`` for free-joint roots, without its whole
        ``mj_kinematics``: a root's world pose is its ``qpos`` (MuJoCo normalizes the quaternion)."""
        for eq, a in self.welds:
            quat = d.qpos[a + 3:a + 7] / np.linalg.norm(d.qpos[a + 3:a + 7])
            m.eq_data[eq, 0:3] = d.qpos[a:a + 3]
            m.eq_data[eq, 3:6] = 0.0
            m.eq_data[eq, 6:10] = quat * (1.0, -1.0, -1.0, -1.0)

    def hold_placed(self, d) -> None:
        """Back to the pose and velocity placed before the step: MuJoCo moved the weld-held roots on
        by a step, which Newton's path never reports (it keeps a kinematic joint's coordinates from
        the state it pushed, and places the roots again before the next step)."""
        for a, qpos, v, qvel in self.placed_mujoco:
            d.qpos[a:a + 7], d.qvel[v:v + 6] = qpos, qvel

    def write_newton(self, state) -> None:
        """The placed roots into Newton's ``state`` (joint coordinates; its kinematic joints pass
        through Newton's conversion from MuJoCo unchanged)."""
        if self.placed is None:
            return
        pose, velocity = self.placed
        joint_q, joint_qd = state.joint_q.numpy(), state.joint_qd.numpy()  # CPU: views
        for i in range(len(pose)):
            joint_q[self.q_start[i]:self.q_start[i] + 7] = pose[i]
            joint_qd[self.qd_start[i]:self.qd_start[i] + 6] = velocity[i]


class StepRules:
    """What Newton's path does around every step, done on MjData (see the module docstring)."""

    def __init__(self, dt: float, kinematic: Optional[_KinematicRoots], friction: Optional[_Friction],
                 limits: Optional[_VelocityLimits]):
        self.dt, self.kinematic, self.friction, self.limits = dt, kinematic, friction, limits

    @classmethod
    def of(cls, solver, model, dt: float, kinematic, effects) -> Optional["StepRules"]:
        """The rules a simulation's kinematic driver and joint effects need, None when none."""
        roots = _KinematicRoots(solver, model, kinematic) if kinematic and kinematic.count else None
        friction = _Friction(solver, model, effects) if effects and effects.friction_count else None
        limits = _VelocityLimits(solver, model, effects, dt) if effects and effects.limit_count else None
        if roots is None and friction is None and limits is None:
            return None
        return cls(dt, roots, friction, limits)

    @staticmethod
    def refusal(solver, model, effects, kinematic=None) -> Optional[str]:
        """Why a rule cannot run on MjData, or None."""
        if effects.friction_count:
            why = _unsupported_dof(solver, model, effects.f_q.numpy(), effects.f_qd.numpy())
            if why:
                return f"joint friction on {why} is applied every step"
        if effects.limit_count:
            why = _unsupported_dof(solver, model, effects.v_q.numpy(), effects.v_qd.numpy())
            if why:
                return f"the velocity limit of {why} is applied every step"
        if kinematic is not None and kinematic.count:
            missing = _KinematicRoots(solver, model, kinematic).missing
            if missing:
                return f"kinematic body {missing[0]!r} has no MuJoCo joint or mocap body"
        return None

    def frame(self, done: int, count: int) -> None:
        if self.kinematic is not None:
            self.kinematic.done, self.kinematic.count = int(done), int(count)

    def before_step(self, m, d) -> None:
        if self.kinematic is not None:
            self.kinematic.place(m, d, self.dt)
        if self.friction is not None:
            self.friction.apply(d)

    def after_step(self, d) -> None:
        if self.kinematic is not None:
            self.kinematic.hold_placed(d)
        if self.limits is not None:
            self.limits.apply(d)

    def before_pull(self, state) -> None:
        if self.kinematic is not None:
            self.kinematic.write_newton(state)
