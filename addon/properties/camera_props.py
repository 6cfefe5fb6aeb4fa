"""A robot's camera (``core.model.Camera``): a Blender camera on its body. Field of view and clipping are
the camera data's own (a vertical sensor fit: MuJoCo's fovy is vertical); MuJoCo's tracking mode and its
image size are kept here, and for a ROS/Gazebo camera its update rate and its URDF links' names. Both look
down their frame's -Z with +Y up.

A target-body camera gets a Track To constraint to its target body's object (:func:`sync_tracking`, on
import and whenever its mode or target changes), so it looks at the body in the viewport and in a baked
animation as MuJoCo turns it: -Z at the target, +Y toward the world's up. Its authored pose stays its
own (the constraint only turns what is drawn); exports write that pose (:func:`authored_matrix_world`)."""

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


#: The constraint a target-body camera is given (a user's own constraints are left alone).
TRACK_CONSTRAINT = "Articula Track Target"
TRACKING_MODES = (CameraMode.TARGETBODY.value, CameraMode.TARGETBODYCOM.value)


def tracking_constraint(obj):
    """The camera's Track To toward its target body, where it has one that acts (else None)."""
    constraint = obj.constraints.get(TRACK_CONSTRAINT)
    if constraint is None or constraint.mute or not constraint.enabled or constraint.influence <= 0.0:
        return None
    return constraint


def sync_tracking(obj) -> None:
    """Give a robot camera in a target-body mode with a target the Track To that turns it toward the
    target's object (its body frame; a TARGETBODYCOM camera looks at the body's origin, not its
    subtree's centre of mass); remove it from any other camera."""
    props = obj.articula.camera
    constraint = obj.constraints.get(TRACK_CONSTRAINT)
    if not (props.enabled and props.mode in TRACKING_MODES and props.target is not None):
        if constraint is not None:
            obj.constraints.remove(constraint)
        return
    if constraint is None:
        constraint = obj.constraints.new("TRACK_TO")
        constraint.name = TRACK_CONSTRAINT
    constraint.target = props.target
    constraint.track_axis, constraint.up_axis = "TRACK_NEGATIVE_Z", "UP_Y"
    constraint.use_target_z = False  # up is the world's +Z, as MuJoCo's target-body camera


def authored_matrix_world(obj):
    """The camera's world matrix without its Track To: where it was put, not where it is turned."""
    if tracking_constraint(obj) is None:
        return obj.matrix_world
    if obj.parent is None:
        return obj.matrix_basis
    return obj.parent.matrix_world @ obj.matrix_parent_inverse @ obj.matrix_basis


def _sync(self, _context) -> None:
    if isinstance(self.id_data, bpy.types.Object):
        sync_tracking(self.id_data)


class ArticulaCameraProps(bpy.types.PropertyGroup):
    enabled: BoolProperty(name="Robot Camera", description="This camera is the robot's (a MuJoCo camera, "
                          "exported with it); its body is the nearest body above it", update=_sync)
    mode: EnumProperty(name="Mode", items=enum_items(CameraMode, {"TRACKCOM": "Track COM",
                                                                  "TARGETBODY": "Target Body",
                                                                  "TARGETBODYCOM": "Target Body COM"},
                                                     _MODE_DESCRIPTIONS),
                       default=CameraMode.FIXED.value, update=_sync)
    target: PointerProperty(name="Target", type=bpy.types.Object, poll=is_body_object, update=_sync,
                            description="The body a target-body camera looks at (a Track To turns it there)")
    resolution: IntVectorProperty(name="Resolution", size=2, min=1, default=(1, 1),
                                  description="Image size the robot's camera renders (1 x 1: not set)")
    update_rate: float_prop("Update Rate", "Images per second (Hz) a ROS/Gazebo camera publishes "
                            "(0: every simulation step)", soft_min=0.0)
    ros_link: StringProperty(name="ROS Link", description="The URDF link the camera is on, looking down its "
                             "+X (ROS's body convention; empty: named after the camera)")
    ros_optical_frame: StringProperty(name="ROS Optical Frame", description="The URDF link of its optical "
                                      "frame, looking down +Z (empty: the link's name + _optical_frame)")


classes = (ArticulaCameraProps,)
