"""Replicas on a CPU with the MUJOCO solver: MuJoCo's C library per replica, across threads.

MuJoCo Warp steps every world, but on a CPU it is slow and its first kernel build takes minutes.
Every replica is the same robot shifted by its grid offset, so :class:`ReplicaMuJoCo` steps them with
one compiled model: Newton's MuJoCo conversion of the template world (``SolverMuJoCo(...,
use_mujoco_cpu=True, separate_worlds=True)`` converts world 0 only), the model the one-world direct
path (:mod:`sim.mujoco_direct`) steps, and one ``MjData`` per replica, each a copy of the solver's own.
A frame's ``mujoco.mj_step`` calls (which release Python's GIL) run on a persistent thread pool, the
replicas split among ``os.cpu_count()`` threads. Each replica's ``MjData`` lives on between frames (its
``qacc_warmstart`` included), so a replica steps exactly as the one-world direct path steps its robot.
(``mujoco.rollout`` restarts each rollout from a state without its warmstart, and does not hand the
final warmstart back: stepped a frame at a time it would not be that same physics.)

Each replica is simulated in replica 0's frame: the grid offset is taken off its free roots' positions
on the way in and added to its body poses on the way out. That holds where nothing in the scene
tells the replicas' places apart: :func:`replicas_refusal` says when something does (a body or a
non-plane shape of world -1, several scene worlds) or when something needs Newton between steps
(actuator forces, clamped drives: not MUJOCO's); such scenes keep MuJoCo Warp.

Kinematic bodies, joint friction and velocity limits are the one-world path's
:class:`sim.mujoco_direct.StepRules`, one per replica on its MjData: its kinematic roots' path in
replica 0's frame, its rows of the friction kernel's stuck/anchor state and applied efforts (views:
either path can go on). The rules are Python between ``mj_step`` calls and hold the GIL, so such
replicas step one after another on the calling thread (on 2 cores, 16 xArm6 replicas with friction:
1.4 ms a step serially, 2.1 ms on threads; a humanoid with velocity limits 0.69 vs 0.74 ms); that is
also what lets a weld-held kinematic root re-centre its weld in the shared model before each step.
"""

from __future__ import annotations

import copy
import os
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Optional

import numpy as np

from .kinematic import KinematicDriver
from .mujoco_direct import ControlMap, StepRules, first_bad_pose_row

#: A plane of world -1 (the ground) is the same for every replica only when it is infinite and
#: horizontal: its quaternion's x and y within this of 0.
_HORIZONTAL = 1e-6


def _global_shape_refusal(model) -> Optional[str]:
    import newton

    shape_world = model.shape_world.numpy()
    glob = np.flatnonzero(shape_world == -1)
    if not len(glob):
        return None
    types, scale = model.shape_type.numpy()[glob], model.shape_scale.numpy()[glob]
    xform = model.shape_transform.numpy()[glob]
    labels = list(model.shape_label) if getattr(model, "shape_label", None) is not None else None
    for i, shape in enumerate(glob):
        name = labels[shape] if labels else f"#{shape}"
        if types[i] != int(newton.GeoType.PLANE):
            return f"static shape {name!r} is shared by every replica (it is in no world)"
        qx, qy = xform[i, 3], xform[i, 4]
        tilted = abs(qx) > _HORIZONTAL or abs(qy) > _HORIZONTAL  # a turn about z keeps the normal up
        if tilted or scale[i, 0] > 0.0 or scale[i, 1] > 0.0:
            return f"plane {name!r} of no world is finite or tilted: the replicas would meet it differently"
    return None


def replicas_shape_refusal(scene, built) -> Optional[str]:
    """Why the replicas of ``built`` (a :class:`sim.builder.BuiltModel` of ``scene`` for MUJOCO) cannot
    share one compiled model, from the description alone; None when they can."""
    model = built.model
    replicas = len(built.replica_offsets)
    if model.world_count != replicas:
        return "several scene worlds (MuJoCo Warp simulates each)"
    if replicas <= 1:
        return "one replica"
    if (model.body_world.numpy() == -1).any():
        return "bodies of no world are shared by every replica"
    why = _global_shape_refusal(model)
    if why:
        return why
    if built.actuator_forces:
        return "actuator forces are applied every step"
    return None


