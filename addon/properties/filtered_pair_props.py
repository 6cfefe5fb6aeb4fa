"""A pair of bodies that never collide (``PhysicsScene.filtered_pairs``)."""

import bpy
from bpy.props import PointerProperty


def _is_body(_self, obj) -> bool:
    return obj.articula.body.enabled


class ArticulaFilteredPairProps(bpy.types.PropertyGroup):
    body_a: PointerProperty(name="Body A", type=bpy.types.Object, poll=_is_body)
    body_b: PointerProperty(name="Body B", type=bpy.types.Object, poll=_is_body)


classes = (ArticulaFilteredPairProps,)
