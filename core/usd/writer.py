"""Physics description -> USD stage (NESTED bodies, each under its parent body, or FLAT legacy).

Every USD name and unit comes from :mod:`.dialect`. Bodies carry translate + orient only;
scale lives on collider and visual gprims. The layer is authored with Sdf specs in one change
block (the Usd API recomposes after every prim, which is many times slower), then opened as a
stage. What a body, joint or collider carries depends on the description alone, so it can also
be recorded first (:class:`Recording`, :func:`record_prims`) and authored onto its prim later in
one pass: Blender's export records it on a worker thread while Blender writes the prims, and its
hook only authors (``physics_author``). Files are written to a temporary sibling and renamed, so a
failed export never leaves a half-written file nor touches an existing one.
"""

from __future__ import annotations

import dataclasses
import math
import os
import tempfile
from typing import Optional

import numpy as np
from pxr import Gf, Sdf, Tf, Usd, UsdGeom, Vt

from . import dialect as D
from .actuation import undriven_actuator_warnings, write_actuation, write_derived_drive, write_joint_actuation
from .errors import UsdWriteError
from .height_fields import write_height_field
from .isaac import JOINT_API, author_isaac
from .sdf_authoring import (IDENTITY, ORIGIN, T, Prim, Recording, quatd, quatf, set_mesh, set_pose,
                            set_unless_fallback)
from .mujoco_model import (COLLISION_API, JOINT_MARGIN, JOINT_SOLIMP_LIMIT, JOINT_SOLREF_LIMIT,
                           JOINT_SPRINGREF, reference_problems, write_contact_params, write_mujoco_model)
from ..articulation import Articulation, find_articulations
from ..collision import collision_group_filters, collision_group_name
from ..files import replaced_file_mode
from ..mass import MassError, mass_properties, mass_shapes_by_body
from ..mjcf import primitives
from ..model import (
    DEFAULT_SOLIMP, DEFAULT_SOLREF, ActuatorKind, Body, Dof, DofMotion, Joint, JointType, MassProperties,
    MeshData, PhysicsMaterial, PhysicsScene, Pose, Shape, ShapeKind, Visual,
)
from ..transforms import pose_relative
from ..validation import blocks_writing, validate_with_masses

LAYOUTS = ("NESTED", "FLAT")
_DEFAULT_DOF = Dof(axis=D.DofAxis.ROT_X)


# ------------------------------------------------------------------------------ public entry points
def write_usd(scene: PhysicsScene, path: str, layout: str = "NESTED", isaac_schema: bool = True) -> list[str]:
    """Write ``scene`` to ``path`` atomically; returns the problems found, written anyway.

    Write first, warn after: every scene that gives a valid UsdPhysics file is written, and its
    plausibility problems come back as readable lines. Raises :class:`UsdWriteError` only for
    problems that make the file unwritable or unloadable (:func:`core.validation.blocks_writing`:
    a joint pointing at no body, a parent cycle, non-finite numbers...); the target file is then
    left untouched. (Refusing a scene with warnings is the exporter's choice: operators/io_usd.py.)
    ``isaac_schema``: also the Isaac robot schema, physics material bindings on every collider and
    the default prim's kind that NVIDIA's robot checks ask for (:mod:`.isaac`).
    """
    refused, reported, masses = _validation_problems(scene)
    if refused:
        raise UsdWriteError(path, refused)
    layer = build_layer(scene, layout, masses, isaac_schema)
    _export_atomically(layer, path)
    return reported


def build_stage(scene: PhysicsScene, layout: str = "NESTED", isaac_schema: bool = True) -> Usd.Stage:
    """The in-memory stage of ``scene`` (no validation, nothing written)."""
    return Usd.Stage.Open(build_layer(scene, layout, isaac_schema=isaac_schema))


