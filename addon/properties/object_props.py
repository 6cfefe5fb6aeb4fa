"""``Object.articula``: the body, joint and collider settings of one object."""

import bpy
from bpy.props import BoolProperty, FloatVectorProperty, PointerProperty, StringProperty

from .body_props import ArticulaBodyProps
from .camera_props import ArticulaCameraProps
from .collider_props import ArticulaColliderProps
from .common import UNBOUNDED
from .joint_props import ArticulaJointProps
from .light_props import ArticulaLightProps
from .sensor_props import ArticulaSensorProps
from .site_props import ArticulaSiteProps


class ArticulaObjectProps(bpy.types.PropertyGroup):
    body: PointerProperty(type=ArticulaBodyProps)
    joint: PointerProperty(type=ArticulaJointProps)
    collider: PointerProperty(type=ArticulaColliderProps)
    site: PointerProperty(type=ArticulaSiteProps)
    camera: PointerProperty(type=ArticulaCameraProps)
    light: PointerProperty(type=ArticulaLightProps)
    sensor: PointerProperty(type=ArticulaSensorProps)
    # The name a file gives this joint, site, camera, light or sensor where Blender's differs (a joint
    # named like its body, ``bthigh``, is the object ``bthigh.001``); ``file_name_for`` is the object's
    # name then: an object the user renames since exports under its new name.
    file_name: StringProperty(name="File Name", description="The name this object has in the file it came "
                              "from (kept on export while the object keeps its name)")
    file_name_for: StringProperty(name="Named For", options={"HIDDEN"})
    # A site's, camera's or light's pose on its body as the file gave it, in float64 (a float32 high
    # part and what it leaves off): read back while the object stands there within float32, so a
    # file's frames leave as they came (a zero stays zero, not 3e-8).
    has_file_pose: BoolProperty(options={"HIDDEN"})
    file_pose: FloatVectorProperty(size=7, options={"HIDDEN"}, **UNBOUNDED)
    file_pose_low: FloatVectorProperty(size=7, options={"HIDDEN"}, **UNBOUNDED)


classes = (ArticulaObjectProps,)
