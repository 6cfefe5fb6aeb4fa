"""Long chains (cables, ropes): deeper than Python's recursion limit and than MuJoCo compiles."""

import sys

import numpy as np
import pytest

from articula.core import samples
from articula.sim.builder import SimulationBuildError
from articula.sim.simulation import MUJOCO_DEEPEST_CHAIN, Simulation, _room_for_long_chains, deepest_chain


def test_deepest_chain_counts_the_bodies_from_root_to_the_farthest_leaf():
    assert deepest_chain(samples.hanging_chain(7)) == 7
    assert deepest_chain(samples.pendulum()) == 1
    assert deepest_chain(samples.quadruped()) == 3  # torso, thigh, shin


def test_mujoco_refuses_a_chain_deeper_than_it_compiles_at_once_naming_xpbd():
    with pytest.raises(SimulationBuildError, match=r"chain of 1100 bodies .*XPBD"):
        Simulation(samples.hanging_chain(MUJOCO_DEEPEST_CHAIN + 77), device="cpu", solver="MUJOCO")


def test_xpbd_simulates_a_chain_of_1100_links():
    sim = Simulation(samples.hanging_chain(1100), device="cpu", solver="XPBD")
    sim.advance(0.02)
    poses = sim.body_poses()
    assert np.isfinite(poses).all()
    assert abs(poses[0][2] - 2.0) < 1e-3  # the top link stays on its hinge


def test_room_for_long_chains_allows_deep_recursion_and_puts_the_limit_back():
    """Newton's MuJoCo conversion sorts the tree with one Python frame per link."""
    def depth(n):
        return 0 if n == 0 else 1 + depth(n - 1)

    before = sys.getrecursionlimit()
    with pytest.raises(RecursionError):
        depth(before + 10)
    with _room_for_long_chains(before + 500):
        assert depth(before + 10) == before + 10
    assert sys.getrecursionlimit() == before
