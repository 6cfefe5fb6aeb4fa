"""MuJoCo actuators, fixed tendons and mimic joints <-> USD, as NVIDIA's mujoco-usd-converter writes them
and Newton 1.8 reads them (``SolverMuJoCo.register_custom_attributes`` + ``add_usd``).

- ``MjcActuator`` prims (typed) in a ``Physics`` scope under the default prim, ``rel mjc:target`` to a
  joint prim or an ``MjcTendon`` prim. Their numbers are MuJoCo's native ones: a hinge servo's ctrl
  range and gains are radians whatever the MJCF compiler's ``angle`` (MuJoCo 3.17 and the converter
  keep ``ctrlrange`` verbatim), so nothing converts.
- ``MjcTendon`` (``mjc:type = "fixed"``): ``rel mjc:path`` (joints), ``mjc:path:indices``/``coef``.
- A mimic (coupled) joint: ``NewtonMimicAPI`` + ``MjcEqualityJointAPI`` on the follower
  (``rel newton:mimicJoint``, ``newton:mimicCoef0`` in the follower's USD units, ``newton:mimicCoef1``)
  and, for PhysX, ``PhysxMimicJointAPI:<axis>`` (``follower + gearing * leader + offset = 0``); the
  polynomial's higher terms as the converter writes them (``mjc:coef2``..``mjc:coef4``).
- Muscles: ``mjc:gainType``/``mjc:biasType`` "muscle", ``mjc:lengthRange:min``/``max``.
- ``mjc:actuatorgravcomp`` on the joint: its actuators also carry gravity (MuJoCo's ``actgravcomp``).

The Mjc schema is not registered with every USD (Blender's, usd-core): attributes are read as
authored with the schema's defaults applied here.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Optional

import numpy as np
from pxr import Sdf, Usd

from . import dialect as D
from .sdf_authoring import Prim, T
from ..model import INF, Actuator, ActuatorKind, Dof, DofMotion, FixedTendon, Joint, JointType, Mimic, TendonJoint

TENDON_SPRING_LENGTH = "mjc:springlength"  # MjcTendon: the spring's rest length; -1: the length at the start

ACTUATOR_TYPE = "MjcActuator"
TENDON_TYPE = "MjcTendon"
PHYSICS_SCOPE = "Physics"  # the converter's scope for actuators and tendons
MJC_JOINT_API = "MjcJointAPI"
NEWTON_MIMIC_API = "NewtonMimicAPI"
MJC_EQUALITY_JOINT_API = "MjcEqualityJointAPI"
PHYSX_MIMIC_API = "PhysxMimicJointAPI"
GRAVCOMP = "mjc:actuatorgravcomp"
CONTROL = "articula:control"  # the actuator's ctrl at rest: MuJoCo has no USD attribute for it
UNIT_GEAR_OF = "articula:gear"  # a servo written at gear 1 (see at_unit_gear): its own gear, read back
PRM_SIZE = 10
MIMIC_HIGHER_COEFS = (2, 3, 4)  # MjcEqualityJointAPI's mjc:coef2..4: polycoef beyond the linear terms
GEAR_SIZE = 6


# ------------------------------------------------------------------------------------------ reading
class ActuationReader:
    """Reads tendons, actuators and mimics once every joint is read (``reader`` is the stage reader:
    its ``value``/``warn``/``unique_name`` and the joint prim paths)."""

    def __init__(self, reader, prims: list, frame_targets: Optional[dict] = None):
        self.r = reader
        self.prims = prims
        # prim path -> (MuJoCo transmission, name) of sites, bodies and spatial tendons
        self.frame_targets = frame_targets or {}
        self.joints_by_path: dict[Sdf.Path, Joint] = {}
        for joint in reader.scene.joints:
            path = reader.paths.get(f"joint:{joint.name}")
            if path is not None:
                self.joints_by_path[Sdf.Path(path)] = joint
        self.tendons_by_path: dict[Sdf.Path, FixedTendon] = {}

    def read(self) -> None:
        for prim in self.prims:
            if prim.GetTypeName() == TENDON_TYPE:
                self._read_tendon(prim)
        for prim in self.prims:
            if prim.GetTypeName() == ACTUATOR_TYPE:
                self._read_actuator(prim)
        for path, joint in self.joints_by_path.items():
            self._read_mimic(self.r.stage.GetPrimAtPath(path), joint)
        self._drop_mirrored_drives()

    # -- tendons
    def _read_tendon(self, prim: Usd.Prim) -> None:
        r = self.r
        kind = r.value(prim, "mjc:type", "token", "spatial")
        if kind != "fixed":
            if kind != "spatial":
                r.warn(prim, f"{kind} MjcTendon is not supported; skipped")
            return  # spatial tendons: core/usd/mujoco_model.py
        targets = _targets(prim, "mjc:path")
        coefs = r.value(prim, "mjc:path:coef", "floats", [])
        indices = r.value(prim, "mjc:path:indices", "floats", None)
        indices = [int(i) for i in indices] if indices is not None else list(range(len(targets)))
        tendon_joints = []
        for k, index in enumerate(indices):
            joint = self.joints_by_path.get(targets[index]) if 0 <= index < len(targets) else None
            if joint is None:
                r.warn(prim, f"mjc:path entry {k} is not a joint read from this file; MjcTendon skipped")
                return
            coef = coefs[k] if k < len(coefs) else 1.0
            tendon_joints.append(TendonJoint(joint.name, coef, _axis_if_many(joint)))
        tendon = FixedTendon(name=r.unique_name("tendon", prim), joints=tendon_joints)
        low, high = r.value(prim, "mjc:range:min", default=None), r.value(prim, "mjc:range:max", default=None)
        if _limited(r.value(prim, "mjc:limited", "token", "auto"), low, high):
            tendon.lower, tendon.upper = low or 0.0, high or 0.0
        tendon.stiffness = r.value(prim, "mjc:stiffness", default=0.0)
        tendon.damping = r.value(prim, "mjc:damping", default=0.0)
        read_tendon_friction_and_spring(r, prim, tendon)
        r.scene.tendons.append(tendon)
        self.tendons_by_path[prim.GetPath()] = tendon

    # -- actuators
    def _read_actuator(self, prim: Usd.Prim) -> None:
        r = self.r
        targets = _targets(prim, "mjc:target")
        if len(targets) != 1:
            r.warn(prim, f"MjcActuator has {len(targets)} mjc:target targets, needs one joint or tendon; skipped")
            return
        target = targets[0]
        joint = self.joints_by_path.get(target)
        tendon = self.tendons_by_path.get(target)
        if joint is not None and joint.type == JointType.SPHERICAL:  # a ball joint's: all of it
            self._read_frame_actuator(prim, "joint", joint.name)
            return
        dof = _target_dof(joint) if joint is not None else None
        if dof is None and tendon is None and target in self.frame_targets:
            self._read_frame_actuator(prim, *self.frame_targets[target])
            return
        if dof is None and tendon is None:
            what = "a joint without a moving DOF" if joint is not None else "no joint or fixed tendon read from this file"
            r.warn(prim, f"MjcActuator target {target} is {what}; actuator skipped")
            return
        actuator = self._actuator(prim)
        own_gear = r.value(prim, UNIT_GEAR_OF, default=None)
        if own_gear and actuator.gear == 1.0 and tendon is None:
            _from_unit_gear(actuator, own_gear)
        if tendon is not None:
            tendon.actuators.append(actuator)
            return
        actuator.gravity_compensation = bool(r.value(r.stage.GetPrimAtPath(target), GRAVCOMP, "bool", False))
        dof.actuators.append(actuator)

    def _read_frame_actuator(self, prim: Usd.Prim, kind: str, name: str) -> None:
        """An actuator on a site, a body or a spatial tendon (``PhysicsScene.frame_actuators``)."""
        r = self.r
        actuator = self._actuator(prim, frame=True)
        actuator.target_kind = r.value(prim, "articula:transmission", "token", kind)
        actuator.target = name
        if kind == "body" and actuator.target_kind in ("joint", "jointinparent"):  # a floating root's free joint
            actuator.target = r.scene.body(name).free_joint_name or name
        references = _targets(prim, "mjc:refSite")
        if references and references[0] in self.frame_targets:
            actuator.reference_site = self.frame_targets[references[0]][1]
        sliders = _targets(prim, "mjc:sliderSite")
        if sliders and sliders[0] in self.frame_targets:  # a slider-crank, as the converter writes it
            actuator.target_kind, actuator.slider_site = "slidercrank", self.frame_targets[sliders[0]][1]
            actuator.crank_length = r.value(prim, "mjc:crankLength", default=0.0)
        r.scene.frame_actuators.append(actuator)

    def _actuator(self, prim: Usd.Prim, frame: bool = False) -> Actuator:
        """The actuator's own numbers (``frame``: its whole gear vector kept, for site transmissions)."""
        r = self.r
        actuator = Actuator(name=r.unique_name("actuator", prim))
        gain = r.value(prim, "mjc:gainPrm", "floats", [1.0])
        bias = r.value(prim, "mjc:biasPrm", "floats", [])
        bias_type = r.value(prim, "mjc:biasType", "token", "none")
        actuator.gain_type = r.value(prim, "mjc:gainType", "token", "fixed")
        actuator.dyn_type = r.value(prim, "mjc:dynType", "token", "none")
        actuator.dyn_params = tuple(r.value(prim, "mjc:dynPrm", "floats", [1.0]))
        actuator.bias_type = bias_type if bias_type not in ("none", "affine") else "affine"
        actuator.gain = tuple(gain)
        actuator.bias = tuple(bias) if bias_type != "none" else ()
        low, high = (r.value(prim, f"mjc:lengthRange:{end}", default=0.0) for end in ("min", "max"))
        if low < high:  # MuJoCo's 0 0: its compiler finds the range
            actuator.length_range = (low, high)
        gear = r.value(prim, "mjc:gear", "floats", [1.0])
        actuator.gear = gear[0] if gear else 0.0
        if frame:  # MuJoCo's whole gear, as read_mjcf keeps it for transmissions on frames
            actuator.gear_vector = tuple(_padded(gear, GEAR_SIZE))
        elif any(gear[1:3]):
            r.warn(prim, "mjc:gear beyond its first value acts on sites only; ignored on a joint or tendon")
        actuator.ctrl_range = self._range(prim, "ctrl")
        actuator.force_range = self._range(prim, "force")
        actuator.control = r.value(prim, CONTROL, default=0.0)
        actuator.__post_init__()
        return actuator

    def _range(self, prim: Usd.Prim, what: str) -> Optional[tuple[float, float]]:
        r = self.r
        low = r.value(prim, f"mjc:{what}Range:min", default=None)
        high = r.value(prim, f"mjc:{what}Range:max", default=None)
        if not _limited(r.value(prim, f"mjc:{what}Limited", "token", "auto"), low, high):
            return None
        return (low or 0.0, high or 0.0)

    # -- mimic joints
    def _read_mimic(self, prim: Usd.Prim, joint: Joint) -> None:
        r = self.r
        schemas = _schema_names(prim)
        angular = joint.type == JointType.REVOLUTE  # Newton converts newton:mimicCoef0 on revolutes only
        if NEWTON_MIMIC_API in schemas or MJC_EQUALITY_JOINT_API in schemas:
            if r.value(prim, "newton:mimicEnabled", "bool", True) is False:
                return
            targets = _targets(prim, "newton:mimicJoint") or _targets(prim, "mjc:target")
            offset = r.value(prim, "newton:mimicCoef0", default=None)
            if offset is None:  # the deprecated spelling, radians
                offset = r.value(prim, "mjc:coef0", default=0.0)
            elif angular:
                offset = D.angle_from_usd(offset)
            gear = r.value(prim, "newton:mimicCoef1", default=None)
            gear = r.value(prim, "mjc:coef1", default=1.0) if gear is None else gear
            self._set_mimic(prim, joint, targets, gear, offset, "newton:mimicJoint")
            if joint.mimic is not None:
                terms = [r.value(prim, f"mjc:coef{k}", default=0.0) for k in MIMIC_HIGHER_COEFS]
                joint.mimic.higher_terms = tuple(np.trim_zeros(terms, "b"))
            return
        for schema in schemas:
            if schema.startswith(PHYSX_MIMIC_API + ":"):
                axis = schema.split(":", 1)[1]
                targets = _targets(prim, f"physxMimicJoint:{axis}:referenceJoint")
                gearing = r.value(prim, f"physxMimicJoint:{axis}:gearing", default=0.0)
                offset = r.value(prim, f"physxMimicJoint:{axis}:offset", default=0.0)
                self._set_mimic(prim, joint, targets, -gearing, -offset, f"physxMimicJoint:{axis}:referenceJoint")
                return

    def _set_mimic(self, prim, joint: Joint, targets: list, gear: float, offset: float, attribute: str) -> None:
        leader = self.joints_by_path.get(targets[0]) if targets else None
        if leader is None:
            self.r.warn(prim, f"{attribute} points at no joint read from this file; the joint is not coupled")
            return
        joint.mimic = Mimic(leader=leader.name, gear=gear, offset=offset)

    # -- a drive that only mirrors the DOF's servo
    def _drop_mirrored_drives(self) -> None:
        """A DOF whose PhysicsDriveAPI is what the writer derives from its first servo (for PhysX
        consumers) is read as the servo alone, so import -> export -> import is stable."""
        for path, joint in self.joints_by_path.items():
            for dof in joint.dofs:
                if not (dof.drive_enabled and dof.actuators):
                    continue
                prim = self.r.stage.GetPrimAtPath(path)
                # The DOF's effort limit is the tighter of the drive's maxForce and the joint's own range.
                if _drive_mirrors(dof, derived_drive(dof), self.r.mjc_force_limit(prim, joint)):
                    _clear_drive(dof)
                    self.r.reread_effort_limit(prim, joint)


