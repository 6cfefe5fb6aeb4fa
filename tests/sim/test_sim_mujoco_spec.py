"""MuJoCo on the CPU simulates the MJCF export's compiled model (``sim.mujoco_spec``): no Newton model,
no Warp kernel. What is simulated is MuJoCo's own stepping of the file Articula writes, exactly; a legged
robot read from MJCF moves as MuJoCo moves the original file; what MJCF cannot say (kinematic bodies'
paths, velocity limits, grabs and pushes, replicas, keyframes) is done around MuJoCo's step."""

import math
import os
import subprocess
import sys
import textwrap

import mujoco
import numpy as np
import pytest

from articula.core import samples
from articula.core.mjcf.reader import read_mjcf
from articula.core.mjcf.writer import write_mjcf
from articula.core.model import (Body, JointType, Keyframe, MassProperties, PhysicsScene, Pose, SceneSettings,
                                 Shape, ShapeKind, make_joint)
from articula.core.transforms import quat_from_axis_angle, transform_point
from articula.sim import model_cache
from articula.sim.mujoco_spec import MuJoCoSimulation
from articula.sim.picking import GRABBED, Grab, push
from articula.sim.simulation import Simulation, SimulationDiverged, resolve_device

from .test_sim_kinematic import carried_arm_scene, driven_hinge_scene

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GYMNASIUM = os.path.join(ROOT, ".venv-converter", "lib", "python3.12", "site-packages", "gymnasium", "envs",
                         "mujoco", "assets")
PYBULLET_DATA = os.environ.get("ARTICULA_PYBULLET_DATA",
                               os.path.expanduser("~/.cache/articula/pybullet_data"))
FPS = 60
ONE_KG = MassProperties(1.0, diagonal_inertia=(0.1,) * 3)


def slider(velocity_limit: float = math.inf, friction: float = 0.0) -> PhysicsScene:
    scene = PhysicsScene(name="slider", settings=SceneSettings(gravity=(0.0, 0.0, 0.0)))
    scene.bodies.append(Body("cart", Pose((0.0, 0.0, 1.0)), mass=ONE_KG))
    rail = make_joint("rail", JointType.PRISMATIC, None, "cart", axis="X", local_pose0=Pose((0.0, 0.0, 1.0)))
    rail.dofs[0].velocity_limit = velocity_limit
    rail.dofs[0].static_friction = rail.dofs[0].dynamic_friction = friction
    scene.joints.append(rail)
    return scene


def test_mujoco_on_the_cpu_is_the_mjcf_export():
    sim = Simulation(samples.six_dof_arm(), device="auto", solver="MUJOCO")
    assert isinstance(sim, MuJoCoSimulation) and sim.device == "cpu"
    assert not hasattr(sim, "model")  # no Newton model
    newton_path = Simulation(samples.pendulum(), device="cpu", solver="MUJOCO", mujoco_direct=False)
    assert not isinstance(newton_path, MuJoCoSimulation)


def test_auto_device_keeps_one_world_of_mujoco_on_the_cpu():
    assert resolve_device("auto", "MUJOCO") == "cpu"
    assert resolve_device("cpu", "MUJOCO", replicas=10_000) == "cpu"


@pytest.mark.parametrize("scene", [samples.six_dof_arm, samples.robotic_finger, samples.pendulum])
def test_what_is_simulated_is_mujocos_own_stepping_of_the_written_file(scene, tmp_path):
    """The same compiled model: the same ``qpos`` after every frame, to the last bit (velocity limits,
    which MJCF cannot say, are taken off: they are Articula's impulse after MuJoCo's step)."""
    scene = scene()
    for joint in scene.joints:
        for dof in joint.dofs:
            dof.velocity_limit = math.inf
    path = str(tmp_path / "robot.xml")
    write_mjcf(scene, path)
    model = mujoco.MjModel.from_xml_path(path)
    data = mujoco.MjData(model)
    if model.nkey:
        mujoco.mj_resetDataKeyframe(model, data, 0)
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    for _ in range(30):
        steps = sim.advance(1.0 / FPS)
        mujoco.mj_step(model, data, steps)
        np.testing.assert_array_equal(sim.mj_data.qpos, data.qpos)
    mujoco.mj_kinematics(model, data)
    ids = [mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, n) for n in sim.body_names]
    np.testing.assert_array_equal(sim.body_poses()[:, :3], data.xpos[ids])


