"""Articulations: the kinematic trees the body hierarchy describes.

The rules (a reduced-coordinate tree, as Newton's Featherstone and MuJoCo simulate it):

- ``Body.parent`` is the kinematic tree. The root of a body is found by walking up its parents
  until a body has no parent, or is marked ``hierarchy_gap`` (its Blender parent chain passed
  through a non-body object), which starts a separate articulation.
- The tree joint of a child is an enabled joint with ``body0 = parent`` and ``body1 = child``
  that is not ``exclude_from_articulation``. A parent -> child pair with no such joint is welded
  (MJCF semantics: an implicit fixed joint) and listed in ``implicit_welds``.
- The base joint is an enabled joint from the world (``body0 = None``) to the root. Without one
  the articulation floats (simulators add a free joint).
- Every other enabled joint (marked excluded, reversed, crossing articulations, into a non-root
  from the world, or a second joint on one edge) closes a loop: it is kept in ``loop_joints``
  and solved as a constraint outside the tree. Reversed joints are also listed in
  ``reversed_joints``; validation reports them.
- Stacked joints: several enabled revolute/prismatic joints on the same edge (same body0 and
  body1, the edge being a tree edge or the world -> root base) form ONE compound joint, as
  mujoco-usd-converter writes a MuJoCo body with several joints and as Newton's ``add_usd`` merges
  them into one D6. The description keeps them as separate :class:`Joint` objects (each with its
  own axis, frames, limits, drive, armature...): the first in scene order is the tree (or base)
  joint, the others are listed in ``stacked_joints[child]``; see :func:`is_stackable`.
- Disabled joints take no part.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .model import Joint, JointType, PhysicsScene, Pose
from .transforms import pose_mul


class HierarchyCycleError(ValueError):
    """The ``Body.parent`` chain of a body loops back on itself."""


@dataclass
class Articulation:
    """One kinematic tree. Bodies are names; joints are the scene's own :class:`Joint` objects."""

    name: str  # the root body's name
    root: str
    bodies: list[str]  # depth first, parents before children; bodies[0] is the root
    joints: list[Joint]  # tree joints, ordered like their child bodies (base joint not included)
    loop_joints: list[Joint] = field(default_factory=list)  # loop-closing joints whose body1 is here
    base_joint: Joint | None = None  # world -> root
    fixed_base: bool = False  # True when base_joint attaches the root to the world
    kinematic_bodies: list[str] = field(default_factory=list)
    implicit_welds: list[tuple[str, str]] = field(default_factory=list)  # (parent, child), no joint
    reversed_joints: list[Joint] = field(default_factory=list)  # body0 = child, body1 = parent
    parents: dict[str, str] = field(default_factory=dict)  # child -> parent inside this tree
    # child -> the further joints stacked on its parent (or base) joint's edge, scene order
    stacked_joints: dict[str, list[Joint]] = field(default_factory=dict)
    tree_joints: dict[str, Joint] = field(default_factory=dict)  # child -> its tree joint, as in ``joints``

    def edge_joints(self, body: str) -> list[Joint]:
        """Every joint that moves ``body`` relative to its parent (or the world): its tree (or base)
        joint first, then the joints stacked on the same edge. Empty when it has none."""
        first = self.parent_joint(body)
        return [first, *self.stacked_joints.get(body, [])] if first is not None else []

    def parent_joint(self, body: str) -> Joint | None:
        """The tree joint from ``body``'s parent to ``body`` (base joint for the root)."""
        if body == self.root:
            return self.base_joint
        return self.tree_joints.get(body)

    @property
    def is_welded_tree(self) -> bool:
        """True when the tree has no moving joint at all (one rigid assembly)."""
        return not self.joints and not self.loop_joints


STACKABLE_TYPES = (JointType.REVOLUTE, JointType.PRISMATIC)


def is_stackable(first: Joint, other: Joint) -> bool:
    """True when ``other`` joins ``first`` as one compound joint (same edge, both single-DOF
    revolute/prismatic), the way Newton's ``add_usd`` merges stacked USD joints into one D6."""
    return (first.body0 == other.body0 and first.body1 == other.body1
            and first.type in STACKABLE_TYPES and other.type in STACKABLE_TYPES)


def tree_parent(scene: PhysicsScene, body_name: str) -> str | None:
    """The parent of a body inside its articulation: None at a root or a hierarchy gap."""
    body = scene.body(body_name)
    if body is None or body.parent is None or body.hierarchy_gap or scene.body(body.parent) is None:
        return None
    return body.parent


def root_of(scene: PhysicsScene, body_name: str) -> str:
    """Walk up the tree parents to the articulation root (raises on a parent cycle)."""
    seen = [body_name]
    current = body_name
    while (parent := tree_parent(scene, current)) is not None:
        if parent in seen:
            raise HierarchyCycleError(" -> ".join(seen + [parent]))
        seen.append(parent)
        current = parent
    return current


def parent_cycles(scene: PhysicsScene) -> list[list[str]]:
    """Each distinct loop of ``Body.parent`` references, as the list of bodies on it.

    Linear time: a walk up the parents stops at any body an earlier walk already settled.
    """
    return _cycles(scene, _tree_parents(scene))


def _tree_parents(scene: PhysicsScene) -> dict[str, str | None]:
    """:func:`tree_parent` of every body name, found once (a repeated name: its first body's, as
    ``scene.body`` finds it)."""
    bodies: dict = {}
    for body in scene.bodies:
        bodies.setdefault(body.name, body)
    return {name: body.parent if body.parent is not None and not body.hierarchy_gap and body.parent in bodies
            else None for name, body in bodies.items()}