def build_layer(scene: PhysicsScene, layout: str = "NESTED",
                masses: Optional[dict[str, MassProperties]] = None, isaac_schema: bool = True) -> Sdf.Layer:
    """The anonymous layer holding ``scene`` (keep a reference while using it).

    ``masses``: body mass properties already computed for this very scene (by validation)."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, not {layout!r}")
    layer = Sdf.Layer.CreateAnonymous("articula.usda")
    with Sdf.ChangeBlock():
        _LayerWriter(scene, layer, nested=layout == "NESTED", masses=masses, isaac_schema=isaac_schema).write()
    return layer


# --------------------------------------------------------------------------------- validation hook
def _validation_problems(scene: PhysicsScene) -> tuple[list[str], list[str], dict[str, MassProperties]]:
    """(problems that block writing, problems reported after writing) from core.validation, as
    readable lines, and the masses it computed."""
    problems, masses = validate_with_masses(scene)
    return ([str(p) for p in problems if blocks_writing(p)],
            [str(p) for p in problems if not blocks_writing(p)] + undriven_actuator_warnings(scene)
            + reference_problems(scene) + consumer_warnings(scene), masses)


def consumer_warnings(scene: PhysicsScene) -> list[str]:
    """What is written as the user has it (MuJoCo reads it) but a known consumer cannot read."""
    solver = scene.settings.mujoco.solver
    if solver.lower() == "pgs":  # Newton 1.8 parses mjc:option:solver as cg or newton only
        return [f"MuJoCo solver {solver!r} is written (mjc:option:solver): MuJoCo reads it, but Newton 1.8's "
                "add_usd for its MuJoCo solver cannot (it knows cg and newton) and stops on this file; "
                "choose newton or cg for a file Newton loads"]
    return []


def _export_atomically(layer: Sdf.Layer, path: str) -> None:
    path = os.path.abspath(path)
    folder, name = os.path.split(path)
    extension = os.path.splitext(name)[1] or ".usda"
    fd, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=f".tmp{extension}", dir=folder)
    os.close(fd)
    try:
        if not layer.Export(temporary):
            raise UsdWriteError(path, [f"USD could not write {temporary}"])
        os.chmod(temporary, replaced_file_mode(path))
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise


class PreparedPrims:
    """The recorded physics of every body, joint and collider of a description (description name
    -> :class:`Recording`); a collider's is recorded at its own pose."""

    def __init__(self, bodies: dict, joints: dict, shapes: dict):
        self.bodies, self.joints, self.shapes = bodies, joints, shapes


def record_prims(scene: PhysicsScene, masses: Optional[dict[str, MassProperties]] = None) -> PreparedPrims:
    """Record what the writers author on each body, joint and collider of ``scene`` (no layer)."""
    recorder = _LayerWriter(scene, None, nested=True, masses=masses)
    bodies = {body.name: recorder._write_body_physics(Recording(), body) for body in scene.bodies}
    joints = {joint.name: recorder._write_joint_physics(Recording(), joint) for joint in scene.joints}
    shapes = {}
    for shape in scene.shapes:
        shapes[shape.name] = recorder._write_shape_physics(Recording(), shape)
        shapes[shape.name].pose = shape.pose
    return PreparedPrims(bodies, joints, shapes)


class _Namer:
    """Valid, sibling-unique prim names; the description name survives as displayName."""

    def __init__(self):
        self._taken: dict[Sdf.Path, set[str]] = {}

    def child(self, parent: Sdf.Path, name: str, prim_name: Optional[str] = None) -> Sdf.Path:
        """``prim_name``: the prim name a file gave this element (``PhysicsScene.prim_names``), kept
        when it is a valid identifier."""
        taken = self._taken.setdefault(parent, set())
        if prim_name and Sdf.Path.IsValidIdentifier(prim_name):
            base = prim_name
        else:
            base = Tf.MakeValidIdentifier(name) if name else "unnamed"
        candidate, n = base, 1
        while candidate in taken or self._exists(parent, candidate):
            candidate, n = f"{base}_{n}", n + 1
        taken.add(candidate)
        return parent.AppendChild(candidate)

    def _exists(self, parent: Sdf.Path, name: str) -> bool:
        """Whether a prim not named here already holds ``name`` (none: a layer written from scratch)."""
        return False


