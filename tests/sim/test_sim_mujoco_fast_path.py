"""MuJoCo's C library on the MJCF export moves robots read from MJCF as MuJoCo moves the original files.

gymnasium's robots, read by ``core.mjcf.reader`` and simulated (``Simulation(..., solver="MUJOCO")`` on
the CPU: the export compiled in memory, ``mujoco.mj_step`` between frames) against MuJoCo's own run
of the file they were read from: every named body within a millimetre over a second. The poses read
are those of the state after a frame's last step; efforts, controls and drive targets act; a blow-up
inside MuJoCo (which resets its state by itself) is reported with its body.
"""

import glob
import os

import mujoco
import numpy as np
import pytest

from articula.core import samples
from articula.core.mjcf.reader import read_mjcf
from articula.core.model import Body, JointType, MassProperties, PhysicsScene, Pose, SceneSettings, make_joint
from articula.core.usd.reader import read_usd
from articula.sim.mujoco_spec import MuJoCoSimulation
from articula.sim.simulation import Simulation, SimulationDiverged

from .test_sim_kinematic import carried_arm_scene

ONE_KG = MassProperties(1.0, diagonal_inertia=(0.1,) * 3)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.environ.get("ARTICULA_CORPUS", os.path.expanduser("~/.cache/articula/corpus"))
FPS = 60
#: What the reader and writer may change of a robot's motion over a second (m).
POSE_TOLERANCE = 1e-3


def gym_file(name: str) -> str:
    assets = ".venv-converter/lib/python3.*/site-packages/gymnasium/envs/mujoco/assets"
    found = glob.glob(os.path.join(ROOT, assets, f"{name}.xml"))
    if not found:
        pytest.skip("gymnasium's MJCF files come with `make corpus` (.venv-converter)")
    return found[0]


def gym_scene(name: str) -> PhysicsScene:
    return read_mjcf(gym_file(name)).scene


def corpus_scene(name: str) -> PhysicsScene:
    found = glob.glob(os.path.join(CORPUS, name, "*.usda"))
    if not found:
        pytest.skip("the converted corpus comes with `make corpus`")
    return read_usd(found[0]).scene


def one_second(sim, each_frame=None) -> np.ndarray:
    poses = []
    for frame in range(FPS):
        if each_frame:
            each_frame(sim, frame)
        sim.advance(1.0 / FPS)
        poses.append(sim.body_poses().copy())
    return np.array(poses)


@pytest.mark.parametrize("robot", ["humanoid", "ant", "hopper", "walker2d", "half_cheetah"])
def test_gymnasium_robot_moves_as_mujoco_moves_its_file(robot):
    path = gym_file(robot)
    sim = Simulation(read_mjcf(path).scene, device="cpu", solver="MUJOCO")
    assert isinstance(sim, MuJoCoSimulation)
    model = mujoco.MjModel.from_xml_path(path)
    data = mujoco.MjData(model)
    if model.nkey:
        mujoco.mj_resetDataKeyframe(model, data, 0)
    named = [(row, mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, n))
             for row, n in enumerate(sim.body_names)]
    rows, ids = (list(v) for v in zip(*[(row, i) for row, i in named if i > 0]))
    start = sim.body_poses()[rows, :3].copy()
    for _ in range(FPS):
        mujoco.mj_step(model, data, sim.advance(1.0 / FPS))
        mujoco.mj_kinematics(model, data)
        np.testing.assert_allclose(sim.body_poses()[rows, :3], data.xpos[ids], atol=POSE_TOLERANCE, rtol=0)
    assert np.abs(sim.body_poses()[rows, :3] - start).max() > 0.01  # something happened to compare


@pytest.mark.parametrize("robot", ["gym_humanoid", "gym_ant", "newton_nv_ant"])
def test_corpus_usd_robot_falls_and_stays_finite(robot):
    sim = Simulation(corpus_scene(robot), device="cpu", solver="MUJOCO")
    poses = one_second(sim)
    assert np.abs(poses[-1, :, :3] - poses[0, :, :3]).max() > 0.01
    assert sim.diverged() is None


