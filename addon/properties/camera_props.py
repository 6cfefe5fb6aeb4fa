"""A robot's camera (``core.model.Camera``): a Blender camera on its body. Field of view and clipping are
the camera data's own (a vertical sensor fit: MuJoCo's fovy is vertical); MuJoCo's tracking mode and its
image size are kept here. Both look down their frame's -Z with +Y up."""

import bpy
from bpy.props import BoolProperty, EnumProperty, IntVectorProperty, PointerProperty

from ...core.model import CameraMode
from .common import enum_items, is_body_object

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


classes = (ArticulaCameraProps,)
