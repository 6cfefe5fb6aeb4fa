"""Joint friction as the per-DOF seed defines it.

A slider (prismatic joint along X, no gravity, mass M) with static friction S, dynamic friction F
and viscous damping C. Moving freely it obeys M dv/dt = -(F + C v): v(t) = (v0 + F/C) e^(-C t / M) - F/C
until it stops, then it stays at rest.
"""

import math

import numpy as np
import pytest

from articula.core.model import (
    Body, DofMotion, JointType, MassProperties, PhysicsScene, Pose, SceneSettings, Shape, ShapeKind, make_joint,
)
from articula.sim.simulation import Simulation

M, S, F, C = 2.0, 2.0, 1.0, 0.5
SOLVERS = ["FEATHERSTONE", "MUJOCO", "XPBD"]


def slider_scene(static=S, dynamic=F, viscous=C) -> PhysicsScene:
    scene = PhysicsScene(name="slider", settings=SceneSettings(gravity=(0.0, 0.0, 0.0)))
    scene.bodies.append(Body("slider", Pose((0.0, 0.0, 1.0)),
                             mass=MassProperties(M, diagonal_inertia=(0.1, 0.1, 0.1))))
    scene.shapes.append(Shape("slider_box", ShapeKind.BOX, "slider", half_extents=(0.1, 0.1, 0.1),
                              collision_group=0))
    rail = make_joint("rail", JointType.PRISMATIC, None, "slider", axis="X", local_pose0=Pose((0.0, 0.0, 1.0)))
    dof = rail.dofs[0]
    dof.static_friction, dof.dynamic_friction, dof.viscous_damping = static, dynamic, viscous
    scene.joints.append(rail)
    return scene


def analytic_speed(v0: float, t: float) -> float:
    return max(0.0, (v0 + F / C) * math.exp(-C * t / M) - F / C)


def analytic_stop(v0: float) -> tuple[float, float]:
    """(time, distance) at which a slider launched at v0 comes to rest."""
    t_stop = M / C * math.log(1.0 + C * v0 / F)
    distance = (v0 + F / C) * M / C * (1.0 - math.exp(-C * t_stop / M)) - F / C * t_stop
    return t_stop, distance


def position(sim) -> float:
    return sim.joint_positions()[("rail", "transX")]


def speed(sim) -> float:
    return sim.joint_velocities()[("rail", "transX")]


@pytest.mark.parametrize("solver", SOLVERS)
def test_stays_at_rest_while_the_effort_is_below_static_friction(solver):
    """MuJoCo's friction is its ``frictionloss`` alone, the dynamic friction (MJCF has no static one)."""
    sim = Simulation(slider_scene(), device="cpu", solver=solver)
    sim.set_joint_efforts({"rail": 0.9 * (F if solver == "MUJOCO" else S)})
    sim.advance(0.5)
    assert abs(position(sim)) < (1e-3 if solver == "MUJOCO" else 1e-4)  # MuJoCo's soft constraint creeps
    assert abs(speed(sim)) < 1e-3


@pytest.mark.parametrize("solver", SOLVERS)
def test_breaks_away_above_static_friction(solver):
    sim = Simulation(slider_scene(), device="cpu", solver=solver)
    applied = 1.2 * S
    sim.set_joint_efforts({"rail": applied})
    sim.advance(0.25)
    # Moving: M dv/dt = applied - F - C v. The hold lets go within a few hundredths of a second.
    rate, terminal = C / M, (applied - F) / C
    from_rest = terminal * (1.0 - math.exp(-rate * 0.25))
    v1 = speed(sim)
    assert 0.9 * from_rest < v1 <= from_rest
    sim.advance(0.25)
    assert speed(sim) == pytest.approx(terminal + (v1 - terminal) * math.exp(-rate * 0.25), rel=0.01)


@pytest.mark.parametrize("solver", SOLVERS)
def test_decelerates_along_the_analytic_curve_and_stops(solver):
    sim = Simulation(slider_scene(), device="cpu", solver=solver)
    v0 = 2.0
    sim.set_joint_velocities({"rail": v0})
    for step in range(1, 6):
        sim.advance(0.1)
        assert speed(sim) == pytest.approx(analytic_speed(v0, 0.1 * step), abs=0.005), f"t={0.1 * step:.1f}"
    # Launched slower, it comes to rest at the analytic distance and stays there.
    sim = Simulation(slider_scene(), device="cpu", solver=solver)
    v0 = 0.5
    t_stop, distance = analytic_stop(v0)
    sim.set_joint_velocities({"rail": v0})
    sim.advance(t_stop + 0.3)
    assert abs(speed(sim)) < 1e-3
    assert position(sim) == pytest.approx(distance, abs=3e-3)
    resting = position(sim)
    sim.advance(0.5)
    assert position(sim) == pytest.approx(resting, abs=1e-4)


def test_coulomb_only_stops_at_the_linear_deceleration_distance():
    sim = Simulation(slider_scene(viscous=0.0), device="cpu", solver="FEATHERSTONE")
    v0 = 1.0
    sim.set_joint_velocities({"rail": v0})
    sim.advance(1.5)
    # M a = -F: stops after v0 M / F = 2 s... we look at 1.5 s: v = v0 - F t / M.
    assert speed(sim) == pytest.approx(v0 - F * 1.5 / M, abs=0.01)
    sim.advance(1.0)
    assert abs(speed(sim)) < 1e-3
    assert position(sim) == pytest.approx(v0 * v0 * M / (2 * F), abs=3e-3)
