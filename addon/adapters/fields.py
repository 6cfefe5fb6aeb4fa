"""The field-by-field mapping between PropertyGroups and description dataclasses.

Both adapters use it, so a field is named once: a description field and its property share the
name; enums are stored by value; an infinite value is a ``has_<x>`` boolean (see the property
modules' ``INFINITE_WHEN_OFF``); an ``Optional`` float is ``has_<x>`` plus the value.
"""

import math
from enum import Enum
from functools import lru_cache
from operator import attrgetter, itemgetter
from typing import Optional

import numpy as np

from ...core.model import (MJC_PRM_SIZE, Actuator, ActuatorKind, ContactPair, ContactParams, Dof, DofAxis,
                           DofMotion, DriveType, Equality, EqualityKind, FixedTendon, Keyframe, Mimic,
                           MuJoCoOptions, PhysicsMaterial, Pose, SceneSettings, Solver, SpatialTendon,
                           TendonEquality, TendonJoint, TendonWrap, WrapKind)
from ..properties import dof_props, joint_props
from ..properties.tendon_props import LENGTH_AT_START

DOF_FIELDS = {
    "axis": DofAxis, "motion": DofMotion, "drive_type": DriveType,
    **{name: None for name in ("lower", "upper", "limit_stiffness", "limit_damping", "drive_enabled",
                               "drive_stiffness", "drive_damping", "target_position", "target_velocity",
                               "max_effort", "armature", "static_friction", "dynamic_friction",
                               "viscous_damping", "velocity_limit", "spring_stiffness", "limit_margin",
                               "reference", "limit_solref", "limit_solimp", "spring_reference", "group")},
}
JOINT_FIELDS = {name: None for name in ("cone_limit0", "cone_limit1", "collide_bodies",
                                        "exclude_from_articulation")}
BODY_FIELDS = {name: None for name in ("kinematic", "world", "self_collision", "linear_velocity",
                                       "angular_velocity", "free_joint_damping", "free_joint_armature",
                                       "free_joint_friction", "free_joint_stiffness")}
SHAPE_FIELDS = {name: None for name in ("axis", "collision_group", "world", "contact_margin", "contact_gap")}
MATERIAL_FIELDS = {name: None for name in ("static_friction", "dynamic_friction", "restitution",
                                           "torsional_friction", "rolling_friction")}
SETTINGS_FIELDS = {"solver": Solver, **{name: None for name in (
    "gravity", "steps_per_second", "solver_iterations", "collision_filter_parent", "replicas",
    "replica_spacing", "ground_plane")}}

MUJOCO_FIELDS = {name: None for name in (
    "integrator", "cone", "impratio", "solver", "iterations", "tolerance", "ls_iterations", "ls_tolerance",
    "noslip_iterations", "noslip_tolerance", "jacobian", "density", "viscosity", "wind", "magnetic",
    "override_margin", "override_solref", "override_solimp", "override_friction")}
CONTACT_FIELDS = {name: None for name in ("condim", "priority", "solref", "solimp", "solmix")}

INFINITE_WHEN_OFF = {**dof_props.INFINITE_WHEN_OFF, **joint_props.INFINITE_WHEN_OFF}


def read_fields(props, fields: dict) -> dict:
    """Description keyword arguments from ``props`` for ``fields`` (name -> Enum type or None)."""
    key = (id(fields), type(props).__name__)  # a name, not the class: no disabled class kept alive
    plan = _READ_PLANS.get(key)
    if plan is None or plan.fields is not fields:
        plan = _READ_PLANS[key] = _ReadPlan(props, fields)
    read = plan.getter(props)
    values = dict(zip(plan.names, read))
    for name, members, enum_type in plan.enums:
        value = values[name]
        member = members.get(value)
        values[name] = enum_type(value) if member is None else member
    for name, as_tuple in plan.vectors:
        values[name] = as_tuple(values[name])
    for name, k, off_value in plan.switched:
        if not read[k]:
            values[name] = off_value
    return values


