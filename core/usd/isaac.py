"""What NVIDIA's robot checks ask of a robot file, authored onto a layer the writer just made.

Bpy-free; used by both export paths (``writer.build_layer`` for FLAT and scripts,
``physics_author.author_physics`` for Blender's NESTED export) through
``_LayerWriter._write_isaac``. Three things, each one rule family of NVIDIA's validators:

- the Isaac robot schema exactly as ``isaacsim-robot-schema`` 6.2 spells it
  (``usd/schema/isaac/robot_schema/RobotSchema.usda``; Apache-2.0): ``IsaacRobotAPI`` on the
  default prim with ``isaac:robotType`` and the ``isaac:physics:robotLinks`` /
  ``isaac:physics:robotJoints`` relationships (custom, prepended, in kinematic order, as its
  ``utils.PopulateRobotSchemaFromArticulation`` fills them), ``IsaacLinkAPI`` on every rigid body,
  ``IsaacJointAPI`` on every joint (RC.007-009, DJ.008/009). The schema is not registered in
  Blender's or PyPI's USD (its plugin ships only with Isaac Sim), so the API names go in as
  plain applied-schema tokens and the attributes as custom properties, which is what Isaac's own
  ``ApplyRobotAPI`` writes and what its validators read;
- a ``material:binding:physics`` on every collider (PMT.001): the collider's own material, else
  the one bound on its nearest ancestor (its body), else a default physics material made here
  once, marked generated (customData ``articula:generated``) so that reading the file gives
  the collider no material again. Its values are Newton's defaults for a collider without a
  material (``ModelBuilder.ShapeConfig``: friction 1.0, restitution 0, torsional 0.005, rolling
  0.0001), so the binding changes nothing Newton (or Articula) simulates;
- ``kind = component`` on the default prim (ISA.001's model kind).

Link order: for each kinematic tree (``find_articulations``), its world joints, then a depth
first walk from the root body that appends every joint of a body when the body is reached and
descends into the first neighbour first: Isaac's own traversal, except that a joint to the world
always comes first, so that RC.009 ("root joint pinned") sees the fixed base. An order given in
the description (``PhysicsScene.robot_links`` / ``robot_joints``, read from a file) is kept for
the names it still lists.
"""

from __future__ import annotations

from typing import Optional

from pxr import Sdf

from . import dialect as D
from ..articulation import find_articulations
from ..model import PhysicsScene

ROBOT_API = "IsaacRobotAPI"
LINK_API = "IsaacLinkAPI"
JOINT_API = "IsaacJointAPI"
ROBOT_TYPE = "isaac:robotType"
ROBOT_LINKS = "isaac:physics:robotLinks"
ROBOT_JOINTS = "isaac:physics:robotJoints"
# RobotSchema.usda's allowedTokens for isaac:robotType; "Default" fails RC.008.
ROBOT_TYPES = ("Default", "End Effector", "Manipulator", "Humanoid", "Wheeled", "Holonomic", "Quadruped",
               "Mobile Manipulators", "Aerial")
PINNED_ROBOT_TYPES = ("Manipulator", "End Effector")  # RC.009: the only types whose root joint is pinned
KIND_COMPONENT = "component"

DEFAULT_MATERIAL_NAME = "DefaultPhysicsMaterial"
# Newton 1.8's ModelBuilder.ShapeConfig defaults: what a collider without a material gets.
DEFAULT_FRICTION = 1.0
DEFAULT_RESTITUTION = 0.0
DEFAULT_TORSIONAL_FRICTION = 0.005
DEFAULT_ROLLING_FRICTION = 0.0001

_BINDING = f"material:binding:{D.PHYSICS_BINDING_PURPOSE}"
_GENERATED = D.GENERATED_MATERIAL_KEY.split(":")


# --------------------------------------------------------------------------------- the robot's order
def kinematic_order(scene: PhysicsScene, articulations: Optional[list] = None) -> tuple[list[str], list[str]]:
    """(body names, joint names) in kinematic order; a given order is kept for the names it lists.
    ``articulations``: ``find_articulations(scene)`` when already found."""
    adjacency: dict[str, list] = {}
    for joint in scene.joints:
        for end, other in ((joint.body0, joint.body1), (joint.body1, joint.body0)):
            if end is not None:
                adjacency.setdefault(end, []).append((joint.name, other))
    links: list[str] = []
    joints: list[str] = []
    seen_links: set[str] = set()
    seen_joints: set[str] = set()

    def add_joint(name: str) -> None:
        if name not in seen_joints:
            seen_joints.add(name)
            joints.append(name)

    for articulation in find_articulations(scene) if articulations is None else articulations:
        root = articulation.root
        for name, other in adjacency.get(root, []):
            if other is None:
                add_joint(name)  # the world joint first: RC.009 reads the first joint
        stack = [root]
        while stack:
            body = stack.pop()
            if body in seen_links:
                continue
            seen_links.add(body)
            links.append(body)
            neighbours = []
            for name, other in adjacency.get(body, []):
                add_joint(name)
                if other is not None and other not in seen_links:
                    neighbours.append(other)
            stack.extend(reversed(neighbours))
    links += [b.name for b in scene.bodies if b.name not in seen_links]
    for joint in scene.joints:
        add_joint(joint.name)
    return _kept(scene.robot_links, links), _kept(scene.robot_joints, joints)


