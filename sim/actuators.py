"""Actuators, fixed tendons and coupled joints in the simulation.

How each solver gets them (``Actuator`` is MuJoCo's general form, see core.model):

- MUJOCO: every actuator is a MuJoCo actuator, added with Newton's
  ``newton.solvers.mujoco.add_actuator_general`` (gain, bias, gear, control and force ranges,
  activation dynamics as the description holds them), on its DOF or on its fixed tendon
  (``add_tendon_fixed``); it reads its control from ``control.mujoco.ctrl``. A DOF's own drive
  is applied only when that DOF has no actuator.
- FEATHERSTONE, XPBD: a DOF's first position or velocity servo becomes its joint drive
  (MuJoCo's force ``gear * (kp * ctrl - kp * gear * q - kv * gear * qd)`` is a drive with
  stiffness ``kp * gear^2``, damping ``kv * gear^2`` and target ``ctrl / gear``; the force range
  clamps the effort at ``max |force_range| * gear``). Every other actuator with a fixed or affine
  gain (motors, further servos, tendon actuators) is MuJoCo's force law itself, applied by
  :func:`actuator_force_kernel` through ``control.joint_f`` (explicitly: no activation dynamics,
  the ctrl acts at once).
- ``Joint.mimic`` is Newton's joint-owned mimic (``ModelBuilder.set_joint_mimic``) on every solver:
  a MuJoCo joint equality, Featherstone's coordinate reduction, an XPBD constraint.

What a solver cannot simulate as authored is said in the build notes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Mapping, Optional

import numpy as np
import warp as wp

import newton

from ..core.model import Actuator, ActuatorKind, Dof, DriveType, FixedTendon, Joint, PhysicsScene, Solver
from .control_range import clamp_control  # noqa: F401 (also imported from here)

#: MuJoCo's custom-frequency key for actuator rows in a Newton builder.
MUJOCO_ACTUATOR_ROWS = "mujoco:actuator"
#: Gain types the force kernel evaluates (MuJoCo's names).
KERNEL_GAINS = ("fixed", "affine")


# ---------------------------------------------------------------------------------------------
# the description's actuators, read the way MuJoCo reads them


def max_force(actuator: Actuator) -> float:
    """The joint effort an actuator can reach: ``max |force_range| * |gear|`` (inf when unlimited)."""
    if actuator.force_range is None:
        return math.inf
    return max(abs(v) for v in actuator.force_range) * abs(actuator.gear)


def _padded(values: tuple[float, ...], size: int = 3) -> tuple[float, ...]:
    return tuple(values[:size]) + (0.0,) * max(0, size - len(values))


def _shifted(affine: tuple[float, float, float], length_offset: float) -> tuple[float, float, float]:
    """(a0, a1, a2) of a0 + a1 * length + a2 * velocity for a length measured ``length_offset``
    short: the kernel reads Newton's coordinates, which count from the authored pose."""
    return (affine[0] + affine[1] * length_offset, affine[1], affine[2])


def is_servo(actuator: Actuator) -> bool:
    return actuator.kind in (ActuatorKind.POSITION, ActuatorKind.VELOCITY) and actuator.gear != 0.0


def drive_servo(dof: Dof, solver: Solver) -> Optional[Actuator]:
    """The actuator that becomes this DOF's joint drive (FEATHERSTONE/XPBD: its first servo)."""
    if solver == Solver.MUJOCO:
        return None
    return next((a for a in dof.actuators if is_servo(a)), None)


def simulated_dof(joint: Joint, dof: Dof, solver: Solver, notes: list[str]) -> Dof:
    """The DOF as the solver gets it: on MUJOCO without its drive when actuators move it; on the
    others with its first servo as the drive (the description is left untouched)."""
    if not dof.actuators:
        return dof
    where = f"joint {joint.name!r} {dof.axis.value}"
    if solver == Solver.MUJOCO:
        if dof.drive_enabled:
            notes.append(f"{where}: its drive is not applied on MUJOCO, its actuators "
                         f"{_names(dof.actuators)} move it")
            return replace(dof, drive_enabled=False)
        return dof
    servo = drive_servo(dof, solver)
    if servo is None:
        return dof
    if dof.drive_enabled:
        notes.append(f"{where}: its drive is replaced by actuator {servo.name!r} on {solver.value}")
    gear2 = servo.gear * servo.gear
    control = clamp_control(servo, servo.control) / servo.gear
    position = servo.kind == ActuatorKind.POSITION
    if servo.force_range is not None and solver == Solver.XPBD:
        notes.append(f"actuator {servo.name!r}: its force range is not applied on XPBD (implicit drives)")
    elif servo.force_range is not None and servo.force_range[0] != -servo.force_range[1]:
        notes.append(f"actuator {servo.name!r}: force range {servo.force_range} is clamped symmetrically "
                     f"at {max_force(servo):g} on {solver.value}")
    return replace(dof, drive_enabled=True, drive_type=DriveType.FORCE,
                   drive_stiffness=servo.kp * gear2, drive_damping=servo.kv * gear2,
                   target_position=control if position else 0.0,
                   target_velocity=0.0 if position else control,
                   max_effort=max_force(servo))


