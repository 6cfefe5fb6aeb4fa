"""A fixed tendon (``core.model.FixedTendon``): a weighted sum of joint positions that actuators and
limits act on, as MJCF grippers couple two fingers to one servo. Scene-level (``scene.articula.tendons``).
"""

import math

import bpy
from bpy.props import CollectionProperty, BoolProperty, IntProperty, PointerProperty, StringProperty

from .actuator_props import ArticulaActuatorProps
from .common import float_prop

#: Description field -> (boolean that enables it, the description value when the boolean is off).
INFINITE_WHEN_OFF = {
    "lower": ("has_lower", -math.inf),
    "upper": ("has_upper", math.inf),
}


def is_joint_object(_self, obj) -> bool:
    """Poll of the Object pointers that must name a joint."""
    return obj.articula.joint.enabled


class ArticulaTendonJointProps(bpy.types.PropertyGroup):
    joint: PointerProperty(name="Joint", type=bpy.types.Object, poll=is_joint_object,
                           description="A joint the tendon's length sums over")
    axis: StringProperty(name="Axis", default="",
                         description="The DOF axis (rotX, transY...) on a multi-DOF joint; empty: its only DOF")
    coef: float_prop("Coefficient", "The tendon's length is the sum of coefficient * joint position",
                     default=1.0)


class ArticulaTendonProps(bpy.types.PropertyGroup):
    prim_name: StringProperty(name="Prim Name", options={"HIDDEN"},
                              description="The USD prim name this tendon came from (kept on export)")
    joints: CollectionProperty(type=ArticulaTendonJointProps, name="Joints")
    active_joint_index: IntProperty(name="Active Joint", min=0)
    actuators: CollectionProperty(type=ArticulaActuatorProps, name="Actuators")
    active_actuator_index: IntProperty(name="Active Actuator", min=0)
    has_lower: BoolProperty(name="Lower Limit", description="Limit the tendon's length from below; off: -inf")
    lower: float_prop("Lower", "Smallest tendon length (m or rad)", default=-1.0)
    has_upper: BoolProperty(name="Upper Limit", description="Limit the tendon's length from above; off: +inf")
    upper: float_prop("Upper", "Largest tendon length (m or rad)", default=1.0)
    stiffness: float_prop("Stiffness", "Spring pulling the tendon to its rest length", soft_min=0.0)
    damping: float_prop("Damping", "Damping of the tendon's length change", soft_min=0.0)


classes = (ArticulaTendonJointProps, ArticulaTendonProps)
