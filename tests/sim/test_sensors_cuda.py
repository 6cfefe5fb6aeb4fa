"""Sensor readings on a CUDA GPU (``sim.sensors`` on Newton's state): MuJoCo (MuJoCo Warp through Newton)
and Featherstone on ``cuda:0``, with the proofs of ``test_sensors``, then every reading against the CPU's.

Each test body takes its ``device``. The ``cuda:0`` cases are skipped where there is no CUDA device (CI
has none) and run on a lent GPU. The ``cpu`` twins run everywhere so that the bodies are known to work
before a GPU sees them; they cost two runs of the rig (one per solver, shared by the tests through
:func:`rig_run`) and repeat what ``test_sensors`` proves. MuJoCo on the CPU is MuJoCo's C library
stepping Newton's conversion (``mujoco_direct=False``): the conversion and the reader MuJoCo Warp has
on the GPU. MuJoCo's replicas on the CPU would be MuJoCo Warp on the CPU (minutes of kernel builds): the
per-replica test has no MuJoCo twin.
"""

import dataclasses

import numpy as np
import pytest
import warp as wp

from articula.core.mjcf.reader import read_mjcf
from articula.sim.sensors import SensorReader
from articula.sim.sensors_newton import NewtonSensorReader
from articula.sim.simulation import Simulation

from .test_sensors import HAND_KG, RIG, G, assert_joint_and_frame_readings, values

wp.init()
needs_cuda = pytest.mark.skipif(not wp.is_cuda_available(), reason="no CUDA device on this machine")

MUJOCO, FEATHERSTONE = "MUJOCO", "FEATHERSTONE"
FPS = 60
IN_AIR_FRAMES = 30  # 0.5 s: the ball still falling (it lands at 0.77 s), the foot down since 0.14 s
SETTLED_FRAMES = 84  # 1.4 s: the box settled, the ball landed


def on(device: str, solver: str):
    marks = [needs_cuda] if device.startswith("cuda") else []
    return pytest.param(device, solver, marks=marks, id=f"{device.split(':')[0]}-{solver.lower()}")


#: Every solver on CUDA, and its CPU twin.
EVERY_RUN = [on("cuda:0", MUJOCO), on("cuda:0", FEATHERSTONE), on("cpu", MUJOCO), on("cpu", FEATHERSTONE)]

#: The pendulum of the rig (arm and hand, m) and its natural frequency (1/s): a gap of angle between
#: two runs of it is a gap of this many times in angular velocity, and its square in acceleration.
PENDULUM_LENGTH = 0.4
PENDULUM_FREQUENCY = float(np.sqrt(G / PENDULUM_LENGTH))

#: How far the GPU's positions may be from the CPU's (m), as ``test_sim_cuda`` allows after 1 s:
#: Featherstone runs the same Warp kernels in float32 on both (only the order of atomic sums differs);
#: MuJoCo is MuJoCo Warp on the GPU and MuJoCo's C library on the CPU, one solver in two implementations.
POSITION_GAP = {FEATHERSTONE: 2e-3, MUJOCO: 2e-2}
#: The force sensor's weight within this (relative): float32 on every device, MuJoCo Warp's sums too.
WEIGHT_RTOL = 1e-3
WRIST_ABOVE_HAND = 0.03  # m: the force sensor's site above the hand's centre


def largest_gaps(solver: str) -> dict[str, float]:
    """The largest GPU-CPU gap of a reading, per sensor kind, from the position gap: an angle is that
    gap over the pendulum's length, a velocity (m/s or rad/s; the rig's lever arms are under 1 m) the
    angle times the pendulum's frequency, an acceleration times its square, a wrench the hand's weight
    under that acceleration (its torque on the pendulum's length). A touch flag must be equal.

    Featherstone: 5e-3 rad, 0.025 rad/s, 0.12 m/s^2 (over twice the 0.05 within which the CPU's settled
    IMU reads gravity's reaction), 0.25 N; MuJoCo: ten times those. The rig is not chaotic: on the CPU,
    its start moved by 1e-5 m (the pendulum by 1e-3 degrees) moved no compared reading by more than
    3e-4 on either solver, so float32 sums in another order fit well inside; a wrong frame, sign or
    gravity term (a gap of g or of the pendulum's swing) does not."""
    position = POSITION_GAP[solver]
    angle = position / PENDULUM_LENGTH
    speed, acceleration = angle * PENDULUM_FREQUENCY, angle * PENDULUM_FREQUENCY ** 2
    force = HAND_KG * acceleration
    return {
        **dict.fromkeys(("framepos", "subtreecom"), position),
        **dict.fromkeys(("framequat", "jointpos"), angle),
        **dict.fromkeys(("gyro", "velocimeter", "framelinvel", "frameangvel", "jointvel"), speed),
        **dict.fromkeys(("accelerometer", "framelinacc", "frameangacc"), acceleration),
        "force": force,
        "torque": force * PENDULUM_LENGTH,
        "touch": 0.0,
    }


