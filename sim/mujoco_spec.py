"""The MUJOCO solver on a CPU: the robot's MJCF export, compiled in memory, stepped by MuJoCo's C library.

    sim = Simulation(scene)            # solver MUJOCO on a CPU: a MuJoCoSimulation
    sim.advance(1 / 24)
    poses = sim.body_poses()           # (n, 7): px, py, pz, qw, qx, qy, qz, world space

The model is :func:`core.mjcf.writer.build_spec`'s: what Articula exports to MuJoCo is what is
simulated, step for step, and building it is MuJoCo's own compile (no Newton model, no Warp kernel).
Joint friction is the written ``frictionloss``, drives the written position/velocity servos (their
ctrl the drive target), actuators the written actuators. What MJCF cannot say and Articula adds
around MuJoCo's step:

- kinematic bodies (top-level mocap bodies) moved along their path step by step through a frame;
- velocity limits: after each step a joint impulse brings a DOF over its limit back to it (the
  robot's momentum kept), and the distance the change covered is taken back;
- grab and push: a wrench recomputed from the body's motion before each step (``xfrc_applied``,
  between ``mj_step1`` and ``mj_step2``);
- replicas: one ``MjData`` per replica on the one model, each simulated in replica 0's frame (its
  grid offset added to its poses), their ``mj_step`` calls (which release the GIL) on threads; where
  static shapes of no world (a wall, terrain) stand at one place for all, each replica steps a copy of
  the model with those geoms moved back by its offset.

:func:`spec_refusal` says when a scene needs Newton's path instead (MuJoCo Warp on CUDA).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import os
import re
from typing import Callable, Iterable, Mapping, Optional

import numpy as np

from ..core.mjcf.writer import MjcfWriteError, build_spec
from ..core.model import PhysicsScene, Pose, Solver
from . import model_cache
from .control_range import clamp_control
from .device_choice import MUJOCO_CUDA_CROSSOVER_REPLICAS, resolve_device  # noqa: F401 (also from here)
from .divergence import BLOW_UP_DISTANCE, SimulationDiverged, check_depth_for_mujoco, route_mujoco_warnings
from .errors import SimulationBuildError
from .frame_steps import FrameSteps
from .mujoco_layout import SpecLayout, _qconj, _qrot, joint_coordinates
from .replica_grid import replica_offsets
from .rotations import angular_velocity, slerp
from .wrenches import AppliedWrenches, WrenchSource

#: A plane's quaternion x, y within this of zero: level (the replicas stand on it alike).
_LEVEL = 1e-6

#: ``mjtWarning`` values of a state MuJoCo met as NaN or huge and reset by itself.
_BAD_STATE = ("mjWARN_BADQACC", "mjWARN_BADQVEL", "mjWARN_BADQPOS")


def spec_refusal(scene: PhysicsScene) -> Optional[str]:
    """Why ``scene``'s replicas cannot each be simulated on MuJoCo's C library in replica 0's frame
    (Newton's path then simulates them on MuJoCo Warp), or None. One replica always can. Several scene
    worlds can: the export's collision masks keep them apart within each replica. Static shapes of no
    world can: each replica's model holds them moved back by its grid offset (:func:`shared_statics`)."""
    if max(1, scene.settings.replicas) <= 1:
        return None
    if any(b.world == -1 for b in scene.bodies):
        return "bodies of no world are shared by every replica"
    return None


def shared_statics(scene: PhysicsScene) -> list[int]:
    """Positions among the scene's static shapes (``body`` None, in scene order: the export's world
    geoms, in that order) of those of no world that each replica meets at another place: all but level
    planes, which every replica meets alike."""
    statics = [shape for shape in scene.shapes if shape.body is None]
    found = []
    for k, shape in enumerate(statics):
        if shape.world != -1:
            continue  # a scene world's own static shape: each replica has its copy
        _, qx, qy, _ = shape.pose.rot
        if shape.kind.value == "PLANE" and abs(qx) <= _LEVEL and abs(qy) <= _LEVEL:  # a turn about z
            continue
        found.append(k)
    return found


def on_mujoco_c(scene: PhysicsScene, device: str = "auto", solver: Solver | str | None = None,
                mujoco_direct: bool = True) -> bool:
    """True when ``Simulation(scene, device, solver)`` is MuJoCo's C library on the MJCF export
    (:class:`sim.mujoco_spec.MuJoCoSimulation`): the MUJOCO solver on a CPU, unless asked for Newton's
    path (``mujoco_direct`` False) or the replicas need MuJoCo Warp (:func:`sim.mujoco_spec.spec_refusal`)."""
    if Solver(solver or scene.settings.solver) != Solver.MUJOCO or not mujoco_direct:
        return False
    try:
        import mujoco  # noqa: F401
    except ImportError:
        return False
    if spec_refusal(scene) is not None:
        return False
    return resolve_device(device, Solver.MUJOCO, scene.settings.replicas) == "cpu"


def physics_only(scene: PhysicsScene) -> PhysicsScene:
    """``scene`` without its visuals: drawn geoms (no contact, no mass) change nothing MuJoCo computes,
    and their meshes are most of what the export writes and the cache's fingerprint reads."""
    return dataclasses.replace(scene, visuals=[]) if scene.visuals else scene


def _bad_state_count(mujoco, data) -> int:
    return sum(data.warning[int(getattr(mujoco.mjtWarning, w))].number for w in _BAD_STATE)


class _Kinematic:
    """Goal poses of the mocap roots for the end of the coming frame; poses (px, py, pz, qx, qy, qz, qw)
    as :class:`sim.kinematic.KinematicDriver` keeps them, in replica 0's frame."""

    def __init__(self, names: list[str], mocap: list[int], data):
        self.names, self.mocap = names, np.asarray(mocap, dtype=np.int64)
        pos, quat = data.mocap_pos[self.mocap], data.mocap_quat[self.mocap]
        self.goal = np.concatenate([pos, quat[:, 1:], quat[:, :1]], axis=1)  # (x, y, z, w) rotations
        self.start = self.goal.copy()
        self.velocity = np.zeros((len(names), 6))  # linear (of the origin), angular; world frame

    def moving(self) -> bool:
        return bool(len(self.names)) and not np.array_equal(self.start, self.goal)

    def place(self, data, t: float, duration: float) -> None:
        """At fraction ``t`` of the way to the goal, moving at the speed that covers it in ``duration``."""
        for i, m in enumerate(self.mocap):
            a, b = self.start[i], self.goal[i]
            data.mocap_pos[m] = a[:3] + t * (b[:3] - a[:3])
            x, y, z, w = slerp(a[3:], b[3:], t)
            data.mocap_quat[m] = (w, x, y, z)
            self.velocity[i, :3] = (b[:3] - a[:3]) / duration
            self.velocity[i, 3:] = angular_velocity(a[3:], b[3:], duration)

    def hold(self) -> None:
        self.start = self.goal.copy()


def _thread_pool(threads: int):
    """The replicas' worker threads (imported here: one world, the usual case, never needs them)."""
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(threads, thread_name_prefix="articula-mujoco")


class MuJoCoSimulation(FrameSteps):
    """A physics description simulated by MuJoCo's C library on its MJCF export (see the module).

    The interface is :class:`sim.simulation.Simulation`'s; :attr:`mj_model` and :attr:`mj_data`
    (replica 0) are MuJoCo's own. ``keyframe``: start from the description's keyframe of that name.
    """

    direct_refusal = None  # every step is MuJoCo's C library
    built_kernels = False

    def __init__(self, scene: PhysicsScene, device: str = "cpu", solver: Solver | str | None = None,
                 substeps: int = 1, dt: Optional[float] = None,
                 on_status: Optional[Callable[[str], None]] = None, warm: bool = True,
                 mujoco_direct: bool = True, keyframe: Optional[str] = None):
        import mujoco

        self._mujoco = mujoco
        self.scene = scene
        self.solver_kind = Solver.MUJOCO
        self.device = "cpu"
        check_depth_for_mujoco(scene)
        route_mujoco_warnings()
        self.dt = (dt or 1.0 / scene.settings.steps_per_second) / max(1, int(substeps))
        self._asked_dt = self.dt
        self._physics = physics_only(scene)
        # The fingerprint (pickling the description) only when something may be kept, else at close().
        self._cache_key = self._fingerprint() if model_cache.size() else None
        self.built = model_cache.take_spec(self._cache_key) or self._build()
        self.mj_model = m = self.built.model
        if dt is None and substeps <= 1:  # the file's step (6 digits): stepped as MuJoCo runs the file
            self.dt = float(m.opt.timestep)
        m.opt.timestep = self.dt
        self.layout = SpecLayout(scene, self.built)
        self._setup_replicas()
        self.mj_data = self.datas[0]
        self._initial_ctrl = self._authored_state(self.mj_data)
        for d in self.datas[1:]:
            self._copy_state(self.mj_data, d)
        self.controls = {name: float(self.mj_data.ctrl[i]) for name, i in self.layout.actuators.items()}
        self.controls.update({name: _clamped(a, a.control) for name, a in self.layout.actuator_of.items()
                              if name not in self.layout.actuators})
        self._initial_controls = dict(self.controls)
        moved = self.layout.kinematic
        self.kinematic = _Kinematic(moved, [self.layout.mocap[n] for n in moved], self.mj_data)
        self._moved_by = {int(m): i for i, m in enumerate(self.kinematic.mocap)}
        self.wrenches = AppliedWrenches(None)
        self._row_body = {row: int(b) for row, b in enumerate(self.layout.body_ids)}  # replica 0's rows
        self._frame_fraction = (1, 1)
        self._kinematics_current = False
        self.time = 0.0
        self.steps = 0
        self.closed = False
        if keyframe is not None:
            self.apply_keyframe(keyframe)
        self._keep_start()

    # construction ------------------------------------------------------------------------

    def _fingerprint(self) -> Optional[str]:
        """The description with its settings (MuJoCo's options, ``settings.mujoco``, among them), the
        step and MuJoCo's iterations; not Newton's ``solver_iterations``, which the export never reads."""
        settings = dataclasses.replace(self.scene.settings, solver_iterations=0)
        physics = dataclasses.replace(self._physics, settings=settings)
        return model_cache.fingerprint(physics, "MUJOCO-MJCF", "cpu", self._asked_dt,
                                       settings.mujoco.iterations)

    def _build(self):
        try:
            return build_spec(self._physics)
        except MjcfWriteError as error:
            problems = "; ".join(error.problems)
            raise SimulationBuildError(f"MuJoCo cannot simulate the robot: {problems}") from error

    def _setup_replicas(self):
        settings = self.scene.settings
        self.offsets = np.asarray(replica_offsets(max(1, settings.replicas), settings.replica_spacing))
        count = len(self.offsets)
        self.models = self._replica_models()
        self.datas = [self._mujoco.MjData(self.mj_model) for _ in range(count)]
        self._bad_seen = np.zeros(count, dtype=np.int64)
        names = self.layout.body_names
        self._body_keys = [(name, r) for r in range(count) for name in names]
        threads = min(count, os.cpu_count() or 1)
        self._chunks = [list(range(count))[k::threads] for k in range(threads)]
        self._pool = _thread_pool(threads) if threads > 1 else None

    def _replica_models(self) -> list:
        """Each replica's model: the one compiled model, or where static shapes of no world stand where
        the replicas meet them differently (a wall, terrain), a copy per replica with those geoms moved
        back by its grid offset (each replica is simulated in replica 0's frame)."""
        m = self.mj_model
        moved = shared_statics(self._physics) if len(self.offsets) > 1 else []
        if not moved:
            return [m] * len(self.offsets)
        world_geoms = np.flatnonzero(np.asarray(m.geom_bodyid) == 0)[moved]  # the export's order
        models = [m]
        for offset in self.offsets[1:]:
            copy_of = copy.copy(m)
            copy_of.geom_pos[world_geoms] -= offset
            models.append(copy_of)
        return models

    def _authored_state(self, d) -> np.ndarray:
        """The description's start state in ``d`` (the writer's ``initial`` keyframe, when it wrote one);
        returns its controls."""
        mujoco, m = self._mujoco, self.mj_model
        name = getattr(self.built, "initial_keyframe", "initial")
        key = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_KEY, name) if name else -1
        if key >= 0:
            mujoco.mj_resetDataKeyframe(m, d, key)
        else:
            mujoco.mj_resetData(m, d)
        return d.ctrl.copy()

    @staticmethod
    def _copy_state(source, into) -> None:
        into.qpos[:], into.qvel[:], into.act[:] = source.qpos, source.qvel, source.act
        into.ctrl[:], into.qfrc_applied[:] = source.ctrl, source.qfrc_applied
        into.mocap_pos[:], into.mocap_quat[:] = source.mocap_pos, source.mocap_quat

    def _keep_start(self) -> None:
        d = self.mj_data
        self._start = (d.qpos.copy(), d.qvel.copy(), d.act.copy(), d.mocap_pos.copy(), d.mocap_quat.copy())
        for other in self.datas[1:]:
            self._copy_state(d, other)
        self._kinematics_current = False

    # names -------------------------------------------------------------------------------

    @property
    def body_names(self) -> list[str]:
        return [name for name, _ in self._body_keys]

    @property
    def body_keys(self) -> list[tuple[str, int]]:
        return list(self._body_keys)

    @property
    def notes(self) -> list[str]:
        """What this solver cannot simulate as authored, in plain words (the export's warnings, less what
        is simulated anyway: velocity limits, applied around MuJoCo's step, and worlds the collision
        masks keep apart)."""
        notes = [note for note in map(_not_simulated, self.built.warnings) if note]
        if self.layout.kinematic_fixed:
            notes.append("kinematic bodies inside a tree stay where they are (MuJoCo moves only top-level "
                         "mocap bodies): " + ", ".join(self.layout.kinematic_fixed))
        return notes

    @property
    def replicas(self) -> int:
        return len(self.datas)

    # stepping ----------------------------------------------------------------------------

    def _refuse_if_closed(self):
        if self.closed:
            raise RuntimeError("this simulation was closed: build a new Simulation to step again")

    def _per_step(self) -> bool:
        """Something happens between steps (else a frame is one ``mj_step`` call per replica)."""
        return self.kinematic.moving() or bool(len(self.layout.limit)) or bool(self.wrenches)

    def _run(self, count: int, frame: tuple[int, int]) -> None:
        """``count`` steps of every replica; ``frame``: (steps done, steps in the frame) before them."""
        mujoco, m = self._mujoco, self.mj_model
        if not self.kinematic.moving():
            self.kinematic.velocity[:] = 0.0
        if not self._per_step():
            self._on_replicas(lambda m, d: mujoco.mj_step(m, d, count))
        else:
            done, total = frame
            for i in range(count):
                self._one_step((done + i + 1) / total, total * self.dt)
        self._kinematics_current = False

    def _one_step(self, t: float, duration: float) -> None:
        mujoco = self._mujoco
        moving = self.kinematic.moving()
        for r, (m, d) in enumerate(zip(self.models, self.datas)):
            if moving:
                self.kinematic.place(d, t, duration)
            if r == 0 and self.wrenches:
                self.wrenches.step_mujoco(self, 1, self._row_body)
            else:
                mujoco.mj_step(m, d)
            if len(self.layout.limit):
                self._limit_velocities(d)
        if not self.wrenches:
            self.wrenches.release_mujoco(self)

    @property
    def d(self):
        """Replica 0's data (what :class:`sim.wrenches.AppliedWrenches` writes into)."""
        return self.mj_data

    def step_with_forces(self, count: int, apply_forces) -> None:
        """``count`` steps of replica 0, each split where MuJoCo has the step's positions and velocities
        but no forces yet (``mj_step1``/``mj_step2``), so ``apply_forces(m, d)`` sets ``xfrc_applied``."""
        mujoco, m, d = self._mujoco, self.mj_model, self.mj_data
        for _ in range(count):
            mujoco.mj_step1(m, d)
            apply_forces(m, d)
            mujoco.mj_step2(m, d)

    def _limit_velocities(self, d) -> None:
        """Velocity limits after a step: each DOF over its limit gets the joint impulse (equal and opposite
        on the bodies it joins, through MuJoCo's mass matrix) that brings it back to the limit, and the
        positions take back the distance the change would have covered. Setting the DOF's speed alone
        would add momentum to the rest of the robot each step (a free-floating ant flew off and blew up)."""
        layout = self.layout
        speed = d.qvel[layout.limit_dof]
        over = np.abs(speed) > layout.limit
        if not over.any():
            return
        before = d.qvel.copy()
        target = np.clip(speed, -layout.limit, layout.limit)
        for _ in range(len(layout.limit)):  # an impulse may push another limited DOF over: solve with it
            dofs = layout.limit_dof[over]
            d.qvel[:] = before + self._joint_impulse(d, dofs, target[over] - before[dofs])
            speed = d.qvel[layout.limit_dof]
            pushed = (np.abs(speed) > layout.limit * (1.0 + 1e-9)) & ~over
            if not pushed.any():
                break
            target[pushed] = np.clip(speed[pushed], -layout.limit[pushed], layout.limit[pushed])
            over |= pushed
        self._mujoco.mj_integratePos(self.mj_model, d.qpos, d.qvel - before, self.dt)

    def _joint_impulse(self, d, dofs: np.ndarray, change: np.ndarray) -> np.ndarray:
        """The change of every velocity when impulses on DOFs ``dofs`` alone change their velocities by
        ``change``: M^-1 S (S^T M^-1 S)^-1 change, M the mass matrix ``d`` factorized this step."""
        m = self.mj_model
        unit = np.zeros((len(dofs), m.nv))
        unit[np.arange(len(dofs)), dofs] = 1.0
        response = np.zeros_like(unit)  # row k: M^-1 of a unit impulse on dofs[k]
        self._mujoco.mj_solveM(m, d, response, unit)
        return response.T @ np.linalg.solve(response[:, dofs], change)

    def _on_replicas(self, work: Callable) -> None:
        """``work(model, data)`` of every replica, on the thread pool where there is one."""
        if self._pool is None:
            for m, d in zip(self.models, self.datas):
                work(m, d)
            return
        models, datas = self.models, self.datas

        def chunk(rows):
            for r in rows:
                work(models[r], datas[r])

        for _ in self._pool.map(chunk, self._chunks):
            pass

    def step(self):
        """One physics step of ``dt``."""
        self._refuse_if_closed()
        done, count = self._frame_fraction
        self._run(1, (done - 1, count))
        self.steps += 1
        self.time += self.dt


    def advance(self, frame_dt: float, check: bool = True) -> int:
        """Step through ``frame_dt`` (kinematic bodies reach their goal at its end); returns steps.
        Raises :class:`sim.divergence.SimulationDiverged` when ``check`` and a body went NaN or blew up."""
        self._refuse_if_closed()
        count = self.steps_per_frame(frame_dt)
        self._run(count, (0, count))
        self._end_frame(count, check)
        return count


    def _end_frame(self, count: int, check: bool) -> None:
        self.kinematic.hold()
        self.steps += count
        self.time += count * self.dt
        if check:
            self.raise_if_diverged()

    def reset(self):
        """Back to the start pose, time 0, controls and drive targets as authored."""
        qpos, qvel, act, mocap_pos, mocap_quat = self._start
        for r, d in enumerate(self.datas):
            self._bad_seen[r] = _bad_state_count(self._mujoco, d)
            d.qpos[:], d.qvel[:], d.act[:] = qpos, qvel, act
            d.mocap_pos[:], d.mocap_quat[:] = mocap_pos, mocap_quat
            d.ctrl[:] = self._initial_ctrl
            d.qacc_warmstart[:] = 0.0
            d.time = 0.0
        self.controls = dict(self._initial_controls)
        self.kinematic = _Kinematic(self.kinematic.names, list(self.kinematic.mocap), self.mj_data)
        self.time, self.steps = 0.0, 0
        self._kinematics_current = False

    def close(self):
        """End this simulation: its compiled model goes to :mod:`sim.model_cache` for the next simulation
        of the same robot (idempotent). Its last state stays readable; it must not be stepped again."""
        if self.closed:
            return
        self.closed = True
        if self._pool is not None:
            self._pool.shutdown(wait=False)
        model_cache.give_back_spec(self._cache_key or self._fingerprint(), self.built)

    # reading -----------------------------------------------------------------------------

    def _kinematics(self) -> None:
        """``xpos``/``xquat`` at the current ``qpos`` (``mj_step`` leaves them one step behind), every
        replica; fields the next step recomputes, so the physics is untouched."""
        if not self._kinematics_current:
            mujoco = self._mujoco
            self._on_replicas(mujoco.mj_kinematics)
            self._kinematics_current = True

    def body_poses(self) -> np.ndarray:
        """World poses (n, 7) as px, py, pz, qw, qx, qy, qz, in :attr:`body_keys` order."""
        self._kinematics()
        ids = self.layout.body_ids
        rows = [np.concatenate([d.xpos[ids] + offset, d.xquat[ids]], axis=1)
                for d, offset in zip(self.datas, self.offsets)]
        return np.concatenate(rows, axis=0) if rows else np.zeros((0, 7))

    def body_velocities(self) -> np.ndarray:
        """(n, 6): linear (of the centre of mass) and angular velocity, world space."""
        mujoco = self._mujoco
        out = np.zeros((len(self._body_keys), 6))
        velocity = np.zeros(6)
        row = 0
        for m, d in zip(self.models, self.datas):
            mujoco.mj_kinematics(m, d)
            mujoco.mj_comPos(m, d)
            mujoco.mj_comVel(m, d)
            for b in self.layout.body_ids:
                mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_BODY, int(b), velocity, 0)  # at the COM
                out[row, :3], out[row, 3:] = velocity[3:], velocity[:3]
                mocap = int(m.body_mocapid[b])
                if mocap >= 0 and mocap in self._moved_by:  # MuJoCo gives a mocap body no velocity
                    linear, angular = np.split(self.kinematic.velocity[self._moved_by[mocap]], 2)
                    out[row, :3], out[row, 3:] = linear + np.cross(angular, d.xipos[b] - d.xpos[b]), angular
                row += 1
        self._kinematics_current = True
        return out

    def joint_positions(self, replica: int = 0) -> dict[tuple[str, str], float]:
        """Each DOF's coordinate, the file's (``Dof.reference`` at the authored pose): {(joint name,
        axis): value} (ball joints are absent)."""
        q = self.datas[replica].qpos
        return {key: float(q[s.qpos]) for key, s in self.layout.dofs.items() if not s.ball}

    def joint_velocities(self, replica: int = 0) -> dict[tuple[str, str], float]:
        """Each DOF's velocity (a ball joint's: MuJoCo's, in the child's frame)."""
        qd = self.datas[replica].qvel
        return {key: float(qd[s.dof]) for key, s in self.layout.dofs.items()}

    def _instability(self) -> Optional[tuple[str, int]]:
        mujoco, m = self._mujoco, self.mj_model
        for r, d in enumerate(self.datas):
            if _bad_state_count(mujoco, d) <= self._bad_seen[r]:
                continue
            warning = max((d.warning[int(getattr(mujoco.mjtWarning, w))] for w in _BAD_STATE),
                          key=lambda w: w.number)
            dof = max(0, min(warning.lastinfo, m.nv - 1))
            body = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, int(m.dof_bodyid[dof])) if m.nv else None
            names = self.layout.body_names
            return (body if body in names else (names[0] if names else "")), r
        return None

    def diverged(self) -> Optional[tuple[str, int]]:
        """(body, replica) of the first body whose pose is NaN or out of bounds, else None (also a
        MuJoCo instability its C library reset by itself)."""
        unstable = self._instability()
        if unstable is not None:
            return unstable
        row = first_bad_pose_row(self.body_poses(), BLOW_UP_DISTANCE)
        return None if row is None else self._body_keys[row]

    def raise_if_diverged(self):
        hit = self.diverged()
        if hit is not None:
            raise SimulationDiverged(*hit)

    # writing -----------------------------------------------------------------------------

    def set_kinematic_poses(self, poses: Mapping[str, Pose | Iterable[float]]):
        """Goal world poses of kinematic bodies for the end of the next :meth:`advance` (every replica
        the same motion, shifted by its grid offset); bodies not given stay put."""
        kinematic = self.kinematic
        if not kinematic.names:
            if poses and set(poses) - set(self.layout.kinematic_fixed):
                raise KeyError(f"no kinematic bodies: {sorted(poses)}")
            return
        unknown = set(poses) - set(kinematic.names) - set(self.layout.kinematic_fixed)
        if unknown:
            raise KeyError(f"not kinematic bodies: {sorted(unknown)}")
        goal = kinematic.goal.copy()
        for i, name in enumerate(kinematic.names):
            if name not in poses:
                continue
            pose = poses[name]
            if isinstance(pose, Pose):
                (px, py, pz), (qw, qx, qy, qz) = pose.pos, pose.rot
            else:
                px, py, pz, qw, qx, qy, qz = (float(v) for v in pose)
            norm = math.sqrt(qw * qw + qx * qx + qy * qy + qz * qz) or 1.0
            goal[i] = (px, py, pz, qx / norm, qy / norm, qz / norm, qw / norm)
        kinematic.start, kinematic.goal = kinematic.goal.copy(), goal

    def set_start_poses(self, poses: Mapping[str, Pose]):
        """Start from these world poses (every replica, shifted by its offset) instead of the
        description's: the joint coordinates follow (:func:`sim.mujoco_layout.joint_coordinates`);
        bodies not given keep their pose; velocities stay; time 0."""
        if not poses:
            return
        d = self.mj_data
        joint_coordinates(self.mj_model, d, poses)
        for name, pose in poses.items():
            if name in self.layout.mocap:
                mocap = self.layout.mocap[name]
                d.mocap_pos[mocap], d.mocap_quat[mocap] = pose.pos, pose.rot
        self.kinematic = _Kinematic(self.kinematic.names, list(self.kinematic.mocap), d)
        self._keep_start()
        self.time, self.steps = 0.0, 0

    def apply_keyframe(self, name: str):
        """Start from keyframe ``name`` (the model's key the export wrote for it, else the description's:
        what it leaves out stays at rest); time 0. Raises KeyError naming the keyframes there are."""
        mujoco, m, d = self._mujoco, self.mj_model, self.mj_data
        key = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_KEY, name)
        described = self.scene.keyframe(name)
        if key < 0 and described is None:
            known = ", ".join(repr(k.name) for k in self.scene.keyframes) or "none"
            raise KeyError(f"no keyframe {name!r} (keyframes: {known})")
        if key >= 0:
            mujoco.mj_resetDataKeyframe(m, d, key)
        else:
            self._described_keyframe(described)
        self.controls.update({n: float(d.ctrl[i]) for n, i in self.layout.actuators.items()})
        if key < 0:
            self.set_controls(described.controls)
        self._initial_ctrl = d.ctrl.copy()
        self._initial_controls = dict(self.controls)
        self._keep_start()
        self.time, self.steps = 0.0, 0

    def _described_keyframe(self, key) -> None:
        mujoco, m, d = self._mujoco, self.mj_model, self.mj_data
        mujoco.mj_resetData(m, d)
        for k, value in key.joint_positions.items():
            for _, slot in self.layout.dofs_for(k):
                if not slot.ball:
                    d.qpos[slot.qpos] = value  # the file's coordinate, as MuJoCo's qpos
        for k, value in key.joint_velocities.items():
            for _, slot in self.layout.dofs_for(k):
                d.qvel[slot.dof] = value
        for joint, quat in key.ball_rotations.items():
            slot = self.layout.dofs_for(joint)[0][1]
            a = int(m.jnt_qposadr[slot.joint])
            d.qpos[a:a + 4] = quat
        self._key_roots(key)

    def _key_roots(self, key) -> None:
        mujoco, m, d = self._mujoco, self.mj_model, self.mj_data
        for body, pose in key.root_poses.items():
            b = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, body)
            j = int(m.body_jntadr[b]) if b >= 0 else -1
            if j < 0 or int(m.jnt_type[j]) != int(mujoco.mjtJoint.mjJNT_FREE):
                raise KeyError(f"keyframe root pose of {body!r}: not a floating root")
            a = int(m.jnt_qposadr[j])
            d.qpos[a:a + 3], d.qpos[a + 3:a + 7] = pose.pos, pose.rot
        for body, (linear, angular) in key.root_velocities.items():
            b = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, body)
            j = int(m.body_jntadr[b]) if b >= 0 else -1
            if j < 0 or int(m.jnt_type[j]) != int(mujoco.mjtJoint.mjJNT_FREE):
                raise KeyError(f"keyframe root velocity of {body!r}: not a floating root")
            a, v = int(m.jnt_qposadr[j]), int(m.jnt_dofadr[j])
            turn = np.array(d.qpos[a + 3:a + 7])
            d.qvel[v:v + 3] = linear  # world frame
            d.qvel[v + 3:v + 6] = _rotate_back(turn, angular)  # MuJoCo's is in the body frame

    def set_controls(self, values: Mapping[str, float]):
        """Actuator controls, {actuator name: value}, every replica, clamped to each actuator's control
        range as MuJoCo clamps ``ctrl``; held until changed."""
        for name, value in values.items():
            actuator = self.layout.actuator_of.get(name)
            if actuator is None:
                known = ", ".join(repr(n) for n in self.layout.actuator_of) or "none"
                raise KeyError(f"no actuator {name!r} (actuators: {known})")
            value = float(value)
            if not math.isfinite(value):
                raise ValueError(f"actuator {name!r}: control {value!r} is not a finite number")
            value = _clamped(actuator, value)
            self.controls[name] = value
            index = self.layout.actuators.get(name)
            if index is not None:
                for d in self.datas:
                    d.ctrl[index] = value

    @property
    def actuator_controls(self) -> dict[str, float]:
        """Each actuator's current control (after clamping), by name."""
        return dict(self.controls)

    def set_drive_targets(self, targets: Mapping, velocities: Optional[Mapping] = None):
        """Drive targets: {(joint, axis) or joint (single-DOF joints): value}, every replica (a position
        drive's servo reads the target position, a velocity drive's the target velocity)."""
        for values, position in ((targets, True), (velocities or {}, False)):
            for key, value in values.items():
                for _, drive in self.layout.drive_for(key):
                    if drive.position == position:
                        for d in self.datas:
                            d.ctrl[drive.actuator] = value

    def set_joint_velocities(self, velocities: Mapping, replica: Optional[int] = None):
        """Set DOF velocities now: {(joint, axis) or joint: value} (every replica unless given)."""
        datas = self.datas if replica is None else [self.datas[replica]]
        for key, value in velocities.items():
            for _, slot in self.layout.dofs_for(key):
                for d in datas:
                    d.qvel[slot.dof] = value
        self._kinematics_current = False

    def set_joint_efforts(self, efforts: Mapping):
        """Applied joint efforts (N or N*m), held until changed: {(joint, axis) or joint: value} (a ball
        joint's in MuJoCo's frame of the joint)."""
        for key, value in efforts.items():
            for _, slot in self.layout.dofs_for(key):
                for d in self.datas:
                    d.qfrc_applied[slot.dof] = value

    def set_body_wrench(self, row: int, force=(0.0, 0.0, 0.0), torque=(0.0, 0.0, 0.0)):
        """A world-frame force (N) and torque (N*m) at the centre of mass of body ``row`` (in
        :attr:`body_keys` order), applied on every step until :meth:`clear_body_wrench`."""
        wrench = (np.asarray(force, dtype=np.float64), np.asarray(torque, dtype=np.float64))
        self.set_body_pull(row, lambda motion: wrench)

    def set_body_pull(self, row: int, source: WrenchSource):
        """A wrench recomputed before every step from body ``row``'s motion (``source`` gets a
        :class:`sim.wrenches.BodyMotion`, returns (force, torque) at the centre of mass, world frame,
        or None when done); applied until it returns None or :meth:`clear_body_wrench`. Replica 0's
        bodies only."""
        if self._body_keys[row][1]:
            raise ValueError(f"body {self._body_keys[row][0]!r} of replica {self._body_keys[row][1]}: "
                             "only replica 0's bodies are pulled")
        self.wrenches.set(row, source)

    def clear_body_wrench(self, row: Optional[int] = None):
        """No more wrench on body ``row`` (every body when None)."""
        if row is None:
            self.wrenches.clear()
        else:
            self.wrenches.set(row, None)
        if not self.wrenches:
            self.wrenches.release_mujoco(self)

    # picking ------------------------------------------------------------------------------

    def ray_hit(self, start, direction) -> tuple[float, int]:
        """(distance, row in :attr:`body_keys`) of the first collider ``mj_ray`` meets from ``start``
        along unit ``direction``, replica 0; row -1 for the world's, distance inf for nothing."""
        mujoco, m, d = self._mujoco, self.mj_model, self.mj_data
        self._kinematics()
        geom = np.zeros(1, dtype=np.int32)
        groups = np.zeros(6, dtype=np.uint8)
        groups[[0, 3]] = 1  # colliders: group 3 beside visuals, else 0
        start, direction = np.asarray(start, dtype=np.float64), np.asarray(direction, dtype=np.float64)
        distance = mujoco.mj_ray(m, d, start, direction, groups, 1, -1, geom)
        if distance < 0:
            return math.inf, -1
        body = int(m.geom_bodyid[geom[0]])
        rows = np.flatnonzero(self.layout.body_ids == body)
        return float(distance), (int(rows[0]) if len(rows) else -1)