NO_KERNEL_SCRIPT = textwrap.dedent("""
    import os, sys
    from articula.core import samples
    from articula.core.model import Pose
    from articula.sim.simulation import Simulation, warm_kernels
    from articula.sim.picking import Grab
    from articula.sim.kernel_build import KernelBuild
    assert KernelBuild.start("MUJOCO", "auto") is None  # Simulate and Bake wait for nothing
    assert not warm_kernels("MUJOCO", "auto")
    sim = Simulation(samples.six_dof_arm(), solver="MUJOCO")
    sim.advance(0.1)
    sim.body_poses(), sim.body_velocities(), sim.joint_positions(), sim.joint_velocities()
    grab = Grab(sim)
    grab.hit((0.0, -2.0, 0.3), (0.0, 1.0, 0.0))
    grab.grab_point(1, sim.body_poses()[1, :3])
    sim.advance(0.1)
    sim.reset()
    sim.close()
    print("stepped", sim.steps)
""")


def test_the_mujoco_path_builds_no_warp_kernel(tmp_path):
    cache = tmp_path / "warp-cache"
    cache.mkdir()
    env = dict(os.environ, WARP_CACHE_PATH=str(cache))
    run = subprocess.run([sys.executable, "-c", NO_KERNEL_SCRIPT], env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    assert "stepped" in run.stdout
    built = [os.path.join(folder, f) for folder, _, files in os.walk(cache) for f in files]
    assert built == [], built


@pytest.mark.skipif(not os.path.isfile(os.path.join(GYMNASIUM, "ant.xml")),
                    reason="gymnasium comes with `make corpus`")
def test_ant_dropped_on_the_floor_moves_as_mujoco_moves_the_original_file():
    """Two seconds of gymnasium's ant falling onto its legs: every body within 1 mm of MuJoCo's run of
    the original file (the reader and writer carry what the contacts need)."""
    path = os.path.join(GYMNASIUM, "ant.xml")
    sim = Simulation(read_mjcf(path).scene, device="cpu", solver="MUJOCO")
    model = mujoco.MjModel.from_xml_path(path)
    data = mujoco.MjData(model)
    named = [(row, mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, n))
             for row, n in enumerate(sim.body_names)]
    rows, ids = zip(*[(row, i) for row, i in named if i >= 0])
    assert len(rows) >= 9  # the torso, and each leg's thigh and shin (the file leaves the hips unnamed)
    fell = 0.0
    while data.time < 2.0 - 1e-9:
        mujoco.mj_step(model, data, sim.advance(1.0 / FPS))
        mujoco.mj_kinematics(model, data)
        ours = sim.body_poses()[list(rows), :3]
        np.testing.assert_allclose(ours, data.xpos[list(ids)], atol=1e-3, rtol=0)
        fell = max(fell, 0.75 - ours[0, 2])
    assert fell > 0.1  # it fell onto its legs


def test_a_keyframe_is_the_start_and_reset_goes_back_to_it():
    scene = samples.pendulum()
    scene.keyframes.append(Keyframe("home", joint_positions={("pendulum_hinge", "rotY"): 0.5},
                                    joint_velocities={("pendulum_hinge", "rotY"): -1.0}))
    sim = Simulation(scene, device="cpu", solver="MUJOCO", keyframe="home")
    assert sim.joint_positions()[("pendulum_hinge", "rotY")] == 0.5
    assert sim.joint_velocities()[("pendulum_hinge", "rotY")] == -1.0
    sim.advance(0.5)
    sim.reset()
    assert sim.joint_positions()[("pendulum_hinge", "rotY")] == 0.5
    with pytest.raises(KeyError, match="'home'"):
        sim.apply_keyframe("away")


def test_a_floating_roots_keyframe_pose_and_velocity():
    scene = PhysicsScene(name="box", settings=SceneSettings(gravity=(0.0, 0.0, 0.0)))
    scene.bodies.append(Body("box", Pose((0.0, 0.0, 1.0)), mass=ONE_KG))
    turned = quat_from_axis_angle((0, 0, 1), 0.3)
    scene.keyframes.append(Keyframe("home", root_poses={"box": Pose((1.0, 2.0, 3.0), turned)},
                                    root_velocities={"box": ((0.5, 0.0, 0.0), (0.0, 0.0, 1.0))}))
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    sim.apply_keyframe("home")
    # the export's key, written with MJCF's 6 significant digits
    np.testing.assert_allclose(sim.body_poses()[0], (1.0, 2.0, 3.0, *turned), atol=1e-6)
    np.testing.assert_allclose(sim.body_velocities()[0], (0.5, 0.0, 0.0, 0.0, 0.0, 1.0), atol=1e-6)


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
    """The carried arm with a base of no mass."""
    scene = carried_arm_scene()
    scene.bodies[0].mass = MassProperties(0.0)
    scene.shapes[0].density = 0.0
    return scene


