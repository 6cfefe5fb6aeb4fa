"""``Simulation``: step a physics description on Warp with Newton (bpy-free).

    sim = Simulation(scene)                 # the scene's solver, CUDA when present
    sim.advance(1 / 24)                     # one frame of steps
    poses = sim.body_poses()                # (n, 7): px, py, pz, qw, qx, qy, qz, world space

Bodies come out in description order, replica after replica (``sim.body_keys`` names them).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import os
import sys
import time
from typing import Callable, Iterable, Mapping, Optional

import numpy as np
import warp as wp

import newton

from ..core.model import (Actuator, Body, DofMotion, Joint, JointType, PhysicsScene, Pose, SceneSettings, Shape,
                          ShapeKind, Solver, make_joint)
from . import model_cache, shipped_kernels
from .actuators import ActuatorForces, Controls
from .builder import BuiltModel, SolverCaps, build_model, dof_inertia, featherstone_contact_materials
from .device_choice import (NEWTON_CUDA_CROSSOVER_REPLICAS, _mujoco_available, builds_kernels,  # noqa: F401
                            device_for, resolve_device, solver_to_run)
from .divergence import (  # MUJOCO_DEEPEST_CHAIN, deepest_chain: imported from here too
    BLOW_UP_DISTANCE, MUJOCO_DEEPEST_CHAIN, SimulationDiverged, check_depth_for_mujoco, deepest_chain,
    route_mujoco_warnings)
from .frame_steps import FrameSteps
from .friction import JointEffects
from .kinematic import KinematicDriver
from .mujoco_spec import (MUJOCO_CUDA_CROSSOVER_REPLICAS, MuJoCoSimulation, on_mujoco_c,  # noqa: F401
                          spec_refusal)
from .preflight import (SolverRefusal, featherstone_settings, refuse_start_overlap, refuse_unheld_robot,
                        split_steps)
from .wrenches import AppliedWrenches, WrenchSource

log = logging.getLogger(__name__)

KERNELS_BUILDING = "Building Warp kernels (first run only)…"


def _init_warp():
    shipped_kernels.init_warp()  # and the CPU kernels built ahead of time copied in, where they fit


def _kernel_marker(solver: Solver, device: str) -> str:
    kind = "cuda" if device.startswith("cuda") else "cpu"
    name = f"articula-{newton.__version__}-{solver.value.lower()}-{kind}-grab.built"  # grab: its ray cast too
    return os.path.join(wp.config.kernel_cache_dir or "", name)


def kernels_cached(solver: Solver, device: str) -> bool:
    """True when an earlier run built this solver's kernels into Warp's cache on this device kind
    (always for MuJoCo on a CPU: its C library needs no kernel). Kernels shipped prebuilt
    (``sim.shipped_kernels``) still get their warm-up run, which then loads them in seconds."""
    if not builds_kernels(solver, device):
        return True
    _init_warp()
    return os.path.exists(_kernel_marker(solver, device))


def _mark_kernels_built(solver: Solver, device: str):
    try:
        with open(_kernel_marker(solver, device), "w") as marker:
            marker.write(time.strftime("%Y-%m-%d %H:%M:%S"))
    except OSError:
        pass


def _warmup_scene() -> PhysicsScene:
    """A tiny scene that launches every kernel a simulation loop uses (contacts of each primitive,
    friction, clamped drives, velocity limits, a kinematic root)."""
    scene = PhysicsScene(name="warmup", settings=SceneSettings(ground_plane=True))
    scene.bodies += [Body("base", Pose((0.0, 0.0, 1.0)), kinematic=True),
                     Body("arm", Pose((0.0, 0.0, 0.7)), parent="base"),
                     Body("ball", Pose((1.0, 0.0, 0.1))), Body("crate", Pose((2.0, 0.0, 0.1))),
                     Body("can", Pose((3.0, 0.0, 0.1)))]
    scene.shapes += [Shape("base_box", ShapeKind.BOX, "base", half_extents=(0.1, 0.1, 0.1)),
                     Shape("arm_capsule", ShapeKind.CAPSULE, "arm", radius=0.05, half_height=0.1),
                     Shape("ball_sphere", ShapeKind.SPHERE, "ball", radius=0.1),
                     Shape("crate_box", ShapeKind.BOX, "crate", half_extents=(0.1, 0.1, 0.1)),
                     Shape("can_cylinder", ShapeKind.CYLINDER, "can", radius=0.1, half_height=0.1)]
    hinge = make_joint("hinge", JointType.REVOLUTE, "base", "arm", axis="Y")
    hinge.local_pose0, hinge.local_pose1 = Pose((0.0, 0.0, -0.1)), Pose((0.0, 0.0, 0.2))
    dof = hinge.dofs[0]
    dof.motion, dof.lower, dof.upper = DofMotion.LIMITED, -1.0, 1.0
    dof.drive_enabled, dof.drive_stiffness, dof.drive_damping, dof.max_effort = True, 1.0, 0.1, 5.0
    dof.static_friction, dof.dynamic_friction, dof.velocity_limit = 0.2, 0.1, 3.0
    dof.actuators.append(Actuator.motor("hinge_motor", force_range=(-1.0, 1.0)))  # sim.actuators' kernel
    scene.joints.append(hinge)
    assert isinstance(hinge, Joint)
    return scene


def warm_kernels(solver: Solver | str, device: str = "auto", on_status=None) -> bool:
    """Build (or load) every kernel a simulation with ``solver`` needs; True when it had to build."""
    solver = Solver(solver)
    device = resolve_device(device, solver)
    if kernels_cached(solver, device):
        return False
    if on_status:
        on_status(KERNELS_BUILDING)
    log.info(KERNELS_BUILDING)
    from .kernel_warmup import meshes_and_mimic_scene, run_warmup

    run_warmup(Simulation, [_warmup_scene(), meshes_and_mimic_scene()], solver, device)  # stepped, grabbed
    _mark_kernels_built(solver, device)
    return True


@functools.lru_cache(maxsize=1)
def _mujoco_bad_state_warnings() -> tuple[int, ...]:
    import mujoco

    w = mujoco.mjtWarning
    return int(w.mjWARN_BADQACC), int(w.mjWARN_BADQVEL), int(w.mjWARN_BADQPOS)


def _mujoco_bad_state_count(data) -> int:
    """How often MuJoCo's C library met a NaN/huge position, velocity or acceleration and reset."""
    return sum(data.warning[w].number for w in _mujoco_bad_state_warnings())


