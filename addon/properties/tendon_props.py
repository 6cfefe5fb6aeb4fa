"""A fixed tendon (``core.model.FixedTendon``): a weighted sum of joint positions that actuators and
limits act on, as MJCF grippers couple two fingers to one servo. Scene-level (``scene.articula.tendons``).
"""

import math

import bpy
from bpy.props import CollectionProperty, BoolProperty, FloatVectorProperty, IntProperty, PointerProperty
from bpy.props import StringProperty

from .actuator_props import ArticulaActuatorProps
from .common import UNBOUNDED, float_prop

#: ``spring_length`` when the spring rests at the tendon's length at the start (MuJoCo's -1; None in
#: the description).
LENGTH_AT_START = (-1.0, -1.0)


def spring_length_prop(unit: str):
    """A tendon's spring rest length: two values bound a dead band; (-1, -1) = the length at the start."""
    return FloatVectorProperty(
        name="Spring Length", size=2, default=LENGTH_AT_START, **UNBOUNDED,
        description=f"Length where the tendon's spring rests ({unit}; MuJoCo springlength): two "
                    "different values bound a band where it does not pull; -1, -1 = the tendon's length "
                    "at the start")

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
    frictionloss: float_prop("Friction Loss", "Dry friction against the tendon's length change (N or N*m; "
                             "MuJoCo frictionloss)", soft_min=0.0)
    spring_length: spring_length_prop("m or rad")
    armature: float_prop("Armature", "Inertia added along the tendon (kg or kg*m^2; MuJoCo tendon armature)",
                         soft_min=0.0)


classes = (ArticulaTendonJointProps, ArticulaTendonProps)