def first_bad_pose_row(poses: np.ndarray, limit: float) -> Optional[int]:
    """The first row of (n, 7) ``poses`` that is not finite or lies further than ``limit``, else None."""
    if np.abs(poses).max(initial=0.0) <= limit:  # a NaN fails the comparison; |quaternion| <= 1
        return None
    bad = ~np.isfinite(poses).all(axis=1) | (np.abs(poses[:, :3]).max(axis=1) > limit)
    return int(np.flatnonzero(bad)[0])


def _not_simulated(warning: str) -> str:
    """The export's "MJCF cannot say" warning without what MuJoCo simulates here all the same ("" when
    nothing is left): velocity limits, replicas (one ``MjData`` each) and worlds kept apart by the
    collision masks."""
    head = "MJCF cannot say (left out): "
    if not warning.startswith(head):
        return warning
    items = [item for item in warning[len(head):].split("; ") if not _simulated_anyway(item)]
    return head + "; ".join(items) if items else ""


def _simulated_anyway(item: str) -> bool:
    return (item.startswith("velocity limit of ") or bool(re.match(r"\d+ replicas \(", item))
            or (item.startswith("worlds ") and "never touch" in item))


def _clamped(actuator, value: float) -> float:
    return clamp_control(actuator, value)


def _rotate_back(quat, v) -> np.ndarray:
    """``v`` (world) in the frame of (w, x, y, z) rotation ``quat``."""
    quat = np.asarray(quat, dtype=np.float64)
    return _qrot(_qconj(quat / np.linalg.norm(quat)), np.asarray(v, dtype=np.float64))
