"""A robot's light (``core.model.Light``): a Blender light on its body. Its kind (spot, sun, point),
color, spot angle and shadow are the light data's own; MuJoCo's fall-off is kept here."""

import bpy
from bpy.props import BoolProperty, FloatVectorProperty

from .common import UNBOUNDED, float_prop


class ArticulaLightProps(bpy.types.PropertyGroup):
    enabled: BoolProperty(name="Robot Light", description="This light is the robot's (a MuJoCo light, "
                          "exported with it); its body is the nearest body above it")
    cutoff: float_prop("Cutoff", "Spot half-angle (the spot size of a spot light shows it)",
                       default=0.7853981633974483, subtype="ANGLE", soft_min=0.0)
    exponent: float_prop("Exponent", "Spot fall-off (MuJoCo exponent)", default=10.0, soft_min=0.0)
    attenuation: FloatVectorProperty(name="Attenuation", size=3, default=(1.0, 0.0, 0.0), **UNBOUNDED,
                                     description="Constant, linear and quadratic attenuation")
    active: BoolProperty(name="Active", default=True, description="The light is on when the model starts")


classes = (ArticulaLightProps,)
