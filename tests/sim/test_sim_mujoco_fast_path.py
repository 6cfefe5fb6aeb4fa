"""MuJoCo's C library stepped directly (CPU, one world) gives the physics of Newton's MuJoCo path.

The same compiled model, stepped by ``mujoco.mj_step`` between frames (``Simulation(...,
mujoco_direct=True)``, the default) or through Newton's per-step conversion (``mujoco_direct=False``):
poses over 1 s agree to float precision (Newton's path rounds the state to float32 every step, so
not to the last digit). Controls and drive targets set between frames act; kinematic bodies, joint
friction and velocity limits are done between steps (tests/sim/test_sim_mujoco_direct_rules.py); what
MuJoCo's data cannot take between steps (an effort on a ball joint) continues on Newton's path.
"""

import glob
import os

import mujoco
import numpy as np
import pytest

from articula.core import samples
from articula.core.mjcf.reader import read_mjcf
from articula.core.usd.reader import read_usd
from articula.core.model import Body, JointType, MassProperties, PhysicsScene, Pose, SceneSettings, make_joint
from articula.sim.simulation import Simulation, SimulationDiverged

from .test_sim_kinematic import carried_arm_scene, driven_hinge_scene

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.environ.get("ARTICULA_CORPUS", os.path.expanduser("~/.cache/articula/corpus"))
FPS = 60
#: Float32 rounding of the state each step on Newton's path, grown over 1 s of motion with contacts (m).
POSE_TOLERANCE = 5e-5


def gym_scene(name: str) -> PhysicsScene:
    found = glob.glob(os.path.join(ROOT, ".venv-converter/lib/python3.*/site-packages/gymnasium/envs/mujoco/assets",
                                   f"{name}.xml"))
    if not found:
        pytest.skip("gymnasium's MJCF files come with `make corpus` (.venv-converter)")
    return read_mjcf(found[0]).scene


def corpus_scene(name: str) -> PhysicsScene:
    found = glob.glob(os.path.join(CORPUS, name, "*.usda"))
    if not found:
        pytest.skip("the converted corpus comes with `make corpus`")
    return read_usd(found[0]).scene


def one_second(sim: Simulation, each_frame=None) -> np.ndarray:
    poses = []
    for frame in range(FPS):
        if each_frame:
            each_frame(sim, frame)
        sim.advance(1.0 / FPS)
        poses.append(sim.body_poses().copy())
    return np.array(poses)


def both(scene: PhysicsScene, each_frame=None):
    direct = Simulation(scene, device="cpu", solver="MUJOCO")
    newton_path = Simulation(scene, device="cpu", solver="MUJOCO", mujoco_direct=False)
    assert direct.direct is not None, direct.direct_refusal
    assert newton_path.direct is None
    return direct, one_second(direct, each_frame), one_second(newton_path, each_frame)


def assert_same_motion(ours: np.ndarray, theirs: np.ndarray):
    moved = np.abs(theirs[-1] - theirs[0]).max()
    assert moved > 0.01  # something happened to compare
    np.testing.assert_allclose(ours[:, :, :3], theirs[:, :, :3], atol=POSE_TOLERANCE, rtol=0)
    # The same rotation, whichever sign each path's quaternion has.
    dots = np.abs(np.einsum("fbi,fbi->fb", ours[:, :, 3:], theirs[:, :, 3:]))
    np.testing.assert_allclose(dots, 1.0, atol=1e-6)


@pytest.mark.parametrize("robot", ["humanoid", "ant"])
def test_gymnasium_mjcf_robot_moves_as_on_newtons_path(robot):
    _, ours, theirs = both(gym_scene(robot))
    assert_same_motion(ours, theirs)


@pytest.mark.parametrize("robot", ["gym_humanoid", "gym_ant", "newton_nv_ant"])
def test_corpus_usd_robot_moves_as_on_newtons_path(robot):
    _, ours, theirs = both(corpus_scene(robot))
    assert_same_motion(ours, theirs)


@pytest.mark.parametrize("sample", ["quadruped", "pendulum"])
def test_example_moves_as_on_newtons_path(sample):
    _, ours, theirs = both(getattr(samples, sample)())
    assert_same_motion(ours, theirs)


def test_actuator_controls_set_every_frame_act_as_on_newtons_path():
    scene = read_mjcf(os.path.join(ROOT, "tests", "data", "arm_gripper.xml")).scene
    names = [a.name for a, _, _, _ in scene.actuators()]

    def controls(sim, frame):
        sim.set_controls({name: 0.4 * np.sin(0.1 * frame + i) for i, name in enumerate(names)})

    sim, ours, theirs = both(scene, controls)
    assert_same_motion(ours, theirs)
    assert sim.solver.mj_data.ctrl.any()


def test_drive_targets_set_between_frames_are_reached():
    sim = Simulation(driven_hinge_scene(), device="cpu", solver="MUJOCO")
    assert sim.direct is not None
    for target in (0.5, -0.3):
        sim.set_drive_targets({"motor": target})
        sim.advance(1.0)
        assert sim.joint_positions()[("motor", "rotZ")] == pytest.approx(target, abs=0.01)


def test_drive_targets_every_frame_as_on_newtons_path():
    def targets(sim, frame):
        sim.set_drive_targets({"motor": 0.8 * np.sin(0.2 * frame)})

    _, ours, theirs = both(driven_hinge_scene(), targets)
    np.testing.assert_allclose(ours[:, :, :3], theirs[:, :, :3], atol=1e-5, rtol=0)
    assert np.abs(ours[:, 0, 3:] - ours[0, 0, 3:]).max() > 0.1  # it turned


