"""The field-by-field mapping between PropertyGroups and description dataclasses.

Both adapters use it, so a field is named once: a description field and its property share the
name; enums are stored by value; an infinite value is a ``has_<x>`` boolean (see the property
modules' ``INFINITE_WHEN_OFF``); an ``Optional`` float is ``has_<x>`` plus the value.
"""

from enum import Enum

from ...core.model import Dof, DofAxis, DofMotion, DriveType, PhysicsMaterial, SceneSettings, Solver
from ..properties import dof_props, joint_props

DOF_FIELDS = {
    "axis": DofAxis, "motion": DofMotion, "drive_type": DriveType,
    **{name: None for name in ("lower", "upper", "limit_stiffness", "limit_damping", "drive_enabled",
                               "drive_stiffness", "drive_damping", "target_position", "target_velocity",
                               "max_effort", "armature", "static_friction", "dynamic_friction",
                               "viscous_damping", "velocity_limit", "spring_stiffness")},
}
JOINT_FIELDS = {name: None for name in ("cone_limit0", "cone_limit1", "collide_bodies",
                                        "exclude_from_articulation")}
BODY_FIELDS = {name: None for name in ("kinematic", "world", "self_collision", "linear_velocity",
                                       "angular_velocity")}
SHAPE_FIELDS = {name: None for name in ("axis", "collision_group", "world", "contact_margin", "contact_gap")}
MATERIAL_FIELDS = {name: None for name in ("static_friction", "dynamic_friction", "restitution",
                                           "torsional_friction", "rolling_friction")}
SETTINGS_FIELDS = {"solver": Solver, **{name: None for name in (
    "gravity", "steps_per_second", "solver_iterations", "collision_filter_parent", "replicas",
    "replica_spacing", "ground_plane")}}

INFINITE_WHEN_OFF = {**dof_props.INFINITE_WHEN_OFF, **joint_props.INFINITE_WHEN_OFF}


def _to_python(value):
    """A property value as the description stores it (vectors as tuples of float)."""
    if isinstance(value, (bool, int, float, str)):
        return value
    return tuple(value)


def read_fields(props, fields: dict) -> dict:
    """Description keyword arguments from ``props`` for ``fields`` (name -> Enum type or None)."""
    values = {}
    for name, enum_type in fields.items():
        switch = INFINITE_WHEN_OFF.get(name)
        if switch and not getattr(props, switch[0]):
            values[name] = switch[1]
            continue
        value = _to_python(getattr(props, name))
        values[name] = enum_type(value) if enum_type else value
    return values


def write_fields(props, source, fields: dict) -> None:
    """Set ``props`` from the description object ``source`` for ``fields``."""
    for name in fields:
        value = getattr(source, name)
        switch = INFINITE_WHEN_OFF.get(name)
        if switch:
            off = value == switch[1]
            setattr(props, switch[0], not off)
            if off:
                continue
        setattr(props, name, value.value if isinstance(value, Enum) else value)


def read_optional(props, name: str):
    """An ``Optional`` float stored as ``has_<name>`` + ``<name>``."""
    return getattr(props, name) if getattr(props, f"has_{name}") else None


def write_optional(props, name: str, value) -> None:
    setattr(props, f"has_{name}", value is not None)
    if value is not None:
        setattr(props, name, value)


def read_dof(props) -> Dof:
    return Dof(**read_fields(props, DOF_FIELDS))


def read_material(props) -> PhysicsMaterial:
    return PhysicsMaterial(name=props.name, density=read_optional(props, "density"),
                           **read_fields(props, MATERIAL_FIELDS))


def write_material(props, material: PhysicsMaterial) -> None:
    props.name = material.name
    write_fields(props, material, MATERIAL_FIELDS)
    write_optional(props, "density", material.density)


def read_settings(props) -> SceneSettings:
    return SceneSettings(**read_fields(props, SETTINGS_FIELDS))
