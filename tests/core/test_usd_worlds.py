"""A world authored only on collider prims: the body takes it (no 'collider is in world 1 but its
body is in world 0' error at bake)."""

import copy

from pxr import Sdf, UsdPhysics

from articula.core import samples
from articula.core.usd import dialect as D
from articula.core.usd.reader import read_usd
from articula.core.usd.writer import build_stage
from articula.core.validation import validate


def _stage_with_collider_worlds(world_of_collider):
    scene = samples.pendulum()
    second = copy.deepcopy(scene.shapes_of("pendulum_link")[0])
    second.name = "pendulum_link_collider_2"
    scene.shapes.append(second)  # two colliders on one body
    stage = build_stage(scene, "NESTED")
    for prim in list(stage.Traverse()):
        if prim.HasAPI(UsdPhysics.RigidBodyAPI):
            prim.RemoveProperty(D.WORLD_ATTR)  # the body has no world of its own
        if prim.HasAPI(UsdPhysics.CollisionAPI):
            prim.RemoveProperty(D.WORLD_ATTR)
            world = world_of_collider(prim)
            if world is not None:
                prim.CreateAttribute(D.WORLD_ATTR, Sdf.ValueTypeNames.Int, custom=True).Set(world)
    return stage


def test_body_without_world_takes_its_colliders_world():
    scene = read_usd(_stage_with_collider_worlds(lambda prim: 1)).scene
    body = scene.bodies[0]
    assert body.world == 1 and {s.world for s in scene.shapes_of(body.name)} == {1}
    assert not [p for p in validate(scene) if p.code == "world_mismatch"]


def test_colliders_that_disagree_leave_the_body_in_world_0_and_are_reported():
    first = []

    def world(prim):
        first.append(prim.GetPath())
        return 1 if len(first) == 1 else 2
    scene = read_usd(_stage_with_collider_worlds(world)).scene
    assert len(first) == 2 and scene.bodies[0].world == 0
    assert {s.world for s in scene.shapes} == {1, 2}
    assert [p for p in validate(scene) if p.code == "world_mismatch"]


def test_a_collider_without_world_follows_its_body_world_from_the_other_collider():
    scene = read_usd(_stage_with_collider_worlds(lambda prim: 3 if prim.GetName().endswith("_2") else None)).scene
    assert scene.bodies[0].world == 3 and {s.world for s in scene.shapes} == {3}