@pytest.fixture(scope="module")
def rig(tmp_path_factory):
    path = tmp_path_factory.mktemp("sensors_cuda") / "rig.xml"
    path.write_text(RIG)
    return read_mjcf(str(path)).scene


@pytest.fixture(scope="module")
def hanging_rig(tmp_path_factory):
    """The rig with the pendulum hanging straight down (its hinge at rest)."""
    path = tmp_path_factory.mktemp("sensors_cuda_hanging") / "rig.xml"
    path.write_text(RIG.replace('euler="0 40 0"', ""))
    return read_mjcf(str(path)).scene


def simulation(scene, device: str, solver: str) -> Simulation:
    """``scene`` on ``device`` through Newton: MuJoCo is Newton's conversion on the CPU as on the GPU."""
    return Simulation(scene, device=device, solver=solver, mujoco_direct=False)


@dataclasses.dataclass
class RigRun:
    """The rig simulated 1.4 s, read every frame as a bake reads it: the readings at the start, at
    :data:`IN_AIR_FRAMES` and at :data:`SETTLED_FRAMES`."""

    reader: SensorReader
    first: dict
    in_air: dict
    in_air_time: float
    settled: dict


@pytest.fixture(scope="module")
def rig_run(rig):
    """``rig_run(device, solver)``: the :class:`RigRun` of that device and solver, run once a module."""
    runs: dict[tuple[str, str], RigRun] = {}

    def run(device: str, solver: str) -> RigRun:
        if (device, solver) not in runs:
            runs[device, solver] = run_rig(rig, device, solver)
        return runs[device, solver]

    return run


def run_rig(scene, device: str, solver: str) -> RigRun:
    sim = simulation(scene, device, solver)
    reader = SensorReader.of(sim)
    first = reader.read()
    for _ in range(IN_AIR_FRAMES):
        sim.advance(1 / FPS)
        in_air = reader.read()
    in_air_time = sim.time
    for _ in range(SETTLED_FRAMES - IN_AIR_FRAMES):
        sim.advance(1 / FPS)
        settled = reader.read()
    sim.raise_if_diverged()
    return RigRun(reader, first, in_air, in_air_time, settled)


# --- the proofs of test_sensors, on each device ------------------------------------------------------

@pytest.mark.parametrize("device, solver", EVERY_RUN)
def test_the_reader_reads_newtons_state_and_says_what_it_cannot(rig_run, device, solver):
    run = rig_run(device, solver)
    assert isinstance(run.reader, NewtonSensorReader)
    assert run.reader.sim.device.startswith(device.split(":")[0])
    assert set(run.reader.unavailable) == {"ball_range"}
    assert "box_acc" not in run.first and "wrist_force" not in run.first  # no step has given them yet


@pytest.mark.parametrize("device, solver", EVERY_RUN)
def test_an_imu_at_rest_reads_gravitys_reaction(rig_run, device, solver):
    settled = rig_run(device, solver).settled
    np.testing.assert_allclose(values(settled["box_acc"]), [0.0, 0.0, G], atol=0.05)
    np.testing.assert_allclose(values(settled["box_gyro"]), 0.0, atol=1e-3)
    np.testing.assert_allclose(values(settled["box_linacc"]), [0.0, 0.0, G], atol=0.05)  # world frame
    np.testing.assert_allclose(values(settled["tilted_acc"]), [0.0, G, 0.0], atol=0.05)  # up is its +y


@pytest.mark.parametrize("device, solver", EVERY_RUN)
def test_an_imu_in_free_fall_reads_about_nothing(rig_run, device, solver):
    run = rig_run(device, solver)
    np.testing.assert_allclose(values(run.in_air["ball_acc"]), 0.0, atol=1e-3)
    np.testing.assert_allclose(values(run.in_air["ball_linacc"]), 0.0, atol=1e-3)
    assert run.in_air["ball_linvel"]["z"] == pytest.approx(-G * run.in_air_time, rel=1e-3)


@pytest.mark.parametrize("device, solver", EVERY_RUN)
def test_touch_is_on_when_the_foot_is_down(rig_run, device, solver):
    run = rig_run(device, solver)
    assert run.first["sole_touch"]["value"] == 0.0  # the foot starts 10 cm up
    assert run.in_air["sole_touch"]["value"] == 1.0 and run.settled["sole_touch"]["value"] == 1.0
    assert run.in_air["ball_touch"]["value"] == 0.0  # falling
    assert run.settled["box_touch"]["value"] == 1.0


