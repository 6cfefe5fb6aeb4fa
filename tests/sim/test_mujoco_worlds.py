"""Scene worlds on MuJoCo's C library (the MJCF export keeps them apart with collision masks): the
collision showcase's world boxes fall into each other untouched, and the worlds are not named among
what the solver leaves out."""

import numpy as np
import pytest

pytest.importorskip("mujoco")

from articula.core import samples  # noqa: E402
from articula.sim.mujoco_spec import MuJoCoSimulation  # noqa: E402


def test_world_boxes_pass_through_each_other_and_the_worlds_are_not_a_note():
    scene = samples.collision_showcase()
    start = {b.name: np.array(b.pose.pos) for b in scene.bodies}
    sim = MuJoCoSimulation(scene)
    assert sim.notes and not any("worlds" in note for note in sim.notes)  # restitution is still named
    sim.advance(1.0)
    poses = dict(zip(sim.body_names, sim.body_poses()[:, :3]))
    for name in ("robot_world0", "robot_world1"):
        assert np.allclose(poses[name][:2], start[name][:2], atol=1e-3), name  # straight down: not pushed
        assert poses[name][2] == pytest.approx(0.1, abs=2e-3)  # on the shared ground
    sim.close()
