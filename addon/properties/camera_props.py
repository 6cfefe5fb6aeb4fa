"""A robot's camera (``core.model.Camera``): a Blender camera on its body. Field of view and clipping are
the camera data's own (a vertical sensor fit: MuJoCo's fovy is vertical); MuJoCo's tracking mode and its
image size are kept here, and for a ROS/Gazebo camera its update rate and its URDF links' names. Both look
down their frame's -Z with +Y up."""

import bpy
from bpy.props import BoolProperty, EnumProperty, IntVectorProperty, PointerProperty, StringProperty

from ...core.model import CameraMode
from .common import enum_items, float_prop, is_body_object

_MODE_DESCRIPTIONS = {
    "FIXED": "Fixed on its body",
    "TRACK": "Follows its body's position at a fixed world orientation",
    "TRACKCOM": "Follows its subtree's center of mass at a fixed world orientation",
    "TARGETBODY": "On its body, looking at the target body",
    "TARGETBODYCOM": "On its body, looking at the target's subtree center of mass",
}


class ArticulaCameraProps(bpy.types.PropertyGroup):
    enabled: BoolProperty(name="Robot Camera", description="This camera is the robot's (a MuJoCo camera, "
                          "exported with it); its body is the nearest body above it")
    mode: EnumProperty(name="Mode", items=enum_items(CameraMode, {"TRACKCOM": "Track COM",
                                                                  "TARGETBODY": "Target Body",
                                                                  "TARGETBODYCOM": "Target Body COM"},
                                                     _MODE_DESCRIPTIONS),
                       default=CameraMode.FIXED.value)
    target: PointerProperty(name="Target", type=bpy.types.Object, poll=is_body_object,
                            description="The body a target-body camera looks at")
    resolution: IntVectorProperty(name="Resolution", size=2, min=1, default=(1, 1),
                                  description="Image size the robot's camera renders (1 x 1: not set)")
    update_rate: float_prop("Update Rate", "Images per second (Hz) a ROS/Gazebo camera publishes "
                            "(0: every simulation step)", soft_min=0.0)
    ros_link: StringProperty(name="ROS Link", description="The URDF link the camera is on, looking down its "
                             "+X (ROS's body convention; empty: named after the camera)")
    ros_optical_frame: StringProperty(name="ROS Optical Frame", description="The URDF link of its optical "
                                      "frame, looking down +Z (empty: the link's name + _optical_frame)")


classes = (ArticulaCameraProps,)