def _make_solver(model: newton.Model, solver: Solver, device: str, iterations: int,
                 integrator: str = "implicitfast"):
    cached = model_cache.solver_for(model)
    if cached is not None:  # the model came from sim.model_cache with its solver
        return cached
    if solver == Solver.FEATHERSTONE:
        return newton.solvers.SolverFeatherstone(model)
    if solver == Solver.XPBD:
        return newton.solvers.SolverXPBD(model, iterations=max(1, iterations), enable_restitution=True)
    # MuJoCo's C library on a CPU for one world (fast); MuJoCo Warp otherwise (it simulates
    # every world; on a CPU it is correct but slow, and its first kernel build takes minutes).
    use_c = not device.startswith("cuda") and model.world_count <= 1
    route_mujoco_warnings()
    # The scene's integrator and, on MuJoCo's C library, its multi-point box contacts (on by default there),
    # as the MJCF export steps them; MuJoCo Warp keeps Newton's choice (not yet run on a GPU).
    try:
        return newton.solvers.SolverMuJoCo(model, use_mujoco_cpu=use_c,
                                           separate_worlds=not use_c or model.world_count > 1,
                                           iterations=max(1, iterations), integrator=integrator,
                                           enable_multiccd=True if use_c else None)
    except ValueError as error:
        if "homogeneous worlds" not in str(error):
            raise
        raise SolverRefusal(
            f"MuJoCo through Newton (MuJoCo Warp: a GPU, or replicas beside moving bodies of no world) needs "
            f"every world to hold the same robot ({error}): simulate on the CPU (one replica, or no moving bodies "
            f"of no world), or use FEATHERSTONE or XPBD") from error


