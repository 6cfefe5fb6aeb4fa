"""Physics description -> USD stage (NESTED bodies as in the seed proposal, or FLAT legacy).

Every USD name and unit comes from :mod:`.dialect`. Bodies carry translate + orient only;
scale lives on collider and visual gprims. Files are written to a temporary sibling and
renamed, so a failed export never leaves a half-written file nor touches an existing one.
"""

from __future__ import annotations

import math
import os
import tempfile
from typing import Optional

from pxr import Gf, Sdf, Tf, Usd, UsdGeom, UsdPhysics, UsdShade, Vt

from . import dialect as D
from .errors import UsdWriteError
from ..model import (
    Body, Dof, DofMotion, Joint, JointType, MeshData, PhysicsMaterial, PhysicsScene, Pose, Shape,
    ShapeKind, Visual,
)
from ..articulation import Articulation, find_articulations
from ..collision import collision_group_filters, collision_group_name
from ..mass import MassError, mass_properties
from ..transforms import pose_relative
from ..validation import ERROR, validate

LAYOUTS = ("NESTED", "FLAT")
_DEFAULT_DOF = Dof(axis=D.DofAxis.ROT_X)


# ------------------------------------------------------------------------------ public entry points
def write_usd(scene: PhysicsScene, path: str, layout: str = "NESTED",
              allow_warnings: bool = False) -> list[str]:
    """Write ``scene`` to ``path`` atomically; returns the validation warnings exported anyway.

    Raises :class:`UsdWriteError` listing the problems when validation finds errors (or
    warnings, unless ``allow_warnings``); the target file is then left untouched.
    """
    errors, warnings = _validation_problems(scene)
    refused = errors + ([] if allow_warnings else warnings)
    if refused:
        raise UsdWriteError(path, refused)
    stage = build_stage(scene, layout)
    _export_atomically(stage.GetRootLayer(), path)
    return warnings


