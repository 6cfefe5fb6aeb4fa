"""Weld and connect constraints between two bodies outside the kinematic tree (``core.model.Equality``),
kept on the scene (``scene.articula.equalities``). A body left empty is the world."""

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatVectorProperty, PointerProperty

from ...core.model import DEFAULT_SOLIMP, DEFAULT_SOLREF, EqualityKind
from .common import UNBOUNDED, enum_items, float_prop, is_body_object
from .site_props import is_site_object

_KIND_DESCRIPTIONS = {
    "CONNECT": "A point of body 1 held on a point of body 0 (a ball joint outside the tree)",
    "WELD": "Body 1 held at a pose relative to body 0",
}


def solver_vectors():
    """MuJoCo's solref and solimp of a constraint."""
    return dict(
        solref=FloatVectorProperty(name="Solref", size=2, default=DEFAULT_SOLREF, **UNBOUNDED,
                                   description="MuJoCo's solver reference: time constant, damping ratio"),
        solimp=FloatVectorProperty(name="Solimp", size=5, default=DEFAULT_SOLIMP, **UNBOUNDED,
                                   description="MuJoCo's solver impedance: dmin, dmax, width, midpoint, "
                                               "power"))


class ArticulaEqualityProps(bpy.types.PropertyGroup):
    kind: EnumProperty(name="Kind", items=enum_items(EqualityKind, descriptions=_KIND_DESCRIPTIONS),
                       default=EqualityKind.WELD.value)
    body0: PointerProperty(name="Body 0", type=bpy.types.Object, poll=is_body_object,
                           description="The first body; empty: the world")
    body1: PointerProperty(name="Body 1", type=bpy.types.Object, poll=is_body_object,
                           description="The second body; empty: the world")
    site0: PointerProperty(name="Site 0", type=bpy.types.Object, poll=is_site_object,
                           description="A site standing for body 0 (MuJoCo's site form)")
    site1: PointerProperty(name="Site 1", type=bpy.types.Object, poll=is_site_object,
                           description="A site standing for body 1")
    anchor: FloatVectorProperty(name="Anchor", size=3, subtype="TRANSLATION", unit="LENGTH", **UNBOUNDED,
                                description="Connect: the point in body 0's frame; weld: on body 1")
    has_relative_pose: BoolProperty(name="Relative Pose", description="Weld: hold body 1 at this pose in "
                                    "body 0's frame; off: as they stand at rest")
    relative_location: FloatVectorProperty(name="Relative Location", size=3, subtype="TRANSLATION",
                                           unit="LENGTH", **UNBOUNDED)
    relative_rotation: FloatVectorProperty(name="Relative Rotation", size=4, subtype="QUATERNION",
                                           default=(1.0, 0.0, 0.0, 0.0), **UNBOUNDED)
    torque_scale: float_prop("Torque Scale", "Weld: how rotation errors weigh against translation",
                             default=1.0)
    active: BoolProperty(name="Active", default=True,
                         description="The constraint holds when the model starts")
    __annotations__.update(solver_vectors())


classes = (ArticulaEqualityProps,)
