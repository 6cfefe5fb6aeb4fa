"""The simulation on a CUDA GPU: every solver, replicas, controls, kinematic bodies, grabbing and the
model cache, each against the same scene on the CPU.

Skipped where there is no CUDA device (CI has none); run on a lent GPU. Featherstone and XPBD run the
same Warp kernels on both devices in float32, so the GPU's poses meet the CPU's closely (only the
order of atomic sums differs). MuJoCo steps MuJoCo Warp on the GPU and MuJoCo's C library on the CPU:
the same compiled model solved by two implementations, so there the test asks for the same motion
(the same rest pose, the joint at the same target) rather than the same digits.
"""

import numpy as np
import pytest
import warp as wp

from articula.core import samples
from articula.core.model import Pose
from articula.sim import model_cache
from articula.sim.picking import GRABBED, Grab
from articula.sim.simulation import Simulation, resolve_device

from .test_sim_actuators import Actuator, hinge_arm
from .test_sim_kinematic import carried_arm_scene
from .test_sim_picking import DOWN, crate_scene

wp.init()
pytestmark = pytest.mark.skipif(not wp.is_cuda_available(), reason="no CUDA device on this machine")

SOLVERS = ["MUJOCO", "FEATHERSTONE", "XPBD"]
FPS = 60
#: How far the GPU's poses may be from the CPU's after 1 s (m): float32 sums in another order for
#: Featherstone and XPBD; another implementation of the same solver for MuJoCo.
SAME_KERNELS_TOLERANCE = 2e-3
MUJOCO_WARP_TOLERANCE = 2e-2


def tolerance(solver: str) -> float:
    return MUJOCO_WARP_TOLERANCE if solver == "MUJOCO" else SAME_KERNELS_TOLERANCE


def one_second(sim: Simulation, each_frame=None) -> np.ndarray:
    for frame in range(FPS):
        if each_frame:
            each_frame(sim, frame)
        sim.advance(1.0 / FPS)
    sim.raise_if_diverged()
    return sim.body_poses()


def on_both_devices(make, solver: str, each_frame=None) -> tuple[np.ndarray, np.ndarray]:
    gpu = Simulation(make(), device="cuda", solver=solver)
    cpu = Simulation(make(), device="cpu", solver=solver)
    assert gpu.direct is None  # MuJoCo's direct C path is the CPU's alone
    return one_second(gpu, each_frame), one_second(cpu, each_frame)


def test_auto_picks_the_gpu():
    assert resolve_device("auto").startswith("cuda")


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("make", [samples.six_dof_arm, samples.robotic_finger, samples.quadruped],
                         ids=lambda make: make.__name__)
def test_a_robot_moves_on_the_gpu_as_on_the_cpu(make, solver):
    gpu, cpu = on_both_devices(make, solver)
    assert np.isfinite(gpu).all()
    gap = np.abs(gpu[:, :3] - cpu[:, :3]).max()
    print(f"{make.__name__} {solver}: largest position gap GPU-CPU after 1 s {gap:.2e} m")
    assert gap < tolerance(solver)


@pytest.mark.parametrize("solver", SOLVERS)
def test_an_animated_kinematic_base_carries_its_arm_on_the_gpu(solver):
    def slide(sim, frame):
        sim.set_kinematic_poses({"base": Pose((frame / FPS, 0.0, 1.0))})

    gpu, cpu = on_both_devices(carried_arm_scene, solver, slide)
    base = 0
    np.testing.assert_allclose(gpu[base, :3], ((FPS - 1) / FPS, 0.0, 1.0), atol=1e-5)
    assert np.abs(gpu[:, :3] - cpu[:, :3]).max() < tolerance(solver)


@pytest.mark.parametrize("solver", ["MUJOCO", "FEATHERSTONE"])
def test_a_drive_target_set_between_frames_is_reached_on_the_gpu(solver):
    servo = Actuator.position("lift", kp=400.0, kv=10.0, control=-0.2)
    sim = Simulation(hinge_arm(servo, gravity=False), device="cuda", solver=solver)
    sim.advance(0.5)
    sim.set_controls({"lift": 0.3})
    sim.advance(1.5)
    assert sim.joint_positions()[("hinge", "rotY")] == pytest.approx(0.3, abs=5e-3)


@pytest.mark.parametrize("solver", SOLVERS)
def test_replicas_on_the_gpu_move_alike(solver):
    def replicated():
        scene = samples.six_dof_arm()
        scene.settings.replicas = 16
        return scene

    sim = Simulation(replicated(), device="cuda", solver=solver)
    poses = one_second(sim)
    rows = poses.reshape(16, -1, 7).copy()
    rows[..., :3] -= np.asarray(sim.built.replica_offsets)[:, None, :]
    assert np.abs(rows - rows[0]).max() < SAME_KERNELS_TOLERANCE  # one robot, started alike, in 16 worlds


@pytest.mark.parametrize("solver", SOLVERS)
def test_a_grabbed_box_follows_the_target_on_the_gpu(solver):
    sim = Simulation(crate_scene(), device="cuda", solver=solver)
    for _ in range(5):
        sim.advance(1.0 / 30)
    start = sim.body_poses()[0, :3].copy()
    grab = Grab(sim, stiffness=200.0, max_acceleration=2.0)
    assert grab.pick((0.0, 0.0, 2.0), DOWN).kind == GRABBED
    grab.drag((0.5, 0.0, 2.0), DOWN)
    for _ in range(45):
        sim.advance(1.0 / 30)
    moved = sim.body_poses()[0, :3]
    assert moved[0] - start[0] > 0.3 and abs(moved[1]) < 0.05
    grab.release()
    assert not sim.wrenches
    sim.advance(1.0 / 30)
    assert not sim.state_0.body_f.numpy().any()


def test_a_rebake_on_the_gpu_builds_afresh():
    """The model cache keeps MuJoCo's C-library solver alone (its whole state is MjData, which resets
    completely); MuJoCo Warp's on the GPU is not kept, so a re-bake builds it again."""
    model_cache.clear()
    try:
        fresh = Simulation(samples.six_dof_arm(), device="cuda", solver="MUJOCO")
        expected = one_second(fresh)
        fresh.close()
        assert model_cache.size() == 0
        again = Simulation(samples.six_dof_arm(), device="cuda", solver="MUJOCO")
        assert again.solver is not fresh.solver
        np.testing.assert_allclose(one_second(again), expected, atol=SAME_KERNELS_TOLERANCE)
    finally:
        model_cache.clear()
