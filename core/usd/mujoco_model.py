"""MuJoCo's model beyond bodies, joints and actuators <-> USD, in the MuJoCo dialect NVIDIA's
mujoco-usd-converter writes (its ``mjcPhysics`` schema), and where that schema has nothing, in the
``mjc:`` namespace on typeless prims that Articula reads back.

- Options: ``MjcSceneAPI`` on the physics scene (``mjc:option:*``; flags as ``mjc:flag:<name>``,
  authored where they differ from MuJoCo's default: a disabled flag false, an enabled one true).
- Contact parameters: ``MjcCollisionAPI`` on a collider (``mjc:condim``, ``priority``, ``solref``,
  ``solimp``, ``solmix``, ``margin``, ``gap``); friction stays on its physics material.
- Sites: a guide-purpose Gprim under the body (Sphere, Capsule, Cylinder, Cube; an ellipsoid is a
  Sphere scaled per axis, marked ``articula:siteKind``), with ``MjcSiteAPI`` and ``NewtonSiteAPI``.
- Cameras: ``UsdGeom.Camera`` under the body (it looks down -Z with +Y up, as MuJoCo's does; fovy
  from the vertical aperture and focal length); MuJoCo's mode, target body and resolution as
  ``mjc:camera:mode``, ``rel mjc:camera:target``, ``mjc:camera:resolution``.
- Lights: UsdLux under the body: DistantLight (directional), SphereLight (point; with ShapingAPI a
  spot: ``shaping:cone:angle`` is the cutoff, ``shaping:focus`` the exponent); ``mjc:light:*`` keeps
  attenuation and whether it is active.
- Keyframes: ``MjcKeyframe`` prims in a ``Keyframes`` scope (``mjc:qpos``, ``mjc:qvel``,
  ``mjc:ctrl`` in MuJoCo's layout of the description: bodies depth first, a floating root's free
  joint, then each body's joints in order, a ball joint 4 numbers; controls in actuator order).
  MuJoCo has no key time in USD: ``mjc:time``.
- Weld and connect equalities: the converter's form, a PhysicsFixedJoint (weld) or
  PhysicsSphericalJoint (connect) excluded from the articulation, in the ``Physics`` scope, with
  ``MjcEqualityWeldAPI``/``MjcEqualityConnectAPI`` (``mjc:solref``, ``mjc:solimp``,
  ``mjc:torqueScale``); the joint's frames hold the anchor and relative pose; a site-based equality
  points at the site prims; ``physics:jointEnabled`` is whether it is active.
- Spatial tendons: ``MjcTendon`` with ``mjc:type = "spatial"``, ``rel mjc:path`` (sites and
  colliders), ``mjc:path:indices``, ``mjc:path:segments`` and ``mjc:path:divisors`` (pulleys),
  ``rel mjc:sideSites`` with ``mjc:sideSites:indices``.
- Sensors (the schema has none): one typeless prim per sensor in a ``Sensors`` scope, with
  ``mjc:sensor:type`` (MuJoCo's keyword), ``rel mjc:sensor:target`` and ``mjc:sensor:targetType``,
  ``rel mjc:sensor:reference`` and ``mjc:sensor:referenceType``, ``mjc:sensor:noise``,
  ``mjc:sensor:cutoff`` and ``mjc:sensor:setting:<attribute>`` strings; a target that is no prim
  written here (a DOF's own joint name) is kept as ``mjc:sensor:targetName``/``referenceName``.
  IMUs and touch sensors also as Isaac Sim's sensor prims (:mod:`.isaac_sensors`).
- Contact pairs (the schema has none; excludes are PhysicsFilteredPairsAPI): one typeless prim per
  pair in a ``ContactPairs`` scope, ``rel mjc:pair:geom0``/``geom1``, ``mjc:pair:condim``,
  ``friction``, ``solref``, ``solimp``, ``margin``, ``gap``.
- A DOF's own joint name (``Dof.name``): ``articula:dofNames`` on the joint prim; a floating
  root's free joint name: ``articula:freeJointName`` on the body prim.

The Mjc schema is not registered in every USD (Blender's, usd-core): applied schemas are read from
the prims' ``apiSchemas`` metadata, and attributes as authored with the schema's defaults here.
"""

from __future__ import annotations

import copy

import dataclasses
import math
from typing import Optional

from pxr import Gf, Sdf, Usd, Vt

from ..model import (
    DEFAULT_SOLIMP, DEFAULT_SOLREF, Actuator, Body, Camera, CameraMode, ContactPair, ContactParams, DofAxis,
    Equality, EqualityKind, JointType, Keyframe, Light, LightKind, MuJoCoOptions, PhysicsScene,
    Pose, Sensor, Site, SiteKind, SpatialTendon, TendonEquality, TendonWrap, WrapKind,
)
from ..transforms import pose_inverse, pose_mul, pose_relative, poses_close
from . import dialect as D
from .actuation import (_limited, _targets, physics_scope, read_tendon_friction_and_spring, write_actuator,
                        write_tendon_friction_and_spring)
from .gf_poses import pose_in, pose_matrix, pose_of
from .isaac_sensors import ISAAC_SENSOR_TYPES, read_isaac_sensors, write_isaac_sensors
from .sdf_authoring import Prim, T, set_pose

SITE_API, NEWTON_SITE_API = "MjcSiteAPI", "NewtonSiteAPI"
SCENE_API = "MjcSceneAPI"
#: What MjcSceneAPI means where an option is not authored: MuJoCo's own defaults (Euler). Articula's
#: description defaults to implicitfast for robots that come from no MuJoCo file, so an export writes it.
SCHEMA_OPTIONS = MuJoCoOptions(integrator="euler")
COLLISION_API = "MjcCollisionAPI"
WELD_API, CONNECT_API = "MjcEqualityWeldAPI", "MjcEqualityConnectAPI"
EQUALITY_APIS = (WELD_API, CONNECT_API)
KEYFRAME_TYPE = "MjcKeyframe"
TENDON_TYPE = "MjcTendon"
KEYFRAMES_SCOPE, SENSORS_SCOPE, PAIRS_SCOPE = "Keyframes", "Sensors", "ContactPairs"
SITE_KIND_ATTR = "articula:siteKind"
DOF_NAMES_ATTR = "articula:dofNames"
JOINT_GROUP = "mjc:group"  # MjcJointAPI: MuJoCo's joint group (every DOF of the joint)
DOF_GROUPS_ATTR = "articula:dofGroups"  # a D6's MuJoCo joints in different groups: one per DOF, in order
FREE_JOINT_NAME_ATTR = "articula:freeJointName"
#: A floating root's free joint on its body prim, MuJoCo's numbers (SI, per radian), as ``mjc:`` joint
#: attributes are: damping, armature, frictionloss, stiffness (absent: 0).
FREE_JOINT_DYNAMICS_ATTRS = ("mjc:freejoint:damping", "mjc:freejoint:armature", "mjc:freejoint:frictionloss",
                             "mjc:freejoint:stiffness")
_FREE_JOINT_FIELDS = tuple(f"free_joint_{what}" for what in ("damping", "armature", "friction", "stiffness"))
LAYOUT_ATTR = "articula:qposLayout"  # a key's qpos entries: free:<body>, ball:<joint>, dof:<joint>:<axis>
CONTROLS_ATTR = "articula:ctrlNames"  # the actuators its ctrl is in
SENSOR = "mjc:sensor:"
JOINT_MARGIN = "mjc:margin"  # MjcJointAPI: the distance from a limit where it starts acting (rad or m)
JOINT_SOLREF_LIMIT = "mjc:solreflimit"  # MjcJointAPI: how the limit constraint responds (double[2])
JOINT_SOLIMP_LIMIT = "mjc:solimplimit"  # MjcJointAPI: the limit constraint's impedance (double[5])
JOINT_SPRINGREF = "mjc:springref"  # MjcJointAPI: the joint spring's rest (degrees or stage units)
PAIR = "mjc:pair:"
#: A tendon equality: mujoco-usd-converter has none (it warns), so Articula writes one as a typeless prim
#: with ``MjcEqualityAPI`` (its ``mjc:solref``/``solimp``, ``rel mjc:target`` = the second tendon) and these.
TENDON_EQUALITY = "mjc:equality:"  # type = "tendon", rel tendon (the first), polycoef, active
CAMERA = "mjc:camera:"
LIGHT = "mjc:light:"

# MuJoCoOptions field -> (mjc:option name, kind); the schema's defaults are MuJoCoOptions' own.
_OPTIONS = {
    "integrator": ("integrator", "token"), "cone": ("cone", "token"), "impratio": ("impratio", "float"),
    "solver": ("solver", "token"), "iterations": ("iterations", "int"), "tolerance": ("tolerance", "float"),
    "ls_iterations": ("ls_iterations", "int"), "ls_tolerance": ("ls_tolerance", "float"),
    "noslip_iterations": ("noslip_iterations", "int"), "noslip_tolerance": ("noslip_tolerance", "float"),
    "jacobian": ("jacobian", "token"), "density": ("density", "float"), "viscosity": ("viscosity", "float"),
    "wind": ("wind", "vec3"), "magnetic": ("magnetic", "vec3"), "override_margin": ("o_margin", "float"),
    "override_solref": ("o_solref", "floats"), "override_solimp": ("o_solimp", "floats"),
    "override_friction": ("o_friction", "floats"),
}
#: MuJoCo's flags on by default (``<flag name="disable">``) and off by default (``"enable"``).
DISABLE_FLAGS = ("actuation", "autoreset", "clampctrl", "constraint", "contact", "damper", "equality",
                 "eulerdamp", "filterparent", "frictionloss", "gravity", "island", "limit", "midphase",
                 "multiccd", "nativeccd", "refsafe", "sensor", "spring", "warmstart")