def _cycles(scene: PhysicsScene, parents: dict[str, str | None]) -> list[list[str]]:
    cycles: list[list[str]] = []
    settled: set[str] = set()  # on a cycle, or known to lead up to a root
    for body in scene.bodies:
        path: list[str] = []
        on_path: set[str] = set()
        current: str | None = body.name
        while current is not None and current not in on_path and current not in settled:
            path.append(current)
            on_path.add(current)
            current = parents.get(current)
        if current is not None and current in on_path:
            cycles.append(path[path.index(current):])
        settled.update(path)
    return cycles


def joint_world_frames(scene: PhysicsScene, joint: Joint) -> tuple[Pose, Pose]:
    """The joint frame in world space seen from body0 and from body1 (equal when consistent)."""

    def frame(body: str | None, local: Pose) -> Pose:
        owner = scene.body(body) if body else None
        return pose_mul(owner.pose, local) if owner else local

    return frame(joint.body0, joint.local_pose0), frame(joint.body1, joint.local_pose1)


def _children_map(scene: PhysicsScene, parents: dict[str, str | None]) -> dict[str, list[str]]:
    children: dict[str, list[str]] = {}
    for body in scene.bodies:
        parent = parents[body.name]
        if parent is not None:
            children.setdefault(parent, []).append(body.name)
    return children


def _depth_first(root: str, children: dict[str, list[str]]) -> list[str]:
    order, stack = [], [root]
    while stack:
        name = stack.pop()
        order.append(name)
        stack.extend(reversed(children.get(name, [])))
    return order


def find_articulations(scene: PhysicsScene) -> list[Articulation]:
    """Every kinematic tree of the scene, in scene order of their roots.

    A lone body is a one-body articulation. Bodies on a parent cycle belong to none
    (validation reports the cycle).
    """
    tree_parents = _tree_parents(scene)
    children = _children_map(scene, tree_parents)
    cyclic = {name for cycle in _cycles(scene, tree_parents) for name in cycle}
    articulations: dict[str, Articulation] = {}
    body_root: dict[str, str] = {}
    for body in scene.bodies:
        if body.name in cyclic or tree_parents[body.name] is not None:
            continue
        order = _depth_first(body.name, children)
        parents = {child: parent for parent in order for child in children.get(parent, [])}
        articulations[body.name] = Articulation(
            name=body.name, root=body.name, bodies=order, joints=[], parents=parents,
            kinematic_bodies=[n for n in order if scene.body(n).kinematic])
        body_root.update((name, body.name) for name in order)

    tree_joint: dict[str, Joint] = {}
    for joint in scene.joints:
        if not joint.enabled:
            continue
        owner = articulations.get(body_root.get(joint.body1, ""))
        if owner is None or (joint.body0 is not None and joint.body0 not in body_root):
            continue  # a body unknown or on a parent cycle
        edge_first = owner.base_joint if joint.body0 is None and joint.body1 == owner.root \
            else tree_joint.get(joint.body1)
        if joint.exclude_from_articulation:
            owner.loop_joints.append(joint)
        elif joint.body0 is None and joint.body1 == owner.root and owner.base_joint is None:
            owner.base_joint = joint
        elif joint.body0 is not None and owner.parents.get(joint.body1) == joint.body0 \
                and joint.body1 not in tree_joint:
            tree_joint[joint.body1] = joint
        elif edge_first is not None and is_stackable(edge_first, joint) \
                and all(is_stackable(edge_first, j) for j in owner.stacked_joints.get(joint.body1, [])):
            owner.stacked_joints.setdefault(joint.body1, []).append(joint)
        else:
            if owner.parents.get(joint.body0) == joint.body1:
                owner.reversed_joints.append(joint)
            owner.loop_joints.append(joint)

    for articulation in articulations.values():
        articulation.fixed_base = articulation.base_joint is not None
        for child in articulation.bodies[1:]:
            if child in tree_joint:
                articulation.joints.append(tree_joint[child])
                articulation.tree_joints[child] = tree_joint[child]
            elif not any(j.body0 == child for j in articulation.reversed_joints):
                articulation.implicit_welds.append((articulation.parents[child], child))
    return list(articulations.values())


def articulation_of(articulations: Iterable[Articulation], body_name: str) -> Articulation | None:
    return next((a for a in articulations if body_name in a.bodies), None)


def infer_parents(scene: PhysicsScene) -> dict[str, str]:
    """Parents implied by the joints alone, for flat layouts whose bodies carry no hierarchy.

    Breadth first from bodies jointed to the world (then from any body not yet reached), following
    enabled, non-excluded joints from body0 to body1; a body keeps the first parent that reaches it.
    Returns child -> parent; bodies that stay roots are absent.
    """
    outgoing: dict[str | None, list[str]] = {}
    for joint in scene.joints:
        if joint.enabled and not joint.exclude_from_articulation and joint.body1:
            outgoing.setdefault(joint.body0, []).append(joint.body1)
    known = {b.name for b in scene.bodies}
    parents: dict[str, str] = {}
    reached: set[str] = set()
    is_child = {child for body0, kids in outgoing.items() if body0 for child in kids}
    starts = [n for n in outgoing.get(None, []) if n in known]
    starts += [b.name for b in scene.bodies if b.name not in is_child]
    starts += [b.name for b in scene.bodies]  # bodies only reachable through a cycle
    for start in starts:
        if start in reached:
            continue
        reached.add(start)
        queue = [start]
        while queue:
            parent = queue.pop(0)
            for child in outgoing.get(parent, []):
                if child in known and child not in reached:
                    reached.add(child)
                    parents[child] = parent
                    queue.append(child)
    return parents