def _schema_names(prim: Usd.Prim) -> list[str]:
    """Applied API schema names, registered or not (GetAppliedSchemas drops the ones this USD has
    no schema for: MjcEqualityJointAPI anywhere, NewtonMimicAPI inside Blender)."""
    names = list(prim.GetAppliedSchemas())
    listop = prim.GetMetadata("apiSchemas")
    if listop is not None:
        names += [n for n in listop.ApplyOperations([]) if n not in names]
    return names


def _targets(prim: Usd.Prim, name: str) -> list[Sdf.Path]:
    rel = prim.GetRelationship(name)
    if not rel:
        return []
    parent = prim.GetPath().GetParentPath()
    return [t if t.IsAbsolutePath() else parent.AppendPath(t) for t in rel.GetTargets()]


def _limited(token: str, low, high) -> bool:
    """MuJoCo's tri-state: "auto" is limited when a range is authored."""
    if token == "true":
        return True
    return token == "auto" and (low is not None or high is not None) and (low or 0.0) < (high or 0.0)


def _target_dof(joint: Joint) -> Optional[Dof]:
    """The DOF an actuator on ``joint`` drives: its first moving one (Newton resolves a joint
    target to its first DOF)."""
    dofs = joint.active_dofs()
    return dofs[0] if dofs else None