def build_stage(scene: PhysicsScene, layout: str = "NESTED") -> Usd.Stage:
    """The in-memory stage of ``scene`` (no validation, nothing written)."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, not {layout!r}")
    stage = Usd.Stage.CreateInMemory()
    _StageWriter(scene, stage, nested=layout == "NESTED").write()
    return stage


# --------------------------------------------------------------------------------- validation hook
def _validation_problems(scene: PhysicsScene) -> tuple[list[str], list[str]]:
    """(errors, warnings) from core.validation, as readable lines."""
    problems = validate(scene)
    return ([str(p) for p in problems if p.severity == ERROR],
            [str(p) for p in problems if p.severity != ERROR])


def _export_atomically(layer: Sdf.Layer, path: str) -> None:
    path = os.path.abspath(path)
    folder, name = os.path.split(path)
    extension = os.path.splitext(name)[1] or ".usda"
    fd, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=f".tmp{extension}", dir=folder)
    os.close(fd)
    try:
        if not layer.Export(temporary):
            raise UsdWriteError(path, [f"USD could not write {temporary}"])
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise


# ------------------------------------------------------------------------------------ value helpers
def _vec3d(v) -> Gf.Vec3d:
    return Gf.Vec3d(*v)


def _vec3f(v) -> Gf.Vec3f:
    return Gf.Vec3f(*v)


def _quatd(q) -> Gf.Quatd:
    return Gf.Quatd(q[0], q[1], q[2], q[3])


def _quatf(q) -> Gf.Quatf:
    return Gf.Quatf(q[0], q[1], q[2], q[3])


def _set(prim: Usd.Prim, name: str, type_name, value, custom: bool = False) -> None:
    prim.CreateAttribute(name, type_name, custom).Set(value)


def _set_pose(prim: Usd.Prim, pose: Pose, scale=None) -> None:
    xform = UsdGeom.Xformable(prim)
    ops = [xform.AddTranslateOp(UsdGeom.XformOp.PrecisionDouble),
           xform.AddOrientOp(UsdGeom.XformOp.PrecisionDouble)]
    ops[0].Set(_vec3d(pose.pos))
    ops[1].Set(_quatd(pose.rot))
    if scale is not None and tuple(scale) != (1.0, 1.0, 1.0):
        op = xform.AddScaleOp(UsdGeom.XformOp.PrecisionDouble)
        op.Set(_vec3d(scale))
        ops.append(op)
    xform.SetXformOpOrder(ops)


def _set_mesh(prim: Usd.Prim, mesh: MeshData) -> None:
    geom = UsdGeom.Mesh(prim)
    points = Vt.Vec3fArray([Gf.Vec3f(*v) for v in mesh.vertices])
    geom.CreatePointsAttr(points)
    geom.CreateFaceVertexCountsAttr(Vt.IntArray([3] * len(mesh.triangles)))
    geom.CreateFaceVertexIndicesAttr(Vt.IntArray([i for tri in mesh.triangles for i in tri]))
    geom.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)
    geom.CreateExtentAttr(UsdGeom.PointBased.ComputeExtent(points))


class _Namer:
    """Valid, sibling-unique prim names; the description name survives as displayName."""

    def __init__(self):
        self._taken: dict[str, set[str]] = {}

    def child(self, parent: Sdf.Path, name: str) -> Sdf.Path:
        taken = self._taken.setdefault(str(parent), set())
        base = Tf.MakeValidIdentifier(name) if name else "unnamed"
        candidate, n = base, 1
        while candidate in taken:
            candidate, n = f"{base}_{n}", n + 1
        taken.add(candidate)
        return parent.AppendChild(candidate)


def _define(stage: Usd.Stage, path: Sdf.Path, type_name: str, name: str) -> Usd.Prim:
    prim = stage.DefinePrim(path, type_name)
    if path.name != name:
        prim.SetDisplayName(name)
    return prim


# --------------------------------------------------------------------------------------- the writer
class _StageWriter:
    def __init__(self, scene: PhysicsScene, stage: Usd.Stage, nested: bool):
        self.scene, self.stage, self.nested = scene, stage, nested
        self.names = _Namer()
        self.body_paths: dict[str, Sdf.Path] = {}
        self.shape_paths: dict[str, Sdf.Path] = {}
        self.material_paths: dict[str, Sdf.Path] = {}
        self.joints_by_child: dict[str, list[Joint]] = {}
        for joint in scene.joints:
            self.joints_by_child.setdefault(joint.body1, []).append(joint)

    def write(self) -> None:
        stage, scene = self.stage, self.scene
        UsdGeom.SetStageUpAxis(stage, D.UP_AXIS)
        UsdGeom.SetStageMetersPerUnit(stage, D.METERS_PER_UNIT)
        UsdPhysics.SetStageKilogramsPerUnit(stage, D.KILOGRAMS_PER_UNIT)
        self.root = self.names.child(Sdf.Path.absoluteRootPath, scene.name or "World")
        stage.SetDefaultPrim(_define(stage, self.root, "Xform", scene.name or "World"))
        self._write_physics_scene()
        self._write_physics_materials()
        for articulation in find_articulations(scene):
            self._write_articulation(articulation)
        self._write_joints()
        self._write_attachments()
        self._write_filtered_pairs()
        self._write_collision_groups()

    # -- scene and materials
    def _write_physics_scene(self) -> None:
        settings = self.scene.settings
        prim = _define(self.stage, self.names.child(self.root, D.PHYSICS_SCENE_NAME), "PhysicsScene",
                       D.PHYSICS_SCENE_NAME)
        physics_scene = UsdPhysics.Scene(prim)
        g = settings.gravity
        magnitude = math.sqrt(sum(c * c for c in g))
        direction = tuple(c / magnitude for c in g) if magnitude > 0.0 else (0.0, 0.0, -1.0)
        physics_scene.CreateGravityDirectionAttr(_vec3f(direction))
        physics_scene.CreateGravityMagnitudeAttr(magnitude)
        prim.AddAppliedSchema(D.NEWTON_SCENE_API)
        _set(prim, D.TIME_STEPS_PER_SECOND, Sdf.ValueTypeNames.Int, int(round(settings.steps_per_second)))
        _set(prim, D.MAX_SOLVER_ITERATIONS, Sdf.ValueTypeNames.Int, int(settings.solver_iterations))
        for field_name, (attr, type_name) in D.SCENE_SETTINGS.items():
            value = getattr(settings, field_name)
            _set(prim, attr, getattr(Sdf.ValueTypeNames, type_name),
                 value.value if hasattr(value, "value") else value, custom=True)

    def _write_physics_materials(self) -> None:
        if not self.scene.materials:
            return
        scope = self.names.child(self.root, D.PHYSICS_MATERIALS_SCOPE)
        self.stage.DefinePrim(scope, "Scope")
        for material in self.scene.materials:
            self.material_paths[material.name] = self._write_physics_material(scope, material)

    def _write_physics_material(self, scope: Sdf.Path, material: PhysicsMaterial) -> Sdf.Path:
        path = self.names.child(scope, material.name)
        prim = _define(self.stage, path, "Material", material.name)
        api = UsdPhysics.MaterialAPI.Apply(prim)
        api.CreateStaticFrictionAttr(material.static_friction)
        api.CreateDynamicFrictionAttr(material.dynamic_friction)
        api.CreateRestitutionAttr(material.restitution)
        if material.density is not None:
            api.CreateDensityAttr(material.density)
        prim.AddAppliedSchema(D.NEWTON_MATERIAL_API)
        _set(prim, D.TORSIONAL_FRICTION, Sdf.ValueTypeNames.Float, material.torsional_friction)
        _set(prim, D.ROLLING_FRICTION, Sdf.ValueTypeNames.Float, material.rolling_friction)
        return path

    # -- articulations and bodies
    def _write_articulation(self, articulation: Articulation) -> None:
        """The tree's bodies under one container; the root API on the root body, or on an
        ancestor Xform when a joint fixes the root to the world (proposal, fixed base)."""
        root = self.scene.body(articulation.root)
        container, root_api_path = self.root, None
        if articulation.fixed_base:
            container = self.names.child(self.root, root.name + D.FIXED_BASE_SUFFIX)
            UsdGeom.Xform.Define(self.stage, container)
            root_api_path = container
        children: dict[str, list[str]] = {}
        for child, parent in articulation.parents.items():
            children.setdefault(parent, []).append(child)
        self._write_body_tree(root, container, Pose(), children)
        if root_api_path is None and len(articulation.bodies) + len(articulation.loop_joints) > 1:
            root_api_path = self.body_paths[root.name]
        if root_api_path is not None:
            prim = self.stage.GetPrimAtPath(root_api_path)
            UsdPhysics.ArticulationRootAPI.Apply(prim)
            prim.AddAppliedSchema(D.NEWTON_ARTICULATION_ROOT_API)
            _set(prim, D.SELF_COLLISION_ATTR, Sdf.ValueTypeNames.Bool, bool(root.self_collision))

    def _write_body_tree(self, body: Body, container: Sdf.Path, parent_pose: Pose,
                         children: dict[str, list[str]]) -> None:
        path = self.names.child(container, body.name)
        self.body_paths[body.name] = path
        prim = _define(self.stage, path, "Xform", body.name)
        _set_pose(prim, pose_relative(parent_pose, body.pose) if self.nested else body.pose)
        self._write_body_physics(prim, body)
        for name in children.get(body.name, []):
            child = self.scene.body(name)
            if self.nested:
                self._write_body_tree(child, path, body.pose, children)
            else:
                self._write_body_tree(child, container, Pose(), children)

    def _write_body_physics(self, prim: Usd.Prim, body: Body) -> None:
        rigid = UsdPhysics.RigidBodyAPI.Apply(prim)
        if body.kinematic:
            rigid.CreateKinematicEnabledAttr(True)
        if any(body.linear_velocity):
            rigid.CreateVelocityAttr(_vec3f(body.linear_velocity))
        if any(body.angular_velocity):
            rigid.CreateAngularVelocityAttr(_vec3f([D.angle_to_usd(w) for w in body.angular_velocity]))
        props = _mass_properties(self.scene, body)
        mass = UsdPhysics.MassAPI.Apply(prim)  # all four together: FACTS, partial MassAPI
        mass.CreateMassAttr(props.mass)
        mass.CreateCenterOfMassAttr(_vec3f(props.center_of_mass))
        mass.CreateDiagonalInertiaAttr(_vec3f(props.diagonal_inertia))
        mass.CreatePrincipalAxesAttr(_quatf(props.principal_axes))
        _set(prim, D.WORLD_ATTR, Sdf.ValueTypeNames.Int, int(body.world), custom=True)

    # -- joints
    def _write_joints(self) -> None:
        flat_scope = None
        for joint in self.scene.joints:
            if self.nested:
                parent = self.body_paths[joint.body1]
            else:
                if flat_scope is None:
                    flat_scope = self.names.child(self.root, D.FLAT_JOINTS_SCOPE)
                    self.stage.DefinePrim(flat_scope, "Scope")
                parent = flat_scope
            self._write_joint(self.names.child(parent, joint.name), joint)

    def _write_joint(self, path: Sdf.Path, joint: Joint) -> None:
        prim = _define(self.stage, path, D.JOINT_PRIM_TYPES[joint.type], joint.name)
        usd_joint = UsdPhysics.Joint(prim)
        if joint.body0 is not None:
            usd_joint.CreateBody0Rel().SetTargets([self.body_paths[joint.body0]])
        usd_joint.CreateBody1Rel().SetTargets([self.body_paths[joint.body1]])
        usd_joint.CreateLocalPos0Attr(_vec3f(joint.local_pose0.pos))
        usd_joint.CreateLocalRot0Attr(_quatf(joint.local_pose0.rot))
        usd_joint.CreateLocalPos1Attr(_vec3f(joint.local_pose1.pos))
        usd_joint.CreateLocalRot1Attr(_quatf(joint.local_pose1.rot))
        if not joint.enabled:
            usd_joint.CreateJointEnabledAttr(False)
        if joint.collide_bodies:
            usd_joint.CreateCollisionEnabledAttr(True)
        if joint.exclude_from_articulation:
            usd_joint.CreateExcludeFromArticulationAttr(True)
        if joint.type in (JointType.REVOLUTE, JointType.PRISMATIC, JointType.SPHERICAL):
            _set(prim, D.JOINT_AXIS, Sdf.ValueTypeNames.Token, joint.axis)
        if joint.type == JointType.SPHERICAL:
            for attr, cone in ((D.CONE_ANGLE0, joint.cone_limit0), (D.CONE_ANGLE1, joint.cone_limit1)):
                if math.isfinite(cone):
                    _set(prim, attr, Sdf.ValueTypeNames.Float, D.angle_to_usd(cone))
        for dof in joint.dofs:
            self._write_dof(prim, joint, dof)
        self._write_newton_scalars(prim, joint)

    def _write_dof(self, prim: Usd.Prim, joint: Joint, dof: Dof) -> None:
        angular = dof.axis.is_angular
        instance = D.dof_instance(joint.type, dof.axis)
        self._write_limit(prim, joint, dof, instance)
        if dof.motion == DofMotion.LOCKED:
            return
        if dof.drive_enabled:
            self._write_drive(prim, dof, instance, angular)
        self._write_physx_axis(prim, dof, instance, angular)

    def _write_limit(self, prim: Usd.Prim, joint: Joint, dof: Dof, instance: str) -> None:
        angular = dof.axis.is_angular
        if dof.motion == DofMotion.LIMITED:
            low, high = (D.to_usd(v, D.Unit.ANGLE, angular) for v in (dof.lower, dof.upper))
        elif dof.motion == DofMotion.LOCKED:
            low, high = D.LOCKED_LOW, D.LOCKED_HIGH
        else:  # FREE: explicit infinities, because Newton 1.8 reads a missing D6 limit as locked
            low, high = -math.inf, math.inf
        if joint.type in (JointType.REVOLUTE, JointType.PRISMATIC):
            if dof.motion == DofMotion.LIMITED:
                _set(prim, D.LOWER_LIMIT, Sdf.ValueTypeNames.Float, low)
                _set(prim, D.UPPER_LIMIT, Sdf.ValueTypeNames.Float, high)
        elif joint.type == JointType.D6:
            prim.AddAppliedSchema(f"PhysicsLimitAPI:{instance}")
            _set(prim, D.limit_attr(instance, "low"), Sdf.ValueTypeNames.Float, low)
            _set(prim, D.limit_attr(instance, "high"), Sdf.ValueTypeNames.Float, high)
        soft = [p for p in D.DOF_PROPERTIES if p.physx_limit and getattr(dof, p.field)]
        if dof.motion == DofMotion.LIMITED and soft:
            prim.AddAppliedSchema(f"PhysxLimitAPI:{instance}")
            for p in soft:
                _set(prim, D.physx_limit_attr(instance, p.physx_limit), Sdf.ValueTypeNames.Float,
                     D.to_usd(getattr(dof, p.field), p.unit, angular))

    def _write_drive(self, prim: Usd.Prim, dof: Dof, instance: str, angular: bool) -> None:
        prim.AddAppliedSchema(f"PhysicsDriveAPI:{instance}")
        f = Sdf.ValueTypeNames.Float
        _set(prim, D.drive_attr(instance, "type"), Sdf.ValueTypeNames.Token,
             D.DRIVE_TYPE_TOKENS[dof.drive_type])
        _set(prim, D.drive_attr(instance, "stiffness"), f, D.to_usd(dof.drive_stiffness, D.Unit.PER_ANGLE, angular))
        _set(prim, D.drive_attr(instance, "damping"), f, D.to_usd(dof.drive_damping, D.Unit.PER_ANGLE, angular))
        _set(prim, D.drive_attr(instance, "targetPosition"), f, D.to_usd(dof.target_position, D.Unit.ANGLE, angular))
        _set(prim, D.drive_attr(instance, "targetVelocity"), f, D.to_usd(dof.target_velocity, D.Unit.ANGLE, angular))
        _set(prim, D.drive_attr(instance, "maxForce"), f, dof.max_effort)

    def _write_physx_axis(self, prim: Usd.Prim, dof: Dof, instance: str, angular: bool) -> None:
        authored = [p for p in D.DOF_PROPERTIES
                    if p.physx_axis and getattr(dof, p.field) != getattr(_DEFAULT_DOF, p.field)]
        if not authored:
            return
        prim.AddAppliedSchema(f"{D.PHYSX_JOINT_AXIS_API}:{instance}")
        for p in authored:
            _set(prim, D.physx_axis_attr(instance, p.physx_axis), Sdf.ValueTypeNames.Float,
                 D.to_usd(getattr(dof, p.field), p.unit, angular))

    def _write_newton_scalars(self, prim: Usd.Prim, joint: Joint) -> None:
        """NewtonJointAPI scalars where every moving DOF agrees (in USD units), so Newton reads them."""
        dofs = joint.active_dofs()
        if not dofs:
            return
        applied = False
        for p in D.DOF_PROPERTIES:
            if not p.newton:
                continue
            values = {D.to_usd(getattr(d, p.field), p.unit, d.axis.is_angular) for d in dofs}
            default = getattr(_DEFAULT_DOF, p.field)
            if len(values) != 1 or next(iter(values)) == default:
                continue
            if not applied:
                prim.AddAppliedSchema(D.NEWTON_JOINT_API)
                applied = True
            _set(prim, p.newton, Sdf.ValueTypeNames.Float, next(iter(values)))

    # -- colliders and visuals
    def _write_attachments(self) -> None:
        static_scope = None
        for owner, items in (("shape", self.scene.shapes), ("visual", self.scene.visuals)):
            for item in items:
                if item.body is None:
                    if static_scope is None:
                        static_scope = self.names.child(self.root, D.STATIC_SCOPE)
                        UsdGeom.Xform.Define(self.stage, static_scope)
                    parent = static_scope
                else:
                    parent = self.body_paths[item.body]
                path = self.names.child(parent, item.name)
                if owner == "shape":
                    self.shape_paths[item.name] = path
                    self._write_shape(path, item)
                else:
                    self._write_visual(path, item)

    def _write_shape(self, path: Sdf.Path, shape: Shape) -> None:
        prim = _define(self.stage, path, D.SHAPE_PRIM_TYPES[shape.kind], shape.name)
        scale = self._write_geometry(prim, shape)
        _set_pose(prim, shape.pose, scale)
        UsdGeom.Imageable(prim).CreatePurposeAttr(D.PURPOSE_COLLIDER)
        UsdPhysics.CollisionAPI.Apply(prim)
        if shape.kind in D.APPROXIMATION_TOKENS:
            UsdPhysics.MeshCollisionAPI.Apply(prim).CreateApproximationAttr(D.APPROXIMATION_TOKENS[shape.kind])
        if shape.density is not None:
            UsdPhysics.MassAPI.Apply(prim).CreateDensityAttr(shape.density)
        if shape.material is not None and shape.material in self.material_paths:
            binding = UsdShade.MaterialBindingAPI.Apply(prim)
            binding.Bind(UsdShade.Material.Get(self.stage, self.material_paths[shape.material]),
                         UsdShade.Tokens.weakerThanDescendants, D.PHYSICS_BINDING_PURPOSE)
        _set(prim, D.COLLISION_GROUP_ATTR, Sdf.ValueTypeNames.Int, int(shape.collision_group), custom=True)
        _set(prim, D.WORLD_ATTR, Sdf.ValueTypeNames.Int, int(shape.world), custom=True)
        if shape.contact_margin or shape.contact_gap:
            prim.AddAppliedSchema(D.NEWTON_COLLISION_API)
            _set(prim, D.CONTACT_MARGIN, Sdf.ValueTypeNames.Float, shape.contact_margin)
            _set(prim, D.CONTACT_GAP, Sdf.ValueTypeNames.Float, shape.contact_gap)

    @staticmethod
    def _write_geometry(prim: Usd.Prim, shape: Shape):
        """Author the gprim's own size attributes; returns the scale its transform needs."""
        kind = shape.kind
        if kind == ShapeKind.BOX:
            UsdGeom.Cube(prim).CreateSizeAttr(2.0)
            return shape.half_extents
        if kind == ShapeKind.SPHERE:
            UsdGeom.Sphere(prim).CreateRadiusAttr(shape.radius)
        elif kind in (ShapeKind.CAPSULE, ShapeKind.CYLINDER):
            gprim = UsdGeom.Capsule(prim) if kind == ShapeKind.CAPSULE else UsdGeom.Cylinder(prim)
            gprim.CreateRadiusAttr(shape.radius)
            gprim.CreateHeightAttr(2.0 * shape.half_height)
            gprim.CreateAxisAttr(shape.axis)
        elif kind == ShapeKind.PLANE:
            UsdGeom.Plane(prim).CreateAxisAttr("Z")
        else:
            _set_mesh(prim, shape.mesh or MeshData())
            return shape.scale
        return None

    def _write_visual(self, path: Sdf.Path, visual: Visual) -> None:
        prim = _define(self.stage, path, "Mesh", visual.name)
        _set_mesh(prim, visual.mesh)
        _set_pose(prim, visual.pose, visual.scale)
        geom = UsdGeom.Mesh(prim)
        geom.CreatePurposeAttr(D.PURPOSE_VISUAL)
        geom.CreateDisplayColorAttr(Vt.Vec3fArray([Gf.Vec3f(*visual.color[:3])]))
        geom.CreateDisplayOpacityAttr(Vt.FloatArray([visual.color[3]]))
        material = self._render_material(visual)
        UsdShade.MaterialBindingAPI.Apply(prim).Bind(material)

    def _render_material(self, visual: Visual) -> UsdShade.Material:
        name = visual.material_name or f"{visual.name}_material"
        key = ("render", name, tuple(visual.color))
        if key not in self.material_paths:
            looks = self.root.AppendChild(D.LOOKS_SCOPE)
            if not self.stage.GetPrimAtPath(looks):
                looks = self.names.child(self.root, D.LOOKS_SCOPE)
                self.stage.DefinePrim(looks, "Scope")
            path = self.names.child(looks, name)
            material = UsdShade.Material(_define(self.stage, path, "Material", name))
            if visual.material_name is None:  # made up here for viewers: not read back as a name
                material.GetPrim().SetCustomDataByKey(D.GENERATED_MATERIAL_KEY, True)
            shader = UsdShade.Shader.Define(self.stage, path.AppendChild("PreviewSurface"))
            shader.CreateIdAttr(D.PREVIEW_SURFACE_ID)
            shader.CreateInput("diffuseColor", Sdf.ValueTypeNames.Color3f).Set(Gf.Vec3f(*visual.color[:3]))
            shader.CreateInput("opacity", Sdf.ValueTypeNames.Float).Set(float(visual.color[3]))
            material.CreateSurfaceOutput().ConnectToSource(shader.ConnectableAPI(), "surface")
            self.material_paths[key] = path
        return UsdShade.Material.Get(self.stage, self.material_paths[key])

    # -- collision filtering
    def _write_filtered_pairs(self) -> None:
        for a, b in self.scene.filtered_pairs:
            if a in self.body_paths and b in self.body_paths:
                prim = self.stage.GetPrimAtPath(self.body_paths[a])
                UsdPhysics.FilteredPairsAPI.Apply(prim).CreateFilteredPairsRel().AddTarget(self.body_paths[b])

    def _write_collision_groups(self) -> None:
        """One PhysicsCollisionGroup per (world, group) of the colliders, filtering the groups
        Newton's rule keeps apart (itself included), so UsdPhysics consumers filter alike."""
        members: dict[tuple[int, int], list[Sdf.Path]] = {}
        for shape in self.scene.shapes:
            members.setdefault((shape.world, shape.collision_group), []).append(self.shape_paths[shape.name])
        if not members:
            return
        scope = self.names.child(self.root, D.COLLISION_GROUPS_SCOPE)
        self.stage.DefinePrim(scope, "Scope")
        group_paths = {key: self.names.child(scope, collision_group_name(key)) for key in sorted(members)}
        for key, apart in collision_group_filters(members).items():
            group = UsdPhysics.CollisionGroup.Define(self.stage, group_paths[key])
            group.GetCollidersCollectionAPI().CreateIncludesRel().SetTargets(members[key])
            if apart:
                group.CreateFilteredGroupsRel().SetTargets([group_paths[k] for k in sorted(apart)])


def _mass_properties(scene: PhysicsScene, body: Body):
    try:
        return mass_properties(scene, body.name)
    except MassError as error:
        raise UsdWriteError(None, [str(error)]) from error


__all__ = ["LAYOUTS", "build_stage", "write_usd", "UsdWriteError"]