def _names(actuators) -> str:
    return ", ".join(repr(a.name) for a in actuators)


def has_actuation(scene: PhysicsScene) -> bool:
    return bool(scene.tendons or scene.actuators())


# ---------------------------------------------------------------------------------------------
# building: MuJoCo rows and mimic joints in one world template


@dataclass
class TemplateActuation:
    """What one world template holds: its MuJoCo actuator rows, in row order (actuator names)."""

    rows: list[str] = field(default_factory=list)


def _mujoco_gear(actuator: Actuator) -> tuple[float, ...]:
    return (float(actuator.gear),)


def _bias_type(actuator: Actuator) -> str:
    if actuator.bias_type != "affine":  # a muscle's, or a user bias
        return actuator.bias_type
    return "affine" if any(actuator.bias) else "none"


def _actuator_attributes(actuator: Actuator) -> dict:
    """MuJoCo's actuator name, and a muscle's length range where the description has one (else Newton's
    MuJoCo compiler finds it, as MuJoCo's does)."""
    attributes = {"mujoco:actuator_label": actuator.name}
    if actuator.length_range is not None:
        attributes["mujoco:actuator_lengthrange"] = wp.vec2(*actuator.length_range)
    return attributes


def _add_mujoco_actuator(builder: newton.ModelBuilder, target, actuator: Actuator) -> int:
    from newton.solvers import mujoco as nm

    return nm.add_actuator_general(
        builder, target,
        dyntype=actuator.dyn_type, gaintype=actuator.gain_type, biastype=_bias_type(actuator),
        dynprm=actuator.dyn_params or (0.0,), gainprm=actuator.gain or (0.0,),
        biasprm=actuator.bias or (0.0,),
        gear=_mujoco_gear(actuator),
        ctrlrange=actuator.ctrl_range, ctrllimited=actuator.ctrl_range is not None,
        forcerange=actuator.force_range, forcelimited=actuator.force_range is not None,
        ctrl=clamp_control(actuator, actuator.control),
        custom_attributes=_actuator_attributes(actuator))


def add_mimics(builder: newton.ModelBuilder, scene: PhysicsScene, joint_index: dict[str, int],
               notes: list[str], zero_shifts: Mapping[str, float] | None = None):
    """``Joint.mimic`` of the template's joints -> Newton joint-owned mimics (every solver). ``zero_shifts``:
    {joint: how far its Newton zero was moved from the authored pose} (sim.builder.zero_shift, XPBD)."""
    shift = (zero_shifts or {}).get
    for name, follower in joint_index.items():
        joint = scene.joint(name)
        if joint is None or joint.mimic is None:
            continue
        leader = joint_index.get(joint.mimic.leader)
        if leader is None:
            notes.append(f"joint {name!r}: its leader {joint.mimic.leader!r} is not simulated with it; "
                         f"the coupling is not simulated")
            continue
        if leader == follower:
            notes.append(f"joint {name!r}: it and its leader {joint.mimic.leader!r} are one Newton joint "
                         f"(stacked on the same bodies); the coupling is not simulated")
            continue
        try:
            offset = joint.mimic.offset
            if shift(name) or shift(joint.mimic.leader):  # in Newton's coordinates, counted from the zeros
                offset += joint.mimic.gear * shift(joint.mimic.leader, 0.0) - shift(name, 0.0)
            builder.set_joint_mimic(follower, leader, coeffs=(offset, joint.mimic.gear))
        except ValueError as error:
            notes.append(f"joint {name!r}: the coupling to {joint.mimic.leader!r} is not simulated ({error})")
            continue
        if any(joint.mimic.higher_terms):
            notes.append(f"joint {name!r}: its coupling's polynomial terms {joint.mimic.higher_terms} are "
                         f"simulated on MuJoCo's C library only (Newton's mimic is linear: offset and gear)")