class _ReadPlan:
    """How :func:`read_fields` reads one PropertyGroup class: every field and on/off switch in one
    ``attrgetter`` call (the RNA lookups cost less than a Python loop around them), then vectors
    as tuples and enum values as their Enum members, decided once per field (a property's type
    is its class's)."""

    def __init__(self, props, fields: dict):
        self.fields = fields
        self.names = tuple(fields)
        switches = [(name, INFINITE_WHEN_OFF[name]) for name in self.names if name in INFINITE_WHEN_OFF]
        read = [*self.names, *(switch for _, (switch, _) in switches)]
        self.getter = (attrgetter(*read) if len(read) > 1  # one name: attrgetter gives the value itself
                       else lambda item: tuple(getattr(item, n) for n in read))
        self.switched = tuple((name, len(self.names) + k, off_value)
                              for k, (name, (_, off_value)) in enumerate(switches))
        sample = self.getter(props)
        self.vectors = tuple((name, _WHOLE if type(_WHOLE(value)) is tuple else tuple)
                             for name, value in zip(self.names, sample)
                             if not isinstance(value, (bool, int, float, str)))
        self.enums = tuple((name, {member.value: member for member in enum_type}, enum_type)
                           for name, enum_type in fields.items() if enum_type)


_READ_PLANS: dict = {}
_WHOLE = itemgetter(slice(None))  # a mathutils Vector's whole slice: its tuple, made faster than tuple()


def write_fields(props, source, fields: dict) -> None:
    """Set ``props`` from the description object ``source`` for ``fields``."""
    plain, switched = _write_plan(tuple(fields))
    for name in plain:
        value = getattr(source, name)
        setattr(props, name, value.value if isinstance(value, Enum) else value)
    for name, (switch, off_value) in switched:
        value = getattr(source, name)
        off = value == off_value
        setattr(props, switch, not off)
        if not off:
            setattr(props, name, value.value if isinstance(value, Enum) else value)


@lru_cache(maxsize=None)
def _write_plan(names: tuple) -> tuple:
    """(fields written as they are, (field, its switch) of those stored as an on/off switch)."""
    return (tuple(name for name in names if name not in INFINITE_WHEN_OFF),
            tuple((name, INFINITE_WHEN_OFF[name]) for name in names if name in INFINITE_WHEN_OFF))


def read_optional(props, name: str):
    """An ``Optional`` float stored as ``has_<name>`` + ``<name>``."""
    return getattr(props, name) if getattr(props, f"has_{name}") else None


def write_optional(props, name: str, value) -> None:
    setattr(props, f"has_{name}", value is not None)
    if value is not None:
        setattr(props, name, value)


def read_dof(props) -> Dof:
    """The DOF standing where its objects are, at rest: its coordinate there is its reference."""
    dof = Dof(actuators=[read_actuator(a) for a in props.actuators], name=props.name or None,
              **read_fields(props, DOF_FIELDS))
    dof.initial_position = dof.reference
    dof.limit_solref = shortest_decimals(dof.limit_solref)
    dof.limit_solimp = shortest_decimals(dof.limit_solimp)
    return dof


def shortest_decimals(values) -> tuple:
    """Float32 values as the shortest decimals they hold: MuJoCo's defaults (0.02, 0.9...) come back as
    themselves, so a writer that leaves defaults out sees them as defaults."""
    return _shortest_decimals(np.asarray(values, dtype=np.float32).tobytes())


@lru_cache(maxsize=1024)
def _shortest_decimals(float32_bits: bytes) -> tuple:
    """:func:`shortest_decimals` remembered by the values' float32 bits (0.0 and -0.0 apart): most
    DOFs share MuJoCo's solref and solimp."""
    return tuple(float(str(v)) for v in np.frombuffer(float32_bits, dtype=np.float32))


def read_material(props) -> PhysicsMaterial:
    return PhysicsMaterial(name=props.name, density=read_optional(props, "density"),
                           **read_fields(props, MATERIAL_FIELDS))


def write_material(props, material: PhysicsMaterial) -> None:
    props.name = material.name
    write_fields(props, material, MATERIAL_FIELDS)
    write_optional(props, "density", material.density)


def read_settings(props) -> SceneSettings:
    return SceneSettings(mujoco=read_mujoco(props.mujoco), **read_fields(props, SETTINGS_FIELDS))


def read_mujoco(props) -> MuJoCoOptions:
    values = {name: tuple(v) if not isinstance(v, (str, int, float)) else v
              for name, v in ((n, getattr(props, n)) for n in MUJOCO_FIELDS)}
    return MuJoCoOptions(disabled=tuple(props.disabled.split()), enabled=tuple(props.enabled.split()),
                         **values)


def write_mujoco(props, options: MuJoCoOptions) -> None:
    for name in MUJOCO_FIELDS:
        setattr(props, name, getattr(options, name))
    props.disabled, props.enabled = " ".join(options.disabled), " ".join(options.enabled)


def read_contact(props):
    """A collider's MuJoCo contact parameters (None: MuJoCo's defaults)."""
    if not props.has_contact:
        return None
    return ContactParams(condim=props.condim, priority=props.priority, solref=tuple(props.solref),
                         solimp=tuple(props.solimp), solmix=props.solmix)