def frames_step_by_step(sim, frames: int = 12) -> np.ndarray:
    """Poses after each of ``frames`` frames of the animated base, stepped one step at a time."""
    poses = []
    for frame in range(frames):
        animate_base(sim, frame)
        for _ in sim.advance_steps(1.0 / 24):
            pass
        poses.append(sim.body_poses().copy())
    return np.array(poses)


def push_rail(sim, frame):
    """1.5 N for a third of a second, then 3 N."""
    sim.set_joint_efforts({"rail": 1.5 if frame < 20 else 3.0})


def test_kinematic_base_carries_the_arm_along_its_path():
    sim = Simulation(carried_arm_scene(), device="cpu", solver="MUJOCO")
    base, arm = sim.body_names.index("base"), sim.body_names.index("arm")
    for frame in range(FPS):
        animate_base(sim, frame)
        sim.advance(1.0 / FPS)
        poses = sim.body_poses()
        t = (frame + 1) / FPS
        np.testing.assert_allclose(poses[base, :3], (t, 0.0, 1.0), atol=1e-12)
        base_pose, arm_pose = (Pose(tuple(poses[r, :3]), tuple(poses[r, 3:])) for r in (base, arm))
        np.testing.assert_allclose(transform_point(base_pose, (0.0, 0.0, -0.05)),
                                   transform_point(arm_pose, (0.0, 0.0, 0.25)), atol=2e-3)
    assert sim.body_poses()[arm, 0] > 0.8
    with pytest.raises(KeyError, match="arm"):
        sim.set_kinematic_poses({"arm": Pose()})


@pytest.mark.parametrize("scene", [carried_arm_scene, massless_base_scene])
def test_a_kinematic_base_is_a_mocap_body_at_the_end_of_its_path(scene):
    sim = Simulation(scene(), device="cpu", solver="MUJOCO")
    assert sim.mj_model.nmocap == 1
    for frame in range(FPS):
        animate_base(sim, frame)
        sim.advance(1.0 / FPS)
    np.testing.assert_allclose(sim.mj_data.mocap_pos[0], (1.0, 0.0, 1.0), atol=1e-12)
    assert sim.diverged() is None


def test_kinematic_base_moves_step_by_step_through_a_frame():
    whole, stepped = (Simulation(carried_arm_scene(), device="cpu", solver="MUJOCO") for _ in range(2))
    for frame in range(12):
        animate_base(whole, frame)
        animate_base(stepped, frame)
        whole.advance(1.0 / FPS)
        for _ in stepped.advance_steps(1.0 / FPS):
            pass
    np.testing.assert_array_equal(whole.body_poses(), stepped.body_poses())


def test_velocity_limit_holds():
    sim = Simulation(slider(velocity_limit=0.5), device="cpu", solver="MUJOCO")
    sim.set_joint_efforts({"rail": 1.5})
    sim.advance(1.0)
    assert sim.joint_velocities()[("rail", "transX")] == pytest.approx(0.5)
    # 1.5 N on 1 kg reaches the limit in 1/3 s (0.083 m), then 0.5 m/s for the rest of the second
    assert sim.body_poses()[0, 0] == pytest.approx(0.5 - 0.5 ** 2 / (2 * 1.5), abs=0.01)


def floating_arm(velocity_limit: float) -> PhysicsScene:
    """A free base and an arm on a hinge 0.5 m from the arm's centre of mass, no gravity."""
    scene = PhysicsScene(name="floating_arm", settings=SceneSettings(gravity=(0.0, 0.0, 0.0)))
    scene.bodies.append(Body("base", Pose((0.0, 0.0, 1.0)), mass=ONE_KG))
    scene.bodies.append(Body("arm", Pose((0.5, 0.0, 1.0)), parent="base", mass=ONE_KG))
    elbow = make_joint("elbow", JointType.REVOLUTE, "base", "arm", axis="Z",
                       local_pose1=Pose((-0.5, 0.0, 0.0)))
    elbow.dofs[0].velocity_limit = velocity_limit
    scene.joints.append(elbow)
    return scene


def robot_momentum(sim) -> np.ndarray:
    m, d = sim.mj_model, sim.mj_data
    mujoco.mj_forward(m, d)
    mujoco.mj_subtreeVel(m, d)
    return d.subtree_linvel[0] * m.body_subtreemass[0]


