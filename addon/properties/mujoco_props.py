"""MuJoCo's solver options (``core.model.MuJoCoOptions``, ``scene.articula.mujoco``): read by MuJoCo
only; the time step and gravity are the scene's own settings."""

import bpy
from bpy.props import EnumProperty, FloatVectorProperty, IntProperty, StringProperty

from ...core.model import DEFAULT_SOLIMP, DEFAULT_SOLREF
from .common import UNBOUNDED, float_prop


def _items(*names):
    return [(n, n.title() if n != "implicitfast" else "Implicit Fast", "") for n in names]


class ArticulaMuJoCoProps(bpy.types.PropertyGroup):
    integrator: EnumProperty(name="Integrator", items=_items("euler", "rk4", "implicit", "implicitfast"),
                             default="implicitfast")
    cone: EnumProperty(name="Friction Cone", items=_items("pyramidal", "elliptic"), default="pyramidal")
    impratio: float_prop("Impedance Ratio", "Frictional to normal constraint impedance", default=1.0,
                         soft_min=0.0)
    solver: EnumProperty(name="Solver", items=_items("pgs", "cg", "newton"), default="newton")
    iterations: IntProperty(name="Iterations", default=100, min=0)
    tolerance: float_prop("Tolerance", "Solver early termination", default=1e-8, soft_min=0.0, precision=10)
    ls_iterations: IntProperty(name="Line Search Iterations", default=50, min=0)
    ls_tolerance: float_prop("Line Search Tolerance", default=0.01, soft_min=0.0, precision=6)
    noslip_iterations: IntProperty(name="No-Slip Iterations", default=0, min=0)
    noslip_tolerance: float_prop("No-Slip Tolerance", default=1e-6, soft_min=0.0, precision=8)
    jacobian: EnumProperty(name="Jacobian", items=_items("dense", "sparse", "auto"), default="auto")
    density: float_prop("Medium Density", "Of the medium (kg/m^3), for lift and drag", soft_min=0.0)
    viscosity: float_prop("Medium Viscosity", "Of the medium", soft_min=0.0)
    wind: FloatVectorProperty(name="Wind", size=3, subtype="VELOCITY", unit="VELOCITY", **UNBOUNDED)
    magnetic: FloatVectorProperty(name="Magnetic Field", size=3, default=(0.0, -0.5, 0.0), **UNBOUNDED)
    override_margin: float_prop("Override Margin", "With the override flag: every contact's margin",
                                subtype="DISTANCE", unit="LENGTH")
    override_solref: FloatVectorProperty(name="Override Solref", size=2, default=DEFAULT_SOLREF, **UNBOUNDED)
    override_solimp: FloatVectorProperty(name="Override Solimp", size=5, default=DEFAULT_SOLIMP, **UNBOUNDED)
    override_friction: FloatVectorProperty(name="Override Friction", size=5,
                                           default=(1.0, 1.0, 0.005, 0.0001, 0.0001), **UNBOUNDED)
    disabled: StringProperty(name="Disabled", description="MuJoCo's flags turned off, space separated "
                             "(contact, gravity, warmstart, filterparent...)")
    enabled: StringProperty(name="Enabled", description="MuJoCo's flags turned on, space separated "
                            "(override, energy, multiccd...)")


classes = (ArticulaMuJoCoProps,)