def add_mujoco_actuation(builder: newton.ModelBuilder, scene: PhysicsScene, joint_index: dict[str, int],
                         dof_index: dict[tuple[str, str], int], notes: list[str]) -> TemplateActuation:
    """The template's fixed tendons and actuators as MuJoCo rows (``dof_index``: (joint, axis) ->
    template-local DOF index, the DOFs this template simulates)."""
    from newton.solvers import mujoco as nm

    newton.solvers.SolverMuJoCo.register_custom_attributes(builder)
    result = TemplateActuation()
    for (joint_name, axis), qd in dof_index.items():
        dof = scene.joint(joint_name).dof(axis)
        for actuator in dof.actuators:
            try:
                _add_mujoco_actuator(builder, nm.ActuatorTarget.joint_dof(qd), actuator)
            except ValueError as error:
                notes.append(f"actuator {actuator.name!r} on joint {joint_name!r}: not simulated ({error})")
                continue
            result.rows.append(actuator.name)
        if any(a.gravity_compensation for a in dof.actuators):
            attribute = builder.custom_attributes["mujoco:jnt_actgravcomp"]
            if attribute.values is None:
                attribute.values = {}
            attribute.values[qd] = True
    tendon_rows = {}
    for tendon in scene.tendons:
        row = _add_mujoco_tendon(builder, tendon, joint_index, notes)
        if row is None:
            continue
        tendon_rows[tendon.name] = row
        for actuator in tendon.actuators:
            _add_mujoco_actuator(builder, nm.ActuatorTarget.tendon(row), actuator)
            result.rows.append(actuator.name)
    _add_tendon_equalities(builder, scene, tendon_rows, notes)
    return result


def _add_tendon_equalities(builder, scene: PhysicsScene, tendon_rows: dict[str, int], notes: list[str]):
    """The tendon equalities between this template's simulated fixed tendons (a spatial tendon is not in
    Newton's model: an equality on one is named)."""
    from newton.solvers import mujoco as nm

    for equality in scene.tendon_equalities:
        first, second = tendon_rows.get(equality.tendon0), tendon_rows.get(equality.tendon1)
        if first is None or (equality.tendon1 is not None and second is None):
            if any(t.name == equality.tendon0 for t in scene.spatial_tendons):
                notes.append(f"tendon equality {equality.name!r}: on a spatial tendon, which Newton's model "
                             f"does not hold; not simulated")
            continue
        nm.add_equality_tendon(builder, first, -1 if second is None else second, polycoef=equality.polycoef,
                               label=equality.name, enabled=equality.active, solref=equality.solref,
                               solimp=equality.solimp)


def _add_mujoco_tendon(builder, tendon: FixedTendon, joint_index: dict[str, int],
                       notes: list[str]) -> Optional[int]:
    """A fixed tendon of this template's joints -> a ``mujoco:tendon`` row (None: not this template's)."""
    from newton.solvers import mujoco as nm

    present = [tj.joint in joint_index for tj in tendon.joints]
    if not any(present):
        return None
    if not all(present):
        notes.append(f"tendon {tendon.name!r}: its joints are not simulated together; it and its actuators "
                     f"{_names(tendon.actuators)} are not simulated")
        return None
    newton_joints = list(joint_index.values())
    stacked = [tj.joint for tj in tendon.joints if newton_joints.count(joint_index[tj.joint]) > 1]
    if stacked:  # Newton's MuJoCo tendons take hinges and slides only, not one axis of a D6
        notes.append(f"tendon {tendon.name!r}: joint {stacked[0]!r} is one of several joints on the same two "
                     f"bodies (one Newton D6), which a MuJoCo tendon in Newton cannot hold; the tendon "
                     f"and its actuators {_names(tendon.actuators) or '(none)'} are not simulated")
        return None
    limited = math.isfinite(tendon.lower) or math.isfinite(tendon.upper)
    try:
        return nm.add_tendon_fixed(
            builder, [(joint_index[tj.joint], tj.coef) for tj in tendon.joints], label=tendon.name,
            stiffness=tendon.stiffness, damping=tendon.damping, frictionloss=tendon.frictionloss,
            springlength=tendon.spring_length or (-1.0, -1.0), limited=limited, armature=tendon.armature,
            limit_range=(tendon.lower, tendon.upper) if limited else (0.0, 0.0))
    except ValueError as error:
        notes.append(f"tendon {tendon.name!r}: not simulated ({error})")
        return None


# ---------------------------------------------------------------------------------------------
# after finalize: where each actuator's control goes