ENABLE_FLAGS = ("energy", "fwdinv", "invdiscrete", "override")

_SITE_PRIMS = {SiteKind.SPHERE: "Sphere", SiteKind.ELLIPSOID: "Sphere", SiteKind.CAPSULE: "Capsule",
               SiteKind.CYLINDER: "Cylinder", SiteKind.BOX: "Cube"}
_SENSOR_TARGET_KINDS = {"site": "site", "joint": "joint", "body": "body", "xbody": "body", "subtree": "body",
                        "geom": "shape", "camera": "camera", "tendon": "tendon", "actuator": "actuator"}
_ZERO_QUAT = (1.0, 0.0, 0.0, 0.0)
_QPOS_SIZE = {"free": 7, "ball": 4, "dof": 1}
_AXES = frozenset(axis.value for axis in DofAxis)


# ------------------------------------------------------------------------------------ keyframe layout
def keyframe_layout(scene: PhysicsScene) -> list[tuple]:
    """MuJoCo's qpos/qvel layout of the description: ("free", body), ("ball", joint) or
    ("dof", joint, dof), bodies depth first (roots and children in scene order), each body's free
    joint (a floating root) then its joints in scene order."""
    children: dict[Optional[str], list[Body]] = {}
    for body in scene.bodies:
        children.setdefault(body.parent, []).append(body)
    joints_of: dict[str, list] = {}
    for joint in scene.joints:
        if joint.enabled and not joint.exclude_from_articulation:
            joints_of.setdefault(joint.body1, []).append(joint)
    layout, pending = [], list(reversed(children.get(None, [])))
    while pending:
        body = pending.pop()
        joints = joints_of.get(body.name, [])
        if not joints and body.parent is None and not body.kinematic:
            layout.append(("free", body.name))
        for joint in joints:
            if joint.type == JointType.SPHERICAL:
                layout.append(("ball", joint.name))
            elif joint.type != JointType.FIXED:
                layout += [("dof", joint.name, dof.axis.value) for dof in joint.active_dofs()]
        pending.extend(reversed(children.get(body.name, [])))
    return layout


def control_order(scene: PhysicsScene) -> list[str]:
    """Actuator names in the order MjcActuator prims are written (keyframe ``ctrl``)."""
    names = [actuator.name for actuator, *_ in scene.actuators()]
    return names + [actuator.name for actuator in scene.frame_actuators]


def layout_tokens(layout: list) -> list[str]:
    """The layout as strings (``free:<body>``, ``ball:<joint>``, ``dof:<joint>:<axis>``)."""
    return [":".join(entry) for entry in layout]


def layout_from_tokens(tokens: list[str]) -> list[tuple]:
    entries = []
    for token in tokens:
        kind, _, rest = token.partition(":")
        entries.append((kind, *rest.rsplit(":", 1)) if kind == "dof" else (kind, rest))
    return entries


def keyframe_arrays(scene: PhysicsScene, key: Keyframe, layout: list) -> tuple[list, list, list]:
    """(qpos, qvel, ctrl) of ``key``; what it leaves out is at rest."""
    qpos, qvel = [], []
    for entry in layout:
        if entry[0] == "free":
            pose = key.root_poses.get(entry[1]) or scene.body(entry[1]).pose
            linear, angular = key.root_velocities.get(entry[1], ((0.0,) * 3, (0.0,) * 3))
            qpos += [*pose.pos, *pose.rot]
            qvel += [*linear, *angular]
        elif entry[0] == "ball":
            qpos += list(key.ball_rotations.get(entry[1], _ZERO_QUAT))
            qvel += [0.0, 0.0, 0.0]
        else:
            qpos.append(key.joint_positions.get(entry[1:], _reference(scene, entry)))
            qvel.append(key.joint_velocities.get(entry[1:], 0.0))
    ctrl = [key.controls.get(name, 0.0) for name in control_order(scene)]
    return qpos, qvel, ctrl


def _reference(scene: PhysicsScene, entry: tuple) -> float:
    """The rest coordinate of a ("dof", joint, axis) entry: MuJoCo's qpos0, the DOF's ``reference``."""
    joint = scene.joint(entry[1])
    dof = next((d for d in joint.dofs if d.axis.value == entry[2]), None) if joint is not None else None
    return dof.reference if dof is not None else 0.0


def keyframe_from_arrays(scene: PhysicsScene, name: str, qpos: list, qvel: list, ctrl: list,
                         layout: list, controls: Optional[list] = None) -> Keyframe:
    """The key of MuJoCo arrays, keeping only what is not at rest. ``controls``: the actuator names
    ``ctrl`` is in (None: :func:`control_order`)."""
    key = Keyframe(name=name)
    p = v = 0
    for entry in layout:
        if entry[0] == "free":
            if p + 7 <= len(qpos) and scene.body(entry[1]) is not None:
                pose = Pose(pos=tuple(qpos[p:p + 3]), rot=tuple(qpos[p + 3:p + 7]))
                if not poses_close(pose, scene.body(entry[1]).pose, 1e-9, 1e-12):
                    key.root_poses[entry[1]] = pose
            if v + 6 <= len(qvel) and any(qvel[v:v + 6]):
                key.root_velocities[entry[1]] = (tuple(qvel[v:v + 3]), tuple(qvel[v + 3:v + 6]))
            p, v = p + 7, v + 6
        elif entry[0] == "ball":
            if p + 4 <= len(qpos) and tuple(qpos[p:p + 4]) != _ZERO_QUAT:
                key.ball_rotations[entry[1]] = tuple(qpos[p:p + 4])
            p, v = p + 4, v + 3
        else:
            if p < len(qpos) and qpos[p] != _reference(scene, entry):
                key.joint_positions[entry[1:]] = qpos[p]
            if v < len(qvel) and qvel[v]:
                key.joint_velocities[entry[1:]] = qvel[v]
            p, v = p + 1, v + 1
    key.controls = {n: c for n, c in zip(controls or control_order(scene), ctrl) if c}
    return key


# ------------------------------------------------------------------------------------------ writing
_DEFAULT_CONTACT = ContactParams()


def write_contact_params(prim, shape) -> None:
    """On a collider's prim (or recording), whose MjcCollisionAPI the writer applies: its MuJoCo
    contact parameters that differ from MuJoCo's defaults, and its margin and gap."""
    contact = shape.contact
    if contact is None and not shape.contact_margin and not shape.contact_gap:
        return  # most colliders: MuJoCo's defaults, nothing to author
    contact = contact or _DEFAULT_CONTACT
    for name, type_name, value, default in (
            ("condim", T.Int, contact.condim, 3), ("priority", T.Int, contact.priority, 0),
            ("solref", T.DoubleArray, tuple(contact.solref), DEFAULT_SOLREF),
            ("solimp", T.DoubleArray, tuple(contact.solimp), DEFAULT_SOLIMP),
            ("solmix", T.Double, contact.solmix, 1.0), ("margin", T.Double, shape.contact_margin, 0.0),
            ("gap", T.Double, shape.contact_gap, 0.0)):
        if value != default:
            value = Vt.DoubleArray(list(value)) if type_name == T.DoubleArray else value
            prim.set(f"mjc:{name}", type_name, value, uniform=True)


def write_mujoco_model(writer) -> None:
    """Everything of this module for ``writer`` (a ``_LayerWriter`` whose bodies, joints, colliders
    and actuators are written: its ``body_paths``, ``joint_paths``, ``shape_paths``)."""
    _ModelWriter(writer).write()


