"""Keyframes (``core.model.Keyframe``): named states of the robot kept on the scene, applied to the robot
by Apply Keyframe. Each value names what it sets by its file name (a joint, body or actuator)."""

import bpy
from bpy.props import CollectionProperty, EnumProperty, FloatVectorProperty, IntProperty, StringProperty

from .common import UNBOUNDED, float_prop

VALUE_KINDS = [
    ("POSITION", "Joint Position", "A DOF's position (rad or m): target joint, axis"),
    ("VELOCITY", "Joint Velocity", "A DOF's velocity (rad/s or m/s): target joint, axis"),
    ("BALL", "Ball Rotation", "A ball joint's orientation, quaternion w x y z: target joint"),
    ("ROOT_POSE", "Root Pose", "A floating body's world position x y z and quaternion w x y z"),
    ("ROOT_VELOCITY", "Root Velocity", "A floating body's linear then angular velocity"),
    ("CONTROL", "Control", "An actuator's control: target actuator"),
]


def _edited(self, _context):
    """A value typed in is the value: the low part of the one before goes."""
    if any(self.values_low):
        self.values_low = (0.0,) * 7


class ArticulaKeyframeValueProps(bpy.types.PropertyGroup):
    kind: EnumProperty(name="Kind", items=VALUE_KINDS, default="POSITION")
    target: StringProperty(name="Target", description="The joint, body or actuator, by its file name")
    axis: StringProperty(name="Axis", description="The DOF's axis (rotX, transZ...)")
    values: FloatVectorProperty(name="Values", size=7, **UNBOUNDED, update=_edited,
                                description="The value (first), quaternion or pose and velocity")
    # What float32 ``values`` leave off each float64 value: a state is kept as the file wrote it (a free
    # root's quaternion turns its angular velocity, so float32 noise would show in MuJoCo's qvel).
    values_low: FloatVectorProperty(name="Values (Low Part)", size=7, **UNBOUNDED, options={"HIDDEN"})


class ArticulaKeyframeProps(bpy.types.PropertyGroup):
    time: float_prop("Time", "The simulation time of this state (s)")
    values: CollectionProperty(type=ArticulaKeyframeValueProps, name="Values")
    active_value_index: IntProperty(name="Active Value", min=0)


classes = (ArticulaKeyframeValueProps, ArticulaKeyframeProps)
