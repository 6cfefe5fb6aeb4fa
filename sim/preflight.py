"""Before a Newton simulation steps: settings Featherstone keeps stable at the step it runs, the solver
steps a floating robot needs (the step split by itself), and what Featherstone or XPBD cannot hold, refused
up front with what would hold it (:class:`SolverRefusal`). The numbers come from the solver sweep
(bench/bench_solver_sweep.py; docs/simulation.md, "Which solver holds which robot").

Featherstone integrates joint forces explicitly (semi-implicit Euler in joint space): a spring ``k`` and a
damper ``c`` on a DOF of effective inertia ``I`` stay stable while ``sqrt(k / I) * dt`` and ``c * dt / I``
stay under 2. Newton's hard-limit spring (1e4 N*m/rad, 10 N*m*s) breaks both on light joints at
MuJoCo's 2 ms step (go1's knee: I = 0.0057 kg*m^2, sqrt(k / I) * dt = 2.65, c * dt / I = 3.5).
MuJoCo scales its limit constraint by the DOF's inertia (solref); Featherstone's limit spring is scaled
the same way here.
"""

from __future__ import annotations

import math

import numpy as np

import newton

from ..core.articulation import find_articulations
from ..core.model import DofMotion, PhysicsScene, Solver
from .builder import HARD_LIMIT_KD, HARD_LIMIT_KE, SimulationBuildError, mass_matrix_blocks

#: A hard limit's spring on Featherstone: natural frequency times step (critically damped). One DOF alone
#: is stable below 2, but limits, contacts and the pose change the inertia each meets: go1 limp on the
#: ground still diverged at 0.5 (0.76 s) and holds at 0.2.
LIMIT_OMEGA_DT = 0.2


def effective_inertia(model: newton.Model, blocks: list) -> np.ndarray:
    """Each DOF's effective inertia at the model's initial pose: 1 / (H^-1)_ii, what a torque on the
    DOF alone meets when every other DOF of its articulation is free (a knee of a floating robot meets
    less than the mass matrix's diagonal). ``blocks``: :func:`sim.builder.mass_matrix_blocks`."""
    inertia = np.ones(model.joint_dof_count)
    for first, last, block in blocks:
        try:
            inertia[first:last] = 1.0 / np.diagonal(np.linalg.inv(block))
        except np.linalg.LinAlgError:
            inertia[first:last] = np.diagonal(block)
    return np.maximum(inertia, 1e-12)


def soften_hard_limits(model: newton.Model, dofs: dict, dt: float, inertia: np.ndarray) -> None:
    """Featherstone's hard-limit springs scaled to each DOF's effective inertia so they stay stable at
    ``dt`` (never stiffer than Newton's default); limits authored with their own stiffness stay as
    authored."""
    ke, kd = model.joint_limit_ke.numpy(), model.joint_limit_kd.numpy()
    omega = LIMIT_OMEGA_DT / dt
    for info in dofs.values():
        dof = info.dof
        if dof.motion != DofMotion.LIMITED or dof.limit_stiffness > 0.0:
            continue
        i = info.qd_index
        ke[i] = min(HARD_LIMIT_KE, inertia[i] * omega * omega)
        kd[i] = min(HARD_LIMIT_KD, 2.0 * inertia[i] * omega)
    model.joint_limit_ke.assign(ke)
    model.joint_limit_kd.assign(kd)


#: Featherstone's explicit joint springs and dampers: largest sqrt(k / I) * dt and c * dt / I kept, for each
#: DOF alone and for each mode of DOFs coupled through the chain (stable below 2; kept at half that, as
#: the inertia each mode meets changes with the pose and with contacts).
SPRING_OMEGA_DT = 0.5
DAMPER_DT = 1.0


def _actuator_gains(dof) -> tuple[float, float]:
    """The stiffness and damping a DOF's position/velocity servos add (MuJoCo's biasprm: 0, -kp, -kv)."""
    stiffness = damping = 0.0
    for actuator in dof.actuators:
        gear2 = actuator.gear * actuator.gear
        if len(actuator.bias) > 1:
            stiffness += max(0.0, -actuator.bias[1]) * gear2
        if len(actuator.bias) > 2:
            damping += max(0.0, -actuator.bias[2]) * gear2
    return stiffness, damping