def write_contact(props, contact) -> None:
    props.has_contact = contact is not None
    if contact is not None:
        for name in CONTACT_FIELDS:
            setattr(props, name, getattr(contact, name))


# --- actuators, tendons, coupled joints -------------------------------------------------------

def _padded(values) -> tuple:
    return tuple(values) + (0.0,) * (MJC_PRM_SIZE - len(values))


def _range(props, name: str):
    """An ``Optional`` (min, max) stored as ``has_<name>_range`` + ``<name>_min``/``<name>_max``."""
    if not getattr(props, f"has_{name}_range"):
        return None
    return (getattr(props, f"{name}_min"), getattr(props, f"{name}_max"))


def _write_range(props, name: str, value) -> None:
    setattr(props, f"has_{name}_range", value is not None)
    if value is not None:
        setattr(props, f"{name}_min", value[0])
        setattr(props, f"{name}_max", value[1])


def read_actuator(props) -> Actuator:
    """The actuator: its kind's gains, or, GENERAL, MuJoCo's raw vectors as stored."""
    common = dict(gear=props.gear, ctrl_range=_range(props, "ctrl"), force_range=_range(props, "force"),
                  gravity_compensation=props.gravity_compensation, control=props.control,
                  target_kind=props.target_kind or None, target=props.target or None,
                  reference_site=props.reference_site or None, length_range=_range(props, "length"),
                  slider_site=props.slider_site or None, crank_length=props.crank_length,
                  gear_vector=tuple(props.gear_vector) if any(props.gear_vector) else ())
    kind = ActuatorKind(props.kind)
    if kind == ActuatorKind.POSITION:
        return Actuator.position(props.name, props.kp, props.kv, **common)
    if kind == ActuatorKind.VELOCITY:
        return Actuator.velocity(props.name, props.kv, **common)
    if kind == ActuatorKind.MOTOR:
        return Actuator.motor(props.name, **common)
    return Actuator(props.name, gain=tuple(props.gain_prm), bias=tuple(props.bias_prm),
                    dyn_type=props.dyn_type, gain_type=props.gain_type, dyn_params=tuple(props.dyn_prm),
                    bias_type=props.bias_type, **common)


def write_actuator(props, actuator: Actuator, prim_name: str = "") -> None:
    props.name = actuator.name
    props.prim_name = prim_name
    props.kind = actuator.kind.value
    kp, kv = actuator.kp, actuator.kv
    props.kp, props.kv = kp, kv
    props.gear = actuator.gear
    _write_range(props, "ctrl", actuator.ctrl_range)
    _write_range(props, "force", actuator.force_range)
    props.gravity_compensation = actuator.gravity_compensation
    props.control = actuator.control
    props.gain_prm, props.bias_prm = _padded(actuator.gain), _padded(actuator.bias)
    props.dyn_prm = _padded(actuator.dyn_params)
    props.dyn_type, props.gain_type = actuator.dyn_type, actuator.gain_type
    props.bias_type = actuator.bias_type
    _write_range(props, "length", actuator.length_range)
    props.target_kind, props.target = actuator.target_kind or "", actuator.target or ""
    props.reference_site = actuator.reference_site or ""
    props.slider_site, props.crank_length = actuator.slider_site or "", actuator.crank_length
    props.gear_vector = tuple(actuator.gear_vector) + (0.0,) * (6 - len(actuator.gear_vector))


def write_actuators(collection, actuators, prim_names: dict) -> None:
    collection.clear()
    for actuator in actuators:
        write_actuator(collection.add(), actuator, prim_names.get(actuator.name, ""))


def read_mimic(props) -> Optional[Mimic]:
    if not props.has_mimic or props.mimic_leader is None:
        return None
    return Mimic(leader=props.mimic_leader.name, gear=props.mimic_gear, offset=props.mimic_offset,
                 higher_terms=tuple(np.trim_zeros(shortest_decimals(props.mimic_higher_terms), "b")))


def write_mimic(props, mimic: Optional[Mimic], joint_objects: dict) -> None:
    props.has_mimic = mimic is not None
    props.mimic_leader = joint_objects.get(mimic.leader) if mimic else None
    if mimic is not None:
        props.mimic_gear, props.mimic_offset = mimic.gear, mimic.offset
        props.mimic_higher_terms = tuple(mimic.higher_terms) + (0.0,) * (3 - len(mimic.higher_terms))


