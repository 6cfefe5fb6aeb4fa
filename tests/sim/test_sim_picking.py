"""Grabbing a body (sim.picking): Newton's picking spring, on the MuJoCo path and on Newton's.

A box lies on the ground; a ray from above grabs its top and the target is dragged sideways: the
box follows, the force stays under its cap, and releasing leaves no force in the simulation. On
every path that steps a simulation: MuJoCo's C library on the MJCF export (``mj_ray`` picks, the wrench
in ``xfrc_applied``),
MuJoCo through Newton, Featherstone and XPBD (the wrench in Newton's ``body_f``).
"""

import numpy as np
import pytest

from articula.core.model import (Body, JointType, MassProperties, PhysicsScene, Pose, SceneSettings, Shape,
                                 ShapeKind, make_joint)
from articula.sim.mujoco_spec import MuJoCoSimulation
from articula.sim.picking import GRABBED, KINEMATIC, MISSED, STATIC, Grab, push
from articula.sim.simulation import Simulation

FPS = 30
DOWN = (0.0, 0.0, -1.0)


def crate_scene(kinematic_post: bool = False, fixed_post: bool = False) -> PhysicsScene:
    scene = PhysicsScene(name="crate", settings=SceneSettings(ground_plane=True))
    box_inertia = 2.0 * (0.2 ** 2 + 0.2 ** 2) / 12.0
    scene.bodies.append(Body("crate", Pose((0.0, 0.0, 0.1)),
                             mass=MassProperties(mass=2.0, diagonal_inertia=(box_inertia,) * 3)))
    scene.shapes.append(Shape("crate_box", ShapeKind.BOX, "crate", half_extents=(0.1, 0.1, 0.1)))
    if kinematic_post:
        scene.bodies.append(Body("post", Pose((1.0, 0.0, 0.5)), kinematic=True))
        scene.shapes.append(Shape("post_box", ShapeKind.BOX, "post", half_extents=(0.1, 0.1, 0.5)))
    if fixed_post:  # a post welded to the world, with a cap welded to it
        scene.bodies += [Body("post", Pose((1.0, 0.0, 0.5))),
                         Body("cap", Pose((1.0, 0.0, 1.05)), parent="post")]
        scene.shapes += [Shape("post_box", ShapeKind.BOX, "post", half_extents=(0.1, 0.1, 0.5)),
                         Shape("cap_box", ShapeKind.BOX, "cap", half_extents=(0.1, 0.1, 0.05))]
        scene.joints += [make_joint("post_to_world", JointType.FIXED, None, "post"),
                         make_joint("cap_to_post", JointType.FIXED, "post", "cap")]
        scene.joints[0].local_pose0 = Pose((1.0, 0.0, 0.5))
        scene.joints[1].local_pose0 = Pose((0.0, 0.0, 0.55))
    return scene


def simulation(path: str, scene: PhysicsScene) -> Simulation:
    """``path``: a solver, "mujoco_cpu" (MuJoCo's C library on the MJCF export) or "mujoco_newton"
    (MuJoCo through Newton's model and per-step conversion)."""
    solver = "MUJOCO" if path.startswith("mujoco") else path
    sim = Simulation(scene, device="cpu", solver=solver, mujoco_direct=path != "mujoco_newton")
    assert isinstance(sim, MuJoCoSimulation) == (path == "mujoco_cpu")
    return sim


def frames(sim: Simulation, count: int, grab: Grab = None, each=None):
    for _ in range(count):
        sim.advance(1.0 / FPS)
        if each:
            each()