def test_frame_poses_are_the_state_after_the_last_step():
    """mj_step leaves xpos one step behind qpos: the poses read are those of the final qpos."""
    sim = Simulation(samples.pendulum(), device="cpu", solver="MUJOCO")
    sim.advance(0.5)
    data = mujoco.MjData(sim.solver.mj_model)
    data.qpos[:] = sim.solver.mj_data.qpos
    mujoco.mj_kinematics(sim.solver.mj_model, data)
    row = sim.direct.rows[0]
    np.testing.assert_allclose(sim.body_poses()[0, :3], data.xpos[row], atol=1e-12)


def test_reset_start_poses_and_velocities_reach_mujoco():
    sim = Simulation(samples.pendulum(), device="cpu", solver="MUJOCO")
    start = sim.body_poses().copy()
    sim.advance(0.5)
    assert not np.allclose(sim.body_poses(), start, atol=1e-3)
    sim.reset()
    np.testing.assert_allclose(sim.body_poses(), start, atol=1e-6)
    sim.set_joint_velocities({"pendulum_hinge": 2.0})
    assert sim.joint_velocities()[("pendulum_hinge", "rotY")] == pytest.approx(2.0)
    sim.advance(1.0 / FPS)
    assert sim.joint_velocities()[("pendulum_hinge", "rotY")] > 1.0  # started from the velocity set
    raised = Pose((0.0, 0.0, 1.0), (0.7071068, 0.0, -0.7071068, 0.0))  # bob straight up (-90 deg about Y)
    sim.set_start_poses({"pendulum_link": raised})
    sim.advance(1.0 / FPS)
    assert sim.joint_positions()[("pendulum_hinge", "rotY")] == pytest.approx(-np.pi / 2, abs=0.05)


def test_applied_joint_efforts_act():
    """An effort on a slider (held between frames), as on Newton's path: 1 N on 1 kg for 0.5 s."""
    scene = PhysicsScene(name="slider", settings=SceneSettings(gravity=(0.0, 0.0, 0.0)))
    scene.bodies.append(Body("cart", Pose((0.0, 0.0, 1.0)), mass=MassProperties(1.0, diagonal_inertia=(0.1,) * 3)))
    scene.joints.append(make_joint("rail", JointType.PRISMATIC, None, "cart", axis="X",
                                   local_pose0=Pose((0.0, 0.0, 1.0))))
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    sim.set_joint_efforts({"rail": 1.0})
    sim.advance(0.5)
    assert sim.direct is not None
    assert sim.joint_velocities()[("rail", "transX")] == pytest.approx(0.5, rel=1e-3)


def test_an_effort_on_a_ball_joint_leaves_for_newtons_path():
    """Newton turns a ball joint's effort by the joint's rotation every step: that run continues on
    Newton's path, from where MuJoCo's left it."""
    scene = PhysicsScene(name="ball", settings=SceneSettings(gravity=(0.0, 0.0, 0.0)))
    scene.bodies.append(Body("bob", Pose((0.0, 0.0, 1.0)), mass=MassProperties(1.0, diagonal_inertia=(0.1,) * 3)))
    scene.joints.append(make_joint("socket", JointType.SPHERICAL, None, "bob", local_pose0=Pose((0.0, 0.0, 1.0))))
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    assert sim.direct is not None
    sim.set_joint_velocities({("socket", "rotZ"): 1.0})
    sim.advance(0.5)
    turned = sim.body_poses()[0, 3:].copy()
    sim.set_joint_efforts({("socket", "rotZ"): 0.1})
    assert sim.direct is None and "ball joint 'socket'" in sim.direct_refusal
    sim.advance(0.5)
    assert np.isfinite(sim.body_poses()).all()
    assert abs(turned[0]) < 0.99 and abs(sim.body_poses()[0, 3]) < abs(turned[0])  # kept turning, faster


@pytest.mark.parametrize("scene", [carried_arm_scene, samples.six_dof_arm, samples.robotic_finger])
def test_kinematic_bodies_friction_and_velocity_limits_stay_on_the_direct_path(scene):
    sim = Simulation(scene(), device="cpu", solver="MUJOCO")
    assert sim.direct is not None and sim.direct.rules is not None, sim.direct_refusal
    sim.advance(0.1)
    assert np.isfinite(sim.body_poses()).all()


def test_kinematic_body_follows_on_the_direct_path():
    sim = Simulation(carried_arm_scene(), device="cpu", solver="MUJOCO")
    assert sim.direct is not None
    for frame in range(1, 13):
        sim.set_kinematic_poses({"base": Pose((0.05 * frame, 0.0, 1.0))})
        sim.advance(1.0 / 24)
    base = sim.body_poses()[sim.built.key_index("base")]
    assert base[:3] == pytest.approx((0.6, 0.0, 1.0), abs=1e-4)


@pytest.mark.parametrize("solver", ["FEATHERSTONE", "XPBD"])
def test_other_solvers_step_through_newton(solver):
    sim = Simulation(samples.pendulum(), device="cpu", solver=solver)
    assert sim.direct is None
    sim.advance(0.1)


def test_blow_up_in_mujoco_is_reported_with_the_body():
    sim = Simulation(samples.pendulum(), device="cpu", solver="MUJOCO")
    sim.advance(1.0 / FPS)
    sim.solver.mj_data.qvel[:] = np.nan  # MuJoCo resets such a state itself, warning on its log only
    with pytest.raises(SimulationDiverged) as raised:
        sim.advance(1.0 / FPS)
    assert raised.value.body == "pendulum_link"
