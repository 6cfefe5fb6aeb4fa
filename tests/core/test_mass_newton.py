"""Mass as Newton computes it: with MassAPI fully, partly or not authored (mass only, inertia
without mass, a body density, nothing: colliders at their densities or 1000 kg/m^3), the masses
Articula reads and writes back give Newton the model it builds from the original, in both layouts."""

import pytest
from pxr import Sdf, UsdPhysics

from articula.core import samples
from articula.core.usd.reader import read_usd
from articula.core.usd.writer import build_stage

pytest.importorskip("newton_usd_schemas")
from .test_usd_newton import _compare_models, load_newton  # noqa: E402

ALL = ["physics:mass", "physics:centerOfMass", "physics:diagonalInertia", "physics:principalAxes"]
CASES = {
    "mass only": (ALL[1:], None),
    "inertia without mass": (ALL[:1], None),
    "body density only": (ALL, 500.0),
    "nothing": (ALL, None),
}


@pytest.mark.parametrize("layout", ["FLAT", "NESTED"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_partial_mass_api_reads_as_newton_computes_it(case, layout):
    removed, density = CASES[case]
    stage = build_stage(samples.robotic_finger(), layout)
    for prim in stage.Traverse():
        if prim.HasAPI(UsdPhysics.RigidBodyAPI):
            for name in removed:
                prim.RemoveProperty(name)
            if density is not None:
                prim.CreateAttribute("physics:density", Sdf.ValueTypeNames.Float).Set(density)
    read = read_usd(stage)
    _compare_models(load_newton(stage), load_newton(build_stage(read.scene, layout)), read)