class _ModelWriter:
    def __init__(self, writer):
        self.w, self.scene, self.T = writer, writer.scene, T
        self.site_paths: dict[str, Sdf.Path] = {}
        self.camera_paths: dict[str, Sdf.Path] = {}
        self.tendon_paths: dict[str, Sdf.Path] = {}
        self.object_paths = getattr(writer, "object_paths", None) or {}

    def write(self) -> None:
        self._drop_objects("sensor", [sensor.name for sensor in self.scene.sensors])
        self._write_options()
        self._write_names()
        for site in self.scene.sites:
            self._write_site(site)
        for camera in self.scene.cameras:
            self._write_camera(camera)
        for light in self.scene.lights:
            self._write_light(light)
        self._write_equalities()
        self._write_spatial_tendons()
        self._write_tendon_equalities()
        self._write_frame_actuators()
        self._write_keyframes()
        self._write_sensors()
        write_isaac_sensors(self)  # beside the mjc: sensors, in Isaac Sim's sensor schema
        self._write_pairs()

    # -- helpers
    def _parent(self, body: Optional[str]) -> Sdf.Path:
        if body is not None and body in self.w.body_paths:
            return self.w.body_paths[body]
        self.static = getattr(self, "static", None) or self._scope(D.STATIC_SCOPE, "Xform")
        return self.static

    def _scope(self, name: str, type_name: str = "Scope") -> Sdf.Path:
        existing = self.w.root.AppendChild(name)
        if self.w.layer.GetPrimAtPath(existing) is not None:
            return existing
        return self.w.scope(name, type_name)

    def _physics_scope(self) -> Sdf.Path:
        return physics_scope(self.w)

    def _spec_prim(self, path: Sdf.Path):
        """A :class:`Prim` for the spec at ``path`` as it is, its applied schemas kept."""
        spec = self.w.layer.GetPrimAtPath(path)
        prim = Prim.existing(self.w.layer, path, spec, self.w.resolve)
        prim.schemas = list(spec.GetInfo("apiSchemas").prependedItems) if spec.HasInfo("apiSchemas") else []
        return prim

    def _set_local_pose(self, prim, pose: Pose, scale=None) -> None:
        set_pose(prim, pose, scale)

    # -- options, contact parameters, names
    def _write_options(self) -> None:
        options, default = self.scene.settings.mujoco, SCHEMA_OPTIONS
        if options == MuJoCoOptions():  # no MjcSceneAPI: a reader keeps Articula's defaults
            return
        T = self.T
        changed = [(f, getattr(options, f)) for f in _OPTIONS if getattr(options, f) != getattr(default, f)]
        flags = [(name, False) for name in options.disabled] + [(name, True) for name in options.enabled]
        scene_path = next((p for p in self._root_children() if self.w.layer.GetPrimAtPath(p).typeName
                           == "PhysicsScene"), None)
        if scene_path is None:
            return
        prim = self._spec_prim(scene_path)
        prim.apply(SCENE_API)
        types = {"token": T.Token, "float": T.Double, "int": T.Int, "vec3": T.Double3,
                 "floats": T.DoubleArray}
        for field, value in changed:
            attr, kind = _OPTIONS[field]
            value = Gf.Vec3d(*value) if kind == "vec3" else (Vt.DoubleArray(list(value)) if kind == "floats"
                                                             else value)
            prim.set(f"mjc:option:{attr}", types[kind], value, uniform=True)
        for name, value in flags:
            prim.set(f"mjc:flag:{name}", T.Bool, value, uniform=True)
        prim.done()

    def _root_children(self) -> list[Sdf.Path]:
        spec = self.w.layer.GetPrimAtPath(self.w.root)
        return [child.path for child in spec.nameChildren] if spec is not None else []

    def _write_names(self) -> None:
        T = self.T
        for joint in self.scene.joints:
            path = self.w.joint_paths.get(joint.name)
            named = [d for d in joint.dofs if d.name]
            if path is not None and named:
                prim = self._spec_prim(path)
                prim.set(DOF_NAMES_ATTR, T.StringArray, Vt.StringArray([d.name for d in named]),
                         custom=True, uniform=True)
                prim.set(DOF_NAMES_ATTR + ":axes", T.TokenArray, Vt.TokenArray([d.axis.value for d in named]),
                         custom=True, uniform=True)
            if path is not None:
                self._write_joint_groups(path, joint)
        for body in self.scene.bodies:
            path = self.w.body_paths.get(body.name)
            if path is not None and body.free_joint_name:
                self._spec_prim(path).set(FREE_JOINT_NAME_ATTR, T.String, body.free_joint_name, custom=True,
                                          uniform=True)
            if path is not None and any(body.free_joint_dynamics):
                prim = self._spec_prim(path)
                for attr, value in zip(FREE_JOINT_DYNAMICS_ATTRS, body.free_joint_dynamics):
                    if value:
                        prim.set(attr, T.Double, float(value), custom=True, uniform=True)

    def _write_joint_groups(self, path: Sdf.Path, joint) -> None:
        groups = [d.group for d in joint.dofs]
        if not any(groups):
            return
        if len(set(groups)) == 1:
            self._spec_prim(path).set(JOINT_GROUP, self.T.Int, int(groups[0]), custom=True, uniform=True)
        else:
            self._spec_prim(path).set(DOF_GROUPS_ATTR, self.T.IntArray, Vt.IntArray(groups), custom=True,
                                      uniform=True)

    # -- sites, cameras, lights
    def _named_path(self, parent: Sdf.Path, name: str) -> Sdf.Path:
        return self.w.names.child(parent, name, self.w.prim_name(name))

    def _write_site(self, site: Site) -> None:
        T = self.T
        path = self._replace_object("site", site.name, site.body)
        pose = self._pose_at(path, site.body, site.pose)
        prim = self.w.prim(path, _SITE_PRIMS[site.kind], site.name)
        size, scale = site.size, None
        if site.kind == SiteKind.SPHERE:
            prim.set("radius", T.Double, float(size[0]))
        elif site.kind == SiteKind.ELLIPSOID:
            scale = tuple(size)
            prim.set("radius", T.Double, 1.0)
            prim.set(SITE_KIND_ATTR, T.Token, site.kind.value, custom=True, uniform=True)
        elif site.kind == SiteKind.BOX:
            scale = tuple(size)  # a Cube of size 2: the scale is the half extents
        else:
            prim.set("radius", T.Double, float(size[0]))
            prim.set("height", T.Double, 2.0 * float(size[1]))
            prim.set("axis", T.Token, "Z", uniform=True)
        self._set_local_pose(prim, pose, scale)
        prim.set("purpose", T.Token, "guide", uniform=True)
        prim.set("primvars:displayColor", T.Color3fArray, Vt.Vec3fArray([Gf.Vec3f(*site.color[:3])]))
        prim.set("primvars:displayOpacity", T.FloatArray, Vt.FloatArray([site.color[3]]))
        prim.apply(SITE_API, NEWTON_SITE_API)
        if site.group:
            prim.set("mjc:group", T.Int, int(site.group), uniform=True)
        prim.done()
        self.site_paths[site.name] = path

    def _blender_path(self, kind: str, name: str) -> Optional[Sdf.Path]:
        """The prim Blender wrote for the ``kind`` (site, camera...) ``name``: its object's (the camera
        ``head`` is the object ``head.001`` beside the body ``head``)."""
        return self.object_paths.get(self.scene.object_names.get(f"{kind}:{name}", name))

    def _blender_object(self, kind: str, name: str) -> Optional[Sdf.PrimSpec]:
        """The prim Blender wrote for the object ``name`` (an Empty's Xform), if it is no body's."""
        path = self._blender_path(kind, name)
        spec = self.w.layer.GetPrimAtPath(path) if path is not None else None
        if spec is None or path in self.w.body_paths.values() or path in self.w.joint_paths.values():
            return None
        return spec

    def _drop_objects(self, kind: str, names: list[str]) -> None:
        """Blender's prims of objects that stand for what this module writes elsewhere (a sensor's
        Empty: the sensor goes to the Sensors scope), where nothing hangs below them."""
        for name in names:
            spec = self._blender_object(kind, name)
            if spec is not None and not spec.nameChildren:
                del self.w.layer.GetPrimAtPath(spec.path.GetParentPath()).nameChildren[spec.name]

    def _replace_object(self, kind: str, name: str, body: Optional[str]) -> Sdf.Path:
        """The path for an element's own prim: where Blender wrote its object (that prim is replaced;
        one with children stays, the element's prim goes below it), else a new child of its body."""
        spec = self._blender_object(kind, name)
        if spec is None:
            return self._named_path(self._parent(body), name)
        path = spec.path
        if spec.nameChildren:
            return self._named_path(path, name)
        del self.w.layer.GetPrimAtPath(path.GetParentPath()).nameChildren[spec.name]
        return path

    def _pose_at(self, path: Sdf.Path, body: Optional[str], pose: Pose) -> Pose:
        """``pose`` (in ``body``'s frame) as the local pose of a prim at ``path``."""
        parent = path.GetParentPath()
        body_path = self.w.body_paths.get(body) if body is not None else None
        if parent == body_path or not hasattr(self.w, "world"):  # the core writer: under its body
            return pose
        world = self.w.world(body_path) if body_path is not None else Gf.Matrix4d(1.0)
        return pose_in(self.w.world(parent), pose_of(pose_matrix(pose) * world))

    def _write_camera(self, camera: Camera) -> None:
        T = self.T
        existing = self._blender_prim("camera", camera.name, "Camera")
        if existing is not None:
            self._name_blender_prim(existing, camera.name)
            if camera.mode in (CameraMode.TARGETBODY, CameraMode.TARGETBODYCOM):
                self._authored_camera_pose(camera)
            prim = self._spec_prim(existing)
        else:
            path = self._named_path(self._parent(camera.body), camera.name)
            prim = self.w.prim(path, "Camera", camera.name)
            self._set_local_pose(prim, camera.pose)
            aperture = 20.955
            width, height = camera.resolution
            prim.set("verticalAperture", T.Float, aperture)
            aspect = width / height if width > 1 and height > 1 else 1.0
            prim.set("horizontalAperture", T.Float, aperture * aspect)
            prim.set("focalLength", T.Float, aperture / (2.0 * math.tan(camera.fovy / 2.0)))
            prim.set("clippingRange", T.Float2, Gf.Vec2f(camera.clip_start, camera.clip_end))
        if camera.mode != CameraMode.FIXED:
            prim.set(CAMERA + "mode", T.Token, camera.mode.value, custom=True, uniform=True)
        if camera.target is not None and camera.target in self.w.body_paths:
            prim.rel(CAMERA + "target", [self.w.body_paths[camera.target]])
        if tuple(camera.resolution) != (1, 1):
            prim.set(CAMERA + "resolution", T.Int2, Gf.Vec2i(*camera.resolution), custom=True, uniform=True)
        prim.done()
        self.camera_paths[camera.name] = prim.path

    def _authored_camera_pose(self, camera: Camera) -> None:
        """Blender wrote a target-body camera as its Track To turns it: its own pose instead."""
        path = self._blender_path("camera", camera.name)
        spec = self.w.layer.GetPrimAtPath(path)
        for prop in [p for p in spec.properties if p.name.startswith("xformOp")]:
            spec.RemoveProperty(prop)
        self._set_local_pose(self._spec_prim(path), self._pose_at(path, camera.body, camera.pose))

    def _blender_prim(self, kind: str, name: str, type_name: str) -> Optional[Sdf.Path]:
        """The prim of ``type_name`` Blender's exporter wrote for the object ``name`` (at its path or
        right under it), if any."""
        path = self._blender_path(kind, name)
        spec = self.w.layer.GetPrimAtPath(path) if path is not None else None
        if spec is None:
            return None
        if spec.typeName == type_name or (type_name == "Light" and spec.typeName.endswith("Light")):
            return path
        for child in spec.nameChildren:
            if child.typeName == type_name or (type_name == "Light" and child.typeName.endswith("Light")):
                return child.path
        return None

    def _name_blender_prim(self, path: Sdf.Path, name: str) -> None:
        """Blender names a camera's or light's prim after its data (``head_cam_001`` where another
        camera's data took ``head_cam``): the object's name goes on as the prim's display name, which
        readers take as the item's name."""
        spec = self.w.layer.GetPrimAtPath(path)
        if spec is not None and spec.name != name:
            spec.SetInfo("displayName", name)

    def _write_light(self, light: Light) -> None:
        T = self.T
        existing = self._blender_prim("light", light.name, "Light")
        if existing is not None:
            self._name_blender_prim(existing, light.name)
            prim = self._spec_prim(existing)
        else:
            type_name = "DistantLight" if light.kind == LightKind.DIRECTIONAL else "SphereLight"
            path = self._named_path(self._parent(light.body), light.name)
            prim = self.w.prim(path, type_name, light.name)
            self._set_local_pose(prim, light.pose)
            prim.set("inputs:color", T.Color3f, Gf.Vec3f(*light.color))
            if type_name == "SphereLight":
                prim.set("treatAsPoint", T.Bool, True)
            if light.kind == LightKind.SPOT:
                prim.apply("ShapingAPI")
                prim.set("inputs:shaping:cone:angle", T.Float, math.degrees(light.cutoff))
                prim.set("inputs:shaping:focus", T.Float, float(light.exponent))
            prim.apply("ShadowAPI")
            prim.set("inputs:shadow:enable", T.Bool, bool(light.cast_shadow))
        prim.set(LIGHT + "kind", T.Token, light.kind.value, custom=True, uniform=True)
        prim.set(LIGHT + "attenuation", T.Double3, Gf.Vec3d(*light.attenuation), custom=True, uniform=True)
        # MuJoCo's own numbers, whatever a light's writer (Blender's) made of them in UsdLux
        prim.set(LIGHT + "cutoff", T.Double, float(light.cutoff), custom=True, uniform=True)
        prim.set(LIGHT + "exponent", T.Double, float(light.exponent), custom=True, uniform=True)
        prim.set(LIGHT + "castShadow", T.Bool, bool(light.cast_shadow), custom=True, uniform=True)
        prim.set(LIGHT + "color", T.Double3, Gf.Vec3d(*light.color), custom=True, uniform=True)
        if not light.active:
            prim.set(LIGHT + "active", T.Bool, False, custom=True, uniform=True)
        prim.done()

    # -- equalities
    def _write_equalities(self) -> None:
        if not self.scene.equalities:
            return
        scope = self._physics_scope()
        for equality in self.scene.equalities:
            self._write_equality(scope, equality)

    def _side(self, body: Optional[str], site: Optional[str]) -> Optional[Sdf.Path]:
        if site is not None and site in self.site_paths:
            return self.site_paths[site]
        if body is not None:
            return self.w.body_paths.get(body)
        return self.w.root  # the world: the converter points at the default prim

    def _write_equality(self, scope: Sdf.Path, equality: Equality) -> None:
        T = self.T
        weld = equality.kind == EqualityKind.WELD
        side0, side1 = self._side(equality.body0, equality.site0), self._side(equality.body1, equality.site1)
        if side0 is None or side1 is None:
            return  # reference_problems names it
        path = self._named_path(scope, equality.name)
        prim = self.w.prim(path, "PhysicsFixedJoint" if weld else "PhysicsSphericalJoint", equality.name)
        prim.rel("physics:body0", [side0])
        prim.rel("physics:body1", [side1])
        frame0, frame1 = self._equality_frames(equality)
        prim.set("physics:localPos0", T.Point3f, Gf.Vec3f(*frame0.pos))
        prim.set("physics:localRot0", T.Quatf, Gf.Quatf(*frame0.rot))
        prim.set("physics:localPos1", T.Point3f, Gf.Vec3f(*frame1.pos))
        prim.set("physics:localRot1", T.Quatf, Gf.Quatf(*frame1.rot))
        prim.set("physics:excludeFromArticulation", T.Bool, True, uniform=True)
        if not equality.active:
            prim.set("physics:jointEnabled", T.Bool, False)
        prim.apply(WELD_API if weld else CONNECT_API)
        prim.set("mjc:solref", T.DoubleArray, Vt.DoubleArray(list(equality.solref)), uniform=True)
        prim.set("mjc:solimp", T.DoubleArray, Vt.DoubleArray(list(equality.solimp)), uniform=True)
        if weld:
            prim.set("mjc:torqueScale", T.Float, float(equality.torque_scale), uniform=True)
        prim.done()

    def _write_tendon_equalities(self) -> None:
        if not self.scene.tendon_equalities:
            return
        scope, tendons = self._physics_scope(), self._all_tendon_paths()
        for equality in self.scene.tendon_equalities:
            first, second = tendons.get(equality.tendon0), tendons.get(equality.tendon1)
            if first is None or (equality.tendon1 is not None and second is None):
                continue  # reference_problems names it
            prim = self.w.prim(self._named_path(scope, equality.name), "", equality.name)
            prim.apply("MjcEqualityAPI")
            prim.set(TENDON_EQUALITY + "type", T.Token, "tendon", custom=True, uniform=True)
            prim.rel(TENDON_EQUALITY + "tendon", [first])
            if second is not None:
                prim.rel("mjc:target", [second])
            prim.set(TENDON_EQUALITY + "polycoef", T.DoubleArray, Vt.DoubleArray(list(equality.polycoef)),
                     custom=True, uniform=True)
            if not equality.active:
                prim.set(TENDON_EQUALITY + "active", T.Bool, False, custom=True, uniform=True)
            prim.set("mjc:solref", T.DoubleArray, Vt.DoubleArray(list(equality.solref)), uniform=True)
            prim.set("mjc:solimp", T.DoubleArray, Vt.DoubleArray(list(equality.solimp)), uniform=True)
            prim.done()

    def _equality_frames(self, equality: Equality) -> tuple[Pose, Pose]:
        """The joint frames (in body0's and body1's frames, or the sites') holding the equality."""
        if equality.site0 is not None or equality.site1 is not None:
            return Pose(), Pose()
        if equality.kind == EqualityKind.CONNECT:
            anchor0 = equality.anchor
            world = pose_mul(self._body_pose(equality.body0), Pose(pos=anchor0))
            return Pose(pos=anchor0), pose_relative(self._body_pose(equality.body1), world)
        relative = equality.relative_pose or rest_relative_pose(self.scene, equality)
        frame1 = Pose(pos=equality.anchor)
        return pose_mul(relative, frame1), frame1

    def _body_pose(self, name: Optional[str]) -> Pose:
        body = self.scene.body(name) if name is not None else None
        return body.pose if body is not None else Pose()

    # -- spatial tendons and actuators on frames
    def _write_spatial_tendons(self) -> None:
        if not self.scene.spatial_tendons:
            return
        scope = self._physics_scope()
        for tendon in self.scene.spatial_tendons:
            path = self._write_spatial_tendon(scope, tendon)
            if path is not None:
                self.tendon_paths[tendon.name] = path

    def _wrap_path(self, wrap: TendonWrap) -> Optional[Sdf.Path]:
        if wrap.kind == WrapKind.SITE:
            return self.site_paths.get(wrap.target)
        return self.w.shape_paths.get(wrap.target)

    def _write_spatial_tendon(self, scope: Sdf.Path, tendon: SpatialTendon) -> Optional[Sdf.Path]:
        T = self.T
        targets, indices, segments, divisors, sides, side_indices = [], [], [], [1.0], [], []
        for k, wrap in enumerate(tendon.path):
            if wrap.kind == WrapKind.PULLEY:
                if k == 0:
                    divisors[0] = wrap.divisor
                else:
                    divisors.append(wrap.divisor)
                continue
            target = self._wrap_path(wrap)
            if target is None:
                return None  # validation names the missing site or collider
            if target not in targets:
                targets.append(target)
            indices.append(targets.index(target))
            segments.append(len(divisors) - 1)
            side = self.site_paths.get(wrap.side_site) if wrap.side_site else None
            if side is not None and side not in sides:
                sides.append(side)
            side_indices.append(sides.index(side) if side is not None else -1)
        prim = self.w.prim(self._named_path(scope, tendon.name), TENDON_TYPE, tendon.name)
        prim.set("mjc:type", T.Token, "spatial", uniform=True)
        prim.rel("mjc:path", targets)
        prim.set("mjc:path:indices", T.IntArray, Vt.IntArray(indices), uniform=True)
        prim.set("mjc:path:segments", T.IntArray, Vt.IntArray(segments), uniform=True)
        prim.set("mjc:path:divisors", T.DoubleArray, Vt.DoubleArray(divisors), uniform=True)
        if sides:
            prim.rel("mjc:sideSites", sides)
            prim.set("mjc:sideSites:indices", T.IntArray, Vt.IntArray(side_indices), uniform=True)
        if math.isfinite(tendon.lower) or math.isfinite(tendon.upper):
            prim.set("mjc:limited", T.Token, "true", uniform=True)
            prim.set("mjc:range:min", T.Double, _finite(tendon.lower), uniform=True)
            prim.set("mjc:range:max", T.Double, _finite(tendon.upper), uniform=True)
        scalars = (("mjc:stiffness", tendon.stiffness, 0.0), ("mjc:damping", tendon.damping, 0.0),
                   ("mjc:width", tendon.width, 0.003))
        for attr, value, default in scalars:
            if value != default:
                prim.set(attr, T.Double, float(value), uniform=True)
        write_tendon_friction_and_spring(prim, tendon)
        if tuple(tendon.color) != (0.5, 0.5, 0.5, 1.0):
            prim.set("mjc:rgba", T.Color4f, Gf.Vec4f(*tendon.color), uniform=True)
        prim.done()
        return prim.path

    def _frame_target(self, actuator: Actuator) -> Optional[Sdf.Path]:
        """The prim an actuator on a frame acts on; a floating root's free joint (no prim) is its body's."""
        kind, name = actuator.target_kind, actuator.target
        found = {"site": self.site_paths, "slidercrank": self.site_paths, "body": self.w.body_paths,
                 "joint": self.w.joint_paths, "jointinparent": self.w.joint_paths,
                 "tendon": self.tendon_paths}.get(kind, {})
        if name not in found and kind in ("joint", "jointinparent"):
            body = next((b for b in self.scene.bodies if b.free_joint_name == name), None)
            return self.w.body_paths.get(body.name) if body is not None else None
        return found.get(name)

    def _write_frame_actuators(self) -> None:
        actuators = list(self.scene.frame_actuators)
        listed = {a.name for a in actuators}
        for tendon in self.scene.spatial_tendons:  # a tendon's own list, where the file put them there
            actuators += [dataclasses.replace(a, target_kind="tendon", target=tendon.name)
                          for a in tendon.actuators if a.name not in listed]
        if not actuators:
            return
        scope = self._physics_scope()
        for actuator in actuators:
            target = self._frame_target(actuator)
            no_slider = actuator.target_kind == "slidercrank" and actuator.slider_site not in self.site_paths
            if target is None or no_slider:
                continue  # reference_problems names it
            written = dataclasses.replace(actuator, gear=1.0) if actuator.gear_vector else actuator
            prim = write_actuator(self.w, scope, written, target, finish=False)
            if actuator.reference_site and actuator.reference_site in self.site_paths:
                prim.rel("mjc:refSite", [self.site_paths[actuator.reference_site]])
            if actuator.slider_site in self.site_paths:  # a slider-crank: the crank's site is the target
                prim.rel("mjc:sliderSite", [self.site_paths[actuator.slider_site]])
                prim.set("mjc:crankLength", self.T.Double, float(actuator.crank_length), uniform=True)
            if actuator.gear_vector:
                from .actuation import GEAR_SIZE, _padded
                gear = _padded(actuator.gear_vector, GEAR_SIZE)
                prim.set("mjc:gear", self.T.DoubleArray, gear, uniform=True)
            prim.set("articula:transmission", self.T.Token, actuator.target_kind, custom=True, uniform=True)
            prim.done()

    # -- keyframes, sensors, pairs
    def _write_keyframes(self) -> None:
        if not self.scene.keyframes:
            return
        T = self.T
        scope = self._scope(KEYFRAMES_SCOPE)
        layout = keyframe_layout(self.scene)
        for key in self.scene.keyframes:
            qpos, qvel, ctrl = keyframe_arrays(self.scene, key, layout)
            prim = self.w.prim(self._named_path(scope, key.name), KEYFRAME_TYPE, key.name)
            prim.set("mjc:qpos", T.DoubleArray, Vt.DoubleArray(qpos))
            prim.set("mjc:qvel", T.DoubleArray, Vt.DoubleArray(qvel))
            prim.set(LAYOUT_ATTR, T.StringArray, Vt.StringArray(layout_tokens(layout)), custom=True,
                     uniform=True)
            if ctrl:
                prim.set("mjc:ctrl", T.DoubleArray, Vt.DoubleArray(ctrl))
                prim.set(CONTROLS_ATTR, T.StringArray, Vt.StringArray(control_order(self.scene)), custom=True,
                         uniform=True)
            if key.time:
                prim.set("mjc:time", T.Double, float(key.time), custom=True)
            prim.done()

    def _object_path(self, kind: Optional[str], name: Optional[str]) -> Optional[Sdf.Path]:
        table = {"site": self.site_paths, "joint": self.w.joint_paths, "body": self.w.body_paths,
                 "shape": self.w.shape_paths, "camera": self.camera_paths, "tendon": self._all_tendon_paths(),
                 "actuator": self._actuator_paths()}.get(_SENSOR_TARGET_KINDS.get(kind or "", ""), {})
        return table.get(name) if name is not None else None

    def _all_tendon_paths(self) -> dict:
        paths = dict(self.tendon_paths)
        scope = self.w.layer.GetPrimAtPath(self.w.root.AppendChild("Physics"))
        for child in scope.nameChildren if scope is not None else ():
            if child.typeName == TENDON_TYPE:
                paths.setdefault(child.GetInfo("displayName") or child.name, child.path)
        return paths

    def _actuator_paths(self) -> dict:
        paths = {}
        scope = self.w.layer.GetPrimAtPath(self.w.root.AppendChild("Physics"))
        for child in scope.nameChildren if scope is not None else ():
            if child.typeName == "MjcActuator":
                paths[child.GetInfo("displayName") or child.name] = child.path
        return paths

    def _write_sensors(self) -> None:
        if not self.scene.sensors:
            return
        T = self.T
        scope = self._scope(SENSORS_SCOPE)
        for sensor in self.scene.sensors:
            prim = self.w.prim(self._named_path(scope, sensor.name), "", sensor.name)
            prim.set(SENSOR + "type", T.Token, sensor.kind, custom=True, uniform=True)
            for role, name, kind in (("target", sensor.target, sensor.target_kind),
                                     ("reference", sensor.reference, sensor.reference_kind)):
                if kind is not None:
                    prim.set(f"{SENSOR}{role}Type", T.Token, kind, custom=True, uniform=True)
                if name is None:
                    continue
                path = self._object_path(kind, name)
                if path is not None:
                    prim.rel(SENSOR + role, [path])
                else:
                    prim.set(f"{SENSOR}{role}Name", T.String, name, custom=True, uniform=True)
            if sensor.noise:
                prim.set(SENSOR + "noise", T.Double, float(sensor.noise), custom=True, uniform=True)
            if sensor.cutoff:
                prim.set(SENSOR + "cutoff", T.Double, float(sensor.cutoff), custom=True, uniform=True)
            for key, value in sensor.settings.items():
                prim.set(f"{SENSOR}setting:{key}", T.String, str(value), custom=True, uniform=True)
            prim.done()

    def _write_pairs(self) -> None:
        if not self.scene.contact_pairs:
            return
        T = self.T
        scope = self._scope(PAIRS_SCOPE)
        for pair in self.scene.contact_pairs:
            paths = [self.w.shape_paths.get(pair.shape0), self.w.shape_paths.get(pair.shape1)]
            if None in paths:
                continue
            prim = self.w.prim(self._named_path(scope, pair.name), "", pair.name)
            prim.rel(PAIR + "geom0", [paths[0]])
            prim.rel(PAIR + "geom1", [paths[1]])
            prim.set(PAIR + "condim", T.Int, int(pair.condim), custom=True, uniform=True)
            for attr, values in (("friction", pair.friction), ("solref", pair.solref),
                                 ("solimp", pair.solimp)):
                prim.set(PAIR + attr, T.DoubleArray, Vt.DoubleArray(list(values)), custom=True, uniform=True)
            prim.set(PAIR + "margin", T.Double, float(pair.margin), custom=True, uniform=True)
            prim.set(PAIR + "gap", T.Double, float(pair.gap), custom=True, uniform=True)
            prim.done()