@dataclass
class ActuatorSlot:
    """One actuator of one replica and where its control goes.

    ``route``: "mujoco" (``index`` = row of ``control.mujoco.ctrl``), "drive" (``index`` = the
    joint_target_q (position) or joint_target_qd (velocity) index, the target is ctrl / gear),
    "kernel" (``index`` = row of :class:`ActuatorForces`) or "none" (not simulated).
    """

    actuator: Actuator
    replica: int
    route: str
    index: int = -1
    target_offset: float = 0.0  # the DOF's DofInfo.zero: Newton's targets count from it


def _dof_axis(scene: PhysicsScene, joint_name: str, axis: Optional[str]) -> Optional[str]:
    if axis is not None:
        return axis
    joint = scene.joint(joint_name)
    dofs = joint.active_dofs() if joint else []
    return dofs[0].axis.value if len(dofs) == 1 else None


def route_actuators(scene: PhysicsScene, solver: Solver, dofs: Mapping, replicas: int,
                    mujoco_rows: Mapping[tuple[str, int], int], notes: list[str]):
    """Every actuator of every replica as an :class:`ActuatorSlot`, and the kernel rows
    (``(actuator, [(q index, qd index, coef)], length offset)``) for FEATHERSTONE/XPBD: Newton's
    joint coordinates count from each DOF's ``DofInfo.zero`` (the authored pose, the file's reference)."""
    slots: list[ActuatorSlot] = []
    kernel_rows: list[tuple[Actuator, list[tuple[int, int, float]], float]] = []
    said: set[str] = set()
    acting_at_once: dict[str, list[str]] = {}  # activation dynamics: names, one note for all

    def note(actuator: Actuator, text: str):
        if actuator.name not in said:
            said.add(actuator.name)
            notes.append(f"actuator {actuator.name!r}: {text}")

    for actuator, joint, dof, tendon in scene.actuators():
        for replica in range(replicas):
            if solver == Solver.MUJOCO:
                row = mujoco_rows.get((actuator.name, replica))
                slots.append(ActuatorSlot(actuator, replica, "mujoco" if row is not None else "none",
                                          -1 if row is None else row))
                continue
            if dof is not None:
                info = dofs.get((joint.name, dof.axis.value, replica))
                if info is None:
                    if replica == 0 or (joint.name, dof.axis.value, 0) not in dofs:
                        note(actuator, f"its DOF {joint.name!r} {dof.axis.value} is not simulated")
                    slots.append(ActuatorSlot(actuator, replica, "none"))
                    continue
                if actuator is drive_servo(dof, solver) and info.q_index >= 0:
                    position = actuator.kind == ActuatorKind.POSITION
                    slots.append(ActuatorSlot(actuator, replica, "drive",
                                              info.q_index if position else info.qd_index,
                                              info.zero if position else 0.0))
                    continue
                entries = [(info.q_index, info.qd_index, 1.0)]
                references = [info.zero]
            else:
                entries, references = [], []
                for tj in tendon.joints:
                    axis = _dof_axis(scene, tj.joint, tj.axis)
                    info = dofs.get((tj.joint, axis, replica)) if axis else None
                    if info is None:
                        entries = None
                        break
                    entries.append((info.q_index, info.qd_index, tj.coef))
                    references.append(info.zero)
                if entries is None:
                    note(actuator, f"tendon {tendon.name!r} has a joint that is not simulated; not simulated")
                    slots.append(ActuatorSlot(actuator, replica, "none"))
                    continue
            reason = _kernel_refusal(actuator, entries)
            if reason:
                note(actuator, f"{reason}; not simulated on {solver.value}")
                slots.append(ActuatorSlot(actuator, replica, "none"))
                continue
            if actuator.dyn_type != "none" and replica == 0:
                acting_at_once.setdefault(actuator.dyn_type, []).append(actuator.name)
            slots.append(ActuatorSlot(actuator, replica, "kernel", len(kernel_rows)))
            length_at_zero = sum(c * r for (_, _, c), r in zip(entries, references))
            kernel_rows.append((actuator, entries, actuator.gear * length_at_zero))
    for dyn_type, names in acting_at_once.items():
        notes.append(_listed_note(names, f"activation dynamics ({dyn_type}) are not simulated on "
                                         f"{solver.value}: the control acts at once"))
    if solver != Solver.MUJOCO:
        for actuator in scene.frame_actuators:
            note(actuator, f"its transmission ({actuator.target_kind} {actuator.target!r}) is simulated on "
                           f"MUJOCO only")
        for tendon in scene.spatial_tendons:
            for actuator in tendon.actuators:
                note(actuator, f"spatial tendon {tendon.name!r} is simulated on MUJOCO only")
        for tendon in scene.tendons:
            limited = math.isfinite(tendon.lower) or math.isfinite(tendon.upper)
            if tendon.stiffness or tendon.damping or limited or tendon.armature:
                notes.append(f"tendon {tendon.name!r}: its spring, damper, length limits and armature are "
                             f"simulated on MUJOCO only")
    return slots, kernel_rows


