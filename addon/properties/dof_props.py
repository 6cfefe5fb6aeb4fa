"""One degree of freedom of a joint: every field of ``core.model.Dof``."""

import math

import bpy
from bpy.props import BoolProperty, CollectionProperty, EnumProperty, FloatVectorProperty, IntProperty

from ...core.model import DEFAULT_SOLIMP, DEFAULT_SOLREF, DofAxis, DofMotion, DriveType
from .actuator_props import ArticulaActuatorProps
from .common import UNBOUNDED, enum_items, float_prop, unit_view

#: Description field -> (boolean that enables it, the description value when the boolean is off).
INFINITE_WHEN_OFF = {
    "lower": ("has_lower_limit", -math.inf),
    "upper": ("has_upper_limit", math.inf),
    "max_effort": ("has_max_effort", math.inf),
    "velocity_limit": ("has_velocity_limit", math.inf),
}

#: Raw values whose unit follows the axis, with the unit of their linear view.
AXIS_UNIT_FIELDS = {
    "lower": "LENGTH",
    "upper": "LENGTH",
    "limit_margin": "LENGTH",
    "reference": "LENGTH",
    "spring_reference": "LENGTH",
    "target_position": "LENGTH",
    "target_velocity": "VELOCITY",
    "velocity_limit": "VELOCITY",
}

_AXIS_LABELS = {a.value: ("Rotate " if a.is_angular else "Translate ") + a.letter for a in DofAxis}
_MOTION_DESCRIPTIONS = {
    "FREE": "Moves without limits",
    "LIMITED": "Moves between the lower and upper limits",
    "LOCKED": "Does not move (D6: the axis is removed from the joint)",
}
_DRIVE_DESCRIPTIONS = {
    "FORCE": "Gains produce a force or torque",
    "ACCELERATION": "Gains produce an acceleration, independent of the mass",
}


def _views(raw, label, description, linear_unit):
    linear_subtype = "DISTANCE" if linear_unit == "LENGTH" else "NONE"
    angle_label = label + (" (/s)" if linear_unit == "VELOCITY" else "")
    return {
        f"{raw}_angle": unit_view(raw, angle_label, description + " (rotational axis)", subtype="ANGLE",
                                  unit="ROTATION", soft_min=-2 * math.pi, soft_max=2 * math.pi),
        f"{raw}_length": unit_view(raw, label, description + " (translational axis)",
                                   subtype=linear_subtype, unit=linear_unit, soft_min=-10.0, soft_max=10.0),
    }