def _finite(value: float) -> float:
    return value if math.isfinite(value) else math.copysign(1e10, value)


def reference_problems(scene: PhysicsScene) -> list[str]:
    """One line per MuJoCo item that names something the description does not have (it is left out
    of the file): a site's body, an equality's bodies, sites or tendons, a tendon's sites and colliders,
    a pair's colliders, an actuator's frame, a camera's target body."""
    bodies, sites = {b.name for b in scene.bodies}, {s.name for s in scene.sites}
    shapes, joints = {s.name for s in scene.shapes}, {j.name for j in scene.joints}
    tendons = {t.name for t in scene.spatial_tendons}
    free_joints = {b.free_joint_name for b in scene.bodies if b.free_joint_name}
    found = []

    def missing(what: str, name: Optional[str], among: set, kind: str) -> None:
        if name is not None and name not in among:
            found.append(f"{what}: {kind} '{name}' does not exist; left out of the file")

    for site in scene.sites:
        missing(f"site '{site.name}'", site.body, bodies, "body")
    for camera in scene.cameras:
        missing(f"camera '{camera.name}'", camera.body, bodies, "body")
        missing(f"camera '{camera.name}'", camera.target, bodies, "target body")
    for equality in scene.equalities:
        for body, site in ((equality.body0, equality.site0), (equality.body1, equality.site1)):
            missing(f"equality '{equality.name}'", site, sites, "site")
            if site is None:
                missing(f"equality '{equality.name}'", body, bodies, "body")
    all_tendons = tendons | {t.name for t in scene.tendons}
    for equality in scene.tendon_equalities:
        for tendon_name in (equality.tendon0, equality.tendon1):
            missing(f"tendon equality '{equality.name}'", tendon_name, all_tendons, "tendon")
    for tendon in scene.spatial_tendons:
        for wrap in tendon.path:
            among, kind = (sites, "site") if wrap.kind == WrapKind.SITE else (shapes, "collider")
            if wrap.kind != WrapKind.PULLEY:
                missing(f"spatial tendon '{tendon.name}'", wrap.target, among, kind)
            missing(f"spatial tendon '{tendon.name}'", wrap.side_site, sites, "side site")
    for pair in scene.contact_pairs:
        for shape in (pair.shape0, pair.shape1):
            missing(f"contact pair '{pair.name}'", shape, shapes, "collider")
    any_joint = joints | free_joints
    targets = {"site": sites, "body": bodies, "joint": any_joint, "jointinparent": any_joint,
               "tendon": tendons, "slidercrank": sites}
    for actuator in scene.frame_actuators:
        missing(f"actuator '{actuator.name}'", actuator.target, targets.get(actuator.target_kind, set()),
                actuator.target_kind or "target")
        if actuator.target_kind == "slidercrank":
            missing(f"actuator '{actuator.name}'", actuator.slider_site or "(none)", sites, "slider site")
    return found


