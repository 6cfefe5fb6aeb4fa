"""Add a sensor, a site or a robot camera to the active body (or site, or joint) from the UI.

A sensor is an Empty parented to what it reads, as the import makes it; one that reads at a site gets a
new site on the active body when the active object is a body. Every operator checks the active object
before changing anything, so a refused call leaves the scene as it was; each is one undo step.
"""

import math

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntVectorProperty

from ..addon.adapters.blender_to_description import world_pose
from ..addon.adapters.description_to_blender import SENSOR_EMPTY_SIZE, place
from ..addon.properties.site_props import EMPTY_DISPLAY
from ..core.model import Pose
from .authoring import _ObjectModeOperator, _cursor_pose, _free_name

#: Operator choice -> (MuJoCo sensor keywords it adds, what they read: "site", "joint" or "frame").
SENSOR_CHOICES = {
    "ACCELEROMETER": (("accelerometer",), "site"),
    "GYRO": (("gyro",), "site"),
    "VELOCIMETER": (("velocimeter",), "site"),
    "IMU": (("accelerometer", "gyro", "framequat"), "site"),
    "FORCE": (("force",), "site"),
    "TORQUE": (("torque",), "site"),
    "FORCE_TORQUE": (("force", "torque"), "site"),
    "TOUCH": (("touch",), "site"),
    "JOINT_POSITION": (("jointpos",), "joint"),
    "JOINT_VELOCITY": (("jointvel",), "joint"),
    "JOINT_ACTUATOR_FORCE": (("jointactfrc",), "joint"),
    "FRAME_POSITION": (("framepos",), "frame"),
    "FRAME_ORIENTATION": (("framequat",), "frame"),
    "FRAME_LINEAR_VELOCITY": (("framelinvel",), "frame"),
    "FRAME_ANGULAR_VELOCITY": (("frameangvel",), "frame"),
}
_SENSOR_ITEMS = [
    ("ACCELEROMETER", "Accelerometer", "Linear acceleration at a site, in its frame (gravity's reaction "
                                       "included)"),
    ("GYRO", "Gyro", "Angular velocity at a site, in its frame"),
    ("VELOCIMETER", "Velocimeter", "Linear velocity at a site, in its frame"),
    ("IMU", "IMU", "Accelerometer, gyro and orientation (framequat) on one site"),
    ("FORCE", "Force", "Force the child body's subtree exerts on its parent, at a site"),
    ("TORQUE", "Torque", "Torque the child body's subtree exerts on its parent, at a site"),
    ("FORCE_TORQUE", "Force-Torque", "Force and torque on one site"),
    ("TOUCH", "Touch", "Normal contact force inside the site's volume"),
    ("JOINT_POSITION", "Joint Position", "The active joint's position"),
    ("JOINT_VELOCITY", "Joint Velocity", "The active joint's velocity"),
    ("JOINT_ACTUATOR_FORCE", "Joint Actuator Force", "The force the actuators apply on the active joint"),
    ("FRAME_POSITION", "Frame Position", "The active body's or site's position (in the other selected "
                                         "body or site's frame, else the world's)"),
    ("FRAME_ORIENTATION", "Frame Orientation", "The active body's or site's orientation (relative to the "
                                               "other selected body or site, else the world)"),
    ("FRAME_LINEAR_VELOCITY", "Frame Linear Velocity", "The active body's or site's linear velocity"),
    ("FRAME_ANGULAR_VELOCITY", "Frame Angular Velocity", "The active body's or site's angular velocity"),
]
SITE_SIZE = 0.01  # m: a new site's radius, visible beside a typical robot link


def _is_site(obj) -> bool:
    return obj is not None and obj.type == "EMPTY" and obj.articula.site.enabled


def _frame_kind(obj) -> str:
    """MuJoCo's object type of a frame: a site's, else the body's own frame (xbody)."""
    return "site" if _is_site(obj) else "xbody"


def _new_empty(context, name: str, parent, pose: Pose, display: str, size: float):
    obj = bpy.data.objects.new(_free_name(name, set(bpy.data.objects.keys())), None)
    obj.empty_display_type, obj.empty_display_size = display, size
    context.collection.objects.link(obj)
    place(obj, parent, pose)
    return obj


def new_site(context, body, at_cursor: bool = False):
    """A sphere site on ``body``, at its origin or at the 3D cursor."""
    pose = _cursor_pose(context) if at_cursor else world_pose(body)
    site = _new_empty(context, f"{body.name}_site", body, pose, EMPTY_DISPLAY["SPHERE"], SITE_SIZE)
    site.articula.site.enabled = True
    site.articula.site.kind = "SPHERE"
    site.articula.site.size = (SITE_SIZE,) * 3
    return site


def _describe(obj) -> str:
    if obj is None:
        return "Nothing is active"
    props = obj.articula
    roles = (("a body", props.body.enabled), ("a joint", props.joint.enabled), ("a site", _is_site(obj)),
             ("a collider", props.collider.enabled))
    role = next((name for name, on in roles if on), "no body, site or joint")
    return f"{obj.name} is {role}"