def read_tendon(props) -> FixedTendon:
    return FixedTendon(
        name=props.name,
        joints=[TendonJoint(joint=j.joint.name, coef=j.coef, axis=j.axis or None) for j in props.joints
                if j.joint is not None],
        actuators=[read_actuator(a) for a in props.actuators],
        lower=props.lower if props.has_lower else -math.inf,
        upper=props.upper if props.has_upper else math.inf,
        stiffness=props.stiffness, damping=props.damping, frictionloss=props.frictionloss,
        spring_length=read_spring_length(props), armature=props.armature)


def read_spring_length(props) -> Optional[tuple[float, float]]:
    """A tendon's spring rest length; None: its length at the start (stored as MuJoCo's -1, -1)."""
    values = tuple(props.spring_length)
    return None if values == LENGTH_AT_START else values


def write_spring_length(props, spring_length: Optional[tuple[float, float]]) -> None:
    props.spring_length = LENGTH_AT_START if spring_length is None else spring_length


def write_tendon(props, tendon: FixedTendon, joint_objects: dict, prim_names: dict) -> None:
    props.name = tendon.name
    props.prim_name = prim_names.get(tendon.name, "")
    props.joints.clear()
    for item in tendon.joints:
        joint = props.joints.add()
        joint.joint, joint.axis, joint.coef = joint_objects.get(item.joint), item.axis or "", item.coef
    write_actuators(props.actuators, tendon.actuators, prim_names)
    props.has_lower, props.has_upper = tendon.lower != -math.inf, tendon.upper != math.inf
    if props.has_lower:
        props.lower = tendon.lower
    if props.has_upper:
        props.upper = tendon.upper
    props.stiffness, props.damping = tendon.stiffness, tendon.damping
    props.frictionloss, props.armature = tendon.frictionloss, tendon.armature
    write_spring_length(props, tendon.spring_length)


# --- MuJoCo's model beyond the tree: keyframes, equalities, contact pairs, spatial tendons ---------

def write_keyframe(props, keyframe: Keyframe) -> None:
    props.name, props.time = keyframe.name, keyframe.time
    props.values.clear()

    def add(kind: str, target: str, values, axis: str = "") -> None:
        item = props.values.add()
        item.kind, item.target, item.axis = kind, target, axis
        item.values = tuple(values) + (0.0,) * (7 - len(values))
        item.values_low = [v - high for v, high in zip(tuple(values) + (0.0,) * 7, item.values)]

    for (joint, axis), value in keyframe.joint_positions.items():
        add("POSITION", joint, (value,), axis)
    for (joint, axis), value in keyframe.joint_velocities.items():
        add("VELOCITY", joint, (value,), axis)
    for joint, quat in keyframe.ball_rotations.items():
        add("BALL", joint, quat)
    for body, pose in keyframe.root_poses.items():
        add("ROOT_POSE", body, (*pose.pos, *pose.rot))
    for body, (linear, angular) in keyframe.root_velocities.items():
        add("ROOT_VELOCITY", body, (*linear, *angular))
    for actuator, value in keyframe.controls.items():
        add("CONTROL", actuator, (value,))


def read_keyframe(props) -> Keyframe:
    keyframe = Keyframe(name=props.name, time=props.time)
    items = props.values
    for item, v in zip(items, _keyframe_values(items)):
        kind, target, axis = _KEYFRAME_ITEM(item)
        if kind == "POSITION":
            keyframe.joint_positions[(target, axis)] = v[0]
        elif kind == "VELOCITY":
            keyframe.joint_velocities[(target, axis)] = v[0]
        elif kind == "BALL":
            keyframe.ball_rotations[target] = v[:4]
        elif kind == "ROOT_POSE":
            keyframe.root_poses[target] = Pose(v[:3], v[3:7])
        elif kind == "ROOT_VELOCITY":
            keyframe.root_velocities[target] = (v[:3], v[3:6])
        elif kind == "CONTROL":
            keyframe.controls[target] = v[0]
    return keyframe


_KEYFRAME_ITEM = attrgetter("kind", "target", "axis")


def _keyframe_values(items) -> list[tuple]:
    """Each keyframe item's 7 values, its float32 high and low parts summed in float64 (the
    collection's two ``foreach_get`` reads rather than two array reads per item)."""
    high, low = (np.empty(7 * len(items), dtype=np.float32) for _ in range(2))
    items.foreach_get("values", high)
    items.foreach_get("values_low", low)
    summed = high.astype(np.float64) + low.astype(np.float64)
    return [tuple(row) for row in summed.reshape(-1, 7).tolist()]


