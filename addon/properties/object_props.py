"""``Object.articula``: the body, joint and collider settings of one object."""

import bpy
from bpy.props import PointerProperty

from .body_props import ArticulaBodyProps
from .collider_props import ArticulaColliderProps
from .joint_props import ArticulaJointProps


class ArticulaObjectProps(bpy.types.PropertyGroup):
    body: PointerProperty(type=ArticulaBodyProps)
    joint: PointerProperty(type=ArticulaJointProps)
    collider: PointerProperty(type=ArticulaColliderProps)


classes = (ArticulaObjectProps,)
