"""Simulation's state API: setting some DOFs leaves the others alone; reset returns to the start."""

import pytest

from articula.core.model import (
    Body, JointType, MassProperties, PhysicsScene, Pose, SceneSettings, Shape, ShapeKind, make_joint,
)
from articula.sim.simulation import Simulation

SOLVERS = ["FEATHERSTONE", "XPBD"]


def two_sliders() -> PhysicsScene:
    """Two independent 1 kg sliders along X, no gravity, no contacts; ``b_rail`` has a drive."""
    scene = PhysicsScene(name="two_sliders", settings=SceneSettings(gravity=(0.0, 0.0, 0.0)))
    for i, name in enumerate(("a", "b")):
        origin = Pose((0.0, 2.0 * i, 1.0))
        scene.bodies.append(Body(name, origin, mass=MassProperties(1.0, diagonal_inertia=(0.1, 0.1, 0.1))))
        scene.shapes.append(Shape(f"{name}_box", ShapeKind.BOX, name, half_extents=(0.1, 0.1, 0.1),
                                  collision_group=0))
        scene.joints.append(make_joint(f"{name}_rail", JointType.PRISMATIC, None, name, axis="X",
                                       local_pose0=origin))
    drive = scene.joint("b_rail").dofs[0]
    drive.drive_enabled, drive.drive_stiffness, drive.drive_damping, drive.target_position = True, 50.0, 5.0, 0.25
    return scene


@pytest.mark.parametrize("solver", SOLVERS)
def test_setting_one_dof_velocity_keeps_the_others(solver):
    sim = Simulation(two_sliders(), device="cpu", solver=solver)
    sim.set_joint_efforts({"a_rail": 1.0})  # 1 N on 1 kg: 0.1 m/s after 0.1 s
    sim.advance(0.1)
    sim.set_joint_velocities({"b_rail": 0.5})
    velocities = sim.joint_velocities()
    assert velocities[("b_rail", "transX")] == pytest.approx(0.5)
    assert velocities[("a_rail", "transX")] == pytest.approx(0.1, rel=1e-3)


def test_reset_restores_the_authored_drive_targets():
    sim = Simulation(two_sliders(), device="cpu", solver="FEATHERSTONE")
    sim.set_drive_targets({"b_rail": -0.5})
    sim.advance(0.5)
    sim.reset()
    assert sim.time == 0.0 and sim.joint_positions()[("b_rail", "transX")] == 0.0
    sim.advance(2.0)  # the authored target (0.25 m), not the one set before the reset
    assert sim.joint_positions()[("b_rail", "transX")] == pytest.approx(0.25, abs=0.01)
