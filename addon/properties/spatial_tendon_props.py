"""Spatial tendons (``core.model.SpatialTendon``): strings through sites that wrap around colliders,
on the scene (``scene.articula.spatial_tendons``)."""

import math

import bpy
from bpy.props import BoolProperty, CollectionProperty, EnumProperty, FloatVectorProperty, IntProperty
from bpy.props import PointerProperty

from ...core.model import WrapKind
from .actuator_props import ArticulaActuatorProps
from .common import enum_items, float_prop
from .site_props import is_site_object
from .tendon_props import spring_length_prop

INFINITE_WHEN_OFF = {"lower": ("has_lower", -math.inf), "upper": ("has_upper", math.inf)}

_WRAP_DESCRIPTIONS = {"SITE": "The tendon passes through a site",
                      "GEOM": "It wraps around a sphere or cylinder collider",
                      "PULLEY": "A new branch starts, its length divided by the divisor"}


class ArticulaTendonWrapProps(bpy.types.PropertyGroup):
    kind: EnumProperty(name="Kind", items=enum_items(WrapKind, descriptions=_WRAP_DESCRIPTIONS),
                       default=WrapKind.SITE.value)
    target: PointerProperty(name="Target", type=bpy.types.Object, description="The site or the collider")
    side_site: PointerProperty(name="Side Site", type=bpy.types.Object, poll=is_site_object,
                               description="Around a collider: the side the tendon passes on")
    divisor: float_prop("Divisor", "Pulley: the branch's length is divided by it", default=1.0)


class ArticulaSpatialTendonProps(bpy.types.PropertyGroup):
    path: CollectionProperty(type=ArticulaTendonWrapProps, name="Path")
    active_wrap_index: IntProperty(name="Active Wrap", min=0)
    actuators: CollectionProperty(type=ArticulaActuatorProps, name="Actuators")
    active_actuator_index: IntProperty(name="Active Actuator", min=0)
    has_lower: BoolProperty(name="Lower Limit", description="Limit the tendon's length from below")
    lower: float_prop("Lower", "Shortest length (m)", subtype="DISTANCE", unit="LENGTH")
    has_upper: BoolProperty(name="Upper Limit", description="Limit the tendon's length from above")
    upper: float_prop("Upper", "Longest length (m)", default=1.0, subtype="DISTANCE", unit="LENGTH")
    stiffness: float_prop("Stiffness", "Spring pulling the tendon to its rest length", soft_min=0.0)
    damping: float_prop("Damping", "Damping of the tendon's length change", soft_min=0.0)
    frictionloss: float_prop("Friction Loss", "Dry friction against the tendon's length change (N; MuJoCo "
                             "frictionloss)", soft_min=0.0)
    spring_length: spring_length_prop("m")
    armature: float_prop("Armature", "Inertia added along the tendon (kg; MuJoCo tendon armature)",
                         soft_min=0.0)
    width: float_prop("Width", "Drawn width", default=0.003, subtype="DISTANCE", unit="LENGTH", soft_min=0.0)
    color: FloatVectorProperty(name="Color", size=4, subtype="COLOR", min=0.0, max=1.0,
                               default=(0.5, 0.5, 0.5, 1.0))


classes = (ArticulaTendonWrapProps, ArticulaSpatialTendonProps)