def _axis_if_many(joint: Joint) -> Optional[str]:
    dofs = joint.active_dofs()
    return dofs[0].axis.value if len(dofs) > 1 else None


# ------------------------------------------------------------------------------------- drive mirror
def drive_servo(dof: Dof) -> Optional[Actuator]:
    """The actuator a DOF's PhysicsDriveAPI mirrors for consumers that read drives only (PhysX, Isaac
    Sim, Newton without the MuJoCo resolver): its first PD servo, a POSITION or VELOCITY actuator
    (MuJoCo's ``<position>``/``<velocity>``, or ``<general>`` with a fixed gain and a bias of
    (0, -kp, -kv) or (0, 0, -kv)) with a positive gain and a non-zero gear; None when it has none."""
    for actuator in dof.actuators:
        if actuator.kind in (ActuatorKind.POSITION, ActuatorKind.VELOCITY):
            return actuator if actuator.gear != 0.0 and actuator.gain[0] > 0.0 else None
    return None


def derived_drive(dof: Dof) -> Optional[dict]:
    """The PhysicsDriveAPI values (SI) a DOF's servo (:func:`drive_servo`) amounts to, or None.

    MuJoCo's joint torque is ``gear * (kp * ctrl - kp * gear * q - kv * gear * qdot)`` (the actuator's
    length is ``gear * q``), i.e. a drive of stiffness ``kp * gear^2`` and damping ``kv * gear^2``
    toward ``q = ctrl / gear``; the force range clamps the actuator's force before the gear, so the
    joint's max force is the largest ``|force range| * |gear|``. Newton reads that max force as the
    joint's effort limit: its model of the export then differs from the original's (1e6, "none")
    there, and only there, by the clamp MuJoCo applies through the actuator's force range anyway."""
    servo = drive_servo(dof)
    if servo is None:
        return None
    gear = servo.gear
    g2 = gear * gear
    position = servo.kind == ActuatorKind.POSITION
    max_force = max(abs(f) for f in servo.force_range) * abs(gear) if servo.force_range else INF
    return {"stiffness": servo.kp * g2, "damping": servo.kv * g2,
            "target_position": servo.control / gear if position else 0.0,
            "target_velocity": 0.0 if position else servo.control / gear, "max_force": max_force}


