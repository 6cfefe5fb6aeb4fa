"""Author a description's physics onto prims someone else wrote (Blender's own USD exporter).

The one physics-authoring code path: :class:`_OntoWriter` is the core writer's
:class:`~.writer._LayerWriter` (bodies, mass, joints, DOFs, drives, shapes, physics materials,
collision groups, filtered pairs) pointed at existing prims instead of prims it makes. Bpy-free:
it gets a stage and ``object_paths`` (description name -> prim path), nothing from Blender.

NESTED rules kept on the given prims:
- a body's prim carries translate + orient only, set to its rest pose; the prims directly under
  it that are not bodies (its meshes, other objects) get the offset they had from the body's
  unscaled frame, so a body's scale lands on its gprims and everything follows the rest pose;
- a joint's prim (the joint Empty's Xform) becomes the PhysicsJoint, its xformOps removed;
- a collider object's prim is replaced by the collider gprim (guide purpose); a collider on
  the body object itself becomes a child gprim of the body;
- other Mesh prims get render purpose; PhysicsArticulationRootAPI goes on each root body.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

from pxr import Gf, Sdf, Usd, UsdGeom, Vt

from . import dialect as D
from .actuation import write_actuation
from .isaac import LINK_API, robot_order
from .mujoco_model import write_mujoco_model
from .errors import UsdWriteError
from .gf_poses import pose_in, pose_matrix, pose_of, rigid
from .sdf_authoring import Prim, Recording, T, set_pose
from .writer import PreparedPrims, _LayerWriter, _Namer, _validation_problems, record_prims
from ..articulation import Articulation, find_articulations
from ..model import MassProperties, PhysicsScene

_XFORM_PREFIX = "xformOp:"
_XFORM_ORDER = "xformOpOrder"
_INVERSE = "!invert!"


@dataclasses.dataclass
class PreparedPhysics:
    """What authoring a description needs from the description alone: validation's problems
    (``refused`` block writing, ``reported`` are written anyway), the masses it computed, the
    kinematic trees and the physics recorded for each body, joint and collider. Bpy-free and
    stage-free, so it can be made on a worker thread while Blender's exporter writes the prims
    (``operators/io_usd.py``)."""

    refused: list[str]
    reported: list[str]
    masses: dict[str, MassProperties]
    articulations: list[Articulation]
    robot_order: tuple  # isaac.robot_order: links, joints, robot type
    prims: Optional[PreparedPrims] = None  # writer.record_prims: what each body, joint and collider gets
    body_poses: Optional[dict] = None  # record_body_poses
    object_colors: Optional[dict] = None  # record_object_colors


def prepare_physics(scene: PhysicsScene, masses: Optional[dict[str, MassProperties]] = None) -> PreparedPhysics:
    """Validate ``scene``, find its trees and record its prims' physics (``masses``: validated
    already, nothing to report)."""
    refused, reported = [], []
    if masses is None:
        refused, reported, masses = _validation_problems(scene)
    articulations = find_articulations(scene)
    prims = None
    if not refused:
        try:
            prims = record_prims(scene, masses)
        except Exception:  # recorded again while authoring, which raises it where the file is named
            prims = None
    return PreparedPhysics(refused, reported, masses, articulations, robot_order(scene, articulations), prims,
                           record_body_poses(scene), record_object_colors(scene))


def record_body_poses(scene: PhysicsScene) -> dict[str, tuple[str, Recording]]:
    """Body name -> (its parent body, its pose ops in the parent's frame): what :class:`_OntoWriter`
    authors on a body whose prim is its parent body's child (Blender's parenting), worked out
    from the description alone with the very matrices the writer would use."""
    bodies = {body.name: body for body in scene.bodies}
    poses = {}
    for body in scene.bodies:
        parent = bodies.get(body.parent) if body.parent is not None else None
        if parent is None:
            continue
        parent_world = pose_matrix(parent.pose)
        recording = Recording()
        set_pose(recording, body.pose if parent_world == Gf.Matrix4d(1.0) else pose_in(parent_world, body.pose))
        poses[body.name] = (parent.name, recording)
    return poses


def record_object_colors(scene: PhysicsScene) -> dict[str, tuple]:
    """Visual name -> (displayColor, displayOpacity) values, for the visuals without a render material."""
    return {visual.name: _color_values(visual) for visual in scene.visuals if not visual.material_name}


def _color_values(visual) -> tuple:
    return Vt.Vec3fArray([Gf.Vec3f(*visual.color[:3])]), Vt.FloatArray([visual.color[3]])


def author_physics(stage: Usd.Stage, scene: PhysicsScene, object_paths: dict[str, Sdf.Path],
                   root: Optional[Sdf.Path] = None,
                   masses: Optional[dict[str, MassProperties]] = None, isaac_schema: bool = True,
                   prepared: Optional[PreparedPhysics] = None, stage_read: Optional[tuple] = None) -> list[str]:
    """Author ``scene``'s physics onto ``stage``'s root layer at ``object_paths``.

    Returns the validation problems that do not block writing (as ``write_usd`` does); raises
    :class:`~.errors.UsdWriteError` for the ones that do, before touching the stage.
    ``isaac_schema``: also what NVIDIA's robot checks ask for (:mod:`.isaac`), on ``root``.
    ``masses``: validated already, these masses (nothing reported); ``prepared``: the whole of
    :func:`prepare_physics` for this very scene; ``stage_read``: :func:`read_exported_stage` of
    ``stage`` as it is now (its world matrices and meshes are used)."""
    if prepared is None:
        prepared = prepare_physics(scene, masses)
    if prepared.refused:
        raise UsdWriteError(stage.GetRootLayer().identifier, prepared.refused)
    if root is None:
        default = stage.GetDefaultPrim()
        root = default.GetPath() if default else Sdf.Path.absoluteRootPath
    old_world, meshes = _read_stage(stage) if stage_read is None else stage_read[1:]
    layer = stage.GetRootLayer()
    with Sdf.ChangeBlock():
        _OntoWriter(scene, layer, prepared, object_paths, root, old_world, isaac_schema, meshes).write()
    return list(prepared.reported)


def _read_stage(stage: Usd.Stage) -> tuple[dict[Sdf.Path, Gf.Matrix4d], list[Sdf.Path]]:
    """(world matrix of every Xformable prim, every Mesh prim) as Blender wrote them, in one pass."""
    _, old_world, meshes = read_exported_stage(stage)
    return old_world, meshes


def read_exported_stage(stage: Usd.Stage, name_attr: Optional[str] = None
                        ) -> tuple[dict[str, Sdf.Path], dict[Sdf.Path, Gf.Matrix4d], list[Sdf.Path]]:
    """(the value of ``name_attr`` -> the prim holding it, world matrix of every Xformable prim,
    every Mesh prim) as the exporter wrote them, in one pass over the stage. The names are read
    from the root layer's specs and "is it Xformable" is asked once per type (a third less time
    than asking each prim its attribute and its schema)."""
    cache = UsdGeom.XformCache(Usd.TimeCode.Default())
    named, old_world, meshes, xformable = {}, {}, [], {}
    world_of, layer_attribute = cache.GetLocalToWorldTransform, stage.GetRootLayer().GetAttributeAtPath
    for prim in stage.Traverse():
        path, type_name = prim.GetPath(), prim.GetTypeName()
        if name_attr is not None:
            spec = layer_attribute(path.AppendProperty(name_attr))
            name = spec.default if spec is not None else None
            if name:
                named[name] = path
        is_xformable = xformable.get(type_name)
        if is_xformable is None:
            is_xformable = xformable[type_name] = prim.IsA(UsdGeom.Xformable)
        if is_xformable:
            old_world[path] = world_of(prim)
            if type_name == "Mesh":
                meshes.append(path)
    return named, old_world, meshes


def _clear_xform_ops(layer: Sdf.Layer, path: Sdf.Path) -> None:
    """Remove the transform of the prim at ``path``: its xformOpOrder and the ops it lists, the
    only ops an exporter writes (listing every property of every prim costs a third more)."""
    order = layer.GetAttributeAtPath(path.AppendProperty(_XFORM_ORDER))
    if order is None:
        return
    properties = layer.GetPrimAtPath(path).properties  # by name: no Python object per property spec
    for op in order.default or ():
        name = op[len(_INVERSE):] if op.startswith(_INVERSE) else op
        if name.startswith(_XFORM_PREFIX) and name in properties:
            del properties[name]
    del properties[_XFORM_ORDER]


def _set_matrix(prim: Prim, matrix: Gf.Matrix4d) -> None:
    _clear_xform_ops(prim.spec.layer, prim.path)
    prim.set("xformOp:transform", T.Matrix4d, matrix)
    prim.set("xformOpOrder", T.TokenArray, ["xformOp:transform"], uniform=True)


class _Moves:
    """Prim moves (old path -> new path, in the order made) applied to many paths at once.

    Usually no move happens inside another's subtree (sibling robots): a path then moves with
    its nearest moved ancestor, found through its parent and remembered for its siblings and
    children (a dict lookup per path). Otherwise each path is matched by string prefix at the
    depths the moves happened at, applied in order (a dict lookup per depth)."""

    def __init__(self):
        self.by_depth: dict[int, dict[str, str]] = {}
        self.moves: dict[Sdf.Path, Sdf.Path] = {}
        self._ancestors: set[Sdf.Path] = set()  # of every old and new path
        self._nested = False
        self._memo: dict[Sdf.Path, Sdf.Path] = {}

    def add(self, old: Sdf.Path, new: Sdf.Path) -> None:
        self.by_depth.setdefault(old.pathElementCount, {})[old.pathString] = new.pathString
        ends = (old, new)
        prefixes = [p for end in ends for p in end.GetPrefixes()[:-1]]
        self._nested = (self._nested or any(end in self._ancestors or end in self.moves
                                            or end in self.moves.values() for end in ends)
                        or any(p in self.moves or p in self.moves.values() for p in prefixes))
        self._ancestors.update(prefixes)
        self.moves[old] = new
        self._memo = {}

    def __bool__(self) -> bool:
        return bool(self.moves)

    def along(self, walk) -> Optional[dict[Sdf.Path, Sdf.Path]]:
        """Each path of ``walk`` -> where it is now, in one pass, when ``walk`` lists prims parents
        first and depth first (a stage traversal) with every moved prim among them: the prims after
        a moved one that have its path as prefix are its subtree (a third of the time of asking
        for each path). None where moves nest or a moved prim is not in ``walk``."""
        if self._nested or not all(old in walk for old in self.moves):
            return None
        moved, old, new = {}, None, None
        for path in walk:
            target = self.moves.get(path)
            if target is not None:
                old, new = path, target
                moved[path] = target
            elif old is not None and path.HasPrefix(old):
                moved[path] = path.ReplacePrefix(old, new)
            else:
                moved[path] = path
        return moved

    def __call__(self, path: Sdf.Path) -> Sdf.Path:
        return self._by_prefix(path) if self._nested else self._by_parent(path)

    def _by_parent(self, path: Sdf.Path) -> Sdf.Path:
        """Up to the nearest ancestor already known (moved, remembered or the root), then down
        again remembering each: a loop, not recursion, so a chain of any depth is fine."""
        memo, moves = self._memo, self.moves
        found = memo.get(path) or moves.get(path)
        chain = []
        while found is None:
            parent = path.GetParentPath()
            chain.append((path, parent))
            found = parent if parent.pathElementCount == 0 else memo.get(parent) or moves.get(parent)
            path = parent
        for below, parent in reversed(chain):
            found = below if found == parent else below.ReplacePrefix(parent, found)
            memo[below] = found
        return found

    def _by_prefix(self, path: Sdf.Path) -> Sdf.Path:
        text, moved = path.pathString, False
        for _ in range(len(self.by_depth) + 1):  # a move inside an earlier move's subtree: once more
            for depth, moves in self.by_depth.items():
                head = _path_head(text, depth)
                target = moves.get(head)
                if target is not None:
                    text, moved = target + text[len(head):], True
                    break
            else:
                break
        return Sdf.Path(text) if moved else path


def _path_head(text: str, depth: int) -> str:
    """The first ``depth`` elements of an absolute path string (``/a/b/c``, 2 -> ``/a/b``)."""
    end = 0
    for _ in range(depth):
        end = text.find("/", end + 1)
        if end < 0:
            return text
    return text[:end]


class _ExistingNamer(_Namer):
    """Sibling-unique names that also avoid the prims already in the layer (looked up by path: a
    set of every parent's children would cost a listing per body)."""

    def __init__(self, layer: Sdf.Layer):
        super().__init__()
        self.layer = layer

    def _exists(self, parent: Sdf.Path, name: str) -> bool:
        return self.layer.GetPrimAtPath(parent.AppendChild(name)) is not None


class _OntoWriter(_LayerWriter):
    def __init__(self, scene, layer, prepared: PreparedPhysics, object_paths, root, old_world, isaac_schema=False,
                 meshes=()):
        super().__init__(scene, layer, nested=True, masses=prepared.masses, isaac_schema=isaac_schema)
        self.articulations = prepared.articulations
        self.robot_order = prepared.robot_order
        self.recorded_prims = prepared.prims
        self.recorded_poses = prepared.body_poses or {}
        self.recorded_colors = prepared.object_colors or {}
        self.names = _ExistingNamer(layer)
        self.object_paths = {name: path if isinstance(path, Sdf.Path) else Sdf.Path(str(path))
                             for name, path in object_paths.items()}
        self.root = root
        self.old_world = old_world
        self.meshes = meshes  # the Mesh prims Blender wrote (paths before _wrap_fixed_bases)
        self.moved = lambda path: path  # Blender's path -> where it is after _wrap_fixed_bases
        self._meshes_now: Optional[list[Sdf.Path]] = None  # self.meshes, moved
        self.new_world: dict[Sdf.Path, Gf.Matrix4d] = {}
        self.body_by_path: dict[Sdf.Path, str] = {}
        self.collider_paths: set[Sdf.Path] = set()

    def write(self) -> None:
        self.layer.pseudoRoot.SetInfo("kilogramsPerUnit", D.KILOGRAMS_PER_UNIT)
        articulations = self.articulations
        self._wrap_fixed_bases([a.root for a in articulations if a.fixed_base])
        for body in self.scene.bodies:
            path = self.object_paths[body.name]
            self.body_paths[body.name] = path
            self.body_by_path[path] = body.name
        if self.isaac_schema and self.scene.bodies and self.root != Sdf.Path.absoluteRootPath \
                and self.layer.GetPrimAtPath(self.root) is not None:  # author_isaac gives links their API
            self.isaac_applied = set()
            self._schemas_grow = {a for a, b in self.scene.filtered_pairs
                                  if a in self.bodies and b in self.bodies}
        self._write_physics_scene()
        self._write_physics_materials()
        roots = set()
        for articulation in articulations:
            roots.add(articulation.root)
            self._write_articulation(articulation)
        for body in self.scene.bodies:  # bodies in no articulation (find_articulations covers all)
            if body.name not in roots and not self._done(body.name):
                self._write_body(body)
        self._rebase_children()
        self._write_joints()
        write_actuation(self)
        self._write_attachments()
        self._write_filtered_pairs()
        self._write_collision_groups()
        self._mark_visuals()
        self._write_object_colors()
        write_mujoco_model(self)
        self._write_isaac()
        self._keep_item_names()

    def _keep_item_names(self) -> None:
        """A prim name cannot hold every name Blender's objects can (``robot0:elbow_flex_link``, Blender
        writes ``robot0_elbow_flex_link``): the item's name goes on as the prim's display name, which
        readers take as the item's name (environments address bodies, joints, sites by it)."""
        scene = self.scene
        described = {item.name for group in (scene.bodies, scene.joints, scene.shapes, scene.sites)
                     for item in group}
        for name in described:
            path = self.object_paths.get(name)
            spec = self.layer.GetPrimAtPath(path) if path is not None else None
            if spec is not None and spec.name != name and not spec.HasInfo("displayName"):
                spec.SetInfo("displayName", name)

    def _wrap_fixed_bases(self, roots: list[str]) -> None:
        """Move each fixed-base root body's prim under a new Xform holding the articulation root
        (proposal: the root API above a robot fixed to the world). The path maps are rewritten
        once for all moves: per move they would cost O(prims) each, O(robots * prims) in all."""
        self.fixed_wrappers = {}
        moves = _Moves()
        for name in roots:
            path = moves(self.object_paths[name])
            wrapper = self.names.child(path.GetParentPath(), name + D.FIXED_BASE_SUFFIX)
            self.fixed_wrappers[name] = wrapper
            Prim(self.layer, wrapper, "Xform").done()
            moved = wrapper.AppendChild(path.name)
            _move(self.layer, path, moved)
            moves.add(path, moved)
            self.old_world[wrapper] = self.old_world.get(path.GetParentPath(), Gf.Matrix4d(1.0))
        if moves:
            walked = moves.along(self.old_world)  # every Xformable prim, a stage traversal's order
            self.moved = moves if walked is None else lambda path: walked.get(path) or moves(path)
            self.object_paths = {k: self.moved(v) for k, v in self.object_paths.items()}
            self.old_world = {self.moved(k): v for k, v in self.old_world.items()}

    # -- world matrices after the edit
    def world(self, path: Sdf.Path) -> Gf.Matrix4d:
        """The prim's world matrix after the edit; its ancestors' first, top down (a loop, for
        hierarchies of any depth)."""
        found = self.new_world.get(path)
        if found is not None:
            return found
        pending, above = [], path
        while not above.isEmpty and above not in self.new_world:
            pending.append(above)
            above = above.GetParentPath()
        for below in reversed(pending):
            self.new_world[below] = self._world_below(below)
        return self.new_world[path]

    def _world_below(self, path: Sdf.Path) -> Gf.Matrix4d:
        """``path``'s world matrix, its parent's known."""
        parent = path.GetParentPath()
        if path in self.body_by_path:
            return pose_matrix(self.bodies[self.body_by_path[path]].pose)
        if parent in self.body_by_path and path in self.old_world:
            return self._offset(path, parent) * self.new_world[parent]
        if path in self.old_world and parent in self.old_world:
            local = self.old_world[path] * self.old_world[parent].GetInverse()
            return local * self.new_world[parent]
        return self.old_world.get(path, Gf.Matrix4d(1.0))

    def _offset(self, path: Sdf.Path, body_path: Sdf.Path) -> Gf.Matrix4d:
        """A prim's transform in its body's unscaled frame, as Blender wrote them."""
        return self.old_world[path] * rigid(self.old_world[body_path]).GetInverse()

    # -- bodies
    def _done(self, name: str) -> bool:
        return getattr(self, "_written", set()).__contains__(name)

    def _write_body(self, body) -> Prim:
        self._written = getattr(self, "_written", set())
        self._written.add(body.name)
        path = self.body_paths[body.name]
        prim = self.prim(path, "Xform")
        _clear_xform_ops(self.layer, path)
        parent_path = path.GetParentPath()
        recorded = self.recorded_poses.get(body.name)
        if recorded is not None and self.body_by_path.get(parent_path) == recorded[0]:
            prim.author(recorded[1])  # the parent's world is its body's pose, as recorded
        else:
            parent_world = self.world(parent_path)
            set_pose(prim, body.pose if parent_world == Gf.Matrix4d(1.0) else pose_in(parent_world, body.pose))
        self._body_physics(prim, body)
        return prim

    def _write_articulation(self, articulation: Articulation) -> None:
        root = self.bodies[articulation.root]
        prims = [self._write_body(self.bodies[name]) for name in articulation.bodies]
        api_prim = prims[0]  # bodies[0] is the root
        if articulation.fixed_base:
            api_prim = Prim(self.layer, self.fixed_wrappers[root.name], "Xform")
            prims.append(api_prim)
        if articulation.fixed_base or len(articulation.bodies) + len(articulation.loop_joints) > 1:
            api_prim.apply("PhysicsArticulationRootAPI", D.NEWTON_ARTICULATION_ROOT_API)
            api_prim.set(D.SELF_COLLISION_ATTR, T.Bool, bool(root.self_collision))
        applied = self.isaac_applied
        for name, prim in zip(articulation.bodies, prims):
            if applied is not None and name not in self._schemas_grow:  # filtered pairs come later
                prim.apply(LINK_API)
                applied.add(prim.path)
        for prim in prims:
            prim.done()

    def _rebase_children(self) -> None:
        """Prims directly under a body keep their place on the body's unscaled frame. A body whose
        frame Blender wrote unscaled moves nothing (each child's offset is its local transform)."""
        shape_objects = {self.object_paths.get(s.name) for s in self.scene.shapes}
        for body_path in self.body_by_path:
            body_world = self.old_world.get(body_path)
            spec = self.layer.GetPrimAtPath(body_path) if body_world is not None else None
            if spec is None:
                continue
            rigid_inverse = rigid(body_world).GetInverse()
            world_inverse = body_world.GetInverse()
            if rigid_inverse == world_inverse:
                continue
            for child in list(spec.nameChildren.values()):
                path = child.path
                if path in self.body_by_path or path in shape_objects or path not in self.old_world:
                    continue
                if not self._is_xformable(child):
                    continue
                offset = self.old_world[path] * rigid_inverse
                old_local = self.old_world[path] * world_inverse
                if not Gf.IsClose(offset, old_local, 1e-9):
                    _set_matrix(Prim(self.layer, path, child.typeName), offset)

    @staticmethod
    def _is_xformable(spec: Sdf.PrimSpec) -> bool:
        return spec.typeName not in ("", "Scope", "Material", "Shader") and not spec.typeName.startswith("Physics")

    # -- joints
    def _write_joints(self) -> None:
        siblings: dict[Sdf.Path, list[str]] = {}
        for joint in self.scene.joints:
            path = self.object_paths.get(joint.name)
            if path is None or path in self.body_by_path:
                path = self.names.child(self.body_paths[joint.body1], joint.name, self.prim_name(joint.name))
            else:
                _clear_xform_ops(self.layer, path)  # nothing where the prim is not there
            self._write_joint(path, joint)
            siblings.setdefault(path.GetParentPath(), []).append(path.name)
        self._keep_joint_order(siblings)

    def _keep_joint_order(self, siblings: dict[Sdf.Path, list[str]]) -> None:
        """Joint prims under one prim in the description's order (Blender wrote them in its own), the
        order of the file they came from, which Articula's reader keeps. (Newton 1.8 merges joints
        stacked on one body into one D6 in prim *path* order, whatever the prim order: the file and
        the export give it the same model.)"""
        for parent, names in siblings.items():
            spec = self.layer.GetPrimAtPath(parent) if len(names) > 1 else None
            if spec is None:
                continue
            joints = set(names)
            if [n for n in spec.nameChildren.keys() if n in joints] != names:
                spec.SetInfo("primOrder", names)  # reorders these among themselves, the rest stay

    # -- colliders (visuals are Blender's own meshes)
    def _write_attachments(self) -> None:
        static_scope = None
        for shape in self.scene.shapes:
            path = self.object_paths.get(shape.name)
            body_path = self.body_paths.get(shape.body) if shape.body is not None else None
            if path is None or path in self.body_by_path:
                if body_path is None:
                    static_scope = static_scope or self.scope(D.STATIC_SCOPE, "Xform")
                    body_path = static_scope
                path = self.names.child(body_path, shape.name)
                pose = shape.pose
            else:
                parent = path.GetParentPath()
                pose = shape.pose
                if parent != body_path:  # an object not parented to its body: its pose in its parent
                    world = self.world(body_path) if body_path is not None else Gf.Matrix4d(1.0)
                    pose = pose_in(self.world(parent), pose_of(pose_matrix(shape.pose) * world))
                if self.layer.GetPrimAtPath(path) is not None:
                    _remove(self.layer, path)
            self.shape_paths[shape.name] = path
            self.collider_paths.add(path)
            self._write_shape(path, shape if pose is shape.pose else dataclasses.replace(shape, pose=pose))

    def _mark_visuals(self) -> None:
        """Render purpose on every mesh Blender wrote under the root (colliders are guides), found
        from the stage's list (a walk over the layer's specs costs 5x)."""
        layer, uniform, token = self.layer, Sdf.VariabilityUniform, T.Token
        for path in self._moved_meshes():
            if path in self.collider_paths or not path.HasPrefix(self.root):
                continue
            spec = layer.GetPrimAtPath(path)
            if spec is not None and spec.typeName == "Mesh":  # not replaced by a collider
                Sdf.CreatePrimAttributeInLayer(layer, path.AppendProperty("purpose"), token,
                                               uniform).default = D.PURPOSE_VISUAL

    def _moved_meshes(self) -> list[Sdf.Path]:
        """The Mesh prims Blender wrote, where they are now."""
        if self._meshes_now is None:
            self._meshes_now = list(map(self.moved, self.meshes))
        return self._meshes_now

    def _write_object_colors(self) -> None:
        """A visual colored by its object (no render material) keeps its color as displayColor."""
        layer = self.layer
        colored = [visual for visual in self.scene.visuals
                   if not visual.material_name and self.object_paths.get(visual.name) is not None]
        under: dict[Sdf.Path, list[Sdf.Path]] = {}  # an object's prim -> the Meshes Blender wrote below it
        for mesh in self._moved_meshes() if colored else ():
            under.setdefault(mesh.GetParentPath(), []).append(mesh)
        attribute, varying = Sdf.CreatePrimAttributeInLayer, Sdf.VariabilityVarying
        for visual in colored:
            path = self.object_paths[visual.name]
            spec = layer.GetPrimAtPath(path)
            if spec is None:
                continue
            meshes = [path] if spec.typeName == "Mesh" else under.get(path, ())
            for mesh in meshes:
                color_path = mesh.AppendProperty("primvars:displayColor")
                if mesh in self.collider_paths or layer.GetAttributeAtPath(color_path) is not None:
                    continue
                mesh_spec = spec if mesh == path else layer.GetPrimAtPath(mesh)
                if mesh_spec is None or mesh_spec.typeName != "Mesh":
                    continue
                color, opacity = self.recorded_colors.get(visual.name) or _color_values(visual)
                attribute(layer, color_path, T.Color3fArray, varying, False).default = color
                attribute(layer, mesh.AppendProperty("primvars:displayOpacity"), T.FloatArray, varying,
                          False).default = opacity


def _move(layer: Sdf.Layer, path: Sdf.Path, new_path: Sdf.Path) -> None:
    """Move a prim spec and its subtree: a namespace edit renames the specs in place (a copy and
    a removal cost 5x as much, and twice that again when the stage recomposes)."""
    edit = Sdf.BatchNamespaceEdit()
    edit.Add(path, new_path)
    if not layer.Apply(edit):
        Sdf.CopySpec(layer, path, layer, new_path)
        _remove(layer, path)


def _remove(layer: Sdf.Layer, path: Sdf.Path) -> None:
    del layer.GetPrimAtPath(path.GetParentPath()).nameChildren[path.name]


__all__ = ["author_physics"]
