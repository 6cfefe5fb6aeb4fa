"""``core.ground``: the lowest point of each collider kind, turned; floating robots raised onto the
ground (a URDF quadruped read with a floating base starts with its legs below z = 0), fixed ones and
robots already above it left where they are."""

import math

import pytest

from articula.core import samples
from articula.core.ground import floating_robots, lift_onto_ground, lowest_point, floor_as_ground
from articula.core.model import Body, MeshData, PhysicsScene, Pose, Shape, ShapeKind
from articula.core.urdf import read_urdf

from .test_urdf_corpus import corpus_file

TURN_X_90 = (math.cos(math.pi / 4), math.sin(math.pi / 4), 0.0, 0.0)  # (w, x, y, z)
AT = Pose((0.0, 0.0, 1.0))


@pytest.mark.parametrize("shape, lowest", [
    (Shape("s", ShapeKind.SPHERE, radius=0.2), 0.8),
    (Shape("b", ShapeKind.BOX, half_extents=(0.1, 0.2, 0.3)), 0.7),
    (Shape("b", ShapeKind.BOX, half_extents=(0.1, 0.2, 0.3), pose=Pose(rot=TURN_X_90)), 0.8),  # y points down
    (Shape("c", ShapeKind.CAPSULE, radius=0.1, half_height=0.3), 0.6),
    (Shape("c", ShapeKind.CAPSULE, radius=0.1, half_height=0.3, pose=Pose(rot=TURN_X_90)), 0.9),  # lying
    (Shape("y", ShapeKind.CYLINDER, radius=0.1, half_height=0.3, pose=Pose(rot=TURN_X_90)), 0.9),
    (Shape("y", ShapeKind.CYLINDER, radius=0.1, half_height=0.3), 0.7),
    (Shape("m", ShapeKind.CONVEX_HULL, mesh=MeshData([(0, 0, -1), (1, 0, 0), (0, 1, 0)], [(0, 1, 2)]),
           scale=(1.0, 1.0, 0.5)), 0.5),
])
def test_the_lowest_point_of_each_collider_kind(shape, lowest):
    assert lowest_point(shape, AT) == pytest.approx(lowest)
    assert lowest_point(Shape("floor", ShapeKind.PLANE), AT) == -math.inf


def test_a_floating_quadruped_is_raised_to_stand_on_the_ground():
    scene = read_urdf(corpus_file("pybullet/a1/a1.urdf"), floating_base=True).scene
    before = {b.name: b.pose.pos for b in scene.bodies}
    raised = lift_onto_ground(scene, clearance=0.002)
    assert list(raised) == ["trunk"] and raised["trunk"] > 0.3
    lowest = min(lowest_point(s, scene.body(s.body).pose) for s in scene.shapes if s.body)
    assert lowest == pytest.approx(0.002, abs=1e-9)
    for body in scene.bodies:  # all alike: the robot's pose in the air is kept
        assert body.pose.pos[2] - before[body.name][2] == pytest.approx(raised["trunk"])
    assert lift_onto_ground(scene, clearance=0.002) == {}  # on the ground already


def test_fixed_robots_and_robots_above_the_ground_stay():
    fixed = read_urdf(corpus_file("pybullet/a1/a1.urdf")).scene
    assert floating_robots(fixed) == [] and lift_onto_ground(fixed) == {}
    scene = PhysicsScene()
    scene.bodies.append(Body("ball", Pose((0.0, 0.0, 1.0))))
    scene.shapes.append(Shape("ball_sphere", ShapeKind.SPHERE, "ball", radius=0.1))
    assert [[b.name for b in robot] for robot in floating_robots(scene)] == [["ball"]]
    assert lift_onto_ground(scene) == {} and scene.bodies[0].pose.pos == (0.0, 0.0, 1.0)
    assert lift_onto_ground(samples.pendulum()) == {}


def scene_with_planes(floor_world: int = -1, ground_plane: bool = True) -> PhysicsScene:
    scene = PhysicsScene(name="planes")
    scene.settings.ground_plane = ground_plane
    scene.bodies += [Body("box", Pose((0.0, 0.0, 1.0))), Body("box_1", Pose((0.0, 0.0, 1.0)), world=1)]
    scene.shapes += [
        Shape("box_ball", ShapeKind.SPHERE, "box", radius=0.1),
        Shape("box_1_ball", ShapeKind.SPHERE, "box_1", radius=0.1, world=1),
        Shape("raised", ShapeKind.PLANE, pose=Pose((0.0, 0.0, 0.2)), world=-1),
        Shape("wall", ShapeKind.PLANE, pose=Pose(rot=TURN_X_90), world=-1),
        Shape("ceiling", ShapeKind.PLANE, pose=Pose(rot=(0.0, 1.0, 0.0, 0.0)), world=-1),  # faces down
        Shape("box_plane", ShapeKind.PLANE, "box", pose=Pose((0.0, 0.0, -1.0))),
        Shape("floor", ShapeKind.PLANE, pose=Pose((3.0, -2.0, 0.0)), world=floor_world),  # anywhere on z = 0
    ]
    return scene


def test_a_static_plane_on_z0_facing_up_is_the_ground_where_it_meets_every_collider():
    assert floor_as_ground(scene_with_planes()) == "floor"
    assert floor_as_ground(scene_with_planes(ground_plane=False)) is None
    assert floor_as_ground(scene_with_planes(floor_world=0)) is None  # world 1's ball needs the ground
    one_world = scene_with_planes(floor_world=0)
    del one_world.bodies[1], one_world.shapes[1]
    assert floor_as_ground(one_world) == "floor"
    one_world.shapes[-1].collision_group = 2  # the floor
    one_world.shapes[0].collision_group = 3  # the ball  # groups 2 and 3 never meet: the ground plane stays
    assert floor_as_ground(one_world) is None
    one_world.shapes.pop()
    assert floor_as_ground(one_world) is None  # a raised, a turned and a moving plane are not the ground