@contextlib.contextmanager
def _room_for_long_chains(links: int):
    """Newton's MuJoCo conversion sorts the kinematic tree recursively, one Python frame per
    link: a chain longer than Python's recursion limit (1,000; a cable or a rope) raised
    RecursionError there. The limit is raised while the model and solver are built, then put
    back (pure-Python frames, no C stack)."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, 2 * links + 1000))
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


class Simulation(FrameSteps):
    """A physics description simulated with one solver.

    ``dt`` defaults to ``1 / scene.settings.steps_per_second``; ``substeps`` splits each step
    further. ``on_status`` receives progress lines (e.g. :data:`KERNELS_BUILDING`).

    The MUJOCO solver on a CPU (:func:`on_mujoco_c`) gives a :class:`sim.mujoco_spec.MuJoCoSimulation`
    instead: MuJoCo's C library on the robot's MJCF export, no Newton model and no Warp kernel; it
    starts from the description's keyframe ``keyframe`` when one is named. Everything else is Newton:
    FEATHERSTONE, XPBD, MuJoCo Warp on CUDA, and MUJOCO through Newton's conversion when
    ``mujoco_direct`` is False (Newton's conversion around every step; one world on a CPU is then
    Newton's ``SolverMuJoCo`` on MuJoCo's C library, replicas MuJoCo Warp).
    """

    def __new__(cls, scene: PhysicsScene, device: str = "auto", solver: Solver | str | None = None,
                substeps: int = 1, dt: Optional[float] = None,
                on_status: Optional[Callable[[str], None]] = None, warm: bool = True,
                mujoco_direct: bool = True, keyframe: Optional[str] = None):
        if cls is Simulation and on_mujoco_c(scene, device, solver, mujoco_direct):
            return MuJoCoSimulation(scene, "cpu", solver, substeps, dt, on_status, warm, mujoco_direct,
                                    keyframe)
        return super().__new__(cls)

    def __init__(self, scene: PhysicsScene, device: str = "auto", solver: Solver | str | None = None,
                 substeps: int = 1, dt: Optional[float] = None,
                 on_status: Optional[Callable[[str], None]] = None, warm: bool = True,
                 mujoco_direct: bool = True, keyframe: Optional[str] = None):
        if keyframe is not None:
            raise ValueError(f"keyframe {keyframe!r}: keyframes start MuJoCo's simulation on the CPU only")
        self.scene = scene
        self.solver_kind = Solver(solver or scene.settings.solver)
        self._fallback_note = None
        if self.solver_kind == Solver.MUJOCO and not _mujoco_available():
            self._fallback_note = "MuJoCo (mujoco, mujoco-warp) is not installed: simulated with FEATHERSTONE"
            self.solver_kind = Solver.FEATHERSTONE
        if self.solver_kind == Solver.MUJOCO:
            check_depth_for_mujoco(scene)
        self.device = resolve_device(device, self.solver_kind, scene.settings.replicas)
        self.dt = (dt or 1.0 / scene.settings.steps_per_second) / max(1, int(substeps))
        refuse_unheld_robot(scene, self.solver_kind)  # before building: said up front (sim.preflight)
        # Solver steps per step: a robot this solver holds only at a shorter step (sim.preflight).
        self.split, self._split_notes = split_steps(scene, self.solver_kind, self.dt)
        self.solver_dt = self.dt / self.split
        self.built_kernels = warm and warm_kernels(self.solver_kind, self.device, on_status)
        with wp.ScopedDevice(self.device), _room_for_long_chains(len(scene.bodies)):
            self._build()
        self.time = 0.0
        self.steps = 0
        self.closed = False

    # construction ------------------------------------------------------------------------

    def _build(self):
        # An unchanged robot's model and MuJoCo solver, kept by the last simulation of it that ended.
        settings = self.scene.settings
        # MuJoCo's iterations are MuJoCo's own option; solver_iterations is Featherstone's and XPBD's.
        iterations = settings.mujoco.iterations if self.solver_kind == Solver.MUJOCO else settings.solver_iterations
        self._cache_key = model_cache.fingerprint(self.scene, self.solver_kind, self.device, self.dt, iterations) \
            if self.solver_kind == Solver.MUJOCO and not self.device.startswith("cuda") else None
        cached = model_cache.take(self._cache_key)
        self.built: BuiltModel = cached.built if cached else \
            build_model(self.scene, self.solver_kind, self.device)
        model = self.model = self.built.model
        self._preflight_notes = []
        if self.solver_kind == Solver.FEATHERSTONE:
            self._preflight_notes = featherstone_settings(model, self.built.dofs, self.solver_dt)
            featherstone_contact_materials(model, self.solver_dt)
        self.caps = SolverCaps.of(self.solver_kind)
        self.solver = _make_solver(model, self.solver_kind, self.device, iterations,
                                   settings.mujoco.integrator)
        self._mujoco_bad_qacc = 0  # MuJoCo instabilities seen before the current run (reset)
        self._state_0, self.state_1 = model.state(), model.state()
        self.control = model.control()
        newton.eval_fk(model, model.joint_q, model.joint_qd, self._state_0)
        self.start = model.state()
        self.start.assign(self._state_0)
        # Scenes where no two shapes may touch (groups, worlds, filters) skip collision detection.
        uses_newton_contacts = self.solver_kind != Solver.MUJOCO and model.shape_contact_pair_count > 0
        self.pipeline = newton.CollisionPipeline(model) if uses_newton_contacts else None
        self.contacts = self.pipeline.contacts() if self.pipeline else None
        if self.solver_kind == Solver.FEATHERSTONE:
            refuse_start_overlap(model, self._state_0, self.pipeline, self.contacts)
        dofs = list(self.built.dofs.values())
        needs_inertia = any(d.dof.static_friction or d.dof.dynamic_friction for d in dofs) or \
            any(d.dof.drive_type.value == "ACCELERATION" for d in dofs)
        inertia = dof_inertia(model) if needs_inertia else np.ones(model.joint_dof_count)
        if not self.caps.armature:  # the solver ignores armature: it adds no inertia there
            inertia = np.maximum(inertia - model.joint_armature.numpy(), 1e-9)
        self.effects = JointEffects(dofs, inertia, self.solver_dt, model.joint_dof_count, device=self.device,
                                    kernel_damping=not self.caps.damping,
                                    kernel_effort_limit=self.caps.kernel_drives)
        slots = list(self.built.kinematic.values())
        self.kinematic_keys = list(self.built.kinematic.keys())
        self.kinematic = KinematicDriver(model, [s[0] for s in slots], [s[1] for s in slots],
                                         [s[2] for s in slots])
        self._frame_fraction = (1.0, 1.0)
        self._targets = self.control.joint_target_q.numpy().copy() if self.control.joint_target_q is not None \
            else np.zeros(0)
        self._target_velocities = self.control.joint_target_qd.numpy().copy() \
            if self.control.joint_target_qd is not None else np.zeros(0)
        self.actuator_forces = ActuatorForces(self.built.actuator_forces, self.device)
        self.controls = Controls(self.built.actuators, self.actuator_forces, self.control, self._targets,
                                 self._target_velocities)
        self.wrenches = AppliedWrenches(model)

    @property
    def state_0(self) -> newton.State:
        """Newton's current state (code may edit it directly, as Newton's examples do)."""
        return self._state_0

    # names -------------------------------------------------------------------------------

    @property
    def body_names(self) -> list[str]:
        return [name for name, _ in self.built.body_keys]

    @property
    def body_keys(self) -> list[tuple[str, int]]:
        return list(self.built.body_keys)

    @property
    def notes(self) -> list[str]:
        """What this solver cannot simulate as authored, in plain words."""
        return ([self._fallback_note] if self._fallback_note else []) + list(self.built.notes) + \
            self._split_notes + self._preflight_notes

    @property
    def replicas(self) -> int:
        return len(self.built.replica_offsets)

    # stepping ----------------------------------------------------------------------------

    def step(self):
        """One physics step of ``dt``."""
        self._refuse_if_closed()
        for _ in range(self.split):
            self._newton_step()
        self.steps += 1
        self.time += self.dt

    def _newton_step(self):
        state = self._state_0
        if self.kinematic.count:
            done, count = self._frame_fraction
            self.kinematic.place(state, done / count, count * self.dt)
        if self.effects.writes_joint_f or self.actuator_forces.count:
            if not self.caps.reduced:
                newton.eval_ik(self.model, state, state.joint_q, state.joint_qd)
            self.effects.apply(state.joint_q, state.joint_qd, self.control,
                               more_follow=bool(self.actuator_forces.count))
            self.actuator_forces.apply(state.joint_q, state.joint_qd, self.control.joint_f)
        state.clear_forces()
        self.wrenches.apply_newton(state)
        if self.pipeline is not None:
            self.pipeline.collide(state, self.contacts)
        self.solver.step(state, self.state_1, self.control, self.contacts, self.solver_dt)
        self._state_0, self.state_1 = self.state_1, self._state_0
        if self.caps.reduced and self.effects.clamp_velocities(self._state_0.joint_q, self._state_0.joint_qd):
            newton.eval_fk(self.model, self._state_0.joint_q, self._state_0.joint_qd, self._state_0)

    def advance(self, frame_dt: float, check: bool = True) -> int:
        """Step through ``frame_dt`` (kinematic bodies reach their goal at its end); returns steps.

        Raises :class:`SimulationDiverged` when ``check`` and a body went NaN or blew up.
        """
        self._refuse_if_closed()
        count = 0
        for count, _ in self.advance_steps(frame_dt, check):
            pass
        return count



    def reset(self):
        """Back to the start pose, time 0, targets as authored."""
        data = getattr(self.solver, "mj_data", None) if self.solver_kind == Solver.MUJOCO else None
        if data is not None:  # an instability before the reset is not this run's
            self._mujoco_bad_qacc = _mujoco_bad_state_count(data)
        self._state_0.assign(self.start)
        self.state_1.assign(self.start)
        self.time = 0.0
        self.steps = 0
        for host, device_array, authored in ((self._targets, self.control.joint_target_q, self.model.joint_target_q),
                                             (self._target_velocities, self.control.joint_target_qd,
                                              self.model.joint_target_qd)):
            if device_array is not None:
                host[:] = authored.numpy()
                device_array.assign(host)
        if self.effects.friction_count:
            self.effects.stuck.zero_()
        self.controls.reset()

    def close(self):
        """End this simulation: its model and MuJoCo solver go to :mod:`sim.model_cache` for the next
        simulation of the same robot (idempotent). Its last state stays readable (Newton's copy);
        it must not be stepped again."""
        key, self._cache_key = getattr(self, "_cache_key", None), None
        self.closed = True
        if key is None or self.model.world_count > 1:
            return
        model_cache.give_back(key, self.built, self.solver)

    def _refuse_if_closed(self):
        if self.closed:  # its solver may already step the next simulation
            raise RuntimeError("this simulation was closed: build a new Simulation to step again")

    # reading -----------------------------------------------------------------------------

    def body_poses(self) -> np.ndarray:
        """World poses (n, 7) as px, py, pz, qw, qx, qy, qz, in :attr:`body_keys` order."""
        q = self._state_0.body_q.numpy()[self.built.body_index]
        return np.concatenate([q[:, :3], q[:, 6:7], q[:, 3:6]], axis=1)

    def body_velocities(self) -> np.ndarray:
        """(n, 6): linear (of the centre of mass) and angular velocity, world space."""
        return self._state_0.body_qd.numpy()[self.built.body_index]

    def joint_positions(self, replica: int = 0) -> dict[tuple[str, str], float]:
        """Each DOF's coordinate as the file means it (Newton's counts from the DOF's ``DofInfo.zero``,
        the authored pose unless moved): {(joint name, axis): value} (ball joints are absent)."""
        q = self._joint_state()[0]
        return {(j, a): float(q[info.q_index]) + info.zero for (j, a, r), info in self.built.dofs.items()
                if r == replica and info.q_index >= 0}

    def joint_velocities(self, replica: int = 0) -> dict[tuple[str, str], float]:
        qd = self._joint_state()[1]
        return {(j, a): float(qd[info.qd_index]) for (j, a, r), info in self.built.dofs.items()
                if r == replica}

    def _joint_state(self):
        state = self._state_0
        if not self.caps.reduced:
            newton.eval_ik(self.model, state, state.joint_q, state.joint_qd)
        return state.joint_q.numpy(), state.joint_qd.numpy()

    def _mujoco_instability(self) -> Optional[tuple[str, int]]:
        """(body, 0) when MuJoCo's C library met a NaN/huge acceleration since the start: it then
        resets its state to the start pose by itself and warns only on its log, so the poses
        alone would look finite. The body is the one of the DOF it names."""
        data = getattr(self.solver, "mj_data", None) if self.solver_kind == Solver.MUJOCO else None
        if data is None:
            return None
        try:
            import mujoco

            if _mujoco_bad_state_count(data) <= self._mujoco_bad_qacc:
                return None
            warning = max((data.warning[w] for w in _mujoco_bad_state_warnings()), key=lambda w: w.number)
            model = self.solver.mj_model
            body = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY,
                                     int(model.dof_bodyid[max(0, min(warning.lastinfo, model.nv - 1))]))
        except (ImportError, AttributeError, IndexError, TypeError):
            return None
        return (body if body in self.body_names else self.body_names[0]), 0

    def diverged(self) -> Optional[tuple[str, int]]:
        """(body, replica) of the first body whose pose is NaN or out of bounds, else None (also a
        MuJoCo instability its C library reset by itself, see :meth:`_mujoco_instability`)."""
        unstable = self._mujoco_instability()
        if unstable is not None:
            return unstable
        q = self._state_0.body_q.numpy()[self.built.body_index]
        qd = self._state_0.body_qd.numpy()[self.built.body_index]
        bad = ~np.isfinite(q).all(axis=1) | ~np.isfinite(qd).all(axis=1)
        # Positions flying off are a blow-up; speeds only when no longer finite: a link spinning
        # fast about its pivot is what Newton's own solver gives too (revolute_articulation.usda
        # with Featherstone's explicit drive at 1e5 per degree), and Newton calls that finite.
        bad |= np.abs(q[:, :3]).max(axis=1) > BLOW_UP_DISTANCE
        hits = np.flatnonzero(bad)
        return self.built.body_keys[hits[0]] if len(hits) else None

    def raise_if_diverged(self):
        hit = self.diverged()
        if hit is not None:
            raise SimulationDiverged(*hit)

    # writing -----------------------------------------------------------------------------

    def set_kinematic_poses(self, poses: Mapping[str, Pose | Iterable[float]]):
        """Goal world poses of kinematic bodies for the end of the next :meth:`advance`.

        ``poses`` maps a body name to a :class:`Pose` or (px, py, pz, qw, qx, qy, qz); every
        replica gets the same motion, shifted by its grid offset. Bodies not given stay put.
        """
        if not self.kinematic.count:
            if poses:
                raise KeyError(f"no kinematic bodies: {sorted(poses)}")
            return
        goal = self.kinematic.goal.copy()
        for i, (name, replica) in enumerate(self.kinematic_keys):
            if name not in poses:
                continue
            pose = poses[name]
            if isinstance(pose, Pose):
                px, py, pz = pose.pos
                qw, qx, qy, qz = pose.rot
            else:
                px, py, pz, qw, qx, qy, qz = (float(v) for v in pose)
            ox, oy, oz = self.built.replica_offsets[replica]
            norm = math.sqrt(qw * qw + qx * qx + qy * qy + qz * qz) or 1.0
            goal[i] = (px + ox, py + oy, pz + oz, qx / norm, qy / norm, qz / norm, qw / norm)
        unknown = set(poses) - {name for name, _ in self.kinematic_keys}
        if unknown:
            raise KeyError(f"not kinematic bodies: {sorted(unknown)}")
        self.kinematic.set_goal(goal)

    def set_start_poses(self, poses: Mapping[str, Pose]):
        """Start from these world poses (every replica, shifted by its offset) instead of the
        description's: the joint coordinates follow by inverse kinematics, so the joint frames
        (the zeros) stay the description's. Bodies not given keep their description pose; velocities
        stay the description's; time 0.
        """
        if not poses:
            return
        body_q = self._state_0.body_q.numpy().copy()
        for (name, replica), slot in zip(self.built.body_keys, self.built.body_index):
            pose = poses.get(name)
            if pose is None:
                continue
            ox, oy, oz = self.built.replica_offsets[replica]
            (px, py, pz), (qw, qx, qy, qz) = pose.pos, pose.rot
            body_q[slot] = (px + ox, py + oy, pz + oz, qx, qy, qz, qw)
        state = self._state_0
        state.body_q.assign(body_q)
        newton.eval_ik(self.model, state, state.joint_q, state.joint_qd)
        newton.eval_fk(self.model, state.joint_q, state.joint_qd, state)
        self.state_1.assign(state)
        self.start.assign(state)
        self.time = 0.0
        self.steps = 0

    def set_controls(self, values: Mapping[str, float]):
        """Actuator controls, {actuator name: value} in SI (a position servo's is the DOF position,
        rad or m; a motor's an effort before its gear), every replica, clamped to each actuator's
        control range as MuJoCo clamps ``ctrl``; held until changed. Cheap per frame: no rebuild."""
        self.controls.set(values)

    @property
    def actuator_controls(self) -> dict[str, float]:
        """Each actuator's current control (after clamping), by name."""
        return dict(self.controls.values)

    def set_drive_targets(self, targets: Mapping, velocities: Optional[Mapping] = None):
        """Drive targets: {(joint, axis) or joint (single-DOF joints): value}, every replica."""
        self._write_targets(targets, self._targets, self.control.joint_target_q, "q_index")
        if velocities:
            self._write_targets(velocities, self._target_velocities, self.control.joint_target_qd, "qd_index")

    def _write_targets(self, values: Mapping, host: np.ndarray, device_array, field: str):
        if not values:
            return
        for key, value in values.items():
            infos = self._dofs_for(key)
            for info in infos:
                index = getattr(info, field)
                if index >= 0:
                    host[index] = value - (info.zero if field == "q_index" else 0.0)
        if device_array.device.is_cpu:  # set every frame when animated: no copy through Warp's checks
            device_array.numpy()[:] = host
        else:
            device_array.assign(host)

    def _dofs_for(self, key):
        cache = self.__dict__.setdefault("_dof_lookup", {})  # set per frame for animated robots
        if key not in cache:
            cache[key] = self._find_dofs(key)
        return cache[key]

    def _find_dofs(self, key):
        if isinstance(key, tuple):
            joint, axis = key
            infos = [i for (j, a, _), i in self.built.dofs.items() if j == joint and a == axis]
        else:
            infos = [i for (j, _, _), i in self.built.dofs.items() if j == key]
            if len({i.axis for i in infos}) > 1:
                raise KeyError(f"joint {key!r} has several DOFs: give (joint, axis)")
        if not infos and (key[0] if isinstance(key, tuple) else key) in self.built.left_out_joints:
            return []  # a joint this solver leaves out: nothing to set
        if not infos:
            raise KeyError(f"no simulated DOF {key!r}")
        return infos

    def set_joint_velocities(self, velocities: Mapping, replica: Optional[int] = None):
        """Set DOF velocities now: {(joint, axis) or joint: value} (every replica unless given)."""
        state = self._state_0
        if not self.caps.reduced:  # joint_qd is stale until recovered from the body state
            newton.eval_ik(self.model, state, state.joint_q, state.joint_qd)
        qd = state.joint_qd.numpy().copy()
        for key, value in velocities.items():
            for info in self._dofs_for(key):
                if replica is None or self._replica_of(info) == replica:
                    qd[info.qd_index] = value
        state.joint_qd.assign(qd)
        newton.eval_fk(self.model, state.joint_q, state.joint_qd, state)

    def _replica_of(self, info) -> int:
        return next(r for (j, a, r), i in self.built.dofs.items() if i is info)

    def set_body_wrench(self, row: int, force=(0.0, 0.0, 0.0), torque=(0.0, 0.0, 0.0)):
        """A world-frame force (N) and torque (N*m) at the centre of mass of body ``row`` (in
        :attr:`body_keys` order), applied on every step until :meth:`clear_body_wrench`."""
        wrench = (np.asarray(force, dtype=np.float64), np.asarray(torque, dtype=np.float64))
        self.set_body_pull(row, lambda motion: wrench)

    def set_body_pull(self, row: int, source: WrenchSource):
        """A wrench recomputed before every step from body ``row``'s motion (``source`` gets a
        :class:`sim.wrenches.BodyMotion`, returns (force, torque) at the centre of mass, world frame,
        or None when done); applied until it returns None or :meth:`clear_body_wrench`."""
        self.wrenches.set(int(self.built.body_index[row]), source)

    def clear_body_wrench(self, row: Optional[int] = None):
        """No more wrench on body ``row`` (every body when None)."""
        if row is None:
            self.wrenches.clear()
        else:
            self.wrenches.set(int(self.built.body_index[row]), None)

    def set_joint_efforts(self, efforts: Mapping):
        """Applied joint efforts (N or N*m), held until changed: {(joint, axis) or joint: value}."""
        values = self.effects.applied_f.numpy().copy()
        for key, value in efforts.items():
            for info in self._dofs_for(key):
                values[info.qd_index] = value
        self.effects.set_applied(self.control.joint_f, values)
