"""A sensor (``core.model.Sensor``): an Empty on what it reads. The object it reads (a site, joint, body,
collider or camera) is a pointer, so it follows renames; an actuator or tendon is named."""

import bpy
from bpy.props import BoolProperty, PointerProperty, StringProperty

from .common import float_prop

OBJECT_KINDS = ("site", "joint", "body", "xbody", "geom", "camera")


class ArticulaSensorProps(bpy.types.PropertyGroup):
    enabled: BoolProperty(name="Sensor", description="This Empty is a sensor (MuJoCo's)")
    kind: StringProperty(name="Kind", default="framepos",
                         description="MuJoCo's sensor keyword: accelerometer, gyro, velocimeter, force, "
                                     "torque, touch, jointpos, jointvel, actuatorfrc, framepos, framequat...")
    target_kind: StringProperty(name="Reads", description="What it reads: site, joint, body, xbody, geom, "
                                "camera, tendon, actuator (empty: nothing)")
    target: PointerProperty(name="Target", type=bpy.types.Object, description="The object it reads")
    target_name: StringProperty(name="Target Name", description="The actuator or tendon it reads")
    reference_kind: StringProperty(name="Reference Kind", description="A frame sensor's reference: site, "
                                   "body, xbody, geom or camera (empty: the world)")
    reference: PointerProperty(name="Reference", type=bpy.types.Object,
                               description="The frame a frame sensor measures in (empty: the world)")
    noise: float_prop("Noise", "Standard deviation of the reading's noise", soft_min=0.0)
    cutoff: float_prop("Cutoff", "Readings are clamped to this (0: no clamp)", soft_min=0.0)
    settings: StringProperty(name="Settings", description="The rest of the file's attributes, as "
                             "name=value pairs separated by ';' (a contact sensor's data, reduce, num)")
    update_rate: float_prop("Update Rate", "Readings per second (Hz) a ROS/Gazebo sensor publishes "
                            "(0: every simulation step)", soft_min=0.0)


classes = (ArticulaSensorProps,)
