"""A pair of bodies that never collide (``PhysicsScene.filtered_pairs``)."""

import bpy
from bpy.props import PointerProperty

from .common import is_body_object


class ArticulaFilteredPairProps(bpy.types.PropertyGroup):
    body_a: PointerProperty(name="Body A", type=bpy.types.Object, poll=is_body_object)
    body_b: PointerProperty(name="Body B", type=bpy.types.Object, poll=is_body_object)


classes = (ArticulaFilteredPairProps,)
