"""Scene worlds in the MJCF export: MJCF has one world, so colliders of different worlds are told apart
by contype/conaffinity (Newton's world and group rule, bit for bit), and MuJoCo simulating the export lets
the collision showcase's two world boxes fall into each other without touching, as Newton does."""

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from articula.core import samples  # noqa: E402
from articula.core.collision import should_collide  # noqa: E402
from articula.core.mjcf.reader import read_mjcf  # noqa: E402
from articula.core.mjcf.writer import build_spec, write_mjcf  # noqa: E402
from articula.core.model import Pose, ShapeKind  # noqa: E402
from articula.core.samples import SceneBuilder  # noqa: E402


def _touch(m, a: int, b: int) -> bool:
    return bool(m.geom_contype[a] & m.geom_conaffinity[b] or m.geom_contype[b] & m.geom_conaffinity[a])


def _colliders(scene, m) -> list:
    """(shape, its geom id) of every shape."""
    return [(s, mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, s.name)) for s in scene.shapes]


def test_every_pair_of_colliders_touches_as_newtons_world_and_group_rule_says():
    scene = samples.collision_showcase()
    built = build_spec(scene)
    m = built.model
    geoms = _colliders(scene, m)
    assert all(g >= 0 for _, g in geoms)
    for a, ga in geoms:
        for b, gb in geoms:
            assert _touch(m, ga, gb) == should_collide(a.world, b.world, a.collision_group, b.collision_group), \
                (a.name, b.name)
    assert not m.nexclude  # exact masks: no body pair needed
    assert any("never touch" in w and "worlds [0, 1]" in w for w in built.warnings)


def test_one_world_keeps_the_masks_it_always_had():
    """World -1 scenery beside world 0 is one world: group 1 is bit 1 (MuJoCo's default 1/1)."""
    b = SceneBuilder("one_world")
    b.shape("floor", ShapeKind.PLANE, None, collision_group=-1, world=-1)
    b.body("box", Pose(pos=(0.0, 0.0, 0.5)))
    b.shape("box_collider", ShapeKind.BOX, "box", half_extents=(0.1, 0.1, 0.1))
    m = build_spec(b.scene).model
    box = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "box_collider")
    floor = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "floor")
    assert (m.geom_contype[box], m.geom_conaffinity[box]) == (1, 3)
    assert (m.geom_contype[floor], m.geom_conaffinity[floor]) == (2, 1)


def _world_boxes(path=None):
    """Where the showcase's two world boxes come to rest after 1 s on MuJoCo stepping the export."""
    scene = samples.collision_showcase() if path is None else read_mjcf(path).scene
    m = build_spec(scene).model
    d = mujoco.MjData(m)
    mujoco.mj_step(m, d, round(1.0 / m.opt.timestep))
    return [d.xpos[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, name)].copy()
            for name in ("robot_world0", "robot_world1")]


def test_boxes_of_two_worlds_fall_into_each_other_and_rest_on_the_shared_ground(tmp_path):
    start = {b.name: b.pose.pos for b in samples.collision_showcase().bodies}
    for path in (None, tmp_path / "showcase.xml"):
        if path is not None:
            write_mjcf(samples.collision_showcase(), str(path))  # and read back: filtered body pairs
        world0, world1 = _world_boxes(path)
        # Each lands straight below where it started (the two overlap 0.05 m sideways): nothing pushed them.
        assert np.allclose(world0[:2], start["robot_world0"][:2], atol=1e-3)
        assert np.allclose(world1[:2], start["robot_world1"][:2], atol=1e-3)
        assert world0[2] == pytest.approx(0.1, abs=2e-3) and world1[2] == pytest.approx(0.1, abs=2e-3)


def test_over_thirty_classes_exclude_body_pairs_but_never_the_ground():
    """31 boxes, each its own positive group (none touches another): too many for the masks, so body pairs
    are excluded; the static floor stays under every box, though a static shelf of group 1 (the world
    body's too) touches only the first box."""
    b = SceneBuilder("many_groups")
    b.shape("floor", ShapeKind.PLANE, None, collision_group=-1, world=-1)
    b.shape("shelf", ShapeKind.BOX, None, pose=Pose(pos=(5.0, 0.0, 0.5)), half_extents=(0.2, 0.2, 0.2),
            collision_group=1, world=-1)
    for k in range(31):
        b.body(f"box{k}", Pose(pos=(0.0, 0.0, 0.3 + 0.25 * k)))
        b.shape(f"box{k}_collider", ShapeKind.BOX, f"box{k}", half_extents=(0.1, 0.1, 0.1), collision_group=k + 1)
    built = build_spec(b.scene)
    m = built.model
    assert m.nexclude == 31 * 30 // 2 and all(x >> 16 and x & 0xFFFF for x in m.exclude_signature)
    assert any("collision classes" in w for w in built.warnings)
    d = mujoco.MjData(m)
    mujoco.mj_step(m, d, round(2.0 / m.opt.timestep))
    heights = [d.xpos[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, f"box{k}")][2] for k in range(31)]
    assert heights == pytest.approx([0.1] * 31, abs=0.01)  # all through each other, onto the floor