def at_unit_gear(actuator: Actuator) -> Actuator:
    """The same servo with gear 1: gains times gear^2, ctrl (range and value) over gear, force range
    times gear. MuJoCo gives both the same joint torque at every q, qdot and ctrl. Newton's reading of
    an MjcActuator with the MuJoCo resolver maps gear-1 servos only onto the joint's target gains
    (other gears stay direct controls), so a servo written with gear 1 beside its drive is simulated
    once, not twice."""
    g = actuator.gear
    ranges = {}
    for what, scale in (("ctrl_range", 1.0 / g), ("force_range", g)):
        limits = getattr(actuator, what)
        ranges[what] = tuple(sorted((limits[0] * scale, limits[1] * scale))) if limits is not None else None
    return dataclasses.replace(actuator, gain=tuple(v * g * g for v in actuator.gain),
                               bias=tuple(v * g * g for v in actuator.bias), gear=1.0,
                               control=actuator.control / g, **ranges)


def _from_unit_gear(actuator: Actuator, gear: float) -> None:
    """Undo :func:`at_unit_gear` in place (the file's ``articula:gear`` is the original gear)."""
    g = gear
    for what, scale in (("ctrl_range", g), ("force_range", 1.0 / g)):
        limits = getattr(actuator, what)
        if limits is not None:
            setattr(actuator, what, tuple(sorted((limits[0] * scale, limits[1] * scale))))
    actuator.gain = tuple(v / (g * g) for v in actuator.gain)
    actuator.bias = tuple(v / (g * g) for v in actuator.bias)
    actuator.control *= g
    actuator.gear = g


