"""A physics material of the scene's list: every field of ``core.model.PhysicsMaterial``."""

import bpy
from bpy.props import BoolProperty

from .common import float_prop


class ArticulaMaterialProps(bpy.types.PropertyGroup):
    # ``name`` (the key colliders refer to) is PropertyGroup's own StringProperty.
    static_friction: float_prop("Static Friction", default=0.5, soft_min=0.0, soft_max=2.0)
    dynamic_friction: float_prop("Dynamic Friction", "At most the static friction", default=0.5,
                                 soft_min=0.0, soft_max=2.0)
    restitution: float_prop("Restitution", "Bounciness: 0 none, 1 elastic", soft_min=0.0, soft_max=1.0)
    torsional_friction: float_prop("Torsional Friction", soft_min=0.0, soft_max=1.0)
    rolling_friction: float_prop("Rolling Friction", soft_min=0.0, soft_max=1.0)
    has_density: BoolProperty(name="Density", description="Density of colliders using this material")
    density: float_prop("Density", "kg/m^3", default=1000.0, soft_min=0.0)


classes = (ArticulaMaterialProps,)