def explicit_gains(model: newton.Model, dofs: dict) -> tuple[np.ndarray, np.ndarray]:
    """Each DOF's stiffness and damping that Featherstone applies explicitly: joint springs and dampers,
    drives and position/velocity servos (hard limits are left out: :func:`soften_hard_limits` scales
    them)."""
    stiffness = model.joint_target_ke.numpy() + model.joint_stiffness.numpy()
    damping = model.joint_target_kd.numpy() + model.joint_damping.numpy()
    for info in dofs.values():
        servo_k, servo_c = _actuator_gains(info.dof)
        stiffness[info.qd_index] += servo_k
        damping[info.qd_index] += servo_c
    return stiffness, damping


def _modes(block: np.ndarray, stiffness: np.ndarray, damping: np.ndarray, dt: float):
    """(size, shape) of each mode of one articulation: size is sqrt(k / I) * dt / SPRING_OMEGA_DT or
    c * dt / I / DAMPER_DT (generalized eigenvalues of its stiffness and damping against its mass matrix),
    shape the DOFs' amplitudes in it."""
    inverse = np.linalg.inv(np.linalg.cholesky(block))
    for diagonal, size in ((stiffness, lambda e: np.sqrt(e) * dt / SPRING_OMEGA_DT),
                           (damping, lambda e: e * dt / DAMPER_DT)):
        values, vectors = np.linalg.eigh((inverse * diagonal) @ inverse.T)
        yield from zip(size(np.maximum(values, 0.0)), (inverse.T @ vectors).T)


def stiffest_mode(block: np.ndarray, stiffness: np.ndarray, damping: np.ndarray, dt: float) -> float:
    """The largest mode of one articulation (:func:`_modes`): at most 1 where Featherstone's explicit step
    holds them all."""
    return max((size for size, _ in _modes(block, stiffness, damping, dt)), default=0.0)


#: A DOF takes part in a mode whose amplitude there is at least this share of the mode's largest.
MODE_SHARE = 0.1


def armature_for_coupled_modes(block: np.ndarray, stiffness: np.ndarray, damping: np.ndarray,
                                dt: float, per_dof: np.ndarray) -> np.ndarray:
    """Armature for one articulation: ``per_dof`` (each DOF alone held), plus the least share ``t`` of
    each sprung or damped DOF's own need that holds every coupled mode as well (dm_control's dog: the
    stacked hinges of its scapula and shoulder, each held alone, made one mode at c * dt / I = 2.3).
    Only the DOFs of the modes that outrun the step are given more; at t = 1 given to every DOF, the
    armature alone bounds every mode."""
    need = np.maximum(stiffness * (dt / SPRING_OMEGA_DT) ** 2, damping * dt / DAMPER_DT)
    if not need.any():
        return per_dof
    try:
        fast = [np.abs(shape) for size, shape in _modes(block + np.diag(per_dof), stiffness, damping, dt)
                if size > 1.0 + 1e-9]
    except np.linalg.LinAlgError:  # a chain of massless links: no mode to judge, each DOF held alone
        return per_dof
    if not fast:
        return per_dof
    taking_part = np.any([shape >= MODE_SHARE * shape.max() for shape in fast], axis=0)
    for share in (need * taking_part, need):
        def holds(t):
            return stiffest_mode(block + np.diag(per_dof + t * share), stiffness, damping, dt) <= 1.0 + 1e-9

        if holds(1.0):
            low, high = 0.0, 1.0
            for _ in range(30):
                low, high = (low, (low + high) / 2) if holds((low + high) / 2) else ((low + high) / 2, high)
            return per_dof + high * share
    return per_dof + need


#: Armature under this share of a DOF's effective inertia changes nothing anyone sees: added, not noted.
NOTED_SHARE = 0.01


def armature_for_explicit_step(model: newton.Model, dofs: dict, dt: float, blocks: list,
                               inertia: np.ndarray) -> dict:
    """Armature added to each DOF whose spring or damper would outrun Featherstone's explicit step on its
    inertia, alone or coupled with its neighbours through the chain (jaco's last link: 1e-6 kg*m^2
    against a 0.01 N*m*s damper went NaN in the first step, at any substep count up to 8);
    {(joint, axis): added kg*m^2 (or kg)}. MuJoCo integrates damping implicitly, and real arms carry rotor
    inertia: an armature this small leaves the motion as it was."""
    stiffness, damping = explicit_gains(model, dofs)
    per_dof = np.maximum(0.0, np.maximum(stiffness * (dt / SPRING_OMEGA_DT) ** 2, damping * dt / DAMPER_DT)
                         - inertia)
    extra = per_dof.copy()
    for first, last, block in blocks:
        span = slice(first, last)
        extra[span] = armature_for_coupled_modes(block, stiffness[span], damping[span], dt, per_dof[span])
    worth_saying = extra > NOTED_SHARE * inertia
    added = {(joint, axis): float(extra[info.qd_index]) for (joint, axis, replica), info in dofs.items()
             if replica == 0 and worth_saying[info.qd_index]}
    if (extra > 0.0).any():
        model.joint_armature.assign(model.joint_armature.numpy() + extra.astype(np.float32))
    return added