def rest_relative_pose(scene: PhysicsScene, equality: Equality) -> Pose:
    """body1's rest pose in body0's frame (the world's when None)."""
    def pose(name):
        body = scene.body(name) if name is not None else None
        return body.pose if body is not None else Pose()
    return pose_relative(pose(equality.body0), pose(equality.body1))


# ------------------------------------------------------------------------------------------ reading
class MujocoModelReader:
    """Reads what this module writes once bodies, joints and colliders are read (``reader`` is the
    stage reader): sites first (actuators and tendons point at them), then the rest."""

    def __init__(self, reader, prims: list, type_names: list):
        """``type_names``: each prim's type name (the reader's index of ``prims``). One pass sorts the
        prims this module reads by kind; applied schemas (registered or not) are read only where one
        of this module's can be: gprims and Xforms (sites), weld/connect joints, colliders."""
        self.r, self.prims, self.scene = reader, prims, reader.scene
        self.schemas: dict[Usd.Prim, frozenset] = {}
        kinds = ("site", "camera", "light", "tendon", "equality", "keyframe", "typeless", "isaac_sensor")
        self.by_kind: dict[str, list] = {kind: [] for kind in kinds}
        for prim, type_name in zip(prims, type_names):
            kind = _READ_KINDS.get(type_name)
            if kind is None:
                continue
            if kind in ("site", "equality"):
                names = self._schemas(prim)
                if kind == "equality" and not names.isdisjoint(EQUALITY_APIS) or kind == "site" and (
                        SITE_API in names or NEWTON_SITE_API in names):
                    self.by_kind[kind].append(prim)
            else:
                self.by_kind[kind].append(prim)
        self.site_paths: dict[Sdf.Path, str] = {}
        self.site_bodies: dict[str, Optional[str]] = {}
        self.spatial_paths: dict[Sdf.Path, SpatialTendon] = {}
        self._equality_set = frozenset(self.by_kind["equality"])

    def _schemas(self, prim: Usd.Prim) -> frozenset:
        names = self.schemas.get(prim)
        if names is None:
            listop = prim.GetMetadata("apiSchemas") if prim.HasAuthoredMetadata("apiSchemas") else None
            names = self.schemas[prim] = frozenset(listop.ApplyOperations([])) if listop is not None \
                else frozenset()
        return names

    def has(self, prim: Usd.Prim, schema: str) -> bool:
        return schema in self._schemas(prim)

    def is_equality(self, prim: Usd.Prim) -> bool:
        """A joint prim standing for a MuJoCo weld or connect (read as an Equality, not a joint)."""
        return prim in self._equality_set

    def read_frames(self) -> None:
        """Names, sites, cameras, lights, spatial tendons: before the actuators that may point at them."""
        self._read_names()
        for prim in self.by_kind["site"]:
            self._read_site(prim)
        for prim in self.by_kind["camera"]:
            self._read_camera(prim)
        for prim in self.by_kind["light"]:
            self._read_light(prim)
        for prim in self.by_kind["tendon"]:
            if self.r.value(prim, "mjc:type", "token", "spatial") == "spatial":
                self._read_spatial_tendon(prim)

    def frame_targets(self) -> dict[Sdf.Path, tuple[str, str]]:
        """Prim path -> (MuJoCo transmission kind, name) of the sites, bodies and spatial tendons."""
        targets = {path: ("site", name) for path, name in self.site_paths.items()}
        targets.update({path: ("body", body.name) for path, body in self.r.body_by_path.items()})
        targets.update({path: ("tendon", tendon.name) for path, tendon in self.spatial_paths.items()})
        return targets

    def read_rest(self) -> None:
        """Options, contact parameters, names, equalities, keyframes, sensors, pairs (after actuators)."""
        self._read_options()
        self._read_contact_params()
        for prim in self.by_kind["equality"]:
            self._read_equality(prim)
        for prim in self.by_kind["keyframe"]:
            self._read_keyframe(prim)
        for prim in self.by_kind["typeless"]:
            if self.r.authored(prim, SENSOR + "type"):
                self._read_sensor(prim)
            elif self.r.value(prim, TENDON_EQUALITY + "type", "token", None) == "tendon":
                self._read_tendon_equality(prim)
            elif self.r.authored(prim, PAIR + "geom0"):
                self._read_pair(prim)
        read_isaac_sensors(self, self.by_kind["isaac_sensor"])  # after the mjc: sensors they may stand for

    # -- helpers
    def _floats(self, prim, name: str, default) -> tuple:
        value = self.r.value(prim, name, "floats", None)
        return tuple(value) if value is not None else tuple(default)

    def _names_by_path(self, kind: str) -> dict[Sdf.Path, str]:
        prefix = kind + ":"
        return {Sdf.Path(path): key[len(prefix):] for key, path in self.r.paths.items()
                if key.startswith(prefix)}

    def _target(self, prim: Usd.Prim, name: str) -> Optional[Sdf.Path]:
        targets = _targets(prim, name)
        return targets[0] if targets else None

    def _color(self, prim: Usd.Prim, default) -> tuple:
        colors = prim.GetAttribute("primvars:displayColor").Get() \
            if prim.HasAttribute("primvars:displayColor") else None
        if not colors:
            return default
        opacities = prim.GetAttribute("primvars:displayOpacity").Get() \
            if prim.HasAttribute("primvars:displayOpacity") else None
        rgb = [float(c) for c in colors[0]]
        return (rgb[0], rgb[1], rgb[2], float(opacities[0]) if opacities else 1.0)

    # -- options, contact parameters, names
    def _read_options(self) -> None:
        scene_prim = next((p for p in self.prims if p.GetTypeName() == "PhysicsScene"), None)
        if scene_prim is None:
            return
        options = self.scene.settings.mujoco = \
            copy.copy(SCHEMA_OPTIONS) if self.has(scene_prim, SCENE_API) else MuJoCoOptions()
        for field, (attr, kind) in _OPTIONS.items():
            value = self.r.value(scene_prim, f"mjc:option:{attr}", kind, None)
            if value is not None:
                setattr(options, field, tuple(value) if kind in ("floats", "vec3") else value)
        disabled, enabled = [], []
        for name in sorted(n for n in self.r._names(scene_prim) if n.startswith("mjc:flag:")):
            flag, value = name[len("mjc:flag:"):], self.r.value(scene_prim, name, "bool", None)
            if value is False and flag not in ENABLE_FLAGS:
                disabled.append(flag)
            elif value is True and flag in ENABLE_FLAGS:
                enabled.append(flag)
        options.disabled, options.enabled = tuple(disabled), tuple(enabled)

    def _read_contact_params(self) -> None:
        r = self.r
        for shape in self.scene.shapes:
            prim = r.shape_prims.get(shape.name)
            if prim is None or not self.has(prim, COLLISION_API):
                continue
            contact = ContactParams(
                condim=r.value(prim, "mjc:condim", "int", 3),
                priority=r.value(prim, "mjc:priority", "int", 0),
                solref=self._floats(prim, "mjc:solref", DEFAULT_SOLREF),
                solimp=self._floats(prim, "mjc:solimp", DEFAULT_SOLIMP),
                solmix=r.value(prim, "mjc:solmix", default=1.0))
            shape.contact = None if contact == ContactParams() else contact
            if not r.authored(prim, "newton:contactMargin"):
                shape.contact_margin = r.value(prim, "mjc:margin", default=0.0) * r.meters_per_unit
            if not r.authored(prim, "newton:contactGap"):
                shape.contact_gap = r.value(prim, "mjc:gap", default=0.0) * r.meters_per_unit

    def _read_names(self) -> None:
        r = self.r
        for joint in self.scene.joints:
            prim = r.stage.GetPrimAtPath(r.paths[f"joint:{joint.name}"])
            if r.authored(prim, DOF_NAMES_ATTR):
                names = list(prim.GetAttribute(DOF_NAMES_ATTR).Get() or [])
                axes = list(prim.GetAttribute(DOF_NAMES_ATTR + ":axes").Get() or [])
                for axis, name in zip(axes, names):
                    dof = joint.dof(axis) if axis in _AXES else None
                    if dof is not None:
                        dof.name = name or None
            self._read_joint_groups(prim, joint)
        for body in self.scene.bodies:
            prim = r.body_prims[body.name]
            if r.authored(prim, FREE_JOINT_NAME_ATTR):
                body.free_joint_name = prim.GetAttribute(FREE_JOINT_NAME_ATTR).Get() or None
            for attr, field_name in zip(FREE_JOINT_DYNAMICS_ATTRS, _FREE_JOINT_FIELDS):
                value = r.value(prim, attr, default=0.0, allow_inf=False)
                if value:
                    setattr(body, field_name, float(value))

    def _read_joint_groups(self, prim: Usd.Prim, joint) -> None:
        r = self.r
        group = r.value(prim, JOINT_GROUP, "int", 0)
        groups = []
        if r.authored(prim, DOF_GROUPS_ATTR):
            groups = list(prim.GetAttribute(DOF_GROUPS_ATTR).Get() or [])
        for k, dof in enumerate(joint.dofs):
            dof.group = int(groups[k]) if k < len(groups) else group

    # -- sites, cameras, lights
    def _read_site(self, prim: Usd.Prim) -> None:
        r = self.r
        body = r._owner_body(prim)
        pose, scale = r._local_matrix(prim, body)
        type_name = prim.GetTypeName()
        a = [abs(s) for s in scale]
        site = Site(name=r.unique_name("site", prim), body=body.name if body else None, pose=pose)
        if type_name == "Sphere":
            radius = r.value(prim, "radius", default=1.0)
            marked = r.value(prim, SITE_KIND_ATTR, "token", None) == SiteKind.ELLIPSOID.value
            if marked or max(a) - min(a) > 1e-6 * max(a):
                site.kind, site.size = SiteKind.ELLIPSOID, tuple(radius * s for s in a)
            else:
                site.size = (radius * a[0],) * 3
        elif type_name == "Cube":
            half = r.value(prim, "size", default=2.0) / 2.0
            site.kind, site.size = SiteKind.BOX, tuple(half * s for s in a)
        elif type_name in ("Capsule", "Cylinder"):
            axis = "XYZ".index(r.value(prim, "axis", "token", "Z"))
            if axis != 2:
                site.pose = pose_mul(site.pose, Pose(rot=_Z_TO_AXIS[axis]))
            across = max(a[k] for k in range(3) if k != axis)
            radius = r.value(prim, "radius", default=1.0) * across
            half = r.value(prim, "height", default=2.0) * a[axis] / 2.0
            site.kind = SiteKind.CAPSULE if type_name == "Capsule" else SiteKind.CYLINDER
            site.size = (radius, half, 0.005)
        site.size = _site_size(site.kind, site.size)
        site.color = self._color(prim, site.color)
        site.group = r.value(prim, "mjc:group", "int", 0)
        self.scene.sites.append(site)
        self.site_paths[prim.GetPath()] = site.name
        self.site_bodies[site.name] = site.body

    def _read_camera(self, prim: Usd.Prim) -> None:
        r = self.r
        body = r._owner_body(prim)
        pose, _ = r._local_matrix(prim, body)
        camera = Camera(name=r.unique_name("camera", prim), body=body.name if body else None, pose=pose)
        aperture = r.value(prim, "verticalAperture", default=15.2908)
        focal = r.value(prim, "focalLength", default=50.0)
        if focal > 0.0:
            camera.fovy = 2.0 * math.atan(aperture / (2.0 * focal))
        clipping = prim.GetAttribute("clippingRange").Get() if r.authored(prim, "clippingRange") else None
        if clipping is not None:
            camera.clip_start, camera.clip_end = float(clipping[0]), float(clipping[1])
        mode = r.value(prim, CAMERA + "mode", "token", None)
        if mode in CameraMode.__members__:
            camera.mode = CameraMode(mode)
        target = self._target(prim, CAMERA + "target")
        if target is not None and target in r.body_by_path:
            camera.target = r.body_by_path[target].name
        if r.authored(prim, CAMERA + "resolution"):
            camera.resolution = tuple(int(v) for v in prim.GetAttribute(CAMERA + "resolution").Get())
        self.scene.cameras.append(camera)

    def _read_light(self, prim: Usd.Prim) -> None:
        r = self.r
        body = r._owner_body(prim)
        pose, _ = r._local_matrix(prim, body)
        light = Light(name=r.unique_name("light", prim), body=body.name if body else None, pose=pose)
        kind = r.value(prim, LIGHT + "kind", "token", None)
        if kind in LightKind.__members__:
            light.kind = LightKind(kind)
        elif prim.GetTypeName() == "DistantLight":
            light.kind = LightKind.DIRECTIONAL
        else:
            light.kind = LightKind.SPOT if r.authored(prim, "inputs:shaping:cone:angle") else LightKind.POINT
        light.color = r.value(prim, LIGHT + "color", "vec3", None) or \
            r.value(prim, "inputs:color", "vec3", light.color)
        cone = r.value(prim, "inputs:shaping:cone:angle", default=math.degrees(light.cutoff))
        light.cutoff = r.value(prim, LIGHT + "cutoff", default=math.radians(cone))
        light.exponent = r.value(prim, LIGHT + "exponent", default=r.value(prim, "inputs:shaping:focus",
                                                                            default=light.exponent))
        light.attenuation = r.value(prim, LIGHT + "attenuation", "vec3", light.attenuation)
        light.cast_shadow = r.value(prim, LIGHT + "castShadow", "bool", r.value(prim, "inputs:shadow:enable",
                                                                                "bool", True))
        light.active = r.value(prim, LIGHT + "active", "bool", True)
        self.scene.lights.append(light)

    # -- spatial tendons
    def _read_spatial_tendon(self, prim: Usd.Prim) -> None:
        r = self.r
        targets = _targets(prim, "mjc:path")
        sides = _targets(prim, "mjc:sideSites")
        indices = [int(i) for i in self._floats(prim, "mjc:path:indices", range(len(targets)))]
        segments = [int(i) for i in self._floats(prim, "mjc:path:segments", [0] * len(indices))]
        divisors = list(self._floats(prim, "mjc:path:divisors", [1.0]))
        side_indices = [int(i) for i in self._floats(prim, "mjc:sideSites:indices", [-1] * len(indices))]
        shapes = {p.GetPath(): name for name, p in r.shape_prims.items()}
        path, segment = [], 0
        if divisors and divisors[0] != 1.0:
            path.append(TendonWrap(WrapKind.PULLEY, divisor=divisors[0]))
        for k, index in enumerate(indices):
            while k < len(segments) and segments[k] > segment:
                segment += 1
                divisor = divisors[segment] if segment < len(divisors) else 1.0
                path.append(TendonWrap(WrapKind.PULLEY, divisor=divisor))
            target = targets[index] if 0 <= index < len(targets) else None
            side = side_indices[k] if k < len(side_indices) else -1
            side_site = self.site_paths.get(sides[side]) if 0 <= side < len(sides) else None
            if target in self.site_paths:
                path.append(TendonWrap(WrapKind.SITE, self.site_paths[target]))
            elif target in shapes:
                path.append(TendonWrap(WrapKind.GEOM, shapes[target], side_site=side_site))
            else:
                r.warn(prim, f"mjc:path entry {k} ({target}) is no site or collider read from this file; "
                             "spatial MjcTendon skipped")
                return
        tendon = SpatialTendon(name=r.unique_name("tendon", prim), path=path)
        low, high = r.value(prim, "mjc:range:min", default=None), r.value(prim, "mjc:range:max", default=None)
        if _limited(r.value(prim, "mjc:limited", "token", "auto"), low, high):
            tendon.lower, tendon.upper = low or 0.0, high or 0.0
        tendon.stiffness = r.value(prim, "mjc:stiffness", default=0.0)
        tendon.damping = r.value(prim, "mjc:damping", default=0.0)
        read_tendon_friction_and_spring(r, prim, tendon)
        tendon.width = r.value(prim, "mjc:width", default=0.003)
        if r.authored(prim, "mjc:rgba"):
            tendon.color = tuple(float(c) for c in prim.GetAttribute("mjc:rgba").Get())
        self.scene.spatial_tendons.append(tendon)
        self.spatial_paths[prim.GetPath()] = tendon

    # -- equalities
    def _equality_side(self, prim: Usd.Prim, attribute: str):
        """(body name or None, site name or None, the prim whose frame the local pose is in)."""
        r = self.r
        target = self._target(prim, attribute)
        if target is None:
            return None, None, None
        if target in self.site_paths:
            site = self.site_paths[target]
            return self.site_bodies[site], site, r.stage.GetPrimAtPath(target)
        body = r.body_by_path.get(target)
        frame = r.stage.GetPrimAtPath(target)
        return (body.name if body else None), None, frame if frame and body is not None else None

    def _read_equality(self, prim: Usd.Prim) -> None:
        r = self.r
        weld = self.has(prim, WELD_API)
        body0, site0, frame_prim0 = self._equality_side(prim, "physics:body0")
        body1, site1, frame_prim1 = self._equality_side(prim, "physics:body1")
        equality = Equality(name=r.unique_name("equality", prim),
                            kind=EqualityKind.WELD if weld else EqualityKind.CONNECT,
                            body0=body0, body1=body1, site0=site0, site1=site1)
        body_of = lambda name: self.scene.body(name) if name is not None else None  # noqa: E731
        frame0 = r._frame(prim, body_of(body0), frame_prim0, 0)
        frame1 = r._frame(prim, body_of(body1), frame_prim1, 1)
        if site0 is None and site1 is None:
            if weld:
                equality.anchor = frame1.pos
                relative = pose_mul(frame0, pose_inverse(frame1))
                rest = rest_relative_pose(self.scene, equality)
                equality.relative_pose = None if poses_close(relative, rest, 1e-6, 1e-9) else relative
            else:
                equality.anchor = frame0.pos
        equality.active = r.value(prim, "physics:jointEnabled", "bool", True)
        equality.solref = self._floats(prim, "mjc:solref", DEFAULT_SOLREF)
        equality.solimp = self._floats(prim, "mjc:solimp", DEFAULT_SOLIMP)
        if weld:
            equality.torque_scale = r.value(prim, "mjc:torqueScale", default=1.0)
        self.scene.equalities.append(equality)

    def _read_tendon_equality(self, prim: Usd.Prim) -> None:
        r, names = self.r, self._names_by_path("tendon")
        first, second = self._target(prim, TENDON_EQUALITY + "tendon"), self._target(prim, "mjc:target")
        if first not in names or (second is not None and second not in names):
            r.warn(prim, "its tendons (mjc:equality:tendon, mjc:target) are not tendons read from this file; "
                         "tendon equality skipped")
            return
        self.scene.tendon_equalities.append(TendonEquality(
            name=r.unique_name("equality", prim), tendon0=names[first],
            tendon1=names[second] if second is not None else None,
            polycoef=self._floats(prim, TENDON_EQUALITY + "polycoef", (0.0, 1.0, 0.0, 0.0, 0.0)),
            active=r.value(prim, TENDON_EQUALITY + "active", "bool", True),
            solref=self._floats(prim, "mjc:solref", DEFAULT_SOLREF),
            solimp=self._floats(prim, "mjc:solimp", DEFAULT_SOLIMP)))

    # -- keyframes, sensors, pairs
    def _read_keyframe(self, prim: Usd.Prim) -> None:
        r = self.r
        layout = getattr(self, "_layout", None)
        if layout is None:
            layout = self._layout = keyframe_layout(self.scene)
        arrays = [list(self._floats(prim, f"mjc:{name}", ())) for name in ("qpos", "qvel", "ctrl")]
        if r.authored(prim, LAYOUT_ATTR):  # the writer's own order of the robot (another tool's may differ)
            layout = layout_from_tokens(list(prim.GetAttribute(LAYOUT_ATTR).Get()))
        controls = list(prim.GetAttribute(CONTROLS_ATTR).Get()) if r.authored(prim, CONTROLS_ATTR) else None
        expected = sum(_QPOS_SIZE[entry[0]] for entry in layout)
        if len(arrays[0]) != expected:
            r.warn(prim, f"mjc:qpos has {len(arrays[0])} numbers where the robot has {expected} joint "
                         "coordinates: read as far as they match")
        key = keyframe_from_arrays(self.scene, r.unique_name("keyframe", prim), *arrays, layout, controls)
        key.time = r.value(prim, "mjc:time", default=0.0)
        self.scene.keyframes.append(key)

    def _object_name(self, prim: Usd.Prim, role: str, kind: Optional[str]) -> Optional[str]:
        attr = f"{SENSOR}{role}Name"
        if self.r.authored(prim, attr):
            return prim.GetAttribute(attr).Get()
        target = self._target(prim, SENSOR + role)
        if target is None:
            return None
        if target in self.site_paths:
            return self.site_paths[target]
        if target in self.r.body_by_path:
            return self.r.body_by_path[target].name
        if target in self.spatial_paths:
            return self.spatial_paths[target].name
        for table in ("joint", "shape", "camera", "tendon", "actuator"):
            name = self._paths_of(table).get(target)
            if name is not None:
                return name
        self.r.warn(prim, f"{SENSOR}{role} {target} is nothing read from this file")
        return None

    def _paths_of(self, kind: str) -> dict:
        cache = self.__dict__.setdefault("_path_tables", {})
        if kind not in cache:
            cache[kind] = self._names_by_path(kind)
        return cache[kind]

    def _read_sensor(self, prim: Usd.Prim) -> None:
        r = self.r
        sensor = Sensor(name=r.unique_name("sensor", prim), kind=r.value(prim, SENSOR + "type", "token", ""))
        for role in ("target", "reference"):
            kind = r.value(prim, f"{SENSOR}{role}Type", "token", None)
            setattr(sensor, f"{role}_kind", kind)
            setattr(sensor, role, self._object_name(prim, role, kind))
        sensor.noise = r.value(prim, SENSOR + "noise", default=0.0)
        sensor.cutoff = r.value(prim, SENSOR + "cutoff", default=0.0)
        prefix = SENSOR + "setting:"
        for name in sorted(n for n in r._names(prim) if n.startswith(prefix)):
            sensor.settings[name[len(prefix):]] = str(prim.GetAttribute(name).Get())
        self.scene.sensors.append(sensor)

    def _read_pair(self, prim: Usd.Prim) -> None:
        r = self.r
        shapes = {p.GetPath(): name for name, p in r.shape_prims.items()}
        geoms = [shapes.get(self._target(prim, PAIR + g)) for g in ("geom0", "geom1")]
        if None in geoms:
            r.warn(prim, "a contact pair's geom is no collider read from this file; pair skipped")
            return
        pair = ContactPair(name=r.unique_name("pair", prim), shape0=geoms[0], shape1=geoms[1])
        pair.condim = r.value(prim, PAIR + "condim", "int", 3)
        pair.friction = self._floats(prim, PAIR + "friction", pair.friction)
        pair.solref = self._floats(prim, PAIR + "solref", DEFAULT_SOLREF)
        pair.solimp = self._floats(prim, PAIR + "solimp", DEFAULT_SOLIMP)
        pair.margin = r.value(prim, PAIR + "margin", default=0.0)
        pair.gap = r.value(prim, PAIR + "gap", default=0.0)
        self.scene.contact_pairs.append(pair)


