"""Grabbing with the operational-space inertia at the grabbed point (sim.picking), as Newton's picking:
a light hand on a heavy arm is pulled as readily as the arm, and a push gives the pushed point the
speed asked, not the whole arm's mass landing on one link.

The arm lies in the horizontal plane without gravity: a 5 kg upper arm along x from a shoulder
hinge at the origin, a 50 g hand at its end turned 90 degrees along y. Pulling the hand's tip along
y (along the hand) needs the shoulder to turn, so the heavy upper arm must move: with the hand's own
mass the spring barely stirs it.
"""

import numpy as np
import pytest

from articula.core.model import (Body, JointType, MassProperties, PhysicsScene, Pose, SceneSettings, Shape,
                                 ShapeKind, make_joint)
from articula.sim.mujoco_spec import MuJoCoSimulation
from articula.sim.picking import Grab, push
from articula.sim.simulation import Simulation

PATHS = ["mujoco_cpu", "FEATHERSTONE", "XPBD"]
UPPER, HAND = 0.5, 0.2  # lengths (m)
TIP = np.array([UPPER, HAND, 0.0])  # the hand's tip, world, at the start


def rod_inertia(mass: float, length: float, along: int) -> tuple:
    across = mass * length ** 2 / 12.0
    return tuple(1e-4 * mass if axis == along else across for axis in range(3))


def arm_scene() -> PhysicsScene:
    scene = PhysicsScene(name="arm", settings=SceneSettings(ground_plane=False, gravity=(0.0, 0.0, 0.0)))
    scene.bodies += [
        Body("upper", Pose((0.0, 0.0, 0.0)), mass=MassProperties(
            5.0, center_of_mass=(UPPER / 2, 0.0, 0.0), diagonal_inertia=rod_inertia(5.0, UPPER, 0))),
        Body("hand", Pose((UPPER, 0.0, 0.0)), parent="upper", mass=MassProperties(
            0.05, center_of_mass=(0.0, HAND / 2, 0.0), diagonal_inertia=rod_inertia(0.05, HAND, 1))),
    ]
    scene.shapes += [
        Shape("upper_box", ShapeKind.BOX, "upper", pose=Pose((UPPER / 2, 0.0, 0.0)),
              half_extents=(UPPER / 2, 0.02, 0.02)),
        Shape("hand_box", ShapeKind.BOX, "hand", pose=Pose((0.0, HAND / 2, 0.0)),
              half_extents=(0.01, HAND / 2, 0.01)),
    ]
    scene.joints += [make_joint("shoulder", JointType.REVOLUTE, None, "upper", axis="Z"),
                     make_joint("elbow", JointType.REVOLUTE, "upper", "hand", axis="Z",
                                local_pose0=Pose((UPPER, 0.0, 0.0)))]
    for joint in scene.joints:
        joint.dofs[0].lower, joint.dofs[0].upper = -3.0, 3.0
    return scene


def simulation(path: str) -> Simulation:
    solver = "MUJOCO" if path.startswith("mujoco") else path
    sim = Simulation(arm_scene(), device="cpu", solver=solver, mujoco_direct=True)
    assert isinstance(sim, MuJoCoSimulation) == (path == "mujoco_cpu")
    return sim


def row_of(sim, name: str) -> int:
    return [key[0] for key in sim.body_keys].index(name)


def world_point(sim, row: int, local) -> np.ndarray:
    pose = sim.body_poses()[row]
    w, x, y, z = pose[3:]
    rotation = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                         [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                         [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    return pose[:3] + rotation @ np.asarray(local, dtype=np.float64)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("link, local, start", [("hand", (0.0, HAND, 0.0), TIP),
                                                 ("upper", (UPPER / 2, 0.0, 0.0), (UPPER / 2, 0.0, 0.0))])
def test_a_light_and_a_heavy_link_both_get_half_way_to_the_target(path, link, local, start):
    sim = simulation(path)
    row = row_of(sim, link)
    grab = Grab(sim)
    grab.grab_point(row, start)
    grab.target = np.asarray(start) + (0.0, 0.1, 0.0)
    for _ in range(12):  # 0.4 s
        sim.advance(1.0 / 30.0)
    left = np.linalg.norm(world_point(sim, row, local) - grab.target)
    assert left < 0.05, f"{link}: {left:.3f} m of 0.1 m left"
    assert grab.largest_force <= grab.max_force * (1 + 1e-9)


@pytest.mark.parametrize("path", PATHS)
def test_a_push_gives_the_pushed_point_the_speed_asked(path):
    sim = simulation(path)
    row = row_of(sim, "hand")
    impulse = push(sim, row, TIP, (-1.0, 0.0, 0.0), speed=1.0)  # across the hand: the elbow turns
    assert 0.0 < np.linalg.norm(impulse) < 0.05 * 1.0  # no more than the hand's 50 g times 1 m/s
    before = world_point(sim, row, (0.0, HAND, 0.0))
    sim.advance(0.01)
    speed = np.linalg.norm(world_point(sim, row, (0.0, HAND, 0.0)) - before) / 0.01
    assert speed == pytest.approx(1.0, rel=0.05)  # 1.000 on each path