def undriven_actuator_warnings(scene) -> list[str]:
    """One line per kind of actuator no PhysicsDriveAPI can carry, naming them: consumers that read
    drives only (PhysX, Isaac Sim, Newton without the MuJoCo resolver) do not see them."""
    on_tendons, not_servos, extra = [], [], []
    for actuator, joint, dof, tendon in scene.actuators():
        if tendon is not None:
            on_tendons.append(f"'{actuator.name}' (tendon '{tendon.name}')")
        elif actuator.kind == ActuatorKind.GENERAL:
            not_servos.append(f"'{actuator.name}' (joint '{joint.name}')")
        elif actuator.kind != ActuatorKind.MOTOR and actuator is not drive_servo(dof):
            extra.append(f"'{actuator.name}' (joint '{joint.name}')")
    unseen = "consumers that read only PhysicsDriveAPI (PhysX, Isaac Sim, Newton without the MuJoCo resolver) " \
             "do not see them; MuJoCo consumers do (MjcActuator)"
    lines = []
    if on_tendons:
        lines.append(f"actuators on tendons (coupled joints) cannot be a joint drive: {', '.join(on_tendons)}: "
                     f"{unseen}")
    if not_servos:
        lines.append(f"actuators that are no PD servo (general gain, bias or dynamics) cannot be a joint drive: "
                     f"{', '.join(not_servos)}: {unseen}")
    if extra:
        lines.append(f"a second servo on a DOF cannot be a joint drive (the DOF's first servo is): "
                     f"{', '.join(extra)}: {unseen}")
    return lines