def featherstone_settings(model: newton.Model, dofs: dict, dt: float) -> list[str]:
    """Featherstone's own settings at step ``dt`` (limits scaled, armature where a spring or damper needs
    it); returns the notes that say what was repaired."""
    blocks = list(mass_matrix_blocks(model))
    inertia = effective_inertia(model, blocks)
    soften_hard_limits(model, dofs, dt, inertia)
    added = armature_for_explicit_step(model, dofs, dt, blocks, inertia)
    if not added:
        return []
    listed = ", ".join(f"{joint!r} ({axis}) +{amount:.2g}" for (joint, axis), amount in sorted(added.items()))
    return [f"FEATHERSTONE steps joint springs and dampers explicitly: armature added where one would outrun "
            f"the {dt * 1000:g} ms step on a light link (as MuJoCo's balanceinertia repairs inertias): "
            f"{listed}"]


class SolverRefusal(SimulationBuildError):
    """This solver cannot hold the robot at any step Articula takes by itself: said before simulating,
    with what would (MuJoCo, or a shorter step)."""


#: The longest solver step (s) at which the solver held the floating robots of the sweep, limp on the
#: ground (docs/simulation.md, "Which solver holds which robot"): Featherstone needed 0.5 ms for robosuite's
#: gr1 (diverged at 2 and 1 ms), 1 ms for mjlab's g1; XPBD 1 ms for go1 and gr1 (diverged at 2 ms). A
#: floating robot is stepped this short by itself: the step asked for is split into solver steps.
FLOATING_ON_CONTACT_STEP = {Solver.FEATHERSTONE: 0.5e-3, Solver.XPBD: 1.0e-3}
#: Most solver steps Articula splits one step into by itself. Not a refusal past it: robots that are
#: not as stiff hold at far longer steps (gymnasium's ant at 10 ms, Newton's nv_ant at 16 ms on Featherstone).
MAX_SPLIT = 8


def floating_robots(scene: PhysicsScene) -> list[str]:
    """Roots of the floating articulations of two or more bodies (a robot, not a loose ball)."""
    return [a.root for a in find_articulations(scene) if a.base_joint is None and not a.fixed_base
            and len(a.bodies) > 1 and not scene.body(a.root).kinematic]


def split_steps(scene: PhysicsScene, solver: Solver, dt: float) -> tuple[int, list[str]]:
    """Solver steps per step of ``dt`` that ``solver`` needs to hold ``scene``, and the note that says
    so; at most :data:`MAX_SPLIT`, the note then saying what to do if the robot does not hold."""
    solver = Solver(solver)
    longest = FLOATING_ON_CONTACT_STEP.get(solver)
    floating = floating_robots(scene) if longest else []
    if not floating or dt <= longest * (1.0 + 1e-6):
        return 1, []
    split = math.ceil(dt / longest - 1e-6)
    why = (f"floating robot {floating[0]!r}: {solver.value} held every floating robot of the solver sweep at "
           f"a {longest * 1000:g} ms step, not at {dt * 1000:g} ms")
    if split > MAX_SPLIT:
        shortest = dt / MAX_SPLIT * 1000
        return MAX_SPLIT, [f"{why}: each step is split into {MAX_SPLIT} solver steps ({shortest:g} ms); "
                           f"if it does not hold, simulate it on MuJoCo, or with {split} substeps"]
    return split, [f"{why}: each step is split into {split} solver steps"]


#: XPBD and floating robots jointed mostly by three-axis joints (ball joints written as three hinges): the
#: share of their bodies on such a joint past which XPBD is refused. dm_control's CMU humanoid (10 of 31
#: bodies) diverged on XPBD at every substep count up to 8, with self-collision, limits, springs or damping
#: off, and with its 11 g hip links made 0.5 kg; Newton's own XPBD on the file diverged in 0.04 s.
#: dm_control's dog (1 such body of 61) and gymnasium's Adroit hand (fixed) hold. Measured on these robots
#: only.
BALL_JOINTED_SHARE = 0.25


