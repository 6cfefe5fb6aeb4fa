"""XPBD and a floating robot's revolute joint turned far: XPBD measures a joint's angle by a swing-twist
decomposition about its frame's X, singular for a swing near a half turn, so each one-angle joint's
frames are turned to put its axis on X (sim.builder.angle_as_twist). pybullet's Unitree A1, limp with a
floating base on the ground, folds its knees (about Y) onto their -2.70 rad limit: it was flung apart
within 0.6 s."""

import os
import sys
from pathlib import Path

import numpy as np
import pytest

from articula.core.ground import lift_onto_ground
from articula.core.model import (Body, Dof, DofAxis, DofMotion, Joint, JointType, MassProperties,
                                 PhysicsScene, Pose, Shape, ShapeKind)
from articula.core.transforms import quat_rotate
from articula.core.urdf import read_urdf
from articula.sim import Simulation
from articula.sim.builder import angle_as_twist

sys.path.insert(0, str(Path(__file__).parent.parent))
from robot_files import PYBULLET_DATA  # noqa: E402


def a1_on_the_ground() -> PhysicsScene:
    path = os.path.join(PYBULLET_DATA, "a1", "a1.urdf")
    if not os.path.exists(path):
        pytest.skip(f"{path} not found: run `make urdf-corpus`")
    scene = read_urdf(path, floating_base=True).scene
    scene.settings.ground_plane = True
    lift_onto_ground(scene)
    return scene


def test_a_joints_frames_are_turned_alike_to_put_its_angle_axis_on_x():
    frames = (Pose(pos=(0.1, 0.0, 0.0)), Pose(rot=(0.0, 1.0, 0.0, 0.0)))
    (parent, child), axes = angle_as_twist(frames, [(0.0, 0.0, 1.0), (0.0, 1.0, 0.0)])
    assert axes[-1] == (1.0, 0.0, 0.0)
    assert parent.pos == (0.1, 0.0, 0.0)
    # The same axes in the body's frame as before: the angle axis (Y) and the slide (Z).
    assert np.allclose(quat_rotate(parent.rot, axes[1]), (0.0, 1.0, 0.0))
    assert np.allclose(quat_rotate(parent.rot, axes[0]), (0.0, 0.0, 1.0))
    assert np.allclose(quat_rotate(child.rot, axes[1]), quat_rotate(frames[1].rot, (0.0, 1.0, 0.0)))
    assert angle_as_twist(frames, [(1.0, 0.0, 0.0)]) == (frames, [(1.0, 0.0, 0.0)])


def test_a_floating_robots_hinge_about_y_reads_the_angle_it_starts_at_on_xpbd():
    scene = PhysicsScene()
    scene.settings.gravity = (0.0, 0.0, 0.0)
    inertia = MassProperties(mass=1.0, diagonal_inertia=(0.01, 0.01, 0.01))
    scene.bodies += [Body(name="base", pose=Pose(pos=(0.0, 0.0, 1.0)), mass=inertia),
                     Body(name="arm", pose=Pose(pos=(0.0, 0.0, 1.0)), parent="base", mass=inertia)]
    scene.shapes.append(Shape(name="rod", body="arm", kind=ShapeKind.BOX, half_extents=(0.25, 0.02, 0.02)))
    hinge = Dof(axis=DofAxis.ROT_Y, motion=DofMotion.LIMITED, lower=-3.0, upper=3.0, initial_position=2.8)
    scene.joints.append(Joint(name="hinge", type=JointType.REVOLUTE, body0="base", body1="arm", dofs=[hinge]))
    sim = Simulation(scene, device="cpu", solver="XPBD")
    turned = sim.model.joint_axis.numpy()[sim.built.dofs[("hinge", "rotY", 0)].qd_index]
    assert np.allclose(turned, (1.0, 0.0, 0.0))  # Newton's joint turns about its frames' X
    assert sim.joint_positions()[("hinge", "rotY")] == pytest.approx(2.8, abs=1e-4)
    sim.advance(0.1)
    assert sim.joint_positions()[("hinge", "rotY")] == pytest.approx(2.8, abs=1e-3)
    poses = sim.body_poses()
    sim.close()
    base, arm = sim.body_names.index("base"), sim.body_names.index("arm")
    assert np.allclose(np.abs(poses[base, 3:]), [1.0, 0.0, 0.0, 0.0], atol=1e-3)
    assert np.allclose(np.abs(poses[arm, 3:]), [np.cos(1.4), 0.0, np.sin(1.4), 0.0], atol=1e-3)  # about Y


def test_the_a1_on_the_ground_folds_onto_its_knee_limits_and_rests_on_xpbd():
    scene = a1_on_the_ground()
    knees = [(j.name, "rotY") for j in scene.joints if j.name.endswith("_lower_joint")]
    lowest = min(j.dofs[0].lower for j in scene.joints if j.name.endswith("_lower_joint"))
    sim = Simulation(scene, device="cpu", solver="XPBD")
    for _ in range(50):
        sim.advance(0.04)  # SimulationDiverged fails the test
    poses, speeds = sim.body_poses(), np.linalg.norm(sim.body_velocities()[:, :3], axis=1)
    knee_angles = [sim.joint_positions()[k] for k in knees]
    sim.close()
    trunk = sim.body_names.index("trunk")
    assert 0.03 < poses[trunk, 2] < 0.1  # lying folded, as on MuJoCo (0.057 m)
    assert speeds.max() < 0.1
    assert min(knee_angles) > lowest - 0.05  # the knees' limit holds