@pytest.mark.parametrize("device, solver", EVERY_RUN)
def test_joint_and_frame_sensors(rig_run, device, solver):
    run = rig_run(device, solver)
    assert abs(run.settled["hinge_pos"]["value"]) > 0.01  # still swinging: the checks see a turned arm
    assert_joint_and_frame_readings(run.settled, run.reader.sim)


@pytest.mark.parametrize("device, solver", EVERY_RUN)
def test_force_at_a_fixed_joint_is_the_weight_below(hanging_rig, device, solver):
    sim = simulation(hanging_rig, device, solver)
    reader = SensorReader.of(sim)
    sim.advance(1 / FPS)
    hanging = reader.read()
    weight = HAND_KG * G
    np.testing.assert_allclose(values(hanging["wrist_force"]), [0.0, 0.0, weight], atol=WEIGHT_RTOL * weight)
    np.testing.assert_allclose(values(hanging["wrist_torque"]), 0.0,
                               atol=WEIGHT_RTOL * weight * WRIST_ABOVE_HAND)
    sim.reset()
    assert "wrist_force" not in reader.read()  # back at the start: no step has given a wrench
    sim.advance(1 / FPS)
    assert reader.read()["wrist_force"]["z"] == pytest.approx(weight, rel=WEIGHT_RTOL)


@pytest.mark.parametrize("device, solver", [on("cuda:0", MUJOCO), on("cuda:0", FEATHERSTONE),
                                            on("cpu", FEATHERSTONE)])
def test_readings_per_replica(hanging_rig, device, solver):
    replicas = 4
    settings = dataclasses.replace(hanging_rig.settings, replicas=replicas, replica_spacing=10.0)
    sim = simulation(dataclasses.replace(hanging_rig, settings=settings), device, solver)
    reader = SensorReader.of(sim)
    sim.advance(1 / FPS)
    first = reader.read(0)
    for replica in range(1, replicas):
        other = reader.read(replica)
        offset = np.asarray(sim.built.replica_offsets[replica])
        assert np.linalg.norm(offset) > 1.0
        np.testing.assert_allclose(values(other["arm_com"]) - values(first["arm_com"]), offset, atol=1e-5)
        np.testing.assert_allclose(values(other["wrist_force"]), values(first["wrist_force"]), atol=1e-3)
        assert other["hinge_pos"]["value"] == pytest.approx(first["hinge_pos"]["value"], abs=1e-6)
        assert other["sole_touch"] == first["sole_touch"]
    assert first["wrist_force"]["z"] == pytest.approx(HAND_KG * G, rel=WEIGHT_RTOL)


# --- the GPU's readings against the CPU's -------------------------------------------------------------

def compare_readings(device_readings: dict, cpu_readings: dict, kinds: dict[str, str], gaps: dict[str, float],
                     leave_out: tuple[str, ...] = ()) -> list[str]:
    """The readings of ``device_readings`` farther from the CPU's than their kind's gap, as lines."""
    assert device_readings.keys() == cpu_readings.keys()
    far = []
    for name, reading in device_readings.items():
        if name in leave_out:
            continue
        gap = np.abs(values(reading) - values(cpu_readings[name])).max()
        if gap > gaps[kinds[name]]:
            far.append(f"{name} ({kinds[name]}): {values(reading)} against the CPU's "
                       f"{values(cpu_readings[name])}, gap {gap:.3g} > {gaps[kinds[name]]:.3g}")
    return far


@pytest.mark.parametrize("device, solver", [on("cuda:0", MUJOCO), on("cuda:0", FEATHERSTONE),
                                            on("cpu", FEATHERSTONE)])
def test_readings_equal_the_cpus(rig, rig_run, device, solver):
    """Every reading at 0.5 s, and at 1.4 s all but the ball's (it has landed, and how it comes to rest
    depends on the contact's solve), against the same simulation on the CPU, within
    :func:`largest_gaps`. The CPU twin compares the CPU with itself: it proves the comparison runs."""
    run, cpu = rig_run(device, solver), rig_run("cpu", solver)
    kinds = {sensor.name: sensor.kind for sensor in rig.sensors}
    gaps = largest_gaps(solver)
    ball = tuple(name for name in kinds if name.startswith("ball_"))
    far = compare_readings(run.in_air, cpu.in_air, kinds, gaps) + \
        compare_readings(run.settled, cpu.settled, kinds, gaps, leave_out=ball)
    assert not far, "\n".join(far)
    assert len(run.in_air) == len(rig.sensors) - 1  # every sensor compared but the rangefinder
