"""Replicas on a CPU with the MuJoCo solver step on MuJoCo's C library, across threads.

One compiled model (the MJCF export of the robot, the one a one-world simulation steps) and one MjData
per replica: a replica started like replica 0 moves as replica 0 shifted by its
grid offset, and as a one-world simulation of the same robot; controls, drive targets, start poses and
per-replica velocities reach each replica; what the replicas cannot share keeps MuJoCo Warp, the reason
given.
"""

import os

import numpy as np
import pytest

from articula.core import samples
from articula.core.model import (Body, JointType, MassProperties, PhysicsScene, Pose, SceneSettings, Sensor,
                                  Shape, ShapeKind, Site, make_joint)
from articula.sim.mujoco_spec import MuJoCoSimulation, spec_refusal
from articula.sim.sensors import SensorReader
from articula.sim.simulation import Simulation, SimulationDiverged

from .test_sim_kinematic import carried_arm_scene
from .test_sim_mujoco_spec import (animate_base, frames_step_by_step, massless_base_scene, push_rail, slider,
                                   urdf_scene)
from .test_sim_mujoco_fast_path import corpus_scene, gym_scene, one_second

FPS = 60
REPLICAS = 4


def replicated(scene, replicas: int = REPLICAS):
    scene.settings.replicas = replicas
    return scene


def simulate(scene, replicas: int = REPLICAS) -> Simulation:
    sim = Simulation(replicated(scene, replicas), device="cpu", solver="MUJOCO")
    assert isinstance(sim, MuJoCoSimulation) and len(sim.datas) == replicas
    return sim