def test_velocity_limit_keeps_a_floating_robots_momentum():
    """The limit is a joint impulse, equal and opposite on base and arm: the elbow is held to its
    limit and the robot's momentum (1.5 kg m/s) stays to within the step's discretization (clamping
    the elbow's speed alone took 1.25 kg m/s off, and a free-floating ant with stiff drives blew up)."""
    sim = Simulation(floating_arm(velocity_limit=0.5), device="cpu", solver="MUJOCO")
    sim.set_joint_velocities({"elbow": 3.0})
    before = robot_momentum(sim)
    assert np.abs(before).max() > 0.5
    sim.advance(0.1)
    assert sim.joint_velocities()[("elbow", "rotZ")] == pytest.approx(0.5)
    np.testing.assert_allclose(robot_momentum(sim), before, atol=0.01)


def test_joint_friction_is_mujocos_frictionloss_alone():
    """1 N of friction against 1.5 N on 1 kg: 0.5 m/s^2 (Articula's own friction would be on top)."""
    sim = Simulation(slider(friction=1.0), device="cpu", solver="MUJOCO")
    assert sim.mj_model.dof_frictionloss[0] == 1.0
    sim.set_joint_efforts({"rail": 1.5})
    sim.advance(1.0)
    assert sim.joint_velocities()[("rail", "transX")] == pytest.approx(0.5, rel=0.02)


def test_drive_targets_and_controls_act():
    sim = Simulation(driven_hinge_scene(), device="cpu", solver="MUJOCO")
    for target in (0.5, -0.3):
        sim.set_drive_targets({"motor": target})
        sim.advance(1.0)
        assert sim.joint_positions()[("motor", "rotZ")] == pytest.approx(target, abs=0.01)
    sim.reset()
    assert sim.joint_positions()[("motor", "rotZ")] == 0.0
    with pytest.raises(KeyError, match="no simulated DOF"):
        sim.set_drive_targets({"elbow": 1.0})


def test_actuator_controls_are_clamped_and_reset():
    scene = read_mjcf(os.path.join(ROOT, "tests", "data", "arm_gripper.xml")).scene
    actuator, *_ = scene.actuators()[0]
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    low, high = actuator.ctrl_range
    sim.set_controls({actuator.name: high + 10.0})
    assert sim.actuator_controls[actuator.name] == high
    sim.advance(0.2)
    assert sim.mj_data.ctrl[sim.layout.actuators[actuator.name]] == high
    sim.reset()
    assert sim.actuator_controls[actuator.name] == min(max(actuator.control, low), high)
    with pytest.raises(KeyError, match="no actuator 'nope'"):
        sim.set_controls({"nope": 1.0})
    with pytest.raises(ValueError, match="not a finite number"):
        sim.set_controls({actuator.name: math.nan})


def test_start_poses_velocities_and_reset():
    sim = Simulation(samples.pendulum(), device="cpu", solver="MUJOCO")
    start = sim.body_poses().copy()
    sim.advance(0.5)
    assert not np.allclose(sim.body_poses(), start, atol=1e-3)
    sim.reset()
    np.testing.assert_array_equal(sim.body_poses(), start)
    sim.set_joint_velocities({"pendulum_hinge": 2.0})
    assert sim.joint_velocities()[("pendulum_hinge", "rotY")] == 2.0
    raised = Pose((0.0, 0.0, 1.0), (0.7071068, 0.0, -0.7071068, 0.0))  # bob straight up (-90 deg about Y)
    sim.set_start_poses({"pendulum_link": raised})
    assert sim.joint_positions()[("pendulum_hinge", "rotY")] == pytest.approx(-np.pi / 2, abs=1e-6)
    np.testing.assert_allclose(sim.body_poses()[0, 3:], raised.rot, atol=1e-6)


def test_start_pose_of_a_floating_body():
    scene = PhysicsScene(name="box")
    scene.bodies.append(Body("box", Pose((0.0, 0.0, 1.0)), mass=ONE_KG))
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    turned = quat_from_axis_angle((1, 0, 0), 0.5)
    sim.set_start_poses({"box": Pose((0.5, 0.0, 2.0), turned)})
    np.testing.assert_allclose(sim.body_poses()[0], (0.5, 0.0, 2.0, *turned), atol=1e-12)