def replicas_refusal(sim) -> Optional[str]:
    """Why the replicas of ``sim`` (a :class:`sim.simulation.Simulation`) must step on MuJoCo Warp."""
    why = replicas_shape_refusal(sim.scene, sim.built)
    if why:
        return why
    if sim.actuator_forces.count:
        return "actuator forces are applied every step"
    if sim.effects.drive_count:
        return "clamped drives are applied every step"
    replicas = sim.replicas
    control = sim.control
    ctrl = getattr(getattr(control, "mujoco", None), "ctrl", None)
    for array in (control.joint_target_q, control.joint_target_qd, control.joint_f, ctrl):
        if array is not None and array.shape[0] % replicas:
            return "the replicas' controls are not laid out alike"
    return None


class ReplicaMuJoCo:
    """Every replica's ``MjData`` stepped on the template world's ``MjModel`` (see the module docstring).

    The interface is :class:`sim.mujoco_direct.DirectMuJoCo`'s, over all replicas: ``push_state``,
    ``push_controls``, ``pull_state``, ``step``, ``body_poses`` (rows in ``body_keys`` order, replica
    after replica), ``first_bad_row``; ``d`` is replica 0's data (a pull on a body of replica 0 steps
    through :meth:`step_with_forces`).
    """

    def __init__(self, solver, model, built, dt: float, threads: Optional[int] = None, kinematic=None,
                 effects=None):
        import mujoco

        self._mujoco = mujoco
        self.solver, self.newton_model = solver, model
        self.m = solver.mj_model
        self.m.opt.timestep = dt  # what SolverMuJoCo.step sets before every mj_step
        self.count = replicas = len(built.replica_offsets)
        self.datas = [solver.mj_data] + [copy.copy(solver.mj_data) for _ in range(replicas - 1)]
        self.d = self.datas[0]
        self.offsets = np.asarray(built.replica_offsets, dtype=np.float64)
        self._layout(model, built)
        #: Why a per-step rule cannot run on each replica's MjData, or None (see :meth:`_rules_of`).
        self.refusal: Optional[str] = None
        #: Each replica's :class:`sim.mujoco_direct.StepRules` (kinematic bodies, friction, velocity
        #: limits), None when there are none.
        self.rules = self._rules_of(solver, model, built, dt, kinematic, effects)
        self.controls = ControlMap.of(solver)
        self._scratch_state = model.state()
        self._scratch_control = None
        self._poses = np.zeros((len(built.body_index), 7))
        self._bad_state = _bad_state_warnings(mujoco)
        self._bad_seen = np.zeros(replicas, dtype=np.int64)
        self._bad_now = np.zeros(replicas, dtype=np.int64)
        self.threads = max(1, min(threads or os.cpu_count() or 1, replicas))
        # Several chunks per thread, handed out as threads come free (a busy core holds back less).
        pieces = min(replicas, self.threads * 4) if self.threads > 1 else 1
        self._chunks = [list(c) for c in np.array_split(np.arange(replicas), pieces) if len(c)]
        self._frame = (0, 1)
        self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="articula-mujoco") \
            if self.threads > 1 else None
        if self._pool is not None:
            weakref.finalize(self, self._pool.shutdown, wait=False)
        self._current = False

    def _layout(self, model, built) -> None:
        """Each output row's replica and MuJoCo body; each replica's slice of Newton's joint arrays."""
        import newton

        replicas = self.count
        body_world = model.body_world.numpy()
        first_body = np.array([next(iter(np.flatnonzero(body_world == r)), 0) for r in range(replicas)])
        body_to_newton = self.solver.mjc_body_to_newton.numpy()[0]
        mj_body = np.full(model.body_count, -1, dtype=np.int64)
        mapped = body_to_newton >= 0
        mj_body[body_to_newton[mapped]] = np.flatnonzero(mapped)
        index = np.asarray(built.body_index, dtype=np.int64)
        self.replica_of_row = np.array([r for _, r in built.body_keys], dtype=np.int64)
        self.rows = mj_body[index - first_body[self.replica_of_row]]
        self._rows_of = [np.flatnonzero(self.replica_of_row == r) for r in range(replicas)]
        self._mj_rows_of = [self.rows[rows] for rows in self._rows_of]
        joints = model.joint_count // replicas
        q_start, qd_start = model.joint_q_start.numpy(), model.joint_qd_start.numpy()
        self.nq, self.nqd = model.joint_coord_count // replicas, model.joint_dof_count // replicas
        types, parents = model.joint_type.numpy()[:joints], model.joint_parent.numpy()[:joints]
        free = (parents == -1) & ((types == int(newton.JointType.FREE)) | (types == int(newton.JointType.DISTANCE)))
        # the coordinates that hold a free root's world position: the grid offset is in them
        self._free_xyz = np.concatenate([q_start[j] + np.arange(3) for j in np.flatnonzero(free)]) \
            if free.any() else np.zeros(0, dtype=np.int64)
        # every replica laid out as the template, each output row on a MuJoCo body
        self.complete = bool((self.rows >= 0).all()) and q_start[joints] == self.nq and qd_start[joints] == self.nqd

    def _rules_of(self, solver, model, built, dt, kinematic, effects) -> Optional[list]:
        """One :class:`StepRules` per replica, on its own kinematic roots (in replica 0's frame) and its
        own rows of the friction state (views of the kernel's arrays: either path can go on)."""
        moving = kinematic is not None and kinematic.count
        if not moving and not (effects is not None and (effects.friction_count or effects.limit_count)):
            return None
        first_body = np.array([next(iter(np.flatnonzero(model.body_world.numpy() == r)), 0)
                               for r in range(self.count)])
        replica_of_root = np.array([r for _, r in built.kinematic.keys()], dtype=np.int64)
        views = [(_ReplicaEffects(effects, r, self.nq, self.nqd) if effects is not None else None,
                  _ReplicaDriver(kinematic, np.flatnonzero(replica_of_root == r), self.offsets[r], first_body[r],
                                 r * self.nq, r * self.nqd) if moving else None) for r in range(self.count)]
        self.refusal = StepRules.refusal(solver, model, *views[0]) if views[0][0] is not None else None
        if self.refusal:
            return None
        rules = [StepRules.of(solver, model, dt, driver, view) for view, driver in views]
        # A weld-held root re-centres its weld in the shared model before each replica's step (they step
        # one after another); a weld Newton alone re-centres would follow replica 0.
        roots = rules[0].kinematic
        if roots is not None and roots.welds is None:
            self.refusal = "a kinematic body's weld is re-centred on replica 0's data alone"
            return None
        return rules

    # crossing between Newton and MuJoCo ---------------------------------------------------

    def _scratch_from(self, state, r: int) -> None:
        """Replica ``r``'s joint state into the template's slice of the scratch state, in replica 0's frame."""
        q, qd = self._scratch_state.joint_q.numpy(), self._scratch_state.joint_qd.numpy()
        q[:self.nq] = state.joint_q.numpy()[r * self.nq:(r + 1) * self.nq]
        qd[:self.nqd] = state.joint_qd.numpy()[r * self.nqd:(r + 1) * self.nqd]
        q[self._free_xyz] -= np.tile(self.offsets[r], len(self._free_xyz) // 3).astype(q.dtype)

    def push_state(self, state) -> None:
        """Newton's state -> every replica's ``qpos``/``qvel``, Newton's own conversion of the template."""
        for r, d in enumerate(self.datas):
            self._scratch_from(state, r)
            self.solver._update_mjc_data(d, self.newton_model, self._scratch_state)
        self._current = False

    def pull_state(self, state) -> None:
        """Every replica's ``qpos``/``qvel`` -> Newton's joint coordinates, velocities and body state."""
        import newton

        scratch = self._scratch_state
        q, qd = state.joint_q.numpy(), state.joint_qd.numpy()
        for r, d in enumerate(self.datas):
            if self.rules is not None:  # kinematic joints keep the placed coordinates, not MuJoCo's
                self._scratch_from(state, r)
                self.rules[r].before_pull(scratch)
            self.solver._update_newton_state(self.newton_model, scratch, d, state_prev=scratch)
            values = scratch.joint_q.numpy()[:self.nq].copy()
            values[self._free_xyz] += np.tile(self.offsets[r], len(self._free_xyz) // 3).astype(values.dtype)
            q[r * self.nq:(r + 1) * self.nq] = values
            qd[r * self.nqd:(r + 1) * self.nqd] = scratch.joint_qd.numpy()[:self.nqd]
        newton.eval_fk(self.newton_model, state.joint_q, state.joint_qd, state)

    def push_controls(self, state, control, efforts: bool = True) -> None:
        """Controls, drive targets (and applied efforts) -> each replica's ``ctrl`` (``qfrc_applied``)."""
        if efforts or self.controls is None:
            self._push_through_newton(state, control)
            return
        cm = self.controls
        values = np.zeros((self.count, cm.count), dtype=np.float32)
        if len(cm.position_rows):
            targets = control.joint_target_q.numpy().reshape(self.count, -1)
            values[:, cm.position_rows] = targets[:, cm.position_from] + cm.position_ref
        if len(cm.velocity_rows):
            values[:, cm.velocity_rows] = control.joint_target_qd.numpy().reshape(self.count, -1)[:, cm.velocity_from]
        if len(cm.direct_rows):
            values[:, cm.direct_rows] = control.mujoco.ctrl.numpy().reshape(self.count, -1)[:, cm.direct_from]
        for d, row in zip(self.datas, values):
            d.ctrl[:] = row

    def _push_through_newton(self, state, control) -> None:
        """Newton's own control conversion, replica by replica (efforts, ball-joint actuators)."""
        if self._scratch_control is None:
            self._scratch_control = self.newton_model.control()
        scratch = self._scratch_control
        ctrl = getattr(getattr(control, "mujoco", None), "ctrl", None)
        pairs = [(getattr(scratch, name), getattr(control, name))
                 for name in ("joint_target_q", "joint_target_qd", "joint_f")]
        if ctrl is not None:
            pairs.append((scratch.mujoco.ctrl, ctrl))
        pairs = [(a.numpy(), b.numpy()) for a, b in pairs if a is not None and b is not None]
        for r, d in enumerate(self.datas):
            for into, source in pairs:
                size = len(source) // self.count
                into[:size] = source[r * size:(r + 1) * size]
            self._scratch_from(state, r)
            self.solver._apply_mjc_control(self.newton_model, self._scratch_state, scratch, d)

    # stepping and reading -----------------------------------------------------------------

    def frame(self, done: int, count: int) -> None:
        """The coming steps are steps ``done + 1``, ... of a frame of ``count`` steps: the one that ends
        it also reads the poses, on the same threads. Kinematic bodies reach their goal at its end."""
        self._frame = (int(done), int(count))
        if self.rules is not None:
            for rules in self.rules:
                rules.frame(done, count)

    def _advance(self, replicas, count: int, finish: bool) -> None:
        mujoco, m = self._mujoco, self.m
        for r in replicas:
            d = self.datas[r]
            if self.rules is None:
                mujoco.mj_step(m, d, count)
            else:
                rules = self.rules[r]
                for _ in range(count):
                    rules.before_step(m, d)
                    mujoco.mj_step(m, d)
                    rules.after_step(d)
            if finish:
                self._finish(r)

    def _on_threads(self, work, chunks) -> None:
        if self._pool is None:
            for chunk in chunks:
                work(chunk)
        else:
            for _ in self._pool.map(work, chunks):
                pass

    def _finish(self, r: int) -> None:
        """Replica ``r``'s frame poses (``mj_step`` leaves ``xpos`` one step behind ``qpos``) and instabilities."""
        d = self.datas[r]
        self._mujoco.mj_kinematics(self.m, d)
        rows, mj = self._rows_of[r], self._mj_rows_of[r]
        self._poses[rows, :3] = d.xpos[mj] + self.offsets[r]
        self._poses[rows, 3:] = d.xquat[mj]
        self._bad_now[r] = sum(d.warning[w].number for w in self._bad_state)

    def step(self, count: int = 1, skip_first: bool = False) -> None:
        """``count`` steps of every replica (of all but replica 0 when ``skip_first``), across threads."""
        chunks = [[r for r in chunk if not (skip_first and r == 0)] for chunk in self._chunks]
        finish = not skip_first and self._frame[0] + count >= self._frame[1]
        if self.rules is None:
            self._on_threads(lambda chunk: self._advance(chunk, count, finish), chunks)
        else:  # the rules are Python (the GIL held): one replica after another is faster than threads
            self._advance([r for chunk in chunks for r in chunk], count, finish)
        self._current = finish

    def step_with_forces(self, count: int, apply_forces) -> None:
        """``count`` steps, replica 0's each split (``mj_step1``/``mj_step2``) so ``apply_forces(m, d)``
        sets its ``xfrc_applied``; then the other replicas, across threads."""
        mujoco, m, d = self._mujoco, self.m, self.d
        rules = self.rules[0] if self.rules is not None else None
        for _ in range(count):
            if rules is not None:
                rules.before_step(m, d)
            mujoco.mj_step1(m, d)
            apply_forces(m, d)
            mujoco.mj_step2(m, d)
            if rules is not None:
                rules.after_step(d)
        self.step(count, skip_first=True)

    def body_poses(self) -> np.ndarray:
        """(n, 7) px, py, pz, qw, qx, qy, qz of the output rows, world space (the grid offset added)."""
        self._refresh()
        return self._poses.copy()

    def _refresh(self) -> None:
        """Every replica's poses and instability count at its current ``qpos``, across threads (read
        once a frame, not after every step of a bake)."""
        if not self._current:
            self._on_threads(lambda chunk: [self._finish(r) for r in chunk], self._chunks)
            self._current = True

    def first_bad_row(self, limit: float) -> Optional[int]:
        """The first output row whose pose is not finite or lies further than ``limit``, else None."""
        return first_bad_pose_row(self.body_poses(), limit)

    def instability(self) -> Optional[tuple[str, int]]:
        """(MuJoCo body name, replica) of the first replica whose MuJoCo met a NaN/huge position,
        velocity or acceleration (and reset itself) since :meth:`forget_instabilities`, else None."""
        self._refresh()
        hit = np.flatnonzero(self._bad_now > self._bad_seen)
        if not len(hit):
            return None
        r = int(hit[0])
        d = self.datas[r]
        warning = max((d.warning[w] for w in self._bad_state), key=lambda w: w.number)
        dof = max(0, min(warning.lastinfo, self.m.nv - 1))
        body = self._mujoco.mj_id2name(self.m, self._mujoco.mjtObj.mjOBJ_BODY, int(self.m.dof_bodyid[dof]))
        return body, r

    def forget_instabilities(self) -> None:
        """What MuJoCo met so far is not the coming run's (a reset)."""
        self._refresh()
        self._bad_seen[:] = self._bad_now


def _bad_state_warnings(mujoco) -> tuple[int, ...]:
    w = mujoco.mjtWarning
    return int(w.mjWARN_BADQACC), int(w.mjWARN_BADQVEL), int(w.mjWARN_BADQPOS)


class _Host:
    """A numpy array where :class:`StepRules` reads a Warp array (``.numpy()``)."""

    def __init__(self, array: np.ndarray):
        self._array = array

    def numpy(self) -> np.ndarray:
        return self._array


def _replica_rows(qd_index: np.ndarray, r: int, nqd: int) -> slice:
    """The rows of replica ``r``'s DOFs in a per-DOF rule's arrays: one run (the DOFs come replica
    after replica), so the rows are views of the kernel's arrays."""
    rows = np.flatnonzero(qd_index // nqd == r)
    if not len(rows):
        return slice(0, 0)
    if rows[-1] - rows[0] + 1 != len(rows):
        raise ValueError("a per-DOF rule's rows are not laid out replica after replica")
    return slice(int(rows[0]), int(rows[-1]) + 1)


def _template_q(q_index: np.ndarray, shift: int) -> np.ndarray:
    return np.where(q_index >= 0, q_index - shift, -1)  # -1: a ball joint's DOF has no coordinate


class _ReplicaEffects:
    """Replica ``r``'s rows of :class:`sim.friction.JointEffects` on the template world's indices:
    what :class:`StepRules` reads (the friction state and applied efforts as views, shared)."""

    def __init__(self, effects, r: int, nq: int, nqd: int):
        self.applied_f = _Host(effects.applied_f.numpy()[r * nqd:(r + 1) * nqd])
        self.friction_count = self.limit_count = 0
        if effects.friction_count:
            rows = _replica_rows(effects.f_qd.numpy(), r, nqd)
            self.friction_count = rows.stop - rows.start
            self.f_q = _Host(_template_q(effects.f_q.numpy()[rows], r * nq))
            self.f_qd = _Host(effects.f_qd.numpy()[rows] - r * nqd)
            # The hold spring's constants are replica 0's: computed from each replica's inertia in its
            # place (float32 world positions), they differ in their last bits, not as the robot.
            first = _replica_rows(effects.f_qd.numpy(), 0, nqd)
            for name in ("f_static", "f_dynamic", "f_viscous", "f_kp", "f_kd", "f_rest"):
                setattr(self, name, _Host(getattr(effects, name).numpy()[first]))
            self.stuck, self.anchor = _Host(effects.stuck.numpy()[rows]), _Host(effects.anchor.numpy()[rows])
        if effects.limit_count:
            rows = _replica_rows(effects.v_qd.numpy(), r, nqd)
            self.limit_count = rows.stop - rows.start
            self.v_q = _Host(_template_q(effects.v_q.numpy()[rows], r * nq))
            self.v_qd = _Host(effects.v_qd.numpy()[rows] - r * nqd)
            self.v_limit = _Host(effects.v_limit.numpy()[rows])


class _ReplicaDriver:
    """One replica's kinematic roots of a :class:`sim.kinematic.KinematicDriver`, in replica 0's frame
    (its grid offset taken off the path) on the template world's bodies and coordinates."""

    def __init__(self, driver, rows: np.ndarray, offset: np.ndarray, first_body: int, q_shift: int,
                 qd_shift: int):
        self._driver, self._rows, self._offset = driver, rows, offset
        self.count = len(rows)
        self.bodies = driver.bodies[rows] - first_body
        self.q_start = _Host(driver.q_start.numpy()[rows] - q_shift)
        self.qd_start = _Host(driver.qd_start.numpy()[rows] - qd_shift)
        self.com = driver.com[rows]

    def _local(self, poses: np.ndarray) -> np.ndarray:
        poses = poses[self._rows].copy()
        poses[:, :3] -= self._offset
        return poses

    def motion(self, t: float, duration: float) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`KinematicDriver.motion` of this replica's roots (the driver's start and goal as now)."""
        path = _Path(self.count, self._local(self._driver.start), self._local(self._driver.goal), self.com)
        return KinematicDriver.motion(path, t, duration)


class _Path:
    """What :meth:`KinematicDriver.motion` reads."""

    def __init__(self, count, start, goal, com):
        self.count, self.start, self.goal, self.com = count, start, goal, com