def _close32(a: float, b: float) -> bool:
    """Equal in the precision USD float attributes keep (and through the degree conversion)."""
    return a == b or abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1e-12) or (math.isinf(a) and a == b)


def _drive_mirrors(dof: Dof, drive: Optional[dict], joint_force_limit: float = INF) -> bool:
    if drive is None:
        return False
    effort = min(drive["max_force"], joint_force_limit)
    return (dof.drive_type.value == "FORCE" and _close32(dof.drive_stiffness, drive["stiffness"])
            and _close32(dof.drive_damping, drive["damping"])
            # compared as written, in the joint frames (less the reference), where float32 rounds it
            and _close32(dof.target_position - dof.reference, drive["target_position"] - dof.reference)
            and _close32(dof.target_velocity, drive["target_velocity"])
            and (math.isinf(dof.max_effort) or _close32(dof.max_effort, effort)))


def _clear_drive(dof: Dof) -> None:
    default = Dof(axis=dof.axis)
    for name in ("drive_enabled", "drive_type", "drive_stiffness", "drive_damping", "target_position",
                 "target_velocity"):
        setattr(dof, name, getattr(default, name))


# ------------------------------------------------------------------------------------------ writing
def write_actuation(writer) -> None:
    """Tendons, actuators and mimics of ``writer.scene`` (a ``_LayerWriter`` whose joints are
    written: ``writer.joint_paths``)."""
    scene = writer.scene
    write_mimics(writer)
    rows = scene.actuators()
    if not scene.tendons and not rows:
        return
    scope = physics_scope(writer)
    tendon_paths = {}
    for tendon in scene.tendons:
        tendon_paths[tendon.name] = _write_tendon(writer, scope, tendon)
    for actuator, joint, dof, tendon in rows:
        if tendon is not None:
            target = tendon_paths.get(tendon.name)
        else:
            target = writer.joint_paths.get(joint.name)
        if target is None:
            continue
        if tendon is None and actuator.gear != 1.0 and actuator is _mirrored_servo(dof):
            _write_actuator(writer, scope, at_unit_gear(actuator), target, own_gear=actuator.gear)
        else:
            _write_actuator(writer, scope, actuator, target)


def physics_scope(writer) -> Sdf.Path:
    """The ``Physics`` scope under ``writer``'s root, made the first time it is asked for."""
    scope = getattr(writer, "physics_scope_path", None)
    if scope is None:
        scope = writer.physics_scope_path = writer.scope(PHYSICS_SCOPE)
    return scope


def write_mimics(writer) -> None:
    """Each follower joint's coupling, once every joint has its path (a leader may come later)."""
    for joint in writer.scene.joints:
        path = writer.joint_paths.get(joint.name)
        if joint.mimic is None or path is None:
            continue
        spec = writer.layer.GetPrimAtPath(path)
        prim = Prim(writer.layer, path, spec.typeName)
        prim.schemas = list(spec.GetInfo("apiSchemas").prependedItems)
        _write_mimic(writer, prim, joint)
        prim.done()