class ARTICULA_OT_add_sensor(_ObjectModeOperator, bpy.types.Operator):
    """Add a sensor on the active body or site (a new site on a body where the sensor reads at one), or on
    the active joint"""

    bl_idname = "articula.add_sensor"
    bl_label = "Add Sensor"
    bl_property = "kind"

    kind: EnumProperty(name="Sensor", items=_SENSOR_ITEMS, default="IMU")
    at_cursor: BoolProperty(name="At 3D Cursor", description="A new site goes at the 3D cursor, not at "
                            "the body's origin")
    noise: FloatProperty(name="Noise", min=0.0, description="Standard deviation of the reading's noise")
    cutoff: FloatProperty(name="Cutoff", min=0.0, description="Readings are clamped to this (0: no clamp)")

    def execute(self, context):
        keywords, reads = SENSOR_CHOICES[self.kind]
        obj = context.active_object
        refusal = self.refusal(obj, reads)
        if refusal:
            return self.fail(refusal)
        reference = self.reference(context, obj) if reads == "frame" else None
        if reads == "site" and not _is_site(obj):
            obj = new_site(context, obj, self.at_cursor)
        target_kind = {"site": "site", "joint": "joint", "frame": _frame_kind(obj)}[reads]
        made = [self.sensor(context, word, obj, target_kind, reference) for word in keywords]
        for sensor in made:
            sensor.select_set(True)
        self.report({"INFO"}, f"{', '.join(s.name for s in made)} on {obj.name}")
        return {"FINISHED"}

    def refusal(self, obj, reads: str):
        props = obj.articula if obj is not None else None
        if reads == "joint":
            ok = props is not None and props.joint.enabled
            return None if ok else f"{_describe(obj)}: make a joint active to add a joint sensor"
        ok = props is not None and (props.body.enabled or _is_site(obj))
        return None if ok else f"{_describe(obj)}: make a body or site active to add a sensor"

    def reference(self, context, active):
        """The other selected body or site, the frame a frame sensor measures in (None: the world)."""
        others = [o for o in context.selected_objects
                  if o != active and (o.articula.body.enabled or _is_site(o))]
        return others[0] if others else None

    def sensor(self, context, word: str, holder, target_kind: str, reference):
        obj = _new_empty(context, f"{holder.name}_{word}", holder, world_pose(holder), "SINGLE_ARROW",
                         SENSOR_EMPTY_SIZE)
        props = obj.articula.sensor
        props.enabled, props.kind = True, word
        props.target_kind, props.target = target_kind, holder
        props.noise, props.cutoff = self.noise, self.cutoff
        if reference is not None:
            props.reference_kind, props.reference = _frame_kind(reference), reference
        return obj


def _active_body(op, context):
    obj = context.active_object
    if obj is None or not obj.articula.body.enabled:
        op.fail(f"{_describe(obj)}: make a body active")
        return None
    return obj


class ARTICULA_OT_add_site(_ObjectModeOperator, bpy.types.Operator):
    """Add a site (a named frame where sensors read and tendons pass) on the active body"""

    bl_idname = "articula.add_site"
    bl_label = "Add Site"

    at_cursor: BoolProperty(name="At 3D Cursor", description="At the 3D cursor, not at the body's origin")

    def execute(self, context):
        body = _active_body(self, context)
        if body is None:
            return {"CANCELLED"}
        site = new_site(context, body, self.at_cursor)
        self.report({"INFO"}, f"Site {site.name} on {body.name}")
        return {"FINISHED"}


class ARTICULA_OT_add_robot_camera(_ObjectModeOperator, bpy.types.Operator):
    """Add the robot's camera on the active body, at its origin looking down the body's -Z (MuJoCo's and
    Blender's convention)"""

    bl_idname = "articula.add_robot_camera"
    bl_label = "Add Robot Camera"

    resolution: IntVectorProperty(name="Resolution", size=2, min=1, default=(640, 480),
                                  description="Image size the camera renders")
    fov: FloatProperty(name="Field of View", subtype="ANGLE", min=math.radians(1.0), max=math.radians(179.0),
                       default=math.radians(45.0), description="Vertical field of view (MuJoCo's fovy)")
    at_cursor: BoolProperty(name="At 3D Cursor", description="At the 3D cursor, not at the body's origin")

    def execute(self, context):
        body = _active_body(self, context)
        if body is None:
            return {"CANCELLED"}
        name = _free_name(f"{body.name}_camera", set(bpy.data.objects.keys()))
        data = bpy.data.cameras.new(name)
        data.sensor_fit, data.angle_y = "VERTICAL", self.fov
        camera = bpy.data.objects.new(name, data)
        context.collection.objects.link(camera)
        place(camera, body, _cursor_pose(context) if self.at_cursor else world_pose(body))
        camera.articula.camera.enabled = True
        camera.articula.camera.resolution = tuple(self.resolution)
        self.report({"INFO"}, f"Robot camera {camera.name} on {body.name}")
        return {"FINISHED"}


classes = (ARTICULA_OT_add_sensor, ARTICULA_OT_add_site, ARTICULA_OT_add_robot_camera)

register, unregister = bpy.utils.register_classes_factory(classes)
