"""Explicit contact pairs (``core.model.ContactPair``): two colliders that always collide with these
parameters, whatever their groups (MuJoCo ``<pair>``); on the scene."""

import bpy
from bpy.props import FloatVectorProperty, IntProperty, PointerProperty

from .common import UNBOUNDED, float_prop
from .equality_props import solver_vectors


def is_collider_object(_self, obj) -> bool:
    return obj.articula.collider.enabled


class ArticulaContactPairProps(bpy.types.PropertyGroup):
    shape0: PointerProperty(name="Collider 0", type=bpy.types.Object, poll=is_collider_object)
    shape1: PointerProperty(name="Collider 1", type=bpy.types.Object, poll=is_collider_object)
    condim: IntProperty(name="Condim", default=3, min=1, max=6,
                        description="1 frictionless, 3 sliding, 4 and torsional, 6 and rolling friction")
    friction: FloatVectorProperty(name="Friction", size=5, default=(1.0, 1.0, 0.005, 0.0001, 0.0001),
                                  **UNBOUNDED, description="Sliding (2), torsional, rolling (2)")
    margin: float_prop("Margin", "Contacts are detected within this distance", subtype="DISTANCE",
                       unit="LENGTH", soft_min=0.0)
    gap: float_prop("Gap", "Contacts within margin - gap are active", subtype="DISTANCE", unit="LENGTH",
                    soft_min=0.0)
    __annotations__.update(solver_vectors())


classes = (ArticulaContactPairProps,)