def _write_tendon(writer, scope: Sdf.Path, tendon: FixedTendon) -> Optional[Sdf.Path]:
    paths = [writer.joint_paths.get(tj.joint) for tj in tendon.joints]
    if None in paths:
        return None  # validation names the missing joint
    prim = writer.prim(writer.names.child(scope, tendon.name, writer.prim_name(tendon.name)), TENDON_TYPE,
                       tendon.name)
    prim.set("mjc:type", T.Token, "fixed", uniform=True)
    prim.rel("mjc:path", paths)
    prim.set("mjc:path:indices", T.IntArray, list(range(len(paths))), uniform=True)
    prim.set("mjc:path:coef", T.DoubleArray, [float(tj.coef) for tj in tendon.joints], uniform=True)
    if math.isfinite(tendon.lower) or math.isfinite(tendon.upper):
        prim.set("mjc:limited", T.Token, "true", uniform=True)
        prim.set("mjc:range:min", T.Double, _finite(tendon.lower), uniform=True)
        prim.set("mjc:range:max", T.Double, _finite(tendon.upper), uniform=True)
    if tendon.stiffness:
        prim.set("mjc:stiffness", T.Double, float(tendon.stiffness), uniform=True)
    if tendon.damping:
        prim.set("mjc:damping", T.Double, float(tendon.damping), uniform=True)
    write_tendon_friction_and_spring(prim, tendon)
    prim.done()
    return prim.path


def write_tendon_friction_and_spring(prim, tendon) -> None:
    """A tendon's ``mjc:frictionloss``, ``mjc:armature`` and ``mjc:springlength``, where the description
    has them."""
    if tendon.frictionloss:
        prim.set("mjc:frictionloss", T.Double, float(tendon.frictionloss), uniform=True)
    if tendon.armature:
        prim.set("mjc:armature", T.Double, float(tendon.armature), uniform=True)
    if tendon.spring_length is not None:
        prim.set(TENDON_SPRING_LENGTH, T.DoubleArray, [float(v) for v in tendon.spring_length],
                 uniform=True)


def read_tendon_friction_and_spring(r, prim: Usd.Prim, tendon) -> None:
    """``mjc:frictionloss``, ``mjc:armature`` and ``mjc:springlength`` (one value: a length; two: a dead
    band; a first value -1: MuJoCo's length at the start, the description's None)."""
    tendon.frictionloss = r.value(prim, "mjc:frictionloss", default=0.0)
    tendon.armature = r.value(prim, "mjc:armature", default=0.0)
    lengths = r.value(prim, TENDON_SPRING_LENGTH, "floats", None)
    if lengths and lengths[0] != -1.0:
        tendon.spring_length = (float(lengths[0]), float(lengths[-1]))


def _finite(value: float) -> float:
    return value if math.isfinite(value) else math.copysign(1e10, value)


def _padded(values, size: int) -> list[float]:
    values = [float(v) for v in values][:size]
    return values + [0.0] * (size - len(values))


def _mirrored_servo(dof: Dof) -> Optional[Actuator]:
    """The servo a DOF's written drive mirrors (a DOF with a drive of its own, or locked, has none)."""
    return drive_servo(dof) if not dof.drive_enabled and dof.motion != DofMotion.LOCKED else None


def _write_actuator(writer, scope: Sdf.Path, actuator: Actuator, target: Sdf.Path,
                    own_gear: Optional[float] = None) -> None:
    write_actuator(writer, scope, actuator, target, own_gear)


def write_actuator(writer, scope: Sdf.Path, actuator: Actuator, target: Sdf.Path,
                   own_gear: Optional[float] = None, finish: bool = True):
    """The ``MjcActuator`` prim of ``actuator`` on ``target``; ``finish`` False: left open (its
    ``done`` not called) for more properties."""
    prim = writer.prim(writer.names.child(scope, actuator.name, writer.prim_name(actuator.name)), ACTUATOR_TYPE,
                       actuator.name)
    prim.rel("mjc:target", [target])
    if actuator.gain != (1.0,):
        prim.set("mjc:gainPrm", T.DoubleArray, _padded(actuator.gain, PRM_SIZE), uniform=True)
    if actuator.bias or actuator.bias_type != "affine":
        prim.set("mjc:biasType", T.Token, actuator.bias_type, uniform=True)
    if actuator.bias:
        prim.set("mjc:biasPrm", T.DoubleArray, _padded(actuator.bias, PRM_SIZE), uniform=True)
    if actuator.gain_type != "fixed":
        prim.set("mjc:gainType", T.Token, actuator.gain_type, uniform=True)
    if actuator.length_range is not None:
        for end, value in zip(("min", "max"), actuator.length_range):
            prim.set(f"mjc:lengthRange:{end}", T.Double, float(value), uniform=True)
    if actuator.dyn_type != "none":
        prim.set("mjc:dynType", T.Token, actuator.dyn_type, uniform=True)
    if actuator.dyn_params != (1.0,):
        prim.set("mjc:dynPrm", T.DoubleArray, _padded(actuator.dyn_params, PRM_SIZE), uniform=True)
    if actuator.gear != 1.0:
        prim.set("mjc:gear", T.DoubleArray, _padded([actuator.gear], GEAR_SIZE), uniform=True)
    for what, limits in (("ctrl", actuator.ctrl_range), ("force", actuator.force_range)):
        if limits is not None:
            prim.set(f"mjc:{what}Limited", T.Token, "true", uniform=True)
            prim.set(f"mjc:{what}Range:min", T.Double, float(limits[0]), uniform=True)
            prim.set(f"mjc:{what}Range:max", T.Double, float(limits[1]), uniform=True)
    if actuator.control:
        prim.set(CONTROL, T.Double, float(actuator.control), custom=True)
    if own_gear is not None:
        prim.set(UNIT_GEAR_OF, T.Double, float(own_gear), custom=True)
    if finish:
        prim.done()
    return prim