def test_a_grab_pulls_and_a_push_moves_the_body():
    scene = PhysicsScene(name="box", settings=SceneSettings(gravity=(0.0, 0.0, 0.0)))
    scene.bodies.append(Body("box", Pose((0.0, 0.0, 1.0)), mass=ONE_KG))
    scene.shapes.append(Shape("box_shape", ShapeKind.BOX, "box", half_extents=(0.1, 0.1, 0.1)))
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    grab = Grab(sim)
    hit = grab.pick((0.0, -2.0, 1.0), (0.0, 1.0, 0.0))
    assert hit.kind == GRABBED and hit.body == "box"
    assert hit.point == pytest.approx((0.0, -0.1, 1.0))
    grab.drag((0.5, -2.0, 1.0), (0.0, 1.0, 0.0))
    for _ in range(30):
        sim.advance(1.0 / FPS)
    assert sim.body_poses()[0, 0] > 0.3  # pulled toward the target
    grab.release()
    assert not sim.mj_data.xfrc_applied.any()
    sim.reset()
    push(sim, 0, (0.0, 0.0, 1.0), (0.0, 0.0, 1.0), speed=1.0)
    sim.advance(1.0 / FPS)
    assert sim.body_velocities()[0, 2] == pytest.approx(1.0, rel=1e-6)


def test_replicas_are_replica_0_shifted_by_their_offsets():
    scene = samples.pendulum()
    scene.settings.replicas, scene.settings.replica_spacing = 4, 2.0
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    one = Simulation(samples.pendulum(), device="cpu", solver="MUJOCO")
    assert sim.body_keys == [("pendulum_link", r) for r in range(4)]
    sim.set_drive_targets({})
    sim.advance(0.5)
    one.advance(0.5)
    poses = sim.body_poses()
    for r, offset in enumerate(sim.offsets):
        np.testing.assert_array_equal(poses[r, :3] - offset, one.body_poses()[0, :3])
    sim.set_joint_velocities({"pendulum_hinge": 3.0}, replica=2)
    sim.advance(0.2)
    assert sim.joint_velocities(2) != sim.joint_velocities(1)


def test_a_blow_up_names_its_body():
    sim = Simulation(samples.pendulum(), device="cpu", solver="MUJOCO")
    sim.advance(1.0 / FPS)
    sim.mj_data.qvel[:] = np.nan  # MuJoCo resets such a state itself, warning on its log only
    with pytest.raises(SimulationDiverged) as raised:
        sim.advance(1.0 / FPS)
    assert raised.value.body == "pendulum_link"


def test_a_closed_simulation_gives_its_model_to_the_next():
    model_cache.clear()
    first = Simulation(samples.six_dof_arm(), device="cpu", solver="MUJOCO")
    first.advance(0.2)
    first.close()
    with pytest.raises(RuntimeError, match="closed"):
        first.advance(0.1)
    second = Simulation(samples.six_dof_arm(), device="cpu", solver="MUJOCO")
    assert second.mj_model is first.mj_model
    fresh = Simulation(samples.six_dof_arm(), device="cpu", solver="MUJOCO")
    second.advance(0.2)
    fresh.advance(0.2)
    np.testing.assert_array_equal(second.body_poses(), fresh.body_poses())


def test_a_drive_beside_a_servo_of_its_name_is_its_own_actuator(tmp_path):
    """An imported robot's servo may be called ``<joint>_drive``, the name the export gives a drive: the
    drive's servo takes the next free name, the file compiles, and drive targets reach the drive's servo."""
    from articula.core.model import Actuator

    scene = samples.pendulum()
    joint = scene.joints[0]
    dof = joint.dofs[0]
    dof.actuators.append(Actuator.position(f"{joint.name}_drive", 5.0, 0.5))
    dof.drive_enabled, dof.drive_stiffness, dof.drive_damping = True, 100.0, 1.0
    out = tmp_path / "robot.xml"
    write_mjcf(scene, str(out))
    model = mujoco.MjModel.from_xml_path(str(out))
    names = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_ACTUATOR, a) for a in range(model.nu)]
    assert names == [f"{joint.name}_drive", f"{joint.name}_drive_1"]
    sim = MuJoCoSimulation(scene)
    sim.set_drive_targets({joint.name: 0.3})
    sim.advance(1 / 24)
    assert sim.mj_data.ctrl[1] == pytest.approx(0.3) and sim.mj_data.ctrl[0] == 0.0


def test_velocity_limits_are_simulated_so_the_notes_do_not_call_them_left_out():
    from articula.core.mjcf.writer import build_spec

    scene = slider(velocity_limit=0.6)
    assert any("velocity limit of rail" in w for w in build_spec(scene).warnings)  # the file cannot say it
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    assert not [note for note in sim.notes if "velocity limit" in note]