def write_equality(props, equality: Equality, bodies: dict, sites: dict) -> None:
    props.name, props.kind = equality.name, equality.kind.value
    props.body0, props.body1 = bodies.get(equality.body0), bodies.get(equality.body1)
    props.site0, props.site1 = sites.get(equality.site0), sites.get(equality.site1)
    props.anchor, props.torque_scale, props.active = equality.anchor, equality.torque_scale, equality.active
    props.solref, props.solimp = equality.solref, equality.solimp
    props.has_relative_pose = equality.relative_pose is not None
    if equality.relative_pose is not None:
        props.relative_location = equality.relative_pose.pos
        props.relative_rotation = equality.relative_pose.rot


def read_equality(props, name_of) -> Equality:
    """``name_of``: an object's name in the description (a site's or body's file name)."""
    relative = Pose(tuple(props.relative_location), tuple(props.relative_rotation)) \
        if props.has_relative_pose else None
    return Equality(name=props.name, kind=EqualityKind(props.kind), body0=name_of(props.body0),
                    body1=name_of(props.body1), anchor=tuple(props.anchor), relative_pose=relative,
                    site0=name_of(props.site0), site1=name_of(props.site1), torque_scale=props.torque_scale,
                    active=props.active, solref=tuple(props.solref), solimp=tuple(props.solimp))


def write_tendon_equality(props, equality: TendonEquality, tendon_names: dict) -> None:
    """``tendon_names``: description tendon name -> the name its Blender list item got (``coupling.001``
    for a robot imported twice)."""
    props.name, props.active = equality.name, equality.active
    props.tendon0 = tendon_names.get(equality.tendon0, equality.tendon0)
    props.tendon1 = tendon_names.get(equality.tendon1, equality.tendon1) if equality.tendon1 else ""
    props.polycoef, props.solref, props.solimp = equality.polycoef, equality.solref, equality.solimp


def read_tendon_equality(props) -> TendonEquality:
    return TendonEquality(name=props.name, tendon0=props.tendon0, tendon1=props.tendon1 or None,
                          polycoef=shortest_decimals(props.polycoef), active=props.active,
                          solref=shortest_decimals(props.solref), solimp=shortest_decimals(props.solimp))


def write_contact_pair(props, pair: ContactPair, shapes: dict) -> None:
    props.name = pair.name
    props.shape0, props.shape1 = shapes.get(pair.shape0), shapes.get(pair.shape1)
    props.condim, props.margin, props.gap = pair.condim, pair.margin, pair.gap
    props.friction, props.solref, props.solimp = pair.friction, pair.solref, pair.solimp


def read_contact_pair(props, name_of) -> ContactPair:
    return ContactPair(name=props.name, shape0=name_of(props.shape0), shape1=name_of(props.shape1),
                       condim=props.condim, friction=tuple(props.friction), solref=tuple(props.solref),
                       solimp=tuple(props.solimp), margin=props.margin, gap=props.gap)


def write_spatial_tendon(props, tendon: SpatialTendon, targets: dict, prim_names: dict) -> None:
    """``targets``: site and collider objects by description name."""
    props.name = tendon.name
    props.path.clear()
    for wrap in tendon.path:
        item = props.path.add()
        item.kind, item.divisor = wrap.kind.value, wrap.divisor
        item.target, item.side_site = targets.get(wrap.target), targets.get(wrap.side_site)
    write_actuators(props.actuators, tendon.actuators, prim_names)
    props.has_lower, props.has_upper = tendon.lower != -math.inf, tendon.upper != math.inf
    if props.has_lower:
        props.lower = tendon.lower
    if props.has_upper:
        props.upper = tendon.upper
    props.stiffness, props.damping, props.width = tendon.stiffness, tendon.damping, tendon.width
    props.frictionloss, props.armature = tendon.frictionloss, tendon.armature
    write_spring_length(props, tendon.spring_length)
    props.color = tendon.color


def read_spatial_tendon(props, name_of) -> SpatialTendon:
    return SpatialTendon(
        name=props.name,
        path=[TendonWrap(kind=WrapKind(w.kind), target=name_of(w.target), side_site=name_of(w.side_site),
                         divisor=w.divisor) for w in props.path],
        actuators=[read_actuator(a) for a in props.actuators],
        lower=props.lower if props.has_lower else -math.inf,
        upper=props.upper if props.has_upper else math.inf,
        stiffness=props.stiffness, damping=props.damping, frictionloss=props.frictionloss,
        spring_length=read_spring_length(props), width=props.width, color=tuple(props.color),
        armature=props.armature)
