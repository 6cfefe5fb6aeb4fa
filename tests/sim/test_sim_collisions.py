"""Collision groups and worlds filter exactly the pairs of the seed's table (newton-collisions.rst)."""

import numpy as np
import pytest

from articula.core import samples
from articula.core.collision import should_collide
from articula.sim.simulation import Simulation

HALF = 0.1  # the showcase boxes' half size


def _settle(scene, solver, seconds=1.2):
    sim = Simulation(scene, device="cpu", solver=solver)
    sim.advance(seconds)
    return {name: pose for (name, _), pose in zip(sim.body_keys, sim.body_poses())}


@pytest.mark.parametrize("solver", ["FEATHERSTONE", "XPBD"])
def test_groups_and_worlds_on_a_global_ground(solver):
    z = {name: pose[2] for name, pose in _settle(samples.collision_showcase(), solver).items()}
    on_ground, on_a_box = HALF, 3 * HALF
    # 1 with 1: the high box stacks on the low one.
    assert z["box_group1_low"] == pytest.approx(on_ground, abs=0.02)
    assert z["box_group1_high"] == pytest.approx(on_a_box, abs=0.02)
    # 1 with 2: no contact, the group-2 box passes through and lands on the ground (group -2).
    assert z["box_group2"] == pytest.approx(on_ground, abs=0.02)
    assert z["box_group1_floor"] == pytest.approx(on_ground, abs=0.02)
    # -1 with 1: contact.
    assert z["box_group_neg1"] == pytest.approx(on_a_box, abs=0.02)
    # 0 collides with nothing, not even the ground.
    assert z["box_group0"] < -1.0
    # Different worlds never touch, yet both land on the global ground.
    assert z["robot_world0"] == pytest.approx(on_ground, abs=0.02)
    assert z["robot_world1"] == pytest.approx(on_ground, abs=0.02)


def test_the_expectations_follow_the_seed_table():
    # The rules the showcase relies on, as core states them (same table as the seed).
    assert should_collide(0, 0, 1, 1) and not should_collide(0, 0, 1, 2)
    assert should_collide(0, 0, 1, -1) and not should_collide(0, 0, -1, -1)
    assert should_collide(0, 0, -1, -2) and not should_collide(0, 0, 0, 1)
    assert not should_collide(0, 1, 1, 1) and should_collide(-1, 1, -2, 1)


def test_mujoco_honours_groups_in_one_world():
    scene = samples.collision_showcase()
    scene.bodies = [b for b in scene.bodies if b.world == 0]
    scene.shapes = [s for s in scene.shapes if s.world != 1]
    z = {name: pose[2] for name, pose in _settle(scene, "MUJOCO").items()}
    assert z["box_group1_high"] == pytest.approx(3 * HALF, abs=0.02)
    assert z["box_group2"] == pytest.approx(HALF, abs=0.02)
    assert z["box_group_neg1"] == pytest.approx(3 * HALF, abs=0.02)
    assert z["box_group0"] < -1.0


def test_replicas_do_not_touch_each_other():
    scene = samples.collision_showcase()
    scene.bodies = [b for b in scene.bodies if b.name in ("box_group1_low", "box_group1_high")]
    scene.shapes = [s for s in scene.shapes if s.body in (None, "box_group1_low", "box_group1_high")]
    scene.settings.replicas, scene.settings.replica_spacing = 2, 0.0  # same place, two worlds
    sim = Simulation(scene, device="cpu", solver="FEATHERSTONE")
    sim.advance(1.0)
    poses = {key: pose for key, pose in zip(sim.body_keys, sim.body_poses())}
    for replica in (0, 1):
        assert poses[("box_group1_high", replica)][2] == pytest.approx(3 * HALF, abs=0.02)
        assert np.allclose(poses[("box_group1_low", replica)][:2], 0.0, atol=0.01)