def _kept(given: list[str], computed: list[str]) -> list[str]:
    present = set(computed)
    order = [name for name in dict.fromkeys(given) if name in present]
    listed = set(order)
    return order + [name for name in computed if name not in listed]


def robot_type(scene: PhysicsScene, joints: Optional[list[str]] = None, articulations: Optional[list] = None) -> str:
    """The scene's robot type, else one inferred from its structure: a robot whose first joint
    holds it to the world is a Manipulator (RC.009), a floating one with four limbs on its root
    body a Quadruped, any other floating one a Humanoid (the validators refuse Default)."""
    if scene.robot_type:
        return scene.robot_type
    if joints is None:
        joints = kinematic_order(scene)[1]
    first = scene.joint(joints[0]) if joints else None
    if first is not None and first.body0 is None:
        return "Manipulator"
    for articulation in find_articulations(scene) if articulations is None else articulations:
        if len(articulation.bodies) > 1:
            limbs = [b for b, parent in articulation.parents.items() if parent == articulation.root]
            return "Quadruped" if len(limbs) == 4 else "Humanoid"
    return "Humanoid"


def robot_order(scene: PhysicsScene, articulations: Optional[list] = None) -> tuple[list[str], list[str], str]:
    """(links, joints, robot type): what the robot schema says of ``scene``, from the description alone."""
    links, joints = kinematic_order(scene, articulations)
    return links, joints, robot_type(scene, joints, articulations)


# ----------------------------------------------------------------------------------------- authoring
def author_isaac(layer: Sdf.Layer, scene: PhysicsScene, root: Sdf.Path, body_paths: dict[str, Sdf.Path],
                 joint_paths: dict[str, Sdf.Path], shape_paths: dict[str, Sdf.Path],
                 order: Optional[tuple[list[str], list[str], str]] = None,
                 applied: frozenset = frozenset()) -> None:
    """Author the robot schema, the colliders' physics material bindings and the default prim's
    kind onto ``layer`` (``root``: the default prim's path; the maps: description name -> prim;
    ``order``: :func:`robot_order` of ``scene`` when already known; ``applied``: the link and
    joint prims given their API already, last of their applied schemas as here)."""
    robot = layer.GetPrimAtPath(root) if root != Sdf.Path.absoluteRootPath else None
    shapes = [shape_paths[s.name] for s in scene.shapes if s.name in shape_paths]
    if robot is None or not scene.bodies:  # no prim to carry a robot, or no robot: the bindings only
        _bind_physics_materials(layer, Sdf.Path.absoluteRootPath, shapes)
        return
    robot.SetInfo("kind", KIND_COMPONENT)
    links, joints, kind = order or robot_order(scene)
    link_paths = [body_paths[name] for name in links if name in body_paths]
    joint_targets = [joint_paths[name] for name in joints if name in joint_paths]
    _apply(robot, ROBOT_API)
    attr = Sdf.AttributeSpec(robot, ROBOT_TYPE, Sdf.ValueTypeNames.Token, Sdf.VariabilityVarying, True)
    attr.default = kind
    for name, targets in ((ROBOT_LINKS, link_paths), (ROBOT_JOINTS, joint_targets)):
        rel = Sdf.RelationshipSpec(robot, name, True)
        rel.targetPathList.prependedItems = targets
    for paths, schema in ((link_paths, LINK_API), (joint_targets, JOINT_API)):
        for path in paths:
            if path not in applied:
                _apply(layer.GetPrimAtPath(path), schema)
    _bind_physics_materials(layer, root, shapes)


def _apply(spec: Optional[Sdf.PrimSpec], schema: str) -> None:
    if spec is None:
        return
    op = spec.GetInfo("apiSchemas")
    items = list(op.prependedItems) if op else []
    if schema not in items and not (op and schema in op.explicitItems):
        if op and op.isExplicit:
            spec.SetInfo("apiSchemas", Sdf.TokenListOp.CreateExplicit(list(op.explicitItems) + [schema]))
        else:
            spec.SetInfo("apiSchemas", Sdf.TokenListOp.Create(
                prependedItems=items + [schema], appendedItems=list(op.appendedItems) if op else []))