#: A note that names many actuators names this many, then counts the rest.
NAMED_IN_NOTE = 6


def _listed_note(names: list[str], text: str) -> str:
    if len(names) == 1:
        return f"actuator {names[0]!r}: its {text}"
    listed = ", ".join(repr(n) for n in names[:NAMED_IN_NOTE])
    more = f" and {len(names) - NAMED_IN_NOTE} more" if len(names) > NAMED_IN_NOTE else ""
    return f"{len(names)} actuators ({listed}{more}): their {text}"


def _kernel_refusal(actuator: Actuator, entries) -> Optional[str]:
    if actuator.gain_type not in KERNEL_GAINS:
        return f"gain type {actuator.gain_type!r} is simulated on MUJOCO only"
    if len(actuator.bias) > 3 and any(actuator.bias[3:]):
        return "a bias beyond MuJoCo's affine terms is simulated on MUJOCO only"
    uses_position = any(actuator.bias[1:2]) or (actuator.gain_type == "affine" and any(actuator.gain[1:2]))
    if uses_position and any(q < 0 for q, _, _ in entries):
        return "it needs a joint position a ball joint does not have"
    return None


# ---------------------------------------------------------------------------------------------
# running: MuJoCo's force law through joint_f (FEATHERSTONE, XPBD)


@wp.kernel
def actuator_force_kernel(
    joint_q: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
    ctrl: wp.array(dtype=float),
    entry_start: wp.array(dtype=int),
    entry_q: wp.array(dtype=int),
    entry_qd: wp.array(dtype=int),
    entry_coef: wp.array(dtype=float),
    gear: wp.array(dtype=float),
    gain: wp.array(dtype=wp.vec3),
    bias: wp.array(dtype=wp.vec3),
    force_low: wp.array(dtype=float),
    force_high: wp.array(dtype=float),
    joint_f: wp.array(dtype=float),
):
    """MuJoCo's actuator force on a joint or fixed-tendon transmission, added to ``joint_f``:
    length = gear * sum(coef * q), force = clamp(gain * ctrl + bias . (1, length, velocity)),
    joint effort = gear * coef * force."""
    i = wp.tid()
    length = float(0.0)
    velocity = float(0.0)
    for k in range(entry_start[i], entry_start[i + 1]):
        if entry_q[k] >= 0:
            length += entry_coef[k] * joint_q[entry_q[k]]
        velocity += entry_coef[k] * joint_qd[entry_qd[k]]
    g = gear[i]
    length *= g
    velocity *= g
    gn = gain[i]
    bs = bias[i]
    force = (gn[0] + gn[1] * length + gn[2] * velocity) * ctrl[i] + bs[0] + bs[1] * length + bs[2] * velocity
    force = wp.clamp(force, force_low[i], force_high[i])
    for k in range(entry_start[i], entry_start[i + 1]):
        wp.atomic_add(joint_f, entry_qd[k], g * entry_coef[k] * force)