#: Prim type -> what this module may read from it ("": typeless prims, where sensors and pairs live).
_READ_KINDS = {**{t: "site" for t in ("Sphere", "Cube", "Capsule", "Cylinder", "Xform")},
               "Camera": "camera", "SphereLight": "light", "DistantLight": "light", TENDON_TYPE: "tendon",
               "PhysicsFixedJoint": "equality", "PhysicsSphericalJoint": "equality",
               KEYFRAME_TYPE: "keyframe", "": "typeless", **{t: "isaac_sensor" for t in ISAAC_SENSOR_TYPES}}
_S = math.sqrt(0.5)
#: Rotations taking a site's +Z onto a Gprim's X or Y axis (a Capsule/Cylinder authored along it).
_Z_TO_AXIS = {0: (_S, 0.0, _S, 0.0), 1: (_S, -_S, 0.0, 0.0)}


def _site_size(kind: SiteKind, size: tuple) -> tuple:
    """MuJoCo's size triple of a site (unused entries as MuJoCo's default leaves them)."""
    if kind == SiteKind.SPHERE:
        return (size[0], 0.005, 0.005)
    if kind in (SiteKind.CAPSULE, SiteKind.CYLINDER):
        return (size[0], size[1], 0.005)
    return tuple(size)


__all__ = ["MujocoModelReader", "keyframe_layout", "write_contact_params", "write_mujoco_model"]
