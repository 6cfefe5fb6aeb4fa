"""Kinematic bodies, joint friction and velocity limits on the direct MuJoCo path (CPU, one world).

What Newton's path does around every step (kinematic bodies placed along their path, Articula's
friction into the applied joint forces, velocity limits clamped after the step) is done on MuJoCo's
data between ``mj_step`` calls (``sim.mujoco_direct.StepRules``): over 1 s the poses equal Newton's
path's (``mujoco_direct=False``) to float precision, on the examples and corpus robots that have
these features and on a generated scene for each.
"""

import math
import os

import numpy as np
import pytest

from articula.core import samples
from articula.core.model import (Body, JointType, MassProperties, PhysicsScene, Pose, SceneSettings, Shape,
                                 ShapeKind, make_joint)
from articula.core.transforms import quat_from_axis_angle
from articula.sim.simulation import Simulation

from .test_sim_kinematic import carried_arm_scene
from .test_sim_mujoco_fast_path import assert_same_motion, both

PYBULLET_DATA = os.environ.get("ARTICULA_PYBULLET_DATA", os.path.expanduser("~/.cache/articula/pybullet_data"))
FPS = 60
ONE_KG = MassProperties(1.0, diagonal_inertia=(0.1,) * 3)


def urdf_scene(name: str) -> PhysicsScene:
    from articula.core.urdf.reader import read_urdf

    path = os.path.join(PYBULLET_DATA, name)
    if not os.path.isfile(path):
        pytest.skip("pybullet's files come with `make urdf-corpus`")
    return read_urdf(path).scene


def animate_base(sim, frame):
    """The base slides 1 m along X and turns 90 degrees about Z over the second."""
    t = (frame + 1) / FPS
    sim.set_kinematic_poses({"base": Pose((t, 0.0, 1.0), quat_from_axis_angle((0, 0, 1), t * math.pi / 2))})


def massless_base_scene() -> PhysicsScene:
    """The carried arm with a base of no mass: MuJoCo drives it as a mocap body."""
    scene = carried_arm_scene()
    scene.bodies[0].mass = MassProperties(0.0)
    scene.shapes[0].density = 0.0
    return scene


@pytest.mark.parametrize("scene", [carried_arm_scene, massless_base_scene])
def test_animated_kinematic_base_carries_the_arm_as_on_newtons_path(scene):
    sim, ours, theirs = both(scene(), animate_base)
    assert_same_motion(ours, theirs)
    base = sim.built.key_index("base")
    np.testing.assert_allclose(ours[-1, base, :3], (1.0, 0.0, 1.0), atol=1e-6)  # where the animation put it
    assert sim.direct is not None


def test_massless_base_is_a_mocap_body():
    sim = Simulation(massless_base_scene(), device="cpu", solver="MUJOCO")
    assert sim.solver.mj_model.nmocap == 1 and sim.direct is not None
    animate_base(sim, FPS - 1)
    sim.advance(1.0)
    np.testing.assert_allclose(sim.solver.mj_data.mocap_pos[0], (1.0, 0.0, 1.0), atol=1e-9)


def frames_step_by_step(sim, frames: int = 12) -> np.ndarray:
    """Poses after each of ``frames`` frames of the animated base, stepped one step at a time."""
    poses = []
    for frame in range(frames):
        animate_base(sim, frame)
        for _ in sim.advance_steps(1.0 / 24):
            pass
        poses.append(sim.body_poses().copy())
    return np.array(poses)


def test_kinematic_base_stepped_one_step_at_a_time_as_on_newtons_path():
    """``advance_steps`` (Blender's live Simulate) places the base step by step, as ``advance`` does."""
    runs = [frames_step_by_step(Simulation(carried_arm_scene(), device="cpu", solver="MUJOCO",
                                           mujoco_direct=direct)) for direct in (True, False)]
    np.testing.assert_allclose(runs[0][:, :, :3], runs[1][:, :, :3], atol=1e-6)


def test_joint_state_read_on_the_direct_path_holds_the_kinematic_base():
    sim, _, _ = both(carried_arm_scene(), animate_base)
    velocities = sim.body_velocities()
    base = sim.built.key_index("base")
    assert velocities[base, 0] == pytest.approx(1.0, abs=1e-4)  # 1 m/s along X, the animation's speed
    np.testing.assert_allclose(sim.body_poses()[base, :3], (1.0, 0.0, 1.0), atol=1e-6)


@pytest.mark.parametrize("sample", ["six_dof_arm", "robotic_finger", "d6_sampler"])
def test_example_with_friction_or_velocity_limits_moves_as_on_newtons_path(sample):
    sim, ours, theirs = both(getattr(samples, sample)())
    assert sim.direct.rules is not None
    assert_same_motion(ours, theirs) if np.abs(theirs[-1] - theirs[0]).max() > 0.01 else \
        np.testing.assert_allclose(ours[:, :, :3], theirs[:, :, :3], atol=1e-6)


CORPUS_ROBOTS = ["xarm/xarm6_robot.urdf", "franka_panda/panda.urdf", "kuka_iiwa/model.urdf"]


