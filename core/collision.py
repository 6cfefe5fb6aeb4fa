"""Collision filtering rules: Newton's world/group test, and the same rules as UsdPhysics groups.

Worlds: -1 is global (collides with every world); two different non-global worlds never collide.
Groups (Newton's ``ShapeConfig.collision_group``): 0 collides with nothing; a positive group collides
with the same positive group and with every negative group; a negative group collides with everything
except the same negative group.

Body-pair filters come on top: explicit ``filtered_pairs``, bodies joined by a joint (unless the
joint sets ``collide_bodies``), parent/child bodies when ``collision_filter_parent`` is on, and
every pair inside an articulation whose root turns ``self_collision`` off.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

from .articulation import find_articulations
from .model import JointType, PhysicsScene, Shape

CollisionKey = tuple[int, int]  # (world, group)


def should_collide(world_a: int, world_b: int, group_a: int, group_b: int) -> bool:
    """Newton's ``test_world_and_group_pair``, rule for rule."""
    if world_a != -1 and world_b != -1 and world_a != world_b:
        return False
    if group_a == 0 or group_b == 0:
        return False
    if group_a > 0:
        return group_a == group_b or group_b < 0
    return group_a != group_b


def collision_key(shape: Shape) -> CollisionKey:
    return (shape.world, shape.collision_group)


def scene_collision_keys(scene: PhysicsScene) -> list[CollisionKey]:
    """The distinct (world, group) pairs the scene's shapes use, sorted."""
    return sorted({collision_key(s) for s in scene.shapes})


def collision_group_name(key: CollisionKey) -> str:
    """A stable prim-safe name for a (world, group) key, e.g. ``world0_group1``, ``global_group_neg2``."""
    world, group = key
    world_part = "global" if world == -1 else f"world{world}" if world >= 0 else f"world_neg{-world}"
    group_part = f"group{group}" if group >= 0 else f"group_neg{-group}"
    return f"{world_part}_{group_part}"


def collision_group_filters(keys: Iterable[CollisionKey]) -> dict[CollisionKey, set[CollisionKey]]:
    """For each (world, group) key, the keys (itself included) its shapes must NOT collide with.

    The USD writer makes one ``UsdPhysics.CollisionGroup`` per key holding that key's colliders,
    and points its ``physics:filteredGroups`` at the groups named by this table; a group that
    filters itself stops its own members colliding with each other. Every collider must belong
    to exactly one group so that the UsdPhysics rule ("colliders in no group collide with all")
    never applies. ``b not in filters[a]`` exactly when ``should_collide(a[0], b[0], a[1], b[1])``;
    the table is symmetric (``b in filters[a]`` exactly when ``a in filters[b]``).
    """
    keys = sorted(set(keys))
    return {
        a: {b for b in keys if not should_collide(a[0], b[0], a[1], b[1])}
        for a in keys
    }


def filtered_body_pairs(scene: PhysicsScene) -> set[frozenset[str]]:
    """Body pairs that never collide, whatever their shapes' groups say."""
    pairs = {frozenset(p) for p in scene.filtered_pairs if p[0] != p[1]}
    for joint in scene.joints:
        if joint.enabled and joint.body0 and joint.body1 and not joint.collide_bodies \
                and joint.body0 != joint.body1:
            pairs.add(frozenset((joint.body0, joint.body1)))
    for articulation in find_articulations(scene):
        if scene.settings.collision_filter_parent:
            pairs.update(frozenset(edge) for edge in articulation.parents.items())
            pairs.update(_welded_group_pairs(articulation))
        if not scene.body(articulation.root).self_collision:
            pairs.update(frozenset(p) for p in combinations(articulation.bodies, 2))
    return pairs


def _welded_group_pairs(articulation) -> set[frozenset[str]]:
    """MuJoCo's parent filter on weld groups: bodies welded together (fixed joint or no joint)
    act as one body, so a body never touches its own group nor its group's parent group (a
    gripper's fingers on a hand welded to the forearm never touch the forearm)."""
    group = {}  # body -> the top body of its weld group
    for name in articulation.bodies:  # parents before children
        parent = articulation.parents.get(name)
        joint = articulation.parent_joint(name) if parent is not None else None
        welded = parent is not None and (joint is None or (joint.type == JointType.FIXED
                                                            and not articulation.stacked_joints.get(name)))
        group[name] = group[parent] if welded else name
    members: dict[str, list[str]] = {}
    for name, top in group.items():
        members.setdefault(top, []).append(name)
    pairs = set()
    for top, bodies in members.items():
        pairs.update(frozenset(p) for p in combinations(bodies, 2))
        parent = articulation.parents.get(top)
        if parent is not None:
            pairs.update(frozenset((a, b)) for a in bodies for b in members[group[parent]] if a != b)
    return pairs


def shapes_collide(scene: PhysicsScene, a: Shape, b: Shape,
                   filtered: set[frozenset[str]] | None = None) -> bool:
    """Whether two shapes of the scene may touch: world/group rule, then body-pair filters.

    Pass ``filtered`` (from :func:`filtered_body_pairs`) when testing many pairs.
    """
    if a.body is not None and a.body == b.body:
        return False
    if a.body is None and b.body is None:
        return False  # static against static never generates contacts
    if not should_collide(a.world, b.world, a.collision_group, b.collision_group):
        return False
    if a.body is None or b.body is None:
        return True
    if filtered is None:
        filtered = filtered_body_pairs(scene)
    return frozenset((a.body, b.body)) not in filtered
