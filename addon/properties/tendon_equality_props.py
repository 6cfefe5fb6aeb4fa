"""A tendon's length held to another's, or to its length at the start (``core.model.TendonEquality``: how
MuJoCo grippers couple a finger's joints), kept on the scene (``scene.articula.tendon_equalities``).
Tendons by name, fixed (``scene.articula.tendons``) or spatial (``scene.articula.spatial_tendons``)."""

import bpy
from bpy.props import BoolProperty, FloatVectorProperty, StringProperty

from .common import UNBOUNDED
from .equality_props import solver_vectors


class ArticulaTendonEqualityProps(bpy.types.PropertyGroup):
    tendon0: StringProperty(name="Tendon", description="The tendon whose length is held")
    tendon1: StringProperty(name="Follows", description="The tendon it follows; empty: held at its length at "
                                                        "the start")
    polycoef: FloatVectorProperty(
        name="Polynomial", size=5, default=(0.0, 1.0, 0.0, 0.0, 0.0), **UNBOUNDED,
        description="Its change in length from the start = a0 + a1*d + a2*d^2 + a3*d^3 + a4*d^4, d the other "
                    "tendon's change (m or rad); held alone: a0")
    active: BoolProperty(name="Active", default=True,
                         description="The constraint holds when the model starts")
    __annotations__.update(solver_vectors())


classes = (ArticulaTendonEqualityProps,)