def test_actuator_controls_set_every_frame_act():
    scene = read_mjcf(os.path.join(ROOT, "tests", "data", "arm_gripper.xml")).scene
    names = [a.name for a, _, _, _ in scene.actuators()]

    def controls(sim, frame):
        sim.set_controls({name: 0.4 * np.sin(0.1 * frame + i) for i, name in enumerate(names)})

    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    idle = one_second(Simulation(scene, device="cpu", solver="MUJOCO"))
    moved = one_second(sim, controls)
    assert sim.mj_data.ctrl.any()
    assert np.abs(moved[-1, :, :3] - idle[-1, :, :3]).max() > 0.01


def test_frame_poses_are_the_state_after_the_last_step():
    """mj_step leaves xpos one step behind qpos: the poses read are those of the final qpos."""
    sim = Simulation(samples.pendulum(), device="cpu", solver="MUJOCO")
    sim.advance(0.5)
    data = mujoco.MjData(sim.mj_model)
    data.qpos[:] = sim.mj_data.qpos
    mujoco.mj_kinematics(sim.mj_model, data)
    body = mujoco.mj_name2id(sim.mj_model, mujoco.mjtObj.mjOBJ_BODY, "pendulum_link")
    np.testing.assert_array_equal(sim.body_poses()[0, :3], data.xpos[body])


def test_applied_joint_efforts_act():
    """1 N on 1 kg for 0.5 s."""
    scene = PhysicsScene(name="slider", settings=SceneSettings(gravity=(0.0, 0.0, 0.0)))
    scene.bodies.append(Body("cart", Pose((0.0, 0.0, 1.0)), mass=ONE_KG))
    scene.joints.append(make_joint("rail", JointType.PRISMATIC, None, "cart", axis="X",
                                   local_pose0=Pose((0.0, 0.0, 1.0))))
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    sim.set_joint_efforts({"rail": 1.0})
    sim.advance(0.5)
    assert sim.joint_velocities()[("rail", "transX")] == pytest.approx(0.5, rel=1e-3)


def test_an_effort_on_a_ball_joint_turns_it():
    """A ball joint's effort is MuJoCo's, in the joint's frame: it keeps turning the bob, faster."""
    scene = PhysicsScene(name="ball", settings=SceneSettings(gravity=(0.0, 0.0, 0.0)))
    scene.bodies.append(Body("bob", Pose((0.0, 0.0, 1.0)), mass=ONE_KG))
    scene.joints.append(make_joint("socket", JointType.SPHERICAL, None, "bob",
                                   local_pose0=Pose((0.0, 0.0, 1.0))))
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    sim.set_joint_velocities({("socket", "rotZ"): 1.0})
    sim.advance(0.5)
    turned = sim.body_poses()[0, 3:].copy()
    sim.set_joint_efforts({("socket", "rotZ"): 0.1})
    sim.advance(0.5)
    assert sim.joint_velocities()[("socket", "rotZ")] == pytest.approx(1.0 + 0.1 / 0.1 * 0.5, rel=1e-3)
    assert abs(turned[0]) < 0.99 and abs(sim.body_poses()[0, 3]) < abs(turned[0])


@pytest.mark.parametrize("scene", [carried_arm_scene, samples.six_dof_arm, samples.robotic_finger,
                                   samples.d6_sampler])
def test_kinematic_bodies_friction_and_velocity_limits_stay_finite(scene):
    sim = Simulation(scene(), device="cpu", solver="MUJOCO")
    sim.advance(0.1)
    assert np.isfinite(sim.body_poses()).all()


@pytest.mark.parametrize("solver", ["FEATHERSTONE", "XPBD"])
def test_other_solvers_step_through_newton(solver):
    sim = Simulation(samples.pendulum(), device="cpu", solver=solver)
    assert not isinstance(sim, MuJoCoSimulation)
    sim.advance(0.1)


def test_blow_up_in_mujoco_is_reported_with_the_body():
    sim = Simulation(samples.pendulum(), device="cpu", solver="MUJOCO")
    sim.advance(1.0 / FPS)
    sim.mj_data.qvel[:] = np.nan  # MuJoCo resets such a state itself, warning on its log only
    with pytest.raises(SimulationDiverged) as raised:
        sim.advance(1.0 / FPS)
    assert raised.value.body == "pendulum_link"