@pytest.mark.parametrize("path", ["mujoco_cpu", "mujoco_newton", "FEATHERSTONE", "XPBD"])
def test_a_grabbed_box_follows_the_target_under_the_cap(path):
    sim = simulation(path, crate_scene())
    frames(sim, 5)  # settled on the ground
    start = sim.body_poses()[0, :3].copy()
    grab = Grab(sim, stiffness=200.0, max_acceleration=2.0)
    result = grab.pick((0.0, 0.0, 2.0), DOWN)
    assert result.kind == GRABBED and result.body == "crate"
    assert result.point[2] == pytest.approx(0.2, abs=0.01)  # the box's top face
    grab.drag((0.5, 0.0, 2.0), DOWN)  # half a metre sideways at the grab depth
    np.testing.assert_allclose(grab.target, (0.5, 0.0, result.point[2]), atol=1e-6)
    largest = []
    frames(sim, 45, each=lambda: largest.append(grab.largest_force))
    moved = sim.body_poses()[0, :3]
    assert moved[0] - start[0] > 0.3  # toward the target
    assert abs(moved[1]) < 0.05
    assert grab.max_force == pytest.approx(2.0 * 9.81 * 2.0)
    assert 0.0 < max(largest) <= grab.max_force * (1 + 1e-9)


@pytest.mark.parametrize("path", ["mujoco_cpu", "mujoco_newton", "FEATHERSTONE"])
def test_release_leaves_no_force_behind(path):
    sim = simulation(path, crate_scene())
    grab = Grab(sim)
    assert grab.pick((0.0, 0.0, 2.0), DOWN).kind == GRABBED
    grab.drag((0.0, 0.0, 3.0), DOWN)  # up: lifts the box
    frames(sim, 10)
    assert sim.body_poses()[0, 2] > 0.2
    grab.release()
    assert not sim.wrenches
    frames(sim, 30)
    assert sim.body_poses()[0, 2] == pytest.approx(0.1, abs=0.01)  # fell back and lies
    if isinstance(sim, MuJoCoSimulation):
        assert not sim.mj_data.xfrc_applied.any()
    else:
        assert not sim.state_0.body_f.numpy().any()


@pytest.mark.parametrize("path", ["mujoco_cpu", "FEATHERSTONE"])
def test_kinematic_and_static_shapes_are_not_grabbed(path):
    sim = simulation(path, crate_scene(kinematic_post=True))
    grab = Grab(sim)
    result = grab.pick((1.0, 0.0, 3.0), DOWN)
    assert result.kind == KINEMATIC and result.body == "post"
    assert not grab.holding and not sim.wrenches
    ground = grab.pick((3.0, 0.0, 3.0), DOWN)
    assert ground.kind == STATIC and ground.body is None
    assert grab.pick((3.0, 0.0, 3.0), (0.0, 0.0, 1.0)).kind == MISSED


@pytest.mark.parametrize("path", ["mujoco_cpu", "XPBD"])
def test_a_push_gives_the_impulse_along_the_ray(path):
    scene = crate_scene()
    scene.settings.ground_plane = False
    scene.settings.gravity = (0.0, 0.0, 0.0)
    sim = simulation(path, scene)
    hit = Grab(sim).hit((0.0, -2.0, 0.1), (0.0, 1.0, 0.0))  # the box's side, through its centre
    assert hit.kind == GRABBED
    impulse = push(sim, hit.row, hit.point, (0.0, 1.0, 0.0), speed=0.5)
    np.testing.assert_allclose(impulse, (0.0, 1.0, 0.0), atol=1e-9)  # 0.5 m/s x 2 kg
    frames(sim, 3)
    assert not sim.wrenches  # one step only
    np.testing.assert_allclose(sim.body_velocities()[0, :3], (0.0, 0.5, 0.0), atol=1e-3)


@pytest.mark.parametrize("path", ["mujoco_cpu", "FEATHERSTONE"])
def test_bodies_welded_to_the_world_are_not_grabbed(path):
    sim = simulation(path, crate_scene(fixed_post=True))
    grab = Grab(sim)
    result = grab.pick((1.0, 0.0, 3.0), DOWN)
    assert result.kind == STATIC and result.body == "cap"  # welded to the post, the post to the world
    assert not grab.holding and not sim.wrenches
    assert grab.pick((0.0, 0.0, 3.0), DOWN).kind == GRABBED  # the free crate still is