def _bound_in_layer(layer: Sdf.Layer, path: Sdf.Path, stop: Sdf.Path) -> Optional[list]:
    """The physics binding's targets on ``path`` or its nearest ancestor below ``stop``."""
    while path != Sdf.Path.absoluteRootPath:
        spec = layer.GetPrimAtPath(path)
        rel = spec.relationships.get(_BINDING) if spec is not None else None
        if rel is not None:
            targets = list(rel.targetPathList.GetAddedOrExplicitItems())
            if targets:
                return targets
        if path == stop:
            break
        path = path.GetParentPath()
    return None


def _bind_physics_materials(layer: Sdf.Layer, root: Sdf.Path, colliders: list[Sdf.Path]) -> None:
    default = None
    for path in colliders:
        spec = layer.GetPrimAtPath(path)
        if spec is None:
            continue
        own = spec.relationships.get(_BINDING)
        if own is not None and list(own.targetPathList.GetAddedOrExplicitItems()):
            continue
        targets = _bound_in_layer(layer, path.GetParentPath(), root)
        if targets is None:
            default = default or _default_material(layer, root)
            targets = [default]
        _apply(spec, "MaterialBindingAPI")
        rel = own or Sdf.RelationshipSpec(spec, _BINDING, False)
        rel.targetPathList.explicitItems = targets


def _default_material(layer: Sdf.Layer, root: Sdf.Path) -> Sdf.Path:
    scope, n = root.AppendChild(D.PHYSICS_MATERIALS_SCOPE), 1
    scope_spec = layer.GetPrimAtPath(scope)
    while scope_spec is not None and scope_spec.typeName != "Scope":  # a user's prim of that name
        scope, n = root.AppendChild(f"{D.PHYSICS_MATERIALS_SCOPE}_{n}"), n + 1
        scope_spec = layer.GetPrimAtPath(scope)
    if scope_spec is None:
        scope_spec = Sdf.CreatePrimInLayer(layer, scope)
        scope_spec.specifier = Sdf.SpecifierDef
        scope_spec.typeName = "Scope"
    name, n = DEFAULT_MATERIAL_NAME, 1
    while name in scope_spec.nameChildren:
        name, n = f"{DEFAULT_MATERIAL_NAME}_{n}", n + 1
    path = scope.AppendChild(name)
    spec = Sdf.CreatePrimInLayer(layer, path)
    spec.specifier = Sdf.SpecifierDef
    spec.typeName = "Material"
    spec.SetInfo("customData", {_GENERATED[0]: {_GENERATED[1]: True}})
    spec.SetInfo("apiSchemas", Sdf.TokenListOp.Create(prependedItems=["PhysicsMaterialAPI", D.NEWTON_MATERIAL_API]))
    for name, value in ((D.STATIC_FRICTION, DEFAULT_FRICTION), (D.DYNAMIC_FRICTION, DEFAULT_FRICTION),
                        (D.RESTITUTION, DEFAULT_RESTITUTION), (D.TORSIONAL_FRICTION, DEFAULT_TORSIONAL_FRICTION),
                        (D.ROLLING_FRICTION, DEFAULT_ROLLING_FRICTION)):
        Sdf.AttributeSpec(spec, name, Sdf.ValueTypeNames.Float, Sdf.VariabilityVarying, False).default = value
    return path


def is_generated_material(prim) -> bool:
    """A physics material this module made for colliders that had none (read back as none)."""
    return bool(prim.GetCustomDataByKey(D.GENERATED_MATERIAL_KEY))


# ------------------------------------------------------------------------------------------- reading
def read_robot_schema(stage, scene: PhysicsScene, names_by_path: dict[str, str]) -> None:
    """Keep a file's robot type and link/joint order on ``scene`` (``names_by_path``: prim path ->
    "body:<name>" / "joint:<name>", the reader's own keys)."""
    robot = stage.GetDefaultPrim()
    if not robot or ROBOT_API not in robot.GetAppliedSchemas() and not _listed(robot, ROBOT_API):
        return
    attr = robot.GetAttribute(ROBOT_TYPE)
    value = attr.Get() if attr else None
    if value:
        scene.robot_type = str(value)
    for rel_name, kind, field in ((ROBOT_LINKS, "body:", "robot_links"), (ROBOT_JOINTS, "joint:", "robot_joints")):
        rel = robot.GetRelationship(rel_name)
        if not rel:
            continue
        names = []
        for target in rel.GetTargets():
            key = names_by_path.get(str(target), "")
            if key.startswith(kind):
                names.append(key[len(kind):])
        setattr(scene, field, names)


def _listed(prim, schema: str) -> bool:
    op = prim.GetMetadata("apiSchemas")
    return bool(op) and any(schema in items for items in (op.explicitItems, op.prependedItems, op.appendedItems))


__all__ = ["author_isaac", "kinematic_order", "robot_type", "read_robot_schema", "is_generated_material",
           "ROBOT_TYPES"]
