"""A floating root's free joint (damping, armature, frictionloss, stiffness) simulated: MuJoCo on the CPU
all of it (the MJCF export's free joint), Newton's solvers with a note for what they leave out."""

import math

import pytest

from articula.core.model import Body, PhysicsScene, Pose, SceneSettings, Shape, ShapeKind
from articula.sim.simulation import Simulation


def _sliding_ball(**free_joint) -> PhysicsScene:
    """A 0.1 m ball (4.19 kg) sliding at 1 m/s without gravity."""
    scene = PhysicsScene(settings=SceneSettings(gravity=(0.0, 0.0, 0.0)))
    ball = Body("ball", Pose((0.0, 0.0, 1.0)), linear_velocity=(1.0, 0.0, 0.0))
    for what, value in free_joint.items():
        setattr(ball, f"free_joint_{what}", value)
    scene.bodies.append(ball)
    scene.shapes.append(Shape("ball_sphere", ShapeKind.SPHERE, "ball", radius=0.1))
    return scene


def test_mujoco_damps_the_floating_body():
    sim = Simulation(_sliding_ball(damping=2.0), device="cpu", solver="MUJOCO")
    sim.advance(1.0)
    mass = 4.0 / 3.0 * math.pi * 0.1 ** 3 * 1000.0
    expected = mass / 2.0 * (1.0 - math.exp(-2.0 / mass))  # x(t) of v' = -c/m v
    assert sim.body_poses()[0][0] == pytest.approx(expected, abs=2e-3)
    assert sim.notes == []


@pytest.mark.parametrize("solver", ["FEATHERSTONE", "XPBD"])
def test_newton_solvers_say_what_of_the_free_joint_they_leave_out(solver):
    sim = Simulation(_sliding_ball(damping=2.0, armature=0.5, stiffness=1.0), device="cpu", solver=solver)
    sim.advance(0.5)
    assert sim.body_poses()[0][0] == pytest.approx(0.5, abs=1e-3)  # undamped
    assert any("free joint's damping, armature, spring are simulated on MuJoCo only" in n for n in sim.notes)