class ArticulaDofProps(bpy.types.PropertyGroup):
    """Angular DOFs store radians and N*m; linear DOFs meters and N."""

    axis: EnumProperty(name="Axis", description="The joint-frame axis this DOF moves along or about",
                       items=enum_items(DofAxis, _AXIS_LABELS), default=DofAxis.ROT_X.value)
    motion: EnumProperty(name="Motion", items=enum_items(DofMotion, descriptions=_MOTION_DESCRIPTIONS),
                         default=DofMotion.FREE.value)
    has_lower_limit: BoolProperty(name="Lower Limit", description="Limit the motion from below; off: -inf")
    lower: float_prop("Lower", "Lower limit (rad or m)", default=-1.0)
    has_upper_limit: BoolProperty(name="Upper Limit", description="Limit the motion from above; off: +inf")
    upper: float_prop("Upper", "Upper limit (rad or m)", default=1.0)
    limit_stiffness: float_prop("Limit Stiffness", "Soft limit stiffness; 0 = hard limit", soft_min=0.0)
    limit_damping: float_prop("Limit Damping", "Soft limit damping", soft_min=0.0)
    limit_margin: float_prop("Limit Margin", "Distance from a limit at which it starts acting (rad or m; "
                             "MuJoCo joint margin)", soft_min=0.0)
    limit_solref: FloatVectorProperty(
        name="Limit Solref", size=2, default=DEFAULT_SOLREF, **UNBOUNDED,
        description="How MuJoCo's limit constraint responds: time constant (s) and damping ratio; "
                    "negative values give stiffness and damping (MuJoCo joint solreflimit)")
    limit_solimp: FloatVectorProperty(
        name="Limit Solimp", size=5, default=DEFAULT_SOLIMP, **UNBOUNDED,
        description="How hard MuJoCo's limit constraint is as it goes deeper: smallest and largest "
                    "impedance, the depth between them (rad or m), midpoint and power (MuJoCo joint "
                    "solimplimit)")
    reference: float_prop("Reference", "The joint's coordinate where the robot stands as modelled (rad or m; "
                          "MuJoCo joint ref): limits, targets and keyframes count from it")
    drive_enabled: BoolProperty(name="Drive", description="A PD drive towards the targets")
    drive_type: EnumProperty(name="Drive Type", items=enum_items(DriveType, descriptions=_DRIVE_DESCRIPTIONS),
                             default=DriveType.FORCE.value)
    drive_stiffness: float_prop("Stiffness", "Drive stiffness (N*m/rad or N/m)", soft_min=0.0)
    drive_damping: float_prop("Damping", "Drive damping (N*m*s/rad or N*s/m)", soft_min=0.0)
    target_position: float_prop("Target Position", "Drive target position (rad or m)")
    target_velocity: float_prop("Target Velocity", "Drive target velocity (rad/s or m/s)")
    has_max_effort: BoolProperty(name="Max Effort", description="Clamp the drive effort; off: unlimited")
    max_effort: float_prop("Max Effort", "Largest drive force or torque (N*m or N)", default=100.0,
                           soft_min=0.0)
    armature: float_prop("Armature", "Added inertia on the DOF (kg*m^2 or kg)", soft_min=0.0)
    static_friction: float_prop("Static Friction", "Effort needed to start moving (N*m or N)", soft_min=0.0)
    dynamic_friction: float_prop("Dynamic Friction",
                                 "Coulomb effort while moving (N*m or N); at most the static friction",
                                 soft_min=0.0)
    viscous_damping: float_prop("Viscous Damping", "Joint damping (N*m*s/rad or N*s/m)", soft_min=0.0)
    spring_stiffness: float_prop("Spring Stiffness", "Passive spring pulling the joint to its spring "
                                 "reference, always on (N*m/rad or N/m; MuJoCo joint stiffness)",
                                 soft_min=0.0)
    spring_reference: float_prop("Spring Reference", "The joint's coordinate where the passive spring rests "
                                 "(rad or m; MuJoCo joint springref)")
    has_velocity_limit: BoolProperty(name="Velocity Limit", description="Limit the speed; off: unlimited")
    velocity_limit: float_prop("Velocity Limit", "Largest speed (rad/s or m/s)", default=10.0, soft_min=0.0)
    group: IntProperty(name="MuJoCo Group", min=0, max=5, description="Which MuJoCo joint group this DOF's "
                       "joint is in (MuJoCo joint group: the groups its viewer shows or hides)")
    # The DOF's MuJoCo actuators (the drive above is its UsdPhysics drive).
    actuators: CollectionProperty(type=ArticulaActuatorProps, name="Actuators")
    active_actuator_index: IntProperty(name="Active Actuator", min=0)

    @property
    def is_angular(self) -> bool:
        return DofAxis(self.axis).is_angular

    def view(self, raw: str) -> str:
        """The name of the unit view of ``raw`` for this DOF's axis (for ``layout.prop``)."""
        return f"{raw}_angle" if self.is_angular else f"{raw}_length"


#: The stored values, in declaration order (the unit views below are not stored; the actuators are a list).
LIST_FIELDS = ("actuators", "active_actuator_index")
STORED_FIELDS = tuple(name for name in ArticulaDofProps.__annotations__ if name not in LIST_FIELDS)

for _raw, _unit in AXIS_UNIT_FIELDS.items():
    ArticulaDofProps.__annotations__.update(
        _views(_raw, _raw.replace("_", " ").title(), _raw.replace("_", " ").capitalize(), _unit))

classes = (ArticulaDofProps,)
