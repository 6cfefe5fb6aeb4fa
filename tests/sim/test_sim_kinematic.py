"""Kinematic bodies follow given poses and carry the dynamic bodies jointed to them; drive targets."""

import math

import numpy as np
import pytest

from articula.core.model import (
    Body, DofMotion, JointType, PhysicsScene, Pose, SceneSettings, Shape, ShapeKind, make_joint,
)
from articula.core.transforms import quat_from_axis_angle, transform_point
from articula.sim.simulation import Simulation

FPS = 24


def carried_arm_scene() -> PhysicsScene:
    """A kinematic base at (0, 0, 1) and a dynamic arm hanging on a hinge (about Y) below it."""
    scene = PhysicsScene(name="carried_arm")
    scene.bodies += [Body("base", Pose((0.0, 0.0, 1.0)), kinematic=True),
                     Body("arm", Pose((0.0, 0.0, 0.7)), parent="base")]
    scene.shapes += [Shape("base_box", ShapeKind.BOX, "base", half_extents=(0.1, 0.1, 0.05)),
                     Shape("arm_capsule", ShapeKind.CAPSULE, "arm", radius=0.03, half_height=0.15)]
    hinge = make_joint("hinge", JointType.REVOLUTE, "base", "arm", axis="Y",
                       local_pose0=Pose((0.0, 0.0, -0.05)), local_pose1=Pose((0.0, 0.0, 0.25)))
    hinge.dofs[0].viscous_damping = 0.01
    scene.joints.append(hinge)
    return scene


@pytest.mark.parametrize("solver", ["FEATHERSTONE", "MUJOCO", "XPBD"])
def test_animated_kinematic_base_carries_a_dynamic_arm(solver):
    sim = Simulation(carried_arm_scene(), device="cpu", solver=solver)
    base, arm = sim.body_names.index("base"), sim.body_names.index("arm")
    frames = FPS  # one second: the base slides 1 m along X and turns 90 degrees about Z
    for frame in range(1, frames + 1):
        t = frame / frames
        sim.set_kinematic_poses({"base": Pose((t, 0.0, 1.0), quat_from_axis_angle((0, 0, 1), t * math.pi / 2))})
        sim.advance(1.0 / FPS)
        poses = sim.body_poses()
        # The base is exactly where the animation puts it...
        assert np.allclose(poses[base, :3], (t, 0.0, 1.0), atol=1e-5)
        expected_rot = quat_from_axis_angle((0, 0, 1), t * math.pi / 2)
        assert abs(np.dot(poses[base, 3:], expected_rot)) == pytest.approx(1.0, abs=1e-6)
        # ...and the arm's end of the hinge stays on the base's end of it.
        base_pose = Pose(tuple(poses[base, :3]), tuple(poses[base, 3:]))
        arm_pose = Pose(tuple(poses[arm, :3]), tuple(poses[arm, 3:]))
        pivot_on_base = transform_point(base_pose, (0.0, 0.0, -0.05))
        pivot_on_arm = transform_point(arm_pose, (0.0, 0.0, 0.25))
        assert np.allclose(pivot_on_base, pivot_on_arm, atol=2e-3), f"frame {frame}"
    # The arm was carried along (and swung back from the acceleration).
    assert sim.body_poses()[arm, 0] > 0.8
    assert sim.diverged() is None


def test_kinematic_pose_of_an_unknown_body_is_refused():
    sim = Simulation(carried_arm_scene(), device="cpu", solver="FEATHERSTONE")
    with pytest.raises(KeyError, match="arm"):
        sim.set_kinematic_poses({"arm": Pose()})


def driven_hinge_scene() -> PhysicsScene:
    scene = PhysicsScene(name="driven", settings=SceneSettings(gravity=(0.0, 0.0, 0.0)))
    scene.bodies.append(Body("link", Pose((0.0, 0.0, 1.0))))
    scene.shapes.append(Shape("link_box", ShapeKind.BOX, "link", pose=Pose((0.2, 0.0, 0.0)),
                              half_extents=(0.2, 0.02, 0.02), collision_group=0))
    hinge = make_joint("motor", JointType.REVOLUTE, None, "link", axis="Z", local_pose0=Pose((0.0, 0.0, 1.0)))
    dof = hinge.dofs[0]
    dof.drive_enabled, dof.drive_stiffness, dof.drive_damping = True, 20.0, 2.0
    dof.armature = 0.01
    scene.joints.append(hinge)
    return scene


@pytest.mark.parametrize("solver", ["FEATHERSTONE", "MUJOCO", "XPBD"])
def test_drive_targets_can_change_every_frame(solver):
    sim = Simulation(driven_hinge_scene(), device="cpu", solver=solver)
    for target in (0.5, -0.3):
        sim.set_drive_targets({"motor": target})
        sim.advance(1.0)
        assert sim.joint_positions()[("motor", "rotZ")] == pytest.approx(target, abs=0.01)


def test_max_effort_limits_a_drive_on_featherstone():
    scene = driven_hinge_scene()
    scene.joints[0].dofs[0].max_effort = 0.01  # far too weak to reach the target in 0.5 s
    sim = Simulation(scene, device="cpu", solver="FEATHERSTONE")
    sim.set_drive_targets({"motor": 1.0})
    sim.advance(0.5)
    inertia = 0.01 + sim.model.body_inertia.numpy()[0][2, 2] + \
        sim.model.body_mass.numpy()[0] * np.dot(sim.model.body_com.numpy()[0][:2], sim.model.body_com.numpy()[0][:2])
    # Constant torque 0.01: angle = 0.5 * (tau / I) * t^2.
    assert sim.joint_positions()[("motor", "rotZ")] == pytest.approx(0.5 * 0.01 / inertia * 0.25, rel=0.05)
