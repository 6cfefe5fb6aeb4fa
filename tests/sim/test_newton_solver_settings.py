"""Each Newton solver gets settings of its own (sim.builder): a body welded to the world needs no
mass, massless bodies on a moving chain get what Featherstone and XPBD need to move, and joint damping
is applied in a form XPBD keeps stable."""

import numpy as np

from articula.core import samples
from articula.core.model import MassProperties
from articula.sim.builder import build_model
from articula.sim.simulation import Simulation


def test_a_base_welded_to_the_world_needs_no_mass_and_gets_no_note():
    scene = samples.six_dof_arm()
    scene.body("arm_base").mass = MassProperties(0.0)  # as an MJCF import of a massless base reads it
    built = build_model(scene, "FEATHERSTONE", device="cpu")
    assert not [n for n in built.notes if "arm_base" in n]
    assert built.model.body_mass.numpy()[built.model.body_label.index("arm_base")] == 0.0
    sim = Simulation(scene, device="cpu", solver="FEATHERSTONE")
    sim.advance(0.2)
    assert np.isfinite(sim.body_poses()).all()