class ActuatorForces:
    """The kernel rows of one simulation: tables on the device and their controls."""

    def __init__(self, rows: list[tuple[Actuator, list[tuple[int, int, float]]]], device):
        self.device = device
        self.count = len(rows)
        self.ctrl_host = np.array([clamp_control(a, a.control) for a, _, _ in rows], dtype=np.float32)
        if not rows:
            return
        starts = np.cumsum([0] + [len(e) for _, e, _ in rows])
        flat = [entry for _, e, _ in rows for entry in e]
        ints = lambda v: wp.array(np.asarray(v, dtype=np.int32), dtype=int, device=device)  # noqa: E731
        floats = lambda v: wp.array(np.asarray(v, dtype=np.float32), dtype=float, device=device)  # noqa: E731
        self.ctrl = floats(self.ctrl_host)
        self.start, self.q, self.qd = ints(starts), ints([e[0] for e in flat]), ints([e[1] for e in flat])
        self.coef = floats([e[2] for e in flat])
        self.gear = floats([a.gear for a, _, _ in rows])
        gains = [_shifted(_padded(a.gain if a.gain_type == "affine" else a.gain[:1]), o) for a, _, o in rows]
        self.gain = wp.array(gains, dtype=wp.vec3, device=device)
        self.bias = wp.array([_shifted(_padded(a.bias), o) for a, _, o in rows], dtype=wp.vec3, device=device)
        low = [a.force_range[0] if a.force_range else -np.inf for a, _, _ in rows]
        high = [a.force_range[1] if a.force_range else np.inf for a, _, _ in rows]
        self.low, self.high = floats(low), floats(high)

    def upload(self):
        if self.count:
            self.ctrl.assign(self.ctrl_host)

    def apply(self, joint_q: wp.array, joint_qd: wp.array, joint_f: wp.array):
        """Add the actuator efforts to ``joint_f`` (which holds this step's other efforts)."""
        if self.count:
            wp.launch(actuator_force_kernel, dim=self.count, device=self.device, inputs=[
                joint_q, joint_qd, self.ctrl, self.start, self.q, self.qd, self.coef, self.gear,
                self.gain, self.bias, self.low, self.high, joint_f])


# ---------------------------------------------------------------------------------------------
# the control API behind Simulation.set_controls


class Controls:
    """Actuator controls by name (every replica), written where each actuator reads them.

    ``targets``/``target_velocities`` are the simulation's host copies of the joint targets and
    ``control`` its ``newton.Control``; writing a control costs a dict lookup per name and one
    upload per array touched, never a rebuild.
    """

    def __init__(self, slots: list[ActuatorSlot], forces: ActuatorForces, control,
                 targets: np.ndarray, target_velocities: np.ndarray):
        self.slots = slots
        self.forces = forces
        self.control = control
        self.targets = targets
        self.target_velocities = target_velocities
        self.by_name: dict[str, list[ActuatorSlot]] = {}
        for slot in slots:
            self.by_name.setdefault(slot.actuator.name, []).append(slot)
        self.initial = {name: clamp_control(s[0].actuator, s[0].actuator.control)
                        for name, s in self.by_name.items()}
        self.values = dict(self.initial)
        mujoco = getattr(control, "mujoco", None)
        self.mujoco_ctrl = getattr(mujoco, "ctrl", None) if any(s.route == "mujoco" for s in slots) else None
        self.mujoco_host = self.mujoco_ctrl.numpy().copy() if self.mujoco_ctrl is not None else None

    def set(self, values: Mapping[str, float]) -> None:
        touched = set()
        for name, value in values.items():
            slots = self.by_name.get(name)
            if slots is None:
                known = ", ".join(repr(n) for n in self.by_name) or "none"
                raise KeyError(f"no actuator {name!r} (actuators: {known})")
            value = float(value)
            if not math.isfinite(value):
                raise ValueError(f"actuator {name!r}: control {value!r} is not a finite number")
            value = clamp_control(slots[0].actuator, value)
            self.values[name] = value
            for slot in slots:
                touched.add(self._write(slot, value))
        self._upload(touched)

    def _write(self, slot: ActuatorSlot, value: float) -> str:
        if slot.route == "mujoco":
            self.mujoco_host[slot.index] = value
        elif slot.route == "kernel":
            self.forces.ctrl_host[slot.index] = value
        elif slot.route == "drive":
            target = value / slot.actuator.gear - slot.target_offset
            if slot.actuator.kind == ActuatorKind.POSITION:
                self.targets[slot.index] = target
                return "targets"
            self.target_velocities[slot.index] = target
            return "target_velocities"
        return slot.route

    def _upload(self, touched: set[str]):
        if "mujoco" in touched:
            self.mujoco_ctrl.assign(self.mujoco_host)
        if "kernel" in touched:
            self.forces.upload()
        if "targets" in touched:
            self.control.joint_target_q.assign(self.targets)
        if "target_velocities" in touched:
            self.control.joint_target_qd.assign(self.target_velocities)

    def reset(self):
        """Back to each actuator's initial control (``Actuator.control``, clamped)."""
        self.set(self.initial)


__all__ = [
    "ActuatorForces",
    "ActuatorSlot",
    "Controls",
    "TemplateActuation",
    "actuator_force_kernel",
    "add_mimics",
    "add_mujoco_actuation",
    "clamp_control",
    "drive_servo",
    "has_actuation",
    "max_force",
    "route_actuators",
    "simulated_dof",
]