def write_joint_actuation(writer, prim, joint: Joint) -> None:
    """On a joint's prim: gravity compensation of its actuators (MuJoCo's per-joint actgravcomp)."""
    if any(a.gravity_compensation for d in joint.dofs for a in d.actuators):
        prim.apply(MJC_JOINT_API)
        prim.set(GRAVCOMP, T.Bool, True, uniform=True)


def write_derived_drive(prim, dof: Dof, instance: str, angular: bool) -> None:
    """A PhysicsDriveAPI derived from an undriven DOF's servo, for PhysX and Isaac (they read no
    MjcActuator)."""
    drive = derived_drive(dof) if _mirrored_servo(dof) is not None else None
    if drive is None:
        return
    prim.apply(f"PhysicsDriveAPI:{instance}")
    prim.set(D.drive_attr(instance, "type"), T.Token, "force", uniform=True)
    for name, key, unit in (("stiffness", "stiffness", D.Unit.PER_ANGLE), ("damping", "damping", D.Unit.PER_ANGLE),
                            ("targetPosition", "target_position", D.Unit.ANGLE),
                            ("targetVelocity", "target_velocity", D.Unit.ANGLE)):
        prim.set(D.drive_attr(instance, name), T.Float, D.to_usd(drive[key], unit, angular))
    if math.isfinite(drive["max_force"]):
        prim.set(D.drive_attr(instance, "maxForce"), T.Float, drive["max_force"])


def _write_mimic(writer, prim, joint: Joint) -> None:
    mimic = joint.mimic
    leader = writer.joint_paths.get(mimic.leader)
    if leader is None:
        return  # validation names the missing leader (joints are written in order: see writer)
    dofs = joint.active_dofs()
    angular = joint.type == JointType.REVOLUTE
    prim.apply(NEWTON_MIMIC_API, MJC_EQUALITY_JOINT_API)
    prim.rel("newton:mimicJoint", [leader])
    prim.set("newton:mimicCoef0", T.Float, D.angle_to_usd(mimic.offset) if angular else float(mimic.offset))
    prim.set("newton:mimicCoef1", T.Float, float(mimic.gear))
    for k, term in zip(MIMIC_HIGHER_COEFS, mimic.higher_terms):  # MuJoCo's polynomial (radians, SI)
        if term:
            prim.set(f"mjc:coef{k}", T.Double, float(term), uniform=True)
    if dofs:  # PhysX: follower + gearing * leader + offset = 0, offset in radians or meters
        axis = dofs[0].axis.value
        prim.apply(f"{PHYSX_MIMIC_API}:{axis}")
        prim.rel(f"physxMimicJoint:{axis}:referenceJoint", [leader])
        prim.set(f"physxMimicJoint:{axis}:gearing", T.Float, -float(mimic.gear))
        prim.set(f"physxMimicJoint:{axis}:offset", T.Float, -float(mimic.offset))
