"""The seed's world/group collision table, its UsdPhysics group encoding, and body-pair filters."""

import itertools

import pytest
from articula.core import samples
from articula.core.collision import (
    collision_group_filters,
    collision_group_name,
    filtered_body_pairs,
    scene_collision_keys,
    shapes_collide,
    should_collide,
)

# Every row of the seed's collision-group table (same world).
SEED_GROUP_TABLE = [
    (0, 0, False), (0, 1, False), (0, -1, False), (1, 0, False), (-3, 0, False),
    (1, 1, True),
    (1, 2, False),
    (1, -1, True),
    (-1, -1, False),
    (-1, -2, True),
]


@pytest.mark.parametrize("group_a, group_b, expected", SEED_GROUP_TABLE)
def test_seed_group_table(group_a, group_b, expected):
    assert should_collide(0, 0, group_a, group_b) is expected
    assert should_collide(0, 0, group_b, group_a) is expected, "the rule is symmetric"


@pytest.mark.parametrize("world_a, world_b, expected", [
    (0, 0, True), (0, 1, False), (3, 2, False), (-1, 0, True), (5, -1, True), (-1, -1, True)])
def test_world_rule(world_a, world_b, expected):
    assert should_collide(world_a, world_b, 1, 1) is expected


def test_worlds_are_checked_before_groups():
    assert not should_collide(0, 1, 1, -1)
    assert not should_collide(-1, 0, 0, 1)
    assert should_collide(-1, 2, -1, -2)


GROUPS = [-3, -2, -1, 0, 1, 2, 3]
WORLDS = [-1, 0, 1, 2]


def test_group_filters_encode_exactly_the_rule():
    keys = list(itertools.product(WORLDS, GROUPS))
    filters = collision_group_filters(keys + keys[:5])  # duplicates collapse
    assert set(filters) == set(keys)
    for a, b in itertools.product(keys, keys):
        assert (b not in filters[a]) == should_collide(a[0], b[0], a[1], b[1]), (a, b)
        assert (b in filters[a]) == (a in filters[b])
    assert (0, -1) in filters[(0, -1)], "a negative group filters itself"
    assert (0, 1) not in filters[(0, 1)], "a positive group collides with itself"
    assert filters[(0, 0)] == set(keys), "group 0 filters every group"


def test_group_names_are_distinct_and_prim_safe():
    keys = list(itertools.product(WORLDS, GROUPS))
    names = [collision_group_name(k) for k in keys]
    assert len(set(names)) == len(names)
    assert all(n.replace("_", "").isalnum() for n in names)
    assert collision_group_name((-1, -2)) == "global_group_neg2"
    assert collision_group_name((0, 1)) == "world0_group1"


def shape_of(scene, name):
    return next(s for s in scene.shapes if s.name == name)


def test_showcase_pairs():
    scene = samples.collision_showcase()
    assert scene_collision_keys(scene) == [(-1, -2), (0, -1), (0, 0), (0, 1), (0, 2), (1, 1)]
    filtered = filtered_body_pairs(scene)

    def collide(a, b):
        return shapes_collide(scene, shape_of(scene, a), shape_of(scene, b), filtered)

    assert collide("box_group1_low_collider", "box_group1_high_collider")
    assert not collide("box_group2_collider", "box_group1_floor_collider")
    assert collide("box_group_neg1_collider", "box_group1_target_collider")
    assert not collide("robot_world0_collider", "robot_world1_collider")
    for name in ("box_group1_low", "box_group2", "box_group_neg1", "robot_world1"):
        assert collide("ground", f"{name}_collider"), name
    assert not collide("ground", "box_group0_collider")
    for shape in scene.shapes:
        assert not collide("box_group0_collider", shape.name)


def test_joint_and_parent_filters():
    scene = samples.robotic_finger()
    pairs = filtered_body_pairs(scene)
    assert frozenset(("palm", "index_finger_base")) in pairs
    assert frozenset(("palm", "proximal")) not in pairs
    palm, proximal = shape_of(scene, "palm_collider"), shape_of(scene, "proximal_collider")
    assert shapes_collide(scene, palm, proximal)
    assert not shapes_collide(scene, palm, shape_of(scene, "index_finger_base_collider"))
    assert not shapes_collide(scene, palm, palm), "a body never collides with itself"


def test_collide_bodies_and_parent_filter_setting():
    scene = samples.robotic_finger()
    scene.joint("rotational").collide_bodies = True
    assert frozenset(("index_finger_base", "proximal")) in filtered_body_pairs(scene), "still parent/child"
    scene.settings.collision_filter_parent = False
    assert frozenset(("index_finger_base", "proximal")) not in filtered_body_pairs(scene)
    assert frozenset(("palm", "index_finger_base")) in filtered_body_pairs(scene), "joint filter"


def test_self_collision_off_filters_every_pair_of_the_articulation():
    scene = samples.robotic_finger()
    scene.body("palm").self_collision = False
    pairs = filtered_body_pairs(scene)
    assert frozenset(("palm", "distal")) in pairs and frozenset(("proximal", "distal")) in pairs


def test_explicit_filtered_pairs():
    scene = samples.collision_showcase()
    scene.filtered_pairs.append(("box_group1_low", "box_group1_high"))
    assert not shapes_collide(scene, shape_of(scene, "box_group1_low_collider"),
                              shape_of(scene, "box_group1_high_collider"))


ROBOTS = __import__("pathlib").Path(__file__).resolve().parents[1] / "data"


@pytest.mark.parametrize("source", ["arm_gripper.xml", "newton:nv_ant.xml", "gym:humanoid.xml", "gym:walker2d.xml"])
def test_parent_filter_is_mujocos_on_weld_groups(source, tmp_path, monkeypatch):
    """Bodies welded together act as one for the parent filter, as in MuJoCo (a finger on a hand
    welded to the forearm never touches the forearm): the filtered pairs among moving bodies are
    exactly MuJoCo's ``filterparent`` pairs of the compiled model."""
    mujoco = pytest.importorskip("mujoco")
    from articula.core.mjcf import read_mjcf

    if source.startswith("newton:"):
        newton = pytest.importorskip("newton")
        path = str(__import__("pathlib").Path(newton.__file__).parent / "examples" / "assets" / source[7:])
    elif source.startswith("gym:"):  # gymnasium's files come with `make corpus` (.venv-converter)
        found = sorted(ROBOTS.parents[1].glob(
            f".venv-converter/lib/python3.*/site-packages/gymnasium/envs/mujoco/assets/{source[4:]}"))
        if not found:
            pytest.skip("gymnasium's MJCF files come with `make corpus`")
        path = str(found[0])
    else:
        path = str(ROBOTS / source)
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder
    model = mujoco.MjModel.from_xml_path(path)
    weld, parent = model.body_weldid, model.body_parentid
    names = [model.body(i).name for i in range(model.nbody)]

    def mujoco_filters(a: int, b: int) -> bool:
        wa, wb = weld[a], weld[b]
        return wa == wb or weld[parent[wa]] == wb or weld[parent[wb]] == wa

    moving = [i for i in range(1, model.nbody) if weld[i] != 0]
    expected = {frozenset((names[a], names[b])) for a, b in itertools.combinations(moving, 2) if mujoco_filters(a, b)}
    pairs = filtered_body_pairs(read_mjcf(path).scene)
    moving_names = {names[i] for i in moving}
    assert {p for p in pairs if p <= moving_names} == expected
