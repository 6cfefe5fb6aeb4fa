"""Whatever imports, bakes: a body inertia on or past the triangle inequality (A + B >= C), which
MuJoCo's compiler refuses ("use 'balanceinertia'"), is balanced by the simulation build with one note
naming the bodies; the description (and so every export) keeps the inertia as authored."""

import numpy as np
import pytest

from articula.core import samples
from articula.core.model import MassProperties
from articula.core.transforms import quat_from_axis_angle
from articula.sim.builder import build_model
from articula.sim.simulation import Simulation

TILTED = quat_from_axis_angle(tuple(np.array([1.0, 2.0, 3.0]) / np.sqrt(14.0)), 0.7)


def pendulum(diagonal, axes=TILTED):
    scene = samples.pendulum()
    scene.bodies[0].mass = MassProperties(mass=1.0, diagonal_inertia=diagonal, principal_axes=axes)
    return scene


@pytest.mark.parametrize("diagonal", [
    (0.3e-3, 0.7e-3, 1.0e-3),  # a plate: on the limit, past it once rounded to float32
    (1.0e-3, 1.0e-3, 2.0000001e-3),  # past it by less than Newton's own balancing tolerance
    (1.0e-3, 1.0e-3, 5.0e-3),  # far past it (a file's typo)
])
def test_an_inertia_mujoco_refuses_is_balanced_and_bakes(diagonal):
    """On Newton's conversion (``mujoco_direct=False``) and on the MJCF export (which balances what
    MuJoCo would still refuse once written with 6 digits, and says so)."""
    scene = pendulum(diagonal)
    sim = Simulation(scene, device="cpu", solver="MUJOCO", mujoco_direct=False)
    sim.advance(0.2)
    assert np.isfinite(sim.body_poses()).all()
    notes = [n for n in sim.notes if "triangle inequality" in n]
    assert len(notes) == 1 and "'pendulum_link'" in notes[0], sim.notes
    exported = Simulation(scene, device="cpu", solver="MUJOCO")
    exported.advance(0.2)
    assert np.isfinite(exported.body_poses()).all()
    if diagonal[2] > 1.01 * (diagonal[0] + diagonal[1]):
        assert any("pendulum_link" in n and "A + B >= C" in n for n in exported.notes), exported.notes
    assert scene.bodies[0].mass.diagonal_inertia == diagonal, "the description keeps what was authored"


def test_a_valid_inertia_is_left_as_it_is():
    scene = pendulum((1.0e-3, 1.5e-3, 2.0e-3))
    built = build_model(scene, "MUJOCO", device="cpu")
    assert not [n for n in built.notes if "triangle inequality" in n]
    body = built.body_index[built.key_index("pendulum_link")]
    moments = np.linalg.eigvalsh(built.model.body_inertia.numpy()[body].astype(float))
    assert moments == pytest.approx([1.0e-3, 1.5e-3, 2.0e-3], rel=1e-5)