def per_replica(sim: Simulation, poses: np.ndarray) -> np.ndarray:
    """(frames, replicas, bodies, 7), each replica moved back by its grid offset."""
    frames, rows, _ = poses.shape
    out = poses.reshape(frames, sim.replicas, rows // sim.replicas, 7).copy()
    out[..., :3] -= sim.offsets[None, :, None, :]
    return out


def arm_targets(sim, frame):
    sim.set_drive_targets({f"robot00_link{k:02d}_joint": 0.5 * np.sin(0.2 * frame + k) for k in range(1, 4)})


def chain_arm():
    """Four links on PD drives (50 N*m/rad, 2 N*m*s/rad) with little inertia: stable under MuJoCo's
    implicit-in-velocity integrator (Newton's SolverMuJoCo's), not under the Euler the export writes
    by default."""
    from bench_usd_export import chain_scene

    scene = chain_scene(robots=1, links=4)
    scene.settings.mujoco.integrator = "implicitfast"
    return scene


@pytest.fixture(autouse=True)
def _bench_on_path(monkeypatch):
    monkeypatch.syspath_prepend(os.path.join(os.path.dirname(__file__), "..", "..", "bench"))


def test_replicas_step_on_mujocos_c_library_across_threads():
    sim = simulate(samples.pendulum())
    assert sim.mj_model.nbody == 2  # the world and one pendulum: one robot's model
    assert len(sim._chunks) == min(os.cpu_count() or 1, REPLICAS)


def test_each_replica_is_replica_0_shifted_by_its_offset():
    sim = simulate(gym_scene("humanoid"))
    motion = per_replica(sim, one_second(sim))
    assert np.abs(motion[-1, 0, :, :3] - motion[0, 0, :, :3]).max() > 0.1  # it fell
    for r in range(1, REPLICAS):
        np.testing.assert_allclose(motion[:, r], motion[:, 0], atol=1e-12, rtol=0)


@pytest.mark.parametrize("robot, each_frame", [("humanoid", None), ("ant", None), ("gym_ant", None),
                                               ("arm", arm_targets)])
def test_a_replica_moves_as_a_one_world_simulation(robot, each_frame):
    make = {"arm": chain_arm, "gym_ant": lambda: corpus_scene(robot)}.get(robot, lambda: gym_scene(robot))
    one = Simulation(make(), device="cpu", solver="MUJOCO")
    alone = one_second(one, each_frame)
    sim = simulate(make())
    motion = per_replica(sim, one_second(sim, each_frame))
    assert np.abs(alone[-1] - alone[0]).max() > 0.05
    for r in range(REPLICAS):
        np.testing.assert_allclose(motion[:, r], alone, atol=1e-9, rtol=0)


def test_replicas_given_different_start_velocities_diverge():
    sim = simulate(samples.pendulum())
    sim.set_joint_velocities({"pendulum_hinge": 3.0}, replica=2)
    assert sim.joint_velocities(replica=2)[("pendulum_hinge", "rotY")] == pytest.approx(3.0)
    assert sim.joint_velocities(replica=1)[("pendulum_hinge", "rotY")] == 0.0
    motion = per_replica(sim, one_second(sim))
    assert np.abs(motion[-1, 2] - motion[-1, 0]).max() > 0.05
    np.testing.assert_allclose(motion[:, 1], motion[:, 0], atol=1e-6, rtol=0)


def test_controls_targets_and_start_poses_reach_every_replica():
    sim = simulate(samples.pendulum())
    raised = Pose((0.0, 0.0, 1.0), (0.7071068, 0.0, -0.7071068, 0.0))  # bob straight up
    sim.set_start_poses({"pendulum_link": raised})
    sim.advance(1.0 / FPS)
    for r in range(REPLICAS):
        assert sim.joint_positions(replica=r)[("pendulum_hinge", "rotY")] == pytest.approx(-np.pi / 2, abs=0.05)
    sim.reset()
    start = sim.body_poses()
    sim.advance(0.5)
    sim.reset()
    np.testing.assert_allclose(sim.body_poses(), start, atol=1e-6)

    arm = simulate(chain_arm())
    arm.set_drive_targets({"robot00_link01_joint": 0.4})
    arm.advance(1.0)
    for r in range(REPLICAS):
        assert arm.joint_positions(replica=r)[("robot00_link01_joint", "rotY")] == pytest.approx(0.4, abs=0.05)


def test_humanoid_controls_move_every_replica_alike():
    scene = gym_scene("humanoid")
    names = [a.name for a, _, _, _ in scene.actuators()]
    sim = simulate(scene)
    still = simulate(gym_scene("humanoid"))

    def controls(s, frame):
        s.set_controls({name: 0.4 * np.sin(0.1 * frame + i) for i, name in enumerate(names)})

    moved = per_replica(sim, one_second(sim, controls))
    idle = per_replica(still, one_second(still))
    assert np.abs(moved[-1, 0] - idle[-1, 0]).max() > 0.01
    np.testing.assert_allclose(moved[:, 3], moved[:, 0], atol=1e-12, rtol=0)


def test_applied_joint_efforts_act_on_every_replica():
    """1 N on a 1 kg slider for 0.5 s: 0.5 m/s, in every replica."""
    scene = PhysicsScene(name="slider", settings=SceneSettings(gravity=(0.0, 0.0, 0.0)))
    scene.bodies.append(Body("cart", Pose((0.0, 0.0, 1.0)), mass=MassProperties(1.0, diagonal_inertia=(0.1,) * 3)))
    scene.joints.append(make_joint("rail", JointType.PRISMATIC, None, "cart", axis="X",
                                   local_pose0=Pose((0.0, 0.0, 1.0))))
    sim = simulate(scene)
    sim.set_joint_efforts({"rail": 1.0})
    sim.advance(0.5)
    for r in range(REPLICAS):
        assert sim.joint_velocities(replica=r)[("rail", "transX")] == pytest.approx(0.5, rel=1e-3)


def test_a_blow_up_names_its_replica():
    sim = simulate(samples.pendulum())
    sim.set_joint_velocities({"pendulum_hinge": 1e30}, replica=3)
    with pytest.raises(SimulationDiverged) as raised:
        for _ in range(10):
            sim.advance(1.0 / FPS)
    assert raised.value.replica == 3
    assert raised.value.body == "pendulum_link"


def test_a_pull_on_replica_0_acts_on_it_alone():
    sim = simulate(samples.pendulum(), replicas=2)
    row = sim.body_keys.index(("pendulum_link", 0))
    sim.set_body_wrench(row, force=(50.0, 0.0, 0.0))
    sim.advance(0.3)
    moved = per_replica(sim, sim.body_poses()[None])[0]
    assert np.abs(moved[0] - moved[1]).max() > 0.01


def test_what_the_replicas_cannot_share_keeps_mujoco_warp():
    def refusal(scene):
        return spec_refusal(replicated(scene))

    assert refusal(samples.pendulum()) is None
    assert refusal(carried_arm_scene()) is None  # placed per replica between steps
    rubbing = samples.pendulum()
    rubbing.joints[0].dofs[0].static_friction = 0.1
    assert refusal(rubbing) is None
    shared = samples.pendulum()
    shared.bodies.append(Body("crate", Pose((0.0, 3.0, 1.0)), world=-1))
    shared.shapes.append(Shape("crate_box", ShapeKind.BOX, "crate", half_extents=(0.1, 0.1, 0.1)))
    assert "no world" in refusal(shared)
    worlds = samples.pendulum()
    worlds.bodies.append(Body("other", Pose((0.0, 3.0, 1.0)), world=1))
    worlds.shapes.append(Shape("other_ball", ShapeKind.SPHERE, "other", radius=0.1))
    assert refusal(worlds) is None  # the export's collision masks keep scene worlds apart


def test_replicas_of_several_scene_worlds_keep_their_worlds_apart_on_mujocos_c_library():
    """The collision showcase (world 0: eight boxes, world 1: one) in two replicas: each replica's world
    boxes fall into each other untouched and land straight below where they started, as in one replica."""
    scene = samples.collision_showcase()
    start = {b.name: np.array(b.pose.pos) for b in scene.bodies}
    scene.settings.replicas = 2
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    assert isinstance(sim, MuJoCoSimulation) and sim.replicas == 2
    assert not any("replicas" in note or "worlds" in note for note in sim.notes)  # both simulated
    sim.advance(1.0)
    poses = sim.body_poses()
    for r, offset in enumerate(sim.offsets):
        for name in ("robot_world0", "robot_world1"):
            x, y, z = poses[sim.body_keys.index((name, r)), :3] - offset
            assert np.allclose((x, y), start[name][:2], atol=1e-3), (name, r)
            assert z == pytest.approx(0.1, abs=2e-3)
    sim.close()


BALL = 0.1
TABLE_TOP = 0.4


def ball_over_table(table_world: int, table: str = "box") -> PhysicsScene:
    """A ball dropped from 1 m onto a table 0.4 m high standing under replica 0's ball (a box, or a
    plane tilted 45 degrees through the table's top centre), beside a ground plane."""
    scene = PhysicsScene(settings=SceneSettings(ground_plane=True))
    scene.bodies.append(Body("ball", Pose((0.0, 0.0, 1.0))))
    scene.shapes.append(Shape("ball_sphere", ShapeKind.SPHERE, "ball", radius=BALL))
    if table == "box":
        scene.shapes.append(Shape("table", ShapeKind.BOX, None, pose=Pose((0.0, 0.0, TABLE_TOP / 2)),
                                  half_extents=(0.3, 0.3, TABLE_TOP / 2), world=table_world))
    else:
        turn = (0.9238795, 0.3826834, 0.0, 0.0)  # 45 degrees about x: the ball rolls off towards -y
        scene.shapes.append(Shape("table", ShapeKind.PLANE, None, pose=Pose((0.0, 0.0, TABLE_TOP), turn),
                                  world=table_world))
    return scene


def ball_alone_at(offset, table_world: int, table: str) -> np.ndarray:
    """The ball's path in a one-world simulation of the scene with the ball started at ``offset``."""
    scene = ball_over_table(table_world, table)
    scene.bodies[0].pose = Pose(tuple(np.add(offset, (0.0, 0.0, 1.0))))
    return one_second(Simulation(scene, device="cpu", solver="MUJOCO"))[:, 0]


@pytest.mark.parametrize("table", ["box", "tilted_plane"])
def test_a_static_shape_of_no_world_stands_at_one_place_for_every_replica(table):
    """On MuJoCo's C library (no MuJoCo Warp): replica 0's ball lands on the table; the others, a grid
    cell away, meet it where it stands, as a one-world simulation with the ball in their place does."""
    sim = simulate(ball_over_table(-1, table))
    assert len({id(m) for m in sim.models}) == REPLICAS  # a model per replica, the table moved back
    paths = one_second(sim)[:, :, :3]
    for r, offset in enumerate(sim.offsets):
        np.testing.assert_allclose(paths[:, r], ball_alone_at(offset, -1, table)[:, :3], atol=1e-6, rtol=0)
    if table == "box":
        assert paths[-1, 0, 2] == pytest.approx(TABLE_TOP + BALL, abs=0.005)
        assert paths[-1, 1:, 2] == pytest.approx([BALL] * (REPLICAS - 1), abs=0.005)


def test_a_static_shape_of_a_scene_world_is_each_replicas_own():
    """A table of world 0 is copied with the robot world: every replica's ball lands on its own table,
    all replicas on the one model."""
    sim = simulate(ball_over_table(0))
    assert all(m is sim.mj_model for m in sim.models)
    sim.advance(1.0)
    heights = sim.body_poses()[:, 2]
    assert heights == pytest.approx([TABLE_TOP + BALL] * REPLICAS, abs=0.005)


def test_a_rangefinder_sees_the_table_of_no_world_only_under_replica_0():
    """Readings at the start come from each replica's own model: the table under replica 0 only."""
    scene = ball_over_table(-1)
    scene.sites.append(Site("eye", "ball", Pose((0.0, 0.0, 0.0), (0.0, 1.0, 0.0, 0.0))))  # looking down
    scene.sensors.append(Sensor("range", "rangefinder", target="eye", target_kind="site"))
    sim = simulate(scene)
    reader = SensorReader.of(sim)
    distances = [reader.read(replica=r)["range"] for r in range(REPLICAS)]
    first = [next(iter(d.values())) for d in distances]
    assert first[0] == pytest.approx(1.0 - TABLE_TOP, abs=1e-6)
    assert first[1:] == pytest.approx([1.0] * (REPLICAS - 1), abs=1e-6)


@pytest.mark.parametrize("robot, each_frame", [("carried_arm", animate_base), ("massless_base", animate_base),
                                               ("six_dof_arm", None), ("xarm6", None), ("slider", push_rail)])
def test_a_replica_with_per_step_rules_moves_as_a_one_world_simulation(robot, each_frame):
    """Kinematic bodies placed along their path (a weld-held root, a mocap body), joint friction and
    velocity limits: each replica's own rules on its MjData, as the one-world direct path's."""
    make = {"carried_arm": carried_arm_scene, "massless_base": massless_base_scene,
            "six_dof_arm": samples.six_dof_arm, "xarm6": lambda: urdf_scene("xarm/xarm6_robot.urdf"),
            "slider": lambda: slider(velocity_limit=0.6, friction=1.0)}[robot]
    one = Simulation(make(), device="cpu", solver="MUJOCO")
    alone = one_second(one, each_frame)
    sim = simulate(make())
    motion = per_replica(sim, one_second(sim, each_frame))
    assert np.abs(alone[-1] - alone[0]).max() > 0.05
    for r in range(REPLICAS):
        np.testing.assert_allclose(motion[:, r], alone, atol=1e-9, rtol=0)
    if robot == "slider":
        for r in range(REPLICAS):
            assert sim.joint_velocities(replica=r)[("rail", "transX")] == pytest.approx(0.6)


def test_kinematic_base_reads_back_per_replica_in_its_place():
    """Joint state read back (through Newton) holds each replica's base where its path put it."""
    sim = simulate(carried_arm_scene())
    one_second(sim, animate_base)
    base_rows = [sim.body_keys.index(("base", r)) for r in range(REPLICAS)]
    poses = sim.body_poses()
    velocities = sim.body_velocities()
    offsets = sim.offsets
    for r, row in enumerate(base_rows):
        np.testing.assert_allclose(poses[row, :3], offsets[r] + (1.0, 0.0, 1.0), atol=1e-6)
        assert velocities[row, 0] == pytest.approx(1.0, abs=1e-4)
    sim.advance(1.0 / FPS)  # Newton's state pushed back: the bases stay put
    np.testing.assert_allclose(sim.body_poses()[base_rows, :3], poses[base_rows, :3], atol=1e-5)


def test_kinematic_base_stepped_one_step_at_a_time_moves_as_a_one_world_simulation():
    """``advance_steps`` (Blender's live Simulate) places every replica's base step by step."""
    runs = []
    for replicas in (1, REPLICAS):
        sim = Simulation(replicated(carried_arm_scene(), replicas), device="cpu", solver="MUJOCO")
        runs.append(per_replica(sim, frames_step_by_step(sim)))
    for r in range(REPLICAS):
        np.testing.assert_allclose(runs[1][:, r], runs[0][:, 0], atol=1e-9, rtol=0)


def test_a_pull_on_replica_0_with_friction_leaves_the_others_as_a_one_world_simulation():
    one = Simulation(samples.six_dof_arm(), device="cpu", solver="MUJOCO")
    alone = one_second(one)
    sim = simulate(samples.six_dof_arm(), replicas=2)
    tip = sim.body_keys.index((sim.body_names[-1], 0))
    sim.set_body_wrench(tip, force=(0.0, 20.0, 0.0))
    motion = per_replica(sim, one_second(sim))
    assert np.abs(motion[-1, 0] - alone[-1]).max() > 0.01
    np.testing.assert_allclose(motion[:, 1], alone, atol=1e-9, rtol=0)


def test_friction_holds_each_replica_on_its_own():
    """1.5 N against 2 N of frictionloss: the replica at rest sticks, the one launched at 3 m/s slows down."""
    sim = simulate(slider(friction=2.0), replicas=2)
    sim.set_joint_efforts({"rail": 1.5})
    sim.set_joint_velocities({"rail": 3.0}, replica=1)
    sim.advance(0.5)
    assert abs(sim.joint_positions(replica=0)[("rail", "transX")]) < 1e-3
    assert sim.joint_velocities(replica=1)[("rail", "transX")] == pytest.approx(3.0 - 0.5 * 0.5, rel=0.02)


def test_one_world_has_one_data():
    sim = Simulation(samples.pendulum(), device="cpu", solver="MUJOCO")
    assert isinstance(sim, MuJoCoSimulation) and len(sim.datas) == 1 and sim._pool is None