# --------------------------------------------------------------------------------------- the writer
class _LayerWriter:
    def __init__(self, scene: PhysicsScene, layer: Sdf.Layer, nested: bool,
                 masses: Optional[dict[str, MassProperties]] = None, isaac_schema: bool = False):
        self.scene, self.layer, self.nested = scene, layer, nested
        self.isaac_schema = isaac_schema
        self.joint_paths: dict[str, Sdf.Path] = {}
        self.masses = masses or {}
        self.mass_shapes = mass_shapes_by_body(scene)
        self.names = _Namer()
        self.bodies = {body.name: body for body in scene.bodies}
        self.body_paths: dict[str, Sdf.Path] = {}
        self.shape_paths: dict[str, Sdf.Path] = {}
        self.material_paths: dict = {}
        self.material_names = {material.name for material in scene.materials}
        self.robot_order = None  # isaac.robot_order(scene), when known before writing
        self.recorded_prims: Optional[PreparedPrims] = None  # record_prims(scene), when made before writing
        # Prims given their Isaac link/joint API as they were finished (None: all get it at the end)
        self.isaac_applied: Optional[set[Sdf.Path]] = None

    def resolve(self, kind: str, name: str) -> Sdf.Path:
        """The path of a recording's (kind, name) target."""
        return self.body_paths[name] if kind == "body" else self.material_paths[name]

    def recorded(self, kind: str, name: str) -> Optional[Recording]:
        """The recording of the body, joint or shape called ``name``, if one was made."""
        return getattr(self.recorded_prims, kind).get(name) if self.recorded_prims is not None else None

    def prim(self, path: Sdf.Path, type_name: str, name: Optional[str] = None) -> Prim:
        return Prim(self.layer, path, type_name, name, self.resolve)

    def prim_name(self, name: str) -> Optional[str]:
        """The USD prim name the element called ``name`` came from, if the file gave another."""
        return self.scene.prim_names.get(name)

    def scope(self, name: str, type_name: str = "Scope") -> Sdf.Path:
        path = self.names.child(self.root, name)
        self.prim(path, type_name).done()
        return path

    def write(self) -> None:
        scene, layer = self.scene, self.layer
        pseudo_root = layer.pseudoRoot
        pseudo_root.SetInfo("upAxis", D.UP_AXIS)
        pseudo_root.SetInfo("metersPerUnit", D.METERS_PER_UNIT)
        pseudo_root.SetInfo("kilogramsPerUnit", D.KILOGRAMS_PER_UNIT)
        self.root = self.names.child(Sdf.Path.absoluteRootPath, scene.name or "World")
        self.prim(self.root, "Xform", scene.name or "World").done()
        layer.defaultPrim = self.root.name
        self._write_physics_scene()
        self._write_physics_materials()
        for articulation in find_articulations(scene):
            self._write_articulation(articulation)
        self._write_joints()
        write_actuation(self)
        self._write_attachments()
        self._write_filtered_pairs()
        self._write_collision_groups()
        write_mujoco_model(self)
        self._write_isaac()

    def _write_isaac(self) -> None:
        """NVIDIA's robot schema, physics material bindings and model kind (core/usd/isaac.py)."""
        if self.isaac_schema:
            author_isaac(self.layer, self.scene, self.root, self.body_paths, self.joint_paths, self.shape_paths,
                         self.robot_order, self.isaac_applied or frozenset())

    # -- scene and materials
    def _write_physics_scene(self) -> None:
        settings = self.scene.settings
        prim = self.prim(self.names.child(self.root, D.PHYSICS_SCENE_NAME), "PhysicsScene")
        g = settings.gravity
        magnitude = math.sqrt(sum(c * c for c in g))
        direction = tuple(c / magnitude for c in g) if magnitude > 0.0 else (0.0, 0.0, -1.0)
        prim.set("physics:gravityDirection", T.Vector3f, Gf.Vec3f(*direction))
        prim.set("physics:gravityMagnitude", T.Float, magnitude)
        prim.apply(D.NEWTON_SCENE_API)
        prim.set(D.TIME_STEPS_PER_SECOND, T.Int, int(round(settings.steps_per_second)), uniform=True)
        prim.set(D.MAX_SOLVER_ITERATIONS, T.Int, int(settings.solver_iterations), uniform=True)
        for field_name, (attr, type_name) in D.SCENE_SETTINGS.items():
            value = getattr(settings, field_name)
            prim.set(attr, getattr(T, type_name), value.value if hasattr(value, "value") else value, custom=True)
        prim.done()

    def _write_physics_materials(self) -> None:
        if not self.scene.materials:
            return
        scope = self.scope(D.PHYSICS_MATERIALS_SCOPE)
        for material in self.scene.materials:
            self.material_paths[material.name] = self._write_physics_material(scope, material)

    def _write_physics_material(self, scope: Sdf.Path, material: PhysicsMaterial) -> Sdf.Path:
        prim = self.prim(self.names.child(scope, material.name, self.prim_name(material.name)), "Material",
                         material.name)
        prim.apply("PhysicsMaterialAPI", D.NEWTON_MATERIAL_API)
        prim.set(D.STATIC_FRICTION, T.Float, material.static_friction)
        prim.set(D.DYNAMIC_FRICTION, T.Float, material.dynamic_friction)
        prim.set(D.RESTITUTION, T.Float, material.restitution)
        if material.density is not None:
            prim.set(D.DENSITY, T.Float, material.density)
        prim.set(D.TORSIONAL_FRICTION, T.Float, material.torsional_friction)
        prim.set(D.ROLLING_FRICTION, T.Float, material.rolling_friction)
        prim.done()
        return prim.path

    # -- articulations and bodies
    def _write_articulation(self, articulation: Articulation) -> None:
        """The tree's bodies under one container; the root API on the root body, or on an
        ancestor Xform when a joint fixes the root to the world (proposal, fixed base)."""
        root = self.bodies[articulation.root]
        container, root_api = self.root, None
        if articulation.fixed_base:
            container = self.names.child(self.root, root.name + D.FIXED_BASE_SUFFIX)
            root_api = self.prim(container, "Xform")
        children: dict[str, list[str]] = {}
        for child, parent in articulation.parents.items():
            children.setdefault(parent, []).append(child)
        root_prim = self._write_body_tree(root, container, Pose(), children)
        if root_api is None and len(articulation.bodies) + len(articulation.loop_joints) > 1:
            root_api = root_prim
        if root_api is not None:
            root_api.apply("PhysicsArticulationRootAPI", D.NEWTON_ARTICULATION_ROOT_API)
            root_api.set(D.SELF_COLLISION_ATTR, T.Bool, bool(root.self_collision))
            root_api.done()
        root_prim.done()

    def _write_body_tree(self, body: Body, container: Sdf.Path, parent_pose: Pose,
                         children: dict[str, list[str]]) -> Prim:
        """The body and its subtree, depth first; returns the body's prim, finished unless it is
        the root. A loop, not recursion: a chain of thousands of links (a cable) is fine."""
        root_prim = None
        pending = [(body, container, parent_pose)]
        while pending:
            body, container, parent_pose = pending.pop()
            path = self.names.child(container, body.name, self.prim_name(body.name))
            self.body_paths[body.name] = path
            prim = self.prim(path, "Xform", body.name)
            set_pose(prim, pose_relative(parent_pose, body.pose) if self.nested else body.pose)
            self._body_physics(prim, body)
            if root_prim is None:
                root_prim = prim
            else:
                prim.done()
            child_container = path if self.nested else container
            pending.extend((self.bodies[name], child_container, body.pose)
                           for name in reversed(children.get(body.name, [])))
        return root_prim

    def _body_physics(self, prim: Prim, body: Body) -> None:
        recorded = self.recorded("bodies", body.name)
        if recorded is not None:
            prim.author(recorded)
        else:
            self._write_body_physics(prim, body)

    def _write_body_physics(self, prim, body: Body):
        """On ``prim`` (a :class:`Prim` or a :class:`Recording`): the body's physics."""
        prim.apply("PhysicsRigidBodyAPI", "PhysicsMassAPI")
        if body.kinematic:
            prim.set(D.KINEMATIC, T.Bool, True)
        if any(body.linear_velocity):
            prim.set(D.VELOCITY, T.Vector3f, Gf.Vec3f(*body.linear_velocity))
        if any(body.angular_velocity):
            prim.set(D.ANGULAR_VELOCITY, T.Vector3f, Gf.Vec3f(*(D.angle_to_usd(w) for w in body.angular_velocity)))
        props = self._mass_properties(body)  # all four together: FACTS, partial MassAPI
        prim.set(D.MASS, T.Float, props.mass)
        prim.set(D.CENTER_OF_MASS, T.Point3f, Gf.Vec3f(*props.center_of_mass))
        prim.set(D.DIAGONAL_INERTIA, T.Float3, Gf.Vec3f(*props.diagonal_inertia))
        prim.set(D.PRINCIPAL_AXES, T.Quatf, quatf(props.principal_axes))
        prim.set(D.WORLD_ATTR, T.Int, int(body.world), custom=True)
        return prim

    def _mass_properties(self, body: Body) -> MassProperties:
        """Explicit, else computed by validation, else computed here from the body's colliders."""
        if body.mass is None and body.name in self.masses:
            return self.masses[body.name]
        shapes = self.mass_shapes.get(body.name, [])
        try:
            return mass_properties(self.scene, body.name, shapes)
        except MassError as error:
            if not shapes:  # a massless frame body: mass 0, what Newton gives it (validation warns)
                return MassProperties(mass=0.0)
            raise UsdWriteError(None, [str(error)]) from error

    # -- joints
    def _write_joints(self) -> None:
        flat_scope = None
        for joint in self.scene.joints:
            if self.nested:
                parent = self.body_paths[joint.body1]
            else:
                flat_scope = flat_scope or self.scope(D.FLAT_JOINTS_SCOPE)
                parent = flat_scope
            self._write_joint(self.names.child(parent, joint.name, self.prim_name(joint.name)), joint)

    def _write_joint(self, path: Sdf.Path, joint: Joint) -> None:
        prim = self.prim(path, D.JOINT_PRIM_TYPES[joint.type], joint.name)
        self.joint_paths[joint.name] = path
        recorded = self.recorded("joints", joint.name)
        if recorded is not None:
            prim.author(recorded)
        else:
            self._write_joint_physics(prim, joint)
        if self.isaac_applied is not None and joint.mimic is None:  # a mimic's schemas grow later
            prim.apply(JOINT_API)
            self.isaac_applied.add(path)
        prim.done()

    def _write_joint_physics(self, prim, joint: Joint):
        """On ``prim`` (a :class:`Prim` or a :class:`Recording`): the joint's physics."""
        if joint.body0 is not None:
            prim.rel(D.BODY0, [("body", joint.body0)])
        prim.rel(D.BODY1, [("body", joint.body1)])
        for pos, rot, pose in ((D.LOCAL_POS0, D.LOCAL_ROT0, joint.local_pose0),
                               (D.LOCAL_POS1, D.LOCAL_ROT1, joint.local_pose1)):
            set_unless_fallback(prim, pos, T.Point3f, Gf.Vec3f(*pose.pos), ORIGIN)
            set_unless_fallback(prim, rot, T.Quatf, quatf(pose.rot), IDENTITY)
        if not joint.enabled:
            prim.set(D.JOINT_ENABLED, T.Bool, False)
        if joint.collide_bodies:
            prim.set(D.COLLISION_ENABLED, T.Bool, True)
        if joint.exclude_from_articulation:
            prim.set(D.EXCLUDE_FROM_ARTICULATION, T.Bool, True, uniform=True)
        if joint.type in (JointType.REVOLUTE, JointType.PRISMATIC, JointType.SPHERICAL):
            prim.set(D.JOINT_AXIS, T.Token, joint.axis, uniform=True)
        if joint.type == JointType.SPHERICAL:
            for attr, cone in ((D.CONE_ANGLE0, joint.cone_limit0), (D.CONE_ANGLE1, joint.cone_limit1)):
                if math.isfinite(cone):
                    prim.set(attr, T.Float, D.angle_to_usd(cone))
        for dof in joint.dofs:
            self._write_dof(prim, joint, dof)
        self._write_newton_scalars(prim, joint)
        self._write_mjc_scalars(prim, joint)
        write_joint_actuation(self, prim, joint)
        return prim

    def _write_dof(self, prim: Prim, joint: Joint, dof: Dof) -> None:
        angular = dof.axis.is_angular
        instance = D.dof_instance(joint.type, dof.axis)
        self._write_limit(prim, joint, dof, instance)
        if dof.motion == DofMotion.LOCKED:
            return
        if dof.drive_enabled:
            self._write_drive(prim, dof, instance, angular)
        else:
            write_derived_drive(prim, _servos_from_the_joint_frames(dof), instance, angular)
        self._write_physx_axis(prim, dof, instance, angular)
        self._write_joint_state(prim, dof, instance, angular)

    def _write_limit(self, prim: Prim, joint: Joint, dof: Dof, instance: str) -> None:
        angular = dof.axis.is_angular
        if dof.motion == DofMotion.LIMITED:
            low, high = (D.to_usd(v, D.Unit.ANGLE, angular) for v in (dof.lower, dof.upper))
        elif dof.motion == DofMotion.LOCKED:
            low, high = D.LOCKED_LOW, D.LOCKED_HIGH
        else:  # FREE: explicit infinities, because Newton 1.8 reads a missing D6 limit as locked
            low, high = -math.inf, math.inf
        if joint.type in (JointType.REVOLUTE, JointType.PRISMATIC):
            if dof.motion == DofMotion.LIMITED:
                prim.set(D.LOWER_LIMIT, T.Float, low)
                prim.set(D.UPPER_LIMIT, T.Float, high)
        elif joint.type == JointType.D6:
            prim.apply(f"PhysicsLimitAPI:{instance}")
            prim.set(D.limit_attr(instance, "low"), T.Float, low)
            prim.set(D.limit_attr(instance, "high"), T.Float, high)
        soft = [p for p in D.DOF_PROPERTIES if p.physx_limit and getattr(dof, p.field)]
        if dof.motion == DofMotion.LIMITED and soft:
            prim.apply(f"PhysxLimitAPI:{instance}")
            for p in soft:
                prim.set(D.physx_limit_attr(instance, p.physx_limit), T.Float,
                         D.to_usd(getattr(dof, p.field), p.unit, angular))

    def _write_drive(self, prim: Prim, dof: Dof, instance: str, angular: bool) -> None:
        prim.apply(f"PhysicsDriveAPI:{instance}")
        drive_type = D.DRIVE_TYPE_TOKENS[dof.drive_type]
        set_unless_fallback(prim, D.drive_attr(instance, "type"), T.Token, drive_type, "force", uniform=True)
        for name, value, unit, fallback in (("stiffness", dof.drive_stiffness, D.Unit.PER_ANGLE, None),
                                            ("damping", dof.drive_damping, D.Unit.PER_ANGLE, None),
                                            ("targetPosition", _target_in_the_joint_frames(dof),
                                             D.Unit.ANGLE, 0.0),
                                            ("targetVelocity", dof.target_velocity, D.Unit.ANGLE, 0.0),
                                            ("maxForce", dof.max_effort, D.Unit.PLAIN, math.inf)):
            set_unless_fallback(prim, D.drive_attr(instance, name), T.Float, D.to_usd(value, unit, angular),
                                 fallback)

    def _write_joint_state(self, prim: Prim, dof: Dof, instance: str, angular: bool) -> None:
        position = dof.initial_position - dof.reference  # the joint frames' coordinate, as Newton reads it
        if not (position or dof.initial_velocity):
            return  # at rest: nothing to say
        prim.apply(f"{D.JOINT_STATE_API}:{instance}")
        prim.set(D.state_attr(instance, "position"), T.Float, D.to_usd(position, D.Unit.ANGLE, angular))
        prim.set(D.state_attr(instance, "velocity"), T.Float, D.to_usd(dof.initial_velocity, D.Unit.ANGLE, angular))

    def _write_physx_axis(self, prim: Prim, dof: Dof, instance: str, angular: bool) -> None:
        authored = [p for p in D.DOF_PROPERTIES
                    if p.physx_axis and getattr(dof, p.field) != getattr(_DEFAULT_DOF, p.field)]
        if not authored:
            return
        prim.apply(f"{D.PHYSX_JOINT_AXIS_API}:{instance}")
        for p in authored:
            prim.set(D.physx_axis_attr(instance, p.physx_axis), T.Float,
                     D.to_usd(getattr(dof, p.field), p.unit, angular))

    def _write_mjc_scalars(self, prim: Prim, joint: Joint) -> None:
        """MuJoCo-dialect joint scalars (``mjc:stiffness``) where every moving DOF agrees: the only
        names Newton 1.8 reads a passive joint spring from."""
        dofs = joint.active_dofs()
        self._write_mjc_force_range(prim, joint, dofs)
        self._write_mjc_reference(prim, joint, dofs)
        for p in D.DOF_PROPERTIES:
            if not p.mjc or p.newton or p.physx_axis or not dofs:
                continue  # fields another written dialect already carries
            values = {D.to_usd(getattr(d, p.field), p.mjc_unit, d.axis.is_angular) for d in dofs}
            if len(values) == 1 and next(iter(values)) != getattr(_DEFAULT_DOF, p.field):
                prim.set(p.mjc, T.Double, next(iter(values)), custom=True, uniform=True)

    def _write_mjc_reference(self, prim: Prim, joint: Joint, dofs: list) -> None:
        """MuJoCo's joint ``ref`` and ``springref`` (degrees: no ``mjc:compiler:angle`` is written), limit
        ``margin`` (radians, as MuJoCo keeps it), ``solreflimit`` and ``solimplimit``, as mujoco-usd-converter
        writes them; the limits stay the file's
        coordinate, which Newton's add_usd shifts by ``ref``."""
        if joint.type not in (JointType.REVOLUTE, JointType.PRISMATIC) or len(dofs) != 1:
            return
        dof = dofs[0]
        if dof.reference:
            prim.set(D.MJC_REF, T.Double, D.to_usd(dof.reference, D.Unit.ANGLE, dof.axis.is_angular),
                     custom=True, uniform=True)
        if dof.limit_margin:
            prim.set(JOINT_MARGIN, T.Double, float(dof.limit_margin), custom=True, uniform=True)
        if dof.spring_reference:
            rest = D.to_usd(dof.spring_reference, D.Unit.ANGLE, dof.axis.is_angular)
            prim.set(JOINT_SPRINGREF, T.Double, rest, custom=True, uniform=True)
        for name, values, default in ((JOINT_SOLREF_LIMIT, dof.limit_solref, DEFAULT_SOLREF),
                                      (JOINT_SOLIMP_LIMIT, dof.limit_solimp, DEFAULT_SOLIMP)):
            if tuple(values) != tuple(default):
                prim.set(name, T.DoubleArray, [float(v) for v in values], custom=True, uniform=True)

    def _write_mjc_force_range(self, prim: Prim, joint: Joint, dofs: list) -> None:
        """An effort limit without a drive (UsdPhysics has no other place for it) as MuJoCo's joint
        force range, which Newton reads as the joint's effort limit; with a drive, maxForce has it."""
        if joint.type not in (JointType.REVOLUTE, JointType.PRISMATIC) or len(dofs) != 1:
            return
        dof = dofs[0]
        if dof.drive_enabled or not math.isfinite(dof.max_effort):
            return
        prim.set(D.MJC_FORCE_RANGE_MIN, T.Double, -dof.max_effort, custom=True, uniform=True)
        prim.set(D.MJC_FORCE_RANGE_MAX, T.Double, dof.max_effort, custom=True, uniform=True)
        prim.set(D.MJC_FORCE_LIMITED, T.Token, "true", custom=True, uniform=True)

    def _write_newton_scalars(self, prim: Prim, joint: Joint) -> None:
        """NewtonJointAPI scalars where every moving DOF agrees (in USD units), so Newton reads them."""
        dofs = joint.active_dofs()
        if not dofs:
            return
        for p in D.DOF_PROPERTIES:
            if not p.newton:
                continue
            values = {D.to_usd(getattr(d, p.field), p.unit, d.axis.is_angular) for d in dofs}
            if len(values) != 1 or next(iter(values)) == getattr(_DEFAULT_DOF, p.field):
                continue
            prim.apply(D.NEWTON_JOINT_API)
            prim.set(p.newton, T.Float, next(iter(values)))

    # -- colliders and visuals
    def _write_attachments(self) -> None:
        static_scope = None
        for is_shape, items in ((True, self.scene.shapes), (False, self.scene.visuals)):
            for item in items:
                if item.body is None:
                    static_scope = static_scope or self.scope(D.STATIC_SCOPE, "Xform")
                    parent = static_scope
                else:
                    parent = self.body_paths[item.body]
                path = self.names.child(parent, item.name, self.prim_name(item.name))
                if is_shape:
                    self.shape_paths[item.name] = path
                    self._write_shape(path, item)
                else:
                    self._write_visual(path, item)

    def _write_shape(self, path: Sdf.Path, shape: Shape) -> None:
        """``shape`` at its own pose: its recording, when one was made, is authored."""
        prim = self.prim(path, D.SHAPE_PRIM_TYPES[shape.kind], shape.name)
        recorded = self.recorded("shapes", shape.name)
        if recorded is not None and recorded.pose == shape.pose:
            prim.author(recorded)
        else:
            self._write_shape_physics(prim, shape)
        prim.done()

    def _write_shape_physics(self, prim, shape: Shape):
        """On ``prim`` (a :class:`Prim` or a :class:`Recording`): the collider at its own pose."""
        scale = self._write_geometry(prim, shape)
        set_pose(prim, shape.pose, scale)
        prim.set("purpose", T.Token, D.PURPOSE_COLLIDER, uniform=True)
        prim.apply("PhysicsCollisionAPI", COLLISION_API)  # MuJoCo's on every collider (NVIDIA's MUJOCO.COL.001)
        write_contact_params(prim, shape)
        if shape.kind in D.APPROXIMATION_TOKENS:
            prim.apply("PhysicsMeshCollisionAPI")
            prim.set(D.APPROXIMATION, T.Token, D.APPROXIMATION_TOKENS[shape.kind], uniform=True)
        if shape.density is not None:
            prim.apply("PhysicsMassAPI")
            prim.set(D.DENSITY, T.Float, shape.density)
        if shape.material is not None and shape.material in self.material_names:
            prim.apply("MaterialBindingAPI")
            prim.rel(f"material:binding:{D.PHYSICS_BINDING_PURPOSE}", [("material", shape.material)])
        prim.set(D.COLLISION_GROUP_ATTR, T.Int, int(shape.collision_group), custom=True)
        prim.set(D.WORLD_ATTR, T.Int, int(shape.world), custom=True)
        if shape.contact_margin or shape.contact_gap:
            prim.apply(D.NEWTON_COLLISION_API)
            prim.set(D.CONTACT_MARGIN, T.Float, shape.contact_margin)
            prim.set(D.CONTACT_GAP, T.Float, shape.contact_gap)
        return prim

    @staticmethod
    def _write_geometry(prim: Prim, shape: Shape):
        """Author the gprim's own size attributes; returns the scale its transform needs."""
        kind = shape.kind
        if kind == ShapeKind.BOX:  # a Cube of the schema's size, 2: the scale is the half extents
            return shape.half_extents
        if kind == ShapeKind.SPHERE:
            prim.set("radius", T.Double, shape.radius)
        elif kind in (ShapeKind.CAPSULE, ShapeKind.CYLINDER):
            prim.set("radius", T.Double, shape.radius)
            prim.set("height", T.Double, 2.0 * shape.half_height)
            prim.set("axis", T.Token, shape.axis, uniform=True)
        elif kind == ShapeKind.PLANE:
            prim.set("axis", T.Token, "Z", uniform=True)
        elif kind == ShapeKind.HEIGHT_FIELD:
            set_mesh(prim, primitives.height_field(shape.height_field))
            write_height_field(prim, shape.height_field)
        else:
            set_mesh(prim, shape.mesh or MeshData())
            return shape.scale
        return None

    def _write_visual(self, path: Sdf.Path, visual: Visual) -> None:
        prim = self.prim(path, "Mesh", visual.name)
        set_mesh(prim, visual.mesh)
        set_pose(prim, visual.pose, visual.scale)
        prim.set("purpose", T.Token, D.PURPOSE_VISUAL, uniform=True)
        prim.set("primvars:displayColor", T.Color3fArray, Vt.Vec3fArray([Gf.Vec3f(*visual.color[:3])]))
        prim.set("primvars:displayOpacity", T.FloatArray, Vt.FloatArray([visual.color[3]]))
        prim.apply("MaterialBindingAPI")
        prim.rel("material:binding", [self._render_material(visual)])
        prim.done()

    def _render_material(self, visual: Visual) -> Sdf.Path:
        """A UsdPreviewSurface material per (name, color), made once; unnamed ones shared by color."""
        rgba = tuple(min(max(int(round(c * 255)), 0), 255) for c in visual.color)
        name = visual.material_name or "color_" + "".join(f"{c:02x}" for c in rgba)
        key = ("render", name, tuple(visual.color))
        if key not in self.material_paths:
            self.looks = getattr(self, "looks", None) or self.scope(D.LOOKS_SCOPE)
            material = self.prim(self.names.child(self.looks, name), "Material", name)
            if visual.material_name is None:  # made up here for viewers: not read back as a name
                material.spec.SetInfo("customData", {D.GENERATED_MATERIAL_KEY.split(":")[0]: {
                    D.GENERATED_MATERIAL_KEY.split(":")[1]: True}})
            shader = self.prim(material.path.AppendChild("PreviewSurface"), "Shader")
            shader.set("info:id", T.Token, D.PREVIEW_SURFACE_ID, uniform=True)
            shader.set("inputs:diffuseColor", T.Color3f, Gf.Vec3f(*visual.color[:3]))
            shader.set("inputs:opacity", T.Float, float(visual.color[3]))
            shader.set("outputs:surface", T.Token, None)
            surface = material.set("outputs:surface", T.Token, None)
            surface.connectionPathList.explicitItems = [shader.path.AppendProperty("outputs:surface")]
            self.material_paths[key] = material.path
        return self.material_paths[key]

    # -- collision filtering
    def _write_filtered_pairs(self) -> None:
        pairs: dict[str, list[Sdf.Path]] = {}
        for a, b in self.scene.filtered_pairs:
            if a in self.body_paths and b in self.body_paths:
                pairs.setdefault(a, []).append(self.body_paths[b])
        for body, targets in pairs.items():
            spec = self.layer.GetPrimAtPath(self.body_paths[body])
            schemas = list(spec.GetInfo("apiSchemas").prependedItems) + ["PhysicsFilteredPairsAPI"]
            spec.SetInfo("apiSchemas", Sdf.TokenListOp.Create(prependedItems=schemas))
            Sdf.RelationshipSpec(spec, "physics:filteredPairs", False).targetPathList.explicitItems = targets

    def _write_collision_groups(self) -> None:
        """One PhysicsCollisionGroup per (world, group) of the colliders, filtering the groups
        Newton's rule keeps apart (itself included), so UsdPhysics consumers filter alike."""
        members: dict[tuple[int, int], list[Sdf.Path]] = {}
        for shape in self.scene.shapes:
            members.setdefault((shape.world, shape.collision_group), []).append(self.shape_paths[shape.name])
        if not members:
            return
        scope = self.scope(D.COLLISION_GROUPS_SCOPE)
        group_paths = {key: self.names.child(scope, collision_group_name(key)) for key in sorted(members)}
        for key, apart in collision_group_filters(members).items():
            group = self.prim(group_paths[key], "PhysicsCollisionGroup")
            group.rel("collection:colliders:includes", members[key])
            if apart:
                group.rel("physics:filteredGroups", [group_paths[k] for k in sorted(apart)])
            group.done()




__all__ = ["LAYOUTS", "build_layer", "build_stage", "write_usd", "UsdWriteError"]


def _target_in_the_joint_frames(dof: Dof) -> float:
    """A position drive's target as UsdPhysics counts it, from the joint frames (the authored pose, where
    the DOF is at its reference); a velocity drive's (no stiffness) means nothing and is kept."""
    return dof.target_position - dof.reference if dof.drive_stiffness else dof.target_position


def _servos_from_the_joint_frames(dof: Dof) -> Dof:
    """``dof`` with its position servos' ctrl counted from the joint frames, for the drive derived from
    them (its target is ctrl / gear)."""
    if not dof.reference:
        return dof
    return dataclasses.replace(dof, actuators=[
        dataclasses.replace(a, control=a.control - dof.reference * a.gear) if a.kind == ActuatorKind.POSITION
        else a for a in dof.actuators])