def three_axis_bodies(scene: PhysicsScene, articulation) -> list[str]:
    """Bodies of ``articulation`` that turn about three axes against their parent."""
    turning = []
    for body in articulation.bodies:
        axes = {dof.axis for joint in articulation.edge_joints(body) for dof in joint.dofs
                if dof.motion != DofMotion.LOCKED and dof.axis.value.startswith("rot")}
        if len(axes) >= 3:
            turning.append(body)
    return turning


def refuse_unheld_robot(scene: PhysicsScene, solver: Solver) -> None:
    """Raises :class:`SolverRefusal` for a floating robot XPBD cannot hold
    (see :data:`BALL_JOINTED_SHARE`)."""
    if Solver(solver) != Solver.XPBD:
        return
    for articulation in find_articulations(scene):
        if articulation.root not in floating_robots(scene):
            continue
        turning = three_axis_bodies(scene, articulation)
        if len(turning) > BALL_JOINTED_SHARE * len(articulation.bodies):
            raise SolverRefusal(
                f"this robot needs MuJoCo, or Featherstone: floating robot {articulation.root!r} turns "
                f"{len(turning)} of its {len(articulation.bodies)} bodies about three axes each "
                f"({', '.join(repr(b) for b in turning[:3])}, ...): XPBD does not hold a robot jointed this "
                f"way (dm_control's CMU humanoid diverged at every substep count up to 8)")


#: Two bodies that start further inside each other than this (m) are thrown apart at once by Featherstone's
#: explicit contact spring. Measured on the corpus: robosuite's robotiq_gripper_140 (knuckles 11.8 mm
#: inside its fingers, which MuJoCo's soft contacts ease apart) went NaN in the first frame at every
#: substep count up to 8; robosuite's panda (5.7 mm) and dm_control's jaco_arm (7.5 mm) hold.
START_OVERLAP_LIMIT = 0.010


def deepest_start_overlap(model: newton.Model, state: newton.State,
                          contacts) -> tuple[float, str, str] | None:
    """(depth, body, body) of the deepest overlap between two moving bodies in ``contacts`` (collided at
    ``state``), or None when none overlap."""
    count = int(contacts.rigid_contact_count.numpy()[0])
    if not count:
        return None
    shape_body = model.shape_body.numpy()
    body_a = shape_body[contacts.rigid_contact_shape0.numpy()[:count]]
    body_b = shape_body[contacts.rigid_contact_shape1.numpy()[:count]]
    between_bodies = (body_a >= 0) & (body_b >= 0) & (body_a != body_b)
    if not between_bodies.any():
        return None
    body_q = state.body_q.numpy()
    point_a = _to_world(body_q[body_a], contacts.rigid_contact_point0.numpy()[:count])
    point_b = _to_world(body_q[body_b], contacts.rigid_contact_point1.numpy()[:count])
    depth = -np.einsum("ij,ij->i", contacts.rigid_contact_normal.numpy()[:count], point_b - point_a)
    depth[~between_bodies] = -np.inf
    deepest = int(np.argmax(depth))
    if depth[deepest] <= 0.0:
        return None
    labels = model.body_label
    return float(depth[deepest]), labels[body_a[deepest]], labels[body_b[deepest]]


def _to_world(body_q: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Body-frame points to world space (body_q rows: px, py, pz, qx, qy, qz, qw)."""
    v, w = body_q[:, 3:6], body_q[:, 6:7]
    t = 2.0 * np.cross(v, points)
    return body_q[:, :3] + points + w * t + np.cross(v, t)


def refuse_start_overlap(model: newton.Model, state: newton.State, pipeline, contacts) -> None:
    """Raises :class:`SolverRefusal` when two bodies start overlapping past :data:`START_OVERLAP_LIMIT`
    (Featherstone only: XPBD projects them apart, MuJoCo eases them apart)."""
    if pipeline is None:
        return
    pipeline.collide(state, contacts)
    overlap = deepest_start_overlap(model, state, contacts)
    if overlap is not None and overlap[0] > START_OVERLAP_LIMIT:
        depth, a, b = overlap
        raise SolverRefusal(f"this robot needs MuJoCo, or XPBD: bodies {a!r} and {b!r} start "
                            f"{depth * 1000:.0f} mm inside each other, and FEATHERSTONE's contact spring "
                            f"throws them apart at once")