@pytest.mark.parametrize("robot", CORPUS_ROBOTS)
def test_corpus_robot_with_friction_or_velocity_limits_moves_as_on_newtons_path(robot):
    sim, ours, theirs = both(urdf_scene(robot))
    assert sim.effects.limit_count
    assert_same_motion(ours, theirs)


def slider_scene(static: float = 0.0, dynamic: float = 0.0, velocity_limit: float = math.inf) -> PhysicsScene:
    """A 1 kg cart on a rail along X, no gravity."""
    scene = PhysicsScene(name="slider", settings=SceneSettings(gravity=(0.0, 0.0, 0.0)))
    scene.bodies.append(Body("cart", Pose((0.0, 0.0, 1.0)), mass=ONE_KG))
    rail = make_joint("rail", JointType.PRISMATIC, None, "cart", axis="X", local_pose0=Pose((0.0, 0.0, 1.0)))
    dof = rail.dofs[0]
    dof.static_friction, dof.dynamic_friction, dof.velocity_limit = static, dynamic, velocity_limit
    scene.joints.append(rail)
    return scene


def push(sim, frame):
    """Below static friction for a third of a second, then above it."""
    sim.set_joint_efforts({"rail": 1.5 if frame < 20 else 3.0})


def test_friction_holds_then_lets_go_as_on_newtons_path():
    sim, ours, theirs = both(slider_scene(static=2.0, dynamic=1.0), push)
    np.testing.assert_allclose(ours[:, 0, :3], theirs[:, 0, :3], atol=1e-6, rtol=0)
    assert abs(ours[19, 0, 0]) < 1e-4  # held below static friction
    # then 3 N against 1 N of dynamic friction on 1 kg: 2 m/s^2 for 40 frames
    assert sim.joint_velocities()[("rail", "transX")] == pytest.approx(2.0 * 40 / FPS, rel=0.02)


def test_velocity_limit_holds_as_on_newtons_path():
    sim, ours, theirs = both(slider_scene(velocity_limit=0.5), push)
    np.testing.assert_allclose(ours[:, 0, :3], theirs[:, 0, :3], atol=1e-6, rtol=0)
    assert sim.joint_velocities()[("rail", "transX")] == pytest.approx(0.5)
    # 1.5 N on 1 kg reaches the limit in 1/3 s (0.083 m), then 0.5 m/s for the rest of the second
    assert ours[-1, 0, 0] == pytest.approx(0.5 - 0.5 ** 2 / (2 * 1.5), abs=0.01)


def test_friction_state_carries_over_when_leaving_for_newtons_path():
    """The stuck/anchor state is the friction kernel's own arrays: a run that leaves the direct path
    mid-way (an effort on a ball joint) holds the same joint still."""
    scene = slider_scene(static=2.0, dynamic=1.0)
    scene.bodies.append(Body("bob", Pose((0.0, 0.0, 2.0)), mass=ONE_KG))
    scene.joints.append(make_joint("socket", JointType.SPHERICAL, None, "bob",
                                   local_pose0=Pose((0.0, 0.0, 2.0))))
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    assert sim.direct is not None
    sim.set_joint_efforts({"rail": 1.5})
    sim.advance(0.25)
    assert sim.effects.stuck.numpy()[0] == 1
    sim.set_joint_efforts({("socket", "rotZ"): 0.1})
    assert sim.direct is None
    sim.advance(0.25)
    assert abs(sim.joint_positions()[("rail", "transX")]) < 1e-4


def pendulum_on_a_ball_joint(friction: float = 0.0, velocity_limit: float = math.inf) -> PhysicsScene:
    """A 1 kg bob 0.5 m below a socket, under gravity, tilted so it swings and turns."""
    scene = PhysicsScene(name="ball")
    scene.bodies.append(Body("bob", Pose((0.3, 0.1, 0.6), quat_from_axis_angle((1, 1, 0), 0.4)), mass=ONE_KG))
    scene.shapes.append(Shape("bob_box", ShapeKind.BOX, "bob", half_extents=(0.1, 0.05, 0.02),
                              collision_group=0))
    socket = make_joint("socket", JointType.SPHERICAL, None, "bob", local_pose0=Pose((0.0, 0.0, 1.0)),
                        local_pose1=Pose((0.0, 0.0, 0.5)))
    for dof in socket.dofs:
        dof.static_friction, dof.dynamic_friction = friction, 0.5 * friction
        dof.velocity_limit = velocity_limit
    scene.joints.append(socket)
    return scene


def spin(sim, frame):
    if frame == 0:
        sim.set_joint_velocities({("socket", "rotZ"): 3.0, ("socket", "rotX"): 1.0})


@pytest.mark.parametrize("friction, velocity_limit", [(0.2, math.inf), (0.0, 1.5), (0.2, 1.5)])
def test_friction_and_velocity_limits_on_a_ball_joint_as_on_newtons_path(friction, velocity_limit):
    sim, ours, theirs = both(pendulum_on_a_ball_joint(friction, velocity_limit), spin)
    assert sim.direct.rules is not None
    assert_same_motion(ours, theirs)
    if math.isfinite(velocity_limit):
        speeds = [abs(v) for v in sim.joint_velocities().values()]
        assert max(speeds) <= velocity_limit + 1e-6
