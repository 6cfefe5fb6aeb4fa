"""The physics description -> MJCF (MuJoCo's XML), built with ``mujoco.MjSpec`` and proven by MuJoCo.

The mirror image of :mod:`.reader`. Nothing here writes XML text: the model is built as an ``MjSpec``,
compiled (so MuJoCo itself accepts it before anything is written), then ``spec.to_xml()`` writes it.
Meshes go as binary STL files (OBJ with texture coordinates for visuals whose UVs the caller gives,
their images copied beside them; OBJ too over the 200,000 faces MuJoCo's STL reader takes) into
``<name>_assets`` beside the XML (the compiler's ``meshdir`` and ``texturedir``), so the folder can
be zipped and opened elsewhere. Files are written into a temporary folder and moved into place at
the end: a failure leaves the old files as they were.

What becomes what:

- bodies nest along the kinematic trees (:func:`core.articulation.find_articulations`), each with an
  explicit ``<inertial>`` (the body's mass, else the mass computed from its colliders); a floating
  root gets ``<freejoint/>`` (named ``Body.free_joint_name``), a root fixed to the world and welded
  children get no joint; a moving body with no mass anywhere in its welded group gets a tiny one
  (MuJoCo refuses massless moving bodies), with a warning;
- revolute -> hinge, prismatic -> slide, spherical -> ball, D6 -> one hinge/slide per DOF it keeps,
  in DOF order (named ``Dof.name``, else ``<joint>_<axis>``); stacked joints on one body pair stay
  several joints of the body; per DOF: range, ``ref`` (``Dof.reference``), margin, armature, damping,
  frictionloss, stiffness (spring toward the joint's zero, ``springref`` 0), ``actuatorfrcrange``
  from the effort limit;
- actuators (imported MuJoCo ones) are written back in MuJoCo's general form as they are held, on
  their DOF, fixed tendon, or (``frame_actuators``) site, body, ball or free joint, spatial tendon;
  Articula's drives become ``<position>``/``<velocity>`` actuators whose ctrl is the drive target;
- fixed tendons -> ``<tendon><fixed>``, spatial tendons -> ``<spatial>`` (sites, geoms with their
  side site, pulleys), mimic joints -> joint equalities, loop-closing joints -> connect (weld for a
  fixed joint) equalities, the description's weld/connect equalities as they are (body or site form),
  its tendon equalities;
- sites, cameras and lights on their bodies, sensors by MuJoCo's keyword on their objects, contact
  pairs; each collider's MuJoCo contact parameters (``Shape.contact``), margin and gap;
- colliders -> geoms (group 3 when the scene has visuals, MuJoCo's own models' convention; planes
  stay drawn in group 0), their
  material's friction (sliding, torsional, rolling); visuals -> geoms with contype = conaffinity = 0
  in group 2; collision groups -> one contype bit per group and a conaffinity of the groups it
  touches (exact up to 30 groups, else excludes); filtered pairs, joined bodies and a root's
  self-collision switch -> ``<contact><exclude>``;
- timestep and gravity from the scene, the rest of ``<option>`` from ``SceneSettings.mujoco`` (its
  iterations, not Newton's ``solver_iterations``); the description's keyframes, then the state, when
  it differs from rest (joint positions and velocities, a floating root's velocity, controls), as
  the keyframe ``initial`` (``initial_1`` when a keyframe has that name).

(write_extras.py holds the writing of sites, sensors, keyframes and the rest of MuJoCo's own model.)

What MJCF cannot say is named in one warning.
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ..articulation import Articulation, find_articulations
from ..collision import should_collide
from ..files import replaced_file_mode
from ..ground import floor_as_ground
from ..mass import MassError, mass_properties, mass_shapes_by_body
from ..mesh_files import binary_stl, portable_name
from ..model import (Actuator, Body, Dof, DofMotion, DriveType, HeightField, Joint, JointType,
                     MassProperties, MeshData, PhysicsScene, Pose, Shape, ShapeKind, Visual)
from ..transforms import pose_inverse, pose_mul, pose_relative, quat_conjugate, quat_mul, quat_normalize, quat_rotate
from ..validation import blocks_writing, validate_with_masses
from .compiler import compile_spec
from .errors import MjcfWriteError
from .write_extras import ExtrasWriter, tendon_friction_and_spring

#: MuJoCo's geom group conventions (its own models and menagerie): visuals 2, colliders 3.
VISUAL_GROUP = 2
COLLIDER_GROUP = 3
#: What a moving body without any mass gets so that MuJoCo compiles it (kg, kg*m^2).
TINY_MASS = 1e-6
TINY_INERTIA = 1e-10
#: contype/conaffinity are 32-bit masks: one bit per collision group.
MAX_MASK_GROUPS = 30  # and one bit for colliders of group 0
KEYFRAME = "initial"
#: The most triangles MuJoCo's STL reader takes (3.17: "number of faces should be between 1 and 200000").
STL_MAX_FACES = 200_000
_AXES = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}
_HALF = math.sqrt(0.5)
#: Rotation taking MuJoCo's +Z (capsule and cylinder axis) onto the shape's axis.
_AXIS_TO_Z = {"X": (_HALF, 0.0, _HALF, 0.0), "Y": (_HALF, -_HALF, 0.0, 0.0), "Z": (1.0, 0.0, 0.0, 0.0)}


def assets_folder_name(path: str) -> str:
    """The folder beside ``path`` that holds its meshes and images: ``robot.xml`` -> ``robot_assets``."""
    return os.path.splitext(os.path.basename(path))[0] + "_assets"


def write_mjcf(scene: PhysicsScene, path: str, surfaces: Optional[dict[str, VisualSurface]] = None) -> list[str]:
    """Write ``scene`` as MJCF to ``path`` (meshes into the assets folder beside it), atomically.

    ``surfaces``: visual name -> its :class:`VisualSurface` (UVs, image), where the caller knows them.

    Returns warnings (written anyway): validation's, and what MJCF cannot say. Raises
    :class:`MjcfWriteError` when the scene cannot be written (validation's blocking problems, or
    MuJoCo refusing to compile it); the files already there are then left untouched."""
    path = os.path.abspath(path)
    problems, masses = validate_with_masses(scene)
    refused = [str(p) for p in problems if blocks_writing(p)]
    if refused:
        raise MjcfWriteError(path, refused)
    built = build_spec(scene, path, masses, surfaces)
    _write_files(built, path)
    empty = [] if scene.bodies else ["no rigid bodies to export: the file holds only the scene's options and "
                                     "static colliders"]
    return empty + [str(p) for p in problems] + built.warnings


@dataclass
class BuiltSpec:
    """A compiled spec, the mesh and image files it needs and the warnings of building it.

    MuJoCo's bodies, actuators, sites and sensors carry the description's names. Joints may not (a D6
    becomes one hinge/slide per DOF), so ``dof_joints`` maps each description joint to its MuJoCo
    joints: joint name -> [(MuJoCo joint name, Dof)] in DOF order (a ball joint: its one MuJoCo joint
    for each of its three DOFs; a fixed joint or one left out: absent). ``free_joints``: floating root
    body -> its MuJoCo free joint's name ("" when unnamed: find it by the body). ``initial_keyframe``:
    the name of the keyframe holding the description's state (``initial``, ``initial_1`` when a file
    keyframe is called ``initial``), "" when the state is the rest pose and none was written.
    ``drive_actuators``: (joint, DOF axis) -> the servo written for that DOF's drive."""

    spec: object
    model: object  # MuJoCo's model of ``xml``, as the written file loads
    xml: str = ""
    files: dict[str, bytes] = field(default_factory=dict)  # assets folder: file name -> bytes
    warnings: list[str] = field(default_factory=list)
    dof_joints: dict[str, list[tuple[str, Dof]]] = field(default_factory=dict)
    free_joints: dict[str, str] = field(default_factory=dict)
    initial_keyframe: str = ""
    drive_actuators: dict[tuple[str, str], str] = field(default_factory=dict)


def build_spec(scene: PhysicsScene, path: str = "robot.xml", masses: Optional[dict[str, MassProperties]] = None,
               surfaces: Optional[dict[str, VisualSurface]] = None) -> BuiltSpec:
    """``scene`` as a compiled ``MjSpec`` (nothing written); ``path`` names the assets folder."""
    return _SpecBuilder(scene, path, masses or {}, surfaces or {}).build()


@dataclass
class VisualSurface:
    """What Blender knows of a visual beyond the description: texture coordinates per triangle corner
    of ``Visual.mesh`` (``uvs[3 * t + k]`` for corner ``k`` of triangle ``t``) and the image file of
    its color texture, if any. Such a visual is written as an OBJ with its UVs, its image copied
    beside it and drawn as MuJoCo maps a 2D texture (by the mesh's texture coordinates)."""

    uvs: list[tuple[float, float]]
    image: Optional[str] = None


# ------------------------------------------------------------------------------------------- files
def obj_text(mesh: MeshData, uvs=None) -> bytes:
    """A Wavefront OBJ of the mesh, with one texture coordinate per triangle corner when ``uvs`` is given."""
    lines = [f"v {x:.9g} {y:.9g} {z:.9g}" for x, y, z in mesh.vertices]
    if uvs is None:
        lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in mesh.triangles]
    else:
        lines += [f"vt {u:.9g} {v:.9g}" for u, v in uvs]
        lines += [f"f {a + 1}/{3 * t + 1} {b + 1}/{3 * t + 2} {c + 1}/{3 * t + 3}"
                  for t, (a, b, c) in enumerate(mesh.triangles)]
    return ("\n".join(lines) + "\n").encode()


def _write_files(built: BuiltSpec, path: str) -> None:
    """The XML and its assets folder, written in a temporary folder beside ``path``, then moved in.

    The old assets folder is set aside until the new one and the XML are in place, and put back if
    anything fails."""
    folder = os.path.dirname(path)
    assets_name = assets_folder_name(path)
    assets = os.path.join(folder, assets_name)
    if not os.path.isdir(folder):
        raise MjcfWriteError(path, [f"folder {folder} does not exist"])
    try:
        staging = tempfile.mkdtemp(prefix=f".{os.path.basename(path)}.", dir=folder)
    except OSError as error:
        raise MjcfWriteError(path, [f"folder {folder} is not writable ({error.strerror})"]) from error
    old_assets = None
    try:
        xml = built.xml
        new_assets = os.path.join(staging, assets_name)
        os.mkdir(new_assets)
        for name, data in built.files.items():
            with open(os.path.join(new_assets, name), "wb") as f:
                f.write(data)
        new_xml = os.path.join(staging, os.path.basename(path))
        with open(new_xml, "w", encoding="utf-8") as f:
            f.write(xml)
        os.chmod(new_xml, replaced_file_mode(path))
        if os.path.isdir(assets):
            old_assets = os.path.join(staging, ".old_assets")
            os.rename(assets, old_assets)
        if built.files:
            os.rename(new_assets, assets)
        os.replace(new_xml, path)
        old_assets = None if old_assets is None else shutil.rmtree(old_assets, ignore_errors=True)
    except OSError as error:
        if old_assets is not None and os.path.isdir(old_assets):
            if os.path.isdir(assets):
                shutil.rmtree(assets, ignore_errors=True)
            os.rename(old_assets, assets)
        where = os.path.basename(error.filename or path) if getattr(error, "filename", None) else os.path.basename(path)
        raise MjcfWriteError(path, [f"{where} could not be written ({error.strerror or error}); the old files "
                                    "are kept"]) from error
    finally:
        shutil.rmtree(staging, ignore_errors=True)


# ------------------------------------------------------------------------------------------- build
def _mj():
    import mujoco

    return mujoco


def _enum(enum_type, prefix: str, keyword: str):
    """MuJoCo's enum member for an XML keyword: ("mjDYN", "filter") -> mjDYN_FILTER."""
    return getattr(enum_type, f"{prefix}_{keyword.upper()}")


def _padded(values, size: int) -> list[float]:
    values = [float(v) for v in values][:size]
    return values + [0.0] * (size - len(values))


def _finite(value: float) -> bool:
    return math.isfinite(value)


class _SpecBuilder(ExtrasWriter):
    def __init__(self, scene: PhysicsScene, path: str, masses: dict[str, MassProperties],
                 surfaces: dict[str, VisualSurface]):
        self.scene, self.path, self.masses, self.surfaces = scene, path, masses, surfaces
        self.textures: dict[str, str] = {}  # image path -> MuJoCo material name
        self.mj = _mj()
        self.spec = self.mj.MjSpec()
        self.files: dict[str, bytes] = {}
        self.file_names: set = set()
        self.warnings: list[str] = []
        self.unsayable: list[str] = []
        self.spec_bodies: dict[str, object] = {}
        self.mass_shapes = mass_shapes_by_body(scene)
        # description joint name -> [(MuJoCo joint name, Dof)] in DOF order
        self.dof_joints: dict[str, list[tuple[str, Dof]]] = {}
        self.free_roots: list[str] = []
        self.moving: set = set()  # bodies with a joint of their own
        self.geom_names: set = set()
        self.excludes: set = set()
        self.worlds_by_mask = False  # collision_masks() tells worlds apart
        self.exclude_list: list[tuple[str, str]] = []
        self.shape_geoms: dict[str, str] = {}  # collider name -> its geom's name
        self.tendon_names: set = set()
        self.height_fields: dict[tuple, str] = {}  # a grid's values -> its <hfield> name
        self.drive_actuators: dict[tuple[str, str], str] = {}  # (joint, DOF axis) -> its drive's servo
        self.actuator_names: set = set()  # every actuator's so far (a drive's servo takes a free one)

    def say(self, what: str) -> None:
        if what not in self.unsayable:
            self.unsayable.append(what)

    def build(self) -> BuiltSpec:
        spec, scene = self.spec, self.scene
        spec.modelname = scene.name or "robot"
        spec.compiler.degree = False
        spec.compiler.autolimits = True
        spec.compiler.saveinertial = True  # every body's <inertial> in the file, as given
        spec.meshdir = spec.texturedir = assets_folder_name(self.path)
        self.settings()
        articulations = find_articulations(scene)
        for articulation in articulations:
            self.articulation(articulation)
        disabled = [j.name for j in scene.joints if not j.enabled]
        if disabled:  # no joint in any tree: the child is welded (or free at the root)
            self.say("disabled joints " + ", ".join(disabled) + " (MJCF has none: left out)")
        self.sites()
        self.cameras()
        self.lights()
        self.geoms()
        self.tendons()
        self.spatial_tendons()
        self.actuators()
        self.equalities(articulations)
        self.frame_equalities()
        self.tendon_equalities()
        self.contact_excludes(articulations)
        self.contact_pairs()
        self.sensors()
        self.scene_extras()
        # One compile: keyframes need its qpos layout, and to_xml writes keys added since without
        # another (the written file, loaded back, is the model returned).
        self.keyframes(self.compile())
        xml, model = self.written()
        if self.unsayable:
            self.warnings.append("MJCF cannot say (left out): " + "; ".join(self.unsayable))
        free_joints = {name: self.scene.body(name).free_joint_name or "" for name in self.free_roots}
        return BuiltSpec(spec=spec, model=model, xml=xml, files=self.files, warnings=self.warnings,
                         dof_joints=dict(self.dof_joints), free_joints=free_joints,
                         drive_actuators=dict(self.drive_actuators),
                         initial_keyframe=self.initial_name if self.wrote_initial else "")

    def written(self) -> tuple[str, object]:
        """The XML and MuJoCo's model of it, loaded back as a user will load the file (``to_xml``
        writes 6 significant digits and zeroes values below 1e-12: :func:`_writable_inertia`)."""
        mj = self.mj
        xml = self.spec.to_xml()
        assets = {f"{self.spec.meshdir}/{name}": data for name, data in self.files.items()}
        try:
            return xml, mj.MjModel.from_xml_string(xml, assets)
        except ValueError as error:
            message = " ".join(str(error).split())
            raise MjcfWriteError(self.path, [f"MuJoCo cannot load the written file: {message}"]) from error

    def compile(self):
        self.spec.assets = dict(self.files)  # MuJoCo reads meshes and images from memory; the files come later
        try:
            model, messages = compile_spec(self.spec)
        except Exception as error:  # MuJoCo names the element
            raise MjcfWriteError(self.path, ["MuJoCo cannot compile the robot: " + " ".join(str(error).split())]) \
                from error
        for message in messages:
            if f"MuJoCo: {message}" not in self.warnings:
                self.warnings.append(f"MuJoCo: {message}")
        return model

    # --- scene ----------------------------------------------------------------------------------
    def settings(self) -> None:
        settings, option = self.scene.settings, self.spec.option
        option.timestep = 1.0 / float(settings.steps_per_second)
        option.gravity = list(settings.gravity)
        self.mujoco_options(settings.mujoco)
        if not settings.collision_filter_parent:
            option.disableflags |= int(self.mj.mjtDisableBit.mjDSBL_FILTERPARENT)
        if settings.replicas > 1:
            self.say(f"{settings.replicas} replicas (a MuJoCo file holds one robot world)")

    def scene_extras(self) -> None:
        worlds = sorted({b.world for b in self.scene.bodies if b.world != -1}
                        | {s.world for s in self.scene.shapes if s.world != -1})
        if len(worlds) > 1 and self.worlds_by_mask:
            self.say(f"worlds {worlds} (MJCF has one world: theirs are told apart only by the colliders' "
                     "contype/conaffinity, so bodies of different worlds never touch)")
        elif len(worlds) > 1:
            self.say(f"worlds {worlds} (everything is written into one world, so they may collide)")

    # --- bodies and joints ----------------------------------------------------------------------
    def articulation(self, articulation: Articulation) -> None:
        scene = self.scene
        children: dict[str, list[str]] = {}
        for child, parent in articulation.parents.items():
            children.setdefault(parent, []).append(child)
        root = scene.body(articulation.root)
        pending = [(root, None)]
        while pending:
            body, parent = pending.pop()
            self.body(articulation, body, parent)
            pending.extend((scene.body(name), body) for name in reversed(children.get(body.name, [])))
        self.massless_moving(articulation, children)

    def massless_moving(self, articulation: Articulation, children: dict[str, list[str]]) -> None:
        """MuJoCo refuses a moving body whose welded group (itself and the bodies welded below it)
        has no mass: such a body (a massless frame between joints) gets a tiny mass and a warning."""
        group_mass: dict[str, float] = {}
        group_inertia: dict[str, float] = {}
        for name in reversed(articulation.bodies):
            welded = [c for c in children.get(name, []) if c not in self.moving]
            spec_body = self.spec_bodies[name]
            group_mass[name] = spec_body.mass + sum(group_mass[c] for c in welded)
            group_inertia[name] = float(sum(spec_body.inertia)) + sum(group_inertia[c] for c in welded)
        light = [n for n in articulation.bodies if n in self.moving and group_mass[n] <= 0.0]
        for name in light:
            spec_body = self.spec_bodies[name]
            spec_body.mass = TINY_MASS
            spec_body.inertia = [TINY_INERTIA] * 3
        if light:
            self.warnings.append(f"massless moving bodies {', '.join(light)} get {TINY_MASS:g} kg and "
                                 f"{TINY_INERTIA:g} kg*m^2 (MuJoCo needs mass on every body that moves)")
        flat = [n for n in articulation.bodies if n in self.moving and n not in light and group_inertia[n] <= 0.0]
        for name in flat:
            self.spec_bodies[name].inertia = [TINY_INERTIA] * 3
        if flat:
            self.warnings.append(f"moving bodies without inertia {', '.join(flat)} get {TINY_INERTIA:g} kg*m^2 "
                                 "(MuJoCo needs inertia on every body that moves)")

    def body(self, articulation: Articulation, body: Body, parent: Optional[Body]) -> None:
        spec_parent = self.spec.worldbody if parent is None else self.spec_bodies[parent.name]
        spec_body = spec_parent.add_body()
        spec_body.name = body.name
        self.spec_bodies[body.name] = spec_body
        edge = articulation.edge_joints(body.name)
        first = edge[0] if edge else None
        if first is not None:  # where the joints put the body at rest (their frames meet)
            local = pose_mul(first.local_pose0, pose_inverse(first.local_pose1))
        elif parent is not None:
            local = pose_relative(parent.pose, body.pose)
        else:
            local = body.pose
        spec_body.pos = list(local.pos)
        spec_body.quat = list(quat_normalize(local.rot))
        self.inertial(spec_body, body)
        if parent is None and first is None:
            if body.kinematic:
                spec_body.mocap = True
            else:
                free_joint = spec_body.add_freejoint()
                if body.free_joint_name:
                    free_joint.name = body.free_joint_name
                free_joint.damping = [body.free_joint_damping, 0.0, 0.0]
                free_joint.stiffness = [body.free_joint_stiffness, 0.0, 0.0]
                free_joint.armature = body.free_joint_armature
                free_joint.frictionloss = body.free_joint_friction
                self.free_roots.append(body.name)
        elif body.kinematic:
            self.say(f"kinematic body {body.name} inside a tree (MuJoCo moves only top-level mocap bodies)")
        for joint in edge:
            self.joint(spec_body, joint)
        if spec_body.first_joint() is not None:
            self.moving.add(body.name)

    def inertial(self, spec_body, body: Body) -> None:
        props = self.mass_of(body)
        spec_body.explicitinertial = True
        spec_body.mass = float(props.mass)
        spec_body.ipos = list(props.center_of_mass)
        spec_body.iquat = list(quat_normalize(props.principal_axes))
        inertia = _writable_inertia(props.diagonal_inertia)
        if inertia is None:
            inertia = [max(props.diagonal_inertia)] * 3
            self.warnings.append(f"body {body.name}: principal inertia {tuple(props.diagonal_inertia)} is below "
                                 "what MJCF's 6 digits can hold on the triangle inequality; written as a ball's")
        elif _violates_triangle(inertia):
            # MuJoCo refuses it; its balanceinertia (which to_xml does not write) would even it out so.
            self.warnings.append(f"body {body.name}: principal inertia {tuple(props.diagonal_inertia)} fails "
                                 "A + B >= C; written balanced (each moment their mean, as MuJoCo's "
                                 "balanceinertia does)")
            inertia = [_as_written(sum(inertia) / 3.0)] * 3
        spec_body.inertia = inertia

    def mass_of(self, body: Body) -> MassProperties:
        """Explicit, else computed by validation, else from the body's colliders, else none."""
        if body.mass is not None:
            return body.mass
        if body.name in self.masses:
            return self.masses[body.name]
        shapes = self.mass_shapes.get(body.name, [])
        try:
            return mass_properties(self.scene, body.name, shapes)
        except MassError as error:
            if not shapes:
                return MassProperties(mass=0.0)
            raise MjcfWriteError(self.path, [str(error)]) from error

    def joint(self, spec_body, joint: Joint) -> None:
        mj = self.mj
        if joint.type == JointType.FIXED:
            return
        anchor, frame = joint.local_pose1.pos, joint.local_pose1.rot
        if joint.type == JointType.SPHERICAL:
            spec_joint = spec_body.add_joint()
            spec_joint.name = joint.name
            spec_joint.type = mj.mjtJoint.mjJNT_BALL
            spec_joint.pos = list(anchor)
            cones = (joint.cone_limit0, joint.cone_limit1)
            if any(_finite(c) for c in cones):
                if joint.cone_limit0 != joint.cone_limit1:
                    self.say(f"asymmetric cone limit of {joint.name} (the larger angle is kept)")
                spec_joint.limited = mj.mjtLimited.mjLIMITED_TRUE
                spec_joint.range = [0.0, max(c for c in cones if _finite(c))]
            else:
                spec_joint.limited = mj.mjtLimited.mjLIMITED_FALSE
            dofs = joint.dofs or [Dof(axis="rotX")]
            if any(_dof_scalars(d) != _dof_scalars(dofs[0]) for d in dofs):
                self.say(f"different values per axis of ball joint {joint.name} (its first axis's are kept)")
            self.dof_values(spec_joint, joint, dofs[0])
            self.dof_joints[joint.name] = [(joint.name, d) for d in joint.dofs]
            return
        dofs = joint.active_dofs()
        names = []  # several hinges of a D6 in a row: MuJoCo composes them in order, as Newton's D6 does
        for dof in dofs:
            # A one-DOF joint goes by its own (current) name; a D6's DOFs by their file's, else
            # <joint>_<axis>.
            name = joint.name if joint.type != JointType.D6 else dof.name or f"{joint.name}_{dof.axis.value}"
            spec_joint = spec_body.add_joint()
            spec_joint.name = name
            spec_joint.type = mj.mjtJoint.mjJNT_HINGE if dof.axis.is_angular else mj.mjtJoint.mjJNT_SLIDE
            spec_joint.pos = list(anchor)
            spec_joint.axis = list(quat_rotate(frame, _AXES[dof.axis.letter]))
            spec_joint.ref = float(dof.reference)
            if dof.motion == DofMotion.LIMITED:
                spec_joint.limited = mj.mjtLimited.mjLIMITED_TRUE
                spec_joint.range = [float(dof.lower), float(dof.upper)]
            else:
                spec_joint.limited = mj.mjtLimited.mjLIMITED_FALSE
            self.dof_values(spec_joint, joint, dof)
            names.append((name, dof))
        self.dof_joints[joint.name] = names

    def dof_values(self, spec_joint, joint: Joint, dof: Dof) -> None:
        mj = self.mj
        spec_joint.armature = float(dof.armature)
        spec_joint.group = int(dof.group)
        spec_joint.damping = [float(dof.viscous_damping), 0.0, 0.0]  # MuJoCo 3.17: polynomial coefficients
        spec_joint.frictionloss = float(dof.dynamic_friction)
        if dof.static_friction > dof.dynamic_friction:
            self.say(f"static above dynamic joint friction on {joint.name} (the dynamic is kept)")
        spec_joint.stiffness = [float(dof.spring_stiffness), 0.0, 0.0]
        if joint.type != JointType.SPHERICAL:  # a ball's spring rest is a quaternion: MuJoCo's default
            spec_joint.springref = float(dof.spring_reference)
        spec_joint.margin = float(dof.limit_margin)
        spec_joint.solref_limit = [float(v) for v in dof.limit_solref]
        spec_joint.solimp_limit = [float(v) for v in dof.limit_solimp]
        if _finite(dof.max_effort):
            spec_joint.actfrclimited = mj.mjtLimited.mjLIMITED_TRUE
            spec_joint.actfrcrange = [-float(dof.max_effort), float(dof.max_effort)]
        else:
            spec_joint.actfrclimited = mj.mjtLimited.mjLIMITED_FALSE
        if any(a.gravity_compensation for a in dof.actuators):
            spec_joint.actgravcomp = True
        if _finite(dof.velocity_limit):
            self.say(f"velocity limit of {joint.name}")
        if dof.limit_stiffness or dof.limit_damping:
            self.say(f"soft limit of {joint.name} (MuJoCo's limit is the DOF's Limit Solref, "
                     f"{' '.join(f'{v:g}' for v in dof.limit_solref)})")

    # --- geoms ----------------------------------------------------------------------------------
    def geoms(self) -> None:
        scene = self.scene
        masks = self.collision_masks()
        collider_group = COLLIDER_GROUP if scene.visuals else 0
        for shape in scene.shapes:
            self.collider(shape, masks, collider_group)
        floor = floor_as_ground(scene)
        if floor:  # two coincident planes give every contact twice
            self.warnings.append(f"the ground plane coincides with static plane {floor!r}: written once, as "
                                 f"{floor!r}")
        elif scene.settings.ground_plane:
            ground = self.spec.worldbody.add_geom()
            ground.name = self._unique_geom_name("ground_plane")
            ground.type = self.mj.mjtGeom.mjGEOM_PLANE
            ground.size = [0.0, 0.0, 1.0]
            ground.contype, ground.conaffinity = masks.get(("ground",), (1, 1))
        for visual in scene.visuals:
            self.visual(visual)

    def _unique_geom_name(self, name: str, suffix: str = "") -> str:
        """``name`` unless a geom has it (a visual may share its collider's name: MuJoCo's geom and
        mesh names are one namespace each); then ``name + suffix``, numbered if needed."""
        base = name if name not in self.geom_names else name + suffix
        name, count = base, 1
        while name in self.geom_names:
            name, count = f"{base}_{count}", count + 1
        self.geom_names.add(name)
        return name

    def parent_of(self, body: Optional[str]):
        return self.spec.worldbody if body is None else self.spec_bodies[body]

    def collider(self, shape: Shape, masks: dict, group: int) -> None:
        mj = self.mj
        geom = self.parent_of(shape.body).add_geom()
        geom.name = self._unique_geom_name(shape.name)
        geom.group = group
        pose = shape.pose
        kind = shape.kind
        if kind == ShapeKind.BOX:
            geom.type, geom.size = mj.mjtGeom.mjGEOM_BOX, list(shape.half_extents)
        elif kind == ShapeKind.SPHERE:
            geom.type, geom.size = mj.mjtGeom.mjGEOM_SPHERE, [shape.radius, 0.0, 0.0]
        elif kind in (ShapeKind.CAPSULE, ShapeKind.CYLINDER):
            geom.type = mj.mjtGeom.mjGEOM_CAPSULE if kind == ShapeKind.CAPSULE else mj.mjtGeom.mjGEOM_CYLINDER
            geom.size = [shape.radius, shape.half_height, 0.0]
            pose = Pose(pose.pos, quat_normalize(quat_mul(pose.rot, _AXIS_TO_Z[shape.axis])))
        elif kind == ShapeKind.PLANE:
            geom.type, geom.size = mj.mjtGeom.mjGEOM_PLANE, [0.0, 0.0, 1.0]
            geom.group = 0  # a floor has no visual of its own: drawn as MuJoCo draws its floors
        elif kind == ShapeKind.HEIGHT_FIELD:
            geom.type, geom.hfieldname = mj.mjtGeom.mjGEOM_HFIELD, self.height_field_asset(shape.height_field)
            geom.group = 0  # terrain, like a floor, is drawn by its collider
        else:
            if kind == ShapeKind.MESH:
                self.say(f"triangle-mesh collider {shape.name} (MuJoCo collides meshes as their convex hull)")
            geom.type = mj.mjtGeom.mjGEOM_MESH
            geom.meshname = self.mesh_asset(geom.name, shape.mesh, shape.scale)
        geom.pos, geom.quat = list(pose.pos), list(quat_normalize(pose.rot))
        geom.contype, geom.conaffinity = masks[shape.name]
        self.shape_geoms[shape.name] = geom.name
        self.geom_contact(geom, shape)
        geom.mass = 0.0  # the body's <inertial> is its mass: geoms add none
        geom.density = 0.0
        material = self.scene.material(shape.material)
        if material is not None:
            geom.friction = [float(material.dynamic_friction), float(material.torsional_friction),
                             float(material.rolling_friction)]
            if material.static_friction > material.dynamic_friction:
                self.say(f"static above dynamic friction of material {material.name} (the dynamic is kept)")
            if material.restitution:
                self.say(f"restitution of material {material.name}")

    def visual(self, visual: Visual) -> None:
        mj = self.mj
        geom = self.parent_of(visual.body).add_geom()
        geom.name = self._unique_geom_name(visual.name, "_visual")
        geom.type = mj.mjtGeom.mjGEOM_MESH
        surface = self.surfaces.get(visual.name)
        if surface is not None and len(surface.uvs) != 3 * len(visual.mesh.triangles):
            self.warnings.append(f"visual {visual.name}: {len(surface.uvs)} texture coordinates for "
                                 f"{len(visual.mesh.triangles)} triangles; written without them")
            surface = None
        geom.meshname = self.mesh_asset(geom.name, visual.mesh, visual.scale, surface)
        material = self.texture_material(surface.image) if surface is not None and surface.image else ""
        if material:
            geom.material = material
        geom.pos, geom.quat = list(visual.pose.pos), list(quat_normalize(visual.pose.rot))
        geom.contype = geom.conaffinity = 0
        geom.group = VISUAL_GROUP
        geom.mass = 0.0
        geom.density = 0.0
        geom.rgba = [float(c) for c in visual.color]

    def mesh_asset(self, name: str, mesh: Optional[MeshData], scale, surface: Optional[VisualSurface] = None) -> str:
        if mesh is None or not mesh.triangles:
            raise MjcfWriteError(self.path, [f"{name}: its mesh has no triangles"])
        stem = portable_name(name, self.file_names)
        if surface is not None:
            file_name = stem + ".obj"
            self.files[file_name] = obj_text(mesh, surface.uvs)
        elif len(mesh.triangles) > STL_MAX_FACES:  # MuJoCo's STL reader refuses more; its OBJ reader does not
            file_name = stem + ".obj"
            self.files[file_name] = obj_text(mesh)
        else:
            file_name = stem + ".stl"
            self.files[file_name] = binary_stl(mesh)
        spec_mesh = self.spec.add_mesh()
        spec_mesh.name = name
        spec_mesh.file = file_name
        spec_mesh.scale = [float(s) for s in scale]
        # Visual meshes may be open or flat: MuJoCo then needs no volume (the body's <inertial> is given).
        spec_mesh.inertia = self.mj.mjtMeshInertia.mjMESH_INERTIA_SHELL
        return name

    def height_field_asset(self, field: HeightField) -> str:
        """An ``<hfield>`` asset of ``field`` (one per distinct grid; shapes may share it). Its samples
        go in MuJoCo's binary file (exact float32, row 0 at -y): to_xml would round an inline
        ``elevation`` to 6 digits and write its rows in the wrong order."""
        key = (field.name, field.nrow, field.ncol, field.half_x, field.half_y, field.elevation, field.base,
               tuple(field.heights))
        if key in self.height_fields:
            return self.height_fields[key]
        name = field.name
        count = 1
        while name in self.height_fields.values():
            name, count = f"{field.name}_{count}", count + 1
        asset = self.spec.add_hfield()
        asset.name = name
        asset.size = [field.half_x, field.half_y, field.elevation, field.base]
        if any(field.heights):
            file_name = portable_name(name, self.file_names) + ".bin"
            samples = np.asarray(field.heights, dtype="<f4")
            self.files[file_name] = np.array([field.nrow, field.ncol], dtype="<i4").tobytes() + samples.tobytes()
            asset.file = file_name
        else:  # a flat grid (terrain a task fills in at run time): inline zeros, whose rows cannot flip
            asset.nrow, asset.ncol = field.nrow, field.ncol
            asset.userdata = [0.0] * (field.nrow * field.ncol)
        self.height_fields[key] = name
        return name

    def texture_material(self, image: str) -> Optional[str]:
        """A MuJoCo material drawing ``image`` (copied into the assets folder) as a 2D texture."""
        if image in self.textures:
            return self.textures[image]
        try:
            with open(image, "rb") as f:
                data = f.read()
        except OSError as error:
            self.warnings.append(f"image {image} could not be read ({error.strerror}); drawn without it")
            self.textures[image] = ""
            return ""
        base = os.path.splitext(os.path.basename(image))
        file_name = portable_name(base[0], self.file_names) + (base[1].lower() or ".png")
        self.files[file_name] = data
        name = f"texture_{len(self.textures)}"
        texture = self.spec.add_texture()
        texture.name, texture.file = name, file_name
        texture.type = self.mj.mjtTexture.mjTEXTURE_2D
        material = self.spec.add_material()
        material.name = name
        material.textures[int(self.mj.mjtTextureRole.mjTEXROLE_RGB)] = name
        self.textures[image] = name
        return name

    def collision_masks(self) -> dict:
        """Shape name -> (contype, conaffinity): one bit per collision class, the affinity the bits of
        every class it touches (Newton's world and group rule), exact up to 30 classes. A class is a
        collision group, or with colliders in several worlds a (world, group) pair, so bodies of
        different worlds never touch in MuJoCo's one world. Group 0 touches nothing. More classes: all
        in one mask, body pairs that never touch become excludes."""
        scene = self.scene
        by_world = len({s.world for s in scene.shapes if s.world != -1 and s.collision_group != 0}) > 1
        ground = (-1 if by_world else 0, -1)  # global, group -1: touches every collider but group 0's
        classes = sorted({self._collision_class(s, by_world) for s in scene.shapes if s.collision_group != 0}
                         | ({ground} if scene.settings.ground_plane else set()),
                         key=lambda c: (c[1] != 1, abs(c[1]), c[1], c[0]))
        masks: dict = {}
        if len(classes) <= MAX_MASK_GROUPS:
            bits = {c: 1 << k for k, c in enumerate(classes)}
            affinity = {c: sum(bits[d] for d in classes if should_collide(c[0], d[0], c[1], d[1]))
                        for c in classes}
            table = {c: (bits[c], affinity[c]) for c in classes}
        else:
            table = {c: (1, 1) for c in classes}
            shapes = [s for s in scene.shapes if s.collision_group != 0]
            for k, a in enumerate(shapes):
                for b in shapes[k + 1:]:  # static colliders are all the world body's: never excluded
                    if a.body and b.body and a.body != b.body \
                            and not should_collide(a.world, b.world, a.collision_group, b.collision_group):
                        self.exclude(a.body, b.body)
            self.say(f"{len(classes)} collision classes (over {MAX_MASK_GROUPS}: written as contact excludes "
                     "between bodies, so geoms of one body pair collide where any of theirs may, and static "
                     "colliders with every body)")
        # Group 0: a bit no geom has affinity for (contype = conaffinity = 0 would read as a visual).
        nothing = (1 << len(classes), 0) if len(classes) <= MAX_MASK_GROUPS else (2, 0)
        for shape in scene.shapes:
            masks[shape.name] = table.get(self._collision_class(shape, by_world), nothing)
        masks[("ground",)] = table.get(ground, (1, 1))
        self.worlds_by_mask = by_world and len(classes) <= MAX_MASK_GROUPS
        return masks

    @staticmethod
    def _collision_class(shape, by_world: bool) -> tuple[int, int]:
        """(world, group); the world only where colliders stand in several worlds (else 0: one world)."""
        return (shape.world if by_world else 0, shape.collision_group)

    def exclude(self, a: Optional[str], b: Optional[str]) -> None:
        a, b = a or "world", b or "world"
        key = frozenset((a, b))
        if a == b or key in self.excludes:
            return
        self.excludes.add(key)
        self.exclude_list.append((a, b))

    def contact_excludes(self, articulations: list[Articulation]) -> None:
        scene = self.scene
        for a, b in scene.filtered_pairs:
            self.exclude(a, b)
        tree = set()
        for articulation in articulations:
            tree.update(id(j) for j in articulation.joints)
            tree.update(id(j) for joints in articulation.stacked_joints.values() for j in joints)
            if articulation.base_joint is not None:
                tree.add(id(articulation.base_joint))
            if not scene.body(articulation.root).self_collision:
                names = articulation.bodies
                for k, a in enumerate(names):
                    for b in names[k + 1:]:
                        self.exclude(a, b)
        filter_parent = scene.settings.collision_filter_parent
        for joint in scene.joints:
            if not joint.enabled or joint.body0 is None:
                continue
            if joint.collide_bodies:
                if id(joint) in tree and filter_parent:
                    self.say(f"collision between the bodies of joint {joint.name} (MuJoCo filters parent "
                             "and child)")
                continue
            if id(joint) not in tree or not filter_parent:
                self.exclude(joint.body0, joint.body1)
        for a, b in self.exclude_list:
            exclude = self.spec.add_exclude()
            exclude.bodyname1, exclude.bodyname2 = a, b

    # --- tendons, actuators, equalities ---------------------------------------------------------
    def dof_joint_name(self, joint_name: str, axis: Optional[str]) -> Optional[str]:
        rows = self.dof_joints.get(joint_name)
        joint = self.scene.joint(joint_name)
        if not rows or joint is None or joint.type == JointType.SPHERICAL:
            return None
        if axis is None:
            return rows[0][0]
        return next((name for name, dof in rows if dof.axis.value == axis), None)

    def tendons(self) -> None:
        mj = self.mj
        for tendon in self.scene.tendons:
            joints = [(self.dof_joint_name(tj.joint, tj.axis), tj.coef) for tj in tendon.joints]
            if not joints or any(name is None for name, _ in joints):
                self.say(f"tendon {tendon.name} (on a joint that is no hinge/slide)")
                continue
            spec_tendon = self.spec.add_tendon()
            spec_tendon.name = tendon.name
            for name, coef in joints:
                spec_tendon.wrap_joint(name, float(coef))
            if _finite(tendon.lower) or _finite(tendon.upper):
                spec_tendon.limited = mj.mjtLimited.mjLIMITED_TRUE
                spec_tendon.range = [float(tendon.lower) if _finite(tendon.lower) else -1e10,
                                     float(tendon.upper) if _finite(tendon.upper) else 1e10]
            else:
                spec_tendon.limited = mj.mjtLimited.mjLIMITED_FALSE
            spec_tendon.stiffness = [float(tendon.stiffness), 0.0, 0.0]
            spec_tendon.damping = [float(tendon.damping), 0.0, 0.0]
            tendon_friction_and_spring(spec_tendon, tendon)
            self.tendon_names.add(tendon.name)

    def actuators(self) -> None:
        self.controls: list[float] = []
        for actuator, joint, dof, tendon in self.scene.actuators():
            if tendon is not None:
                if tendon.name not in self.tendon_names:
                    continue
                self.actuator(actuator, self.mj.mjtTrn.mjTRN_TENDON, tendon.name)
                continue
            target = self.dof_target(joint, dof)
            if target is None:
                self.say(f"actuator {actuator.name} (on a ball joint)")
                continue
            self.actuator(actuator, self.mj.mjtTrn.mjTRN_JOINT, target)
        self.frame_actuators()
        for joint in self.scene.joints:
            for dof in joint.active_dofs():
                if dof.drive_enabled:
                    self.drive(joint, dof)

    def dof_target(self, joint: Joint, dof: Dof) -> Optional[str]:
        return next((name for name, d in self.dof_joints.get(joint.name, []) if d is dof
                     and joint.type != JointType.SPHERICAL), None)

    def actuator(self, actuator: Actuator, trntype, target: str):
        mj = self.mj
        spec_actuator = self.spec.add_actuator()
        spec_actuator.name = actuator.name
        self.actuator_names.add(actuator.name)
        spec_actuator.trntype = trntype
        spec_actuator.target = target
        spec_actuator.dyntype = _enum(mj.mjtDyn, "mjDYN", actuator.dyn_type)
        spec_actuator.gaintype = _enum(mj.mjtGain, "mjGAIN", actuator.gain_type)
        spec_actuator.biastype = self.bias_type(actuator)
        spec_actuator.gainprm = _padded(actuator.gain, 10)
        spec_actuator.biasprm = _padded(actuator.bias, 10)
        spec_actuator.dynprm = _padded(actuator.dyn_params, 10)
        spec_actuator.gear = [float(actuator.gear), 0.0, 0.0, 0.0, 0.0, 0.0]
        if actuator.length_range is not None:
            spec_actuator.lengthrange = [float(v) for v in actuator.length_range]
        if actuator.ctrl_range is not None:
            spec_actuator.ctrllimited = mj.mjtLimited.mjLIMITED_TRUE
            spec_actuator.ctrlrange = list(actuator.ctrl_range)
        else:
            spec_actuator.ctrllimited = mj.mjtLimited.mjLIMITED_FALSE
        if actuator.force_range is not None:
            spec_actuator.forcelimited = mj.mjtLimited.mjLIMITED_TRUE
            spec_actuator.forcerange = list(actuator.force_range)
        else:
            spec_actuator.forcelimited = mj.mjtLimited.mjLIMITED_FALSE
        self.controls.append(float(actuator.control))
        return spec_actuator

    def bias_type(self, actuator: Actuator):
        if actuator.bias_type != "affine":
            what = f"actuator {actuator.name} bias type"
            return self.enum(self.mj.mjtBias, "mjBIAS", actuator.bias_type, what)
        return self.mj.mjtBias.mjBIAS_AFFINE if actuator.bias else self.mj.mjtBias.mjBIAS_NONE

    def drive(self, joint: Joint, dof: Dof) -> None:
        """An Articula drive as a MuJoCo servo: position (kp, kv) toward its target position, or
        velocity (kv) toward its target velocity when it has no stiffness."""
        target = self.dof_target(joint, dof)
        name = f"{joint.name}_drive" if joint.type != JointType.D6 else f"{joint.name}_{dof.axis.value}_drive"
        name = self._unique_actuator_name(name)  # an imported robot's own servo may have the name
        if target is None:
            self.say(f"drive of ball joint {joint.name}")
            return
        if dof.drive_type == DriveType.ACCELERATION:
            self.say(f"acceleration drive of {joint.name} (written as a force servo with the same gains)")
        force = None if not _finite(dof.max_effort) else (-float(dof.max_effort), float(dof.max_effort))
        if dof.drive_stiffness > 0.0:
            if dof.target_velocity:
                self.say(f"target velocity of position drive {name}")
            actuator = Actuator.position(name, dof.drive_stiffness, dof.drive_damping, force_range=force,
                                         control=dof.target_position)
        elif dof.drive_damping > 0.0:
            actuator = Actuator.velocity(name, dof.drive_damping, force_range=force, control=dof.target_velocity)
        else:
            return
        self.actuator(actuator, self.mj.mjtTrn.mjTRN_JOINT, target)
        self.drive_actuators[(joint.name, dof.axis.value)] = name

    def _unique_actuator_name(self, name: str) -> str:
        taken = self.actuator_names
        unique, count = name, 1
        while unique in taken:
            unique, count = f"{name}_{count}", count + 1
        return unique

    def equalities(self, articulations: list[Articulation]) -> None:
        mj = self.mj
        for joint in self.scene.joints:
            if joint.mimic is None or not joint.enabled:
                continue
            follower = self.dof_joint_name(joint.name, None)
            leader = self.dof_joint_name(joint.mimic.leader, None)
            if follower is None or leader is None or len(self.dof_joints.get(joint.name, [])) != 1:
                self.say(f"mimic of {joint.name} (not between two hinge/slide joints)")
                continue
            equality = self.spec.add_equality()
            equality.type = mj.mjtEq.mjEQ_JOINT
            equality.objtype = mj.mjtObj.mjOBJ_JOINT
            equality.name1, equality.name2 = follower, leader
            data = np.zeros(len(equality.data))
            terms = [float(joint.mimic.offset), float(joint.mimic.gear), *joint.mimic.higher_terms]
            if len(terms) > 5:
                raise MjcfWriteError(self.path, [f"mimic of {joint.name}: MuJoCo's polycoef holds terms up "
                                                 f"to the 4th power, not {len(terms) - 1}"])
            data[:len(terms)] = terms
            equality.data = data
        for articulation in articulations:
            for joint in articulation.loop_joints:
                self.loop_closure(joint)

    def loop_closure(self, joint: Joint) -> None:
        """A loop-closing joint as an equality: weld for a fixed joint, else connect at its anchor
        (a revolute or prismatic loop joint keeps only its anchor: MJCF has no hinge equality)."""
        mj = self.mj
        equality = self.spec.add_equality()
        equality.name = joint.name
        equality.objtype = mj.mjtObj.mjOBJ_BODY
        equality.name1 = joint.body1
        equality.name2 = joint.body0 or "world"
        data = np.zeros(len(equality.data))
        if joint.type == JointType.FIXED:
            equality.type = mj.mjtEq.mjEQ_WELD
            relative = pose_mul(joint.local_pose1, pose_inverse(joint.local_pose0))  # body0 in body1
            data[0:3] = joint.local_pose0.pos
            data[3:6] = relative.pos
            data[6:10] = quat_normalize(relative.rot)
            data[10] = 1.0
        else:
            equality.type = mj.mjtEq.mjEQ_CONNECT
            data[0:3] = joint.local_pose1.pos
            if joint.type != JointType.SPHERICAL:
                self.say(f"the axis of loop-closing joint {joint.name} (a connect equality holds its anchor)")
        equality.data = data

    # --- state ----------------------------------------------------------------------------------
    def keyframes(self, model) -> None:
        """The description's keyframes, then the state as keyframe ``initial`` (``initial_1``... when
        a keyframe has that name) when it differs from rest, decoded onto ``model``'s layout."""
        self.file_keyframes(model)
        self.wrote_initial = self.initial_keyframe(model)

    def initial_keyframe(self, model) -> bool:
        mj = self.mj
        qpos, qvel = np.array(model.qpos0, dtype=float), np.zeros(model.nv)
        qpos_at, dofs_at = model.jnt_qposadr.tolist(), model.jnt_dofadr.tolist()
        for joint in self.scene.joints:
            for name, dof in self.dof_joints.get(joint.name, []):
                if joint.type == JointType.SPHERICAL:
                    if dof.initial_position or dof.initial_velocity:
                        self.say(f"initial state of ball joint {joint.name}")
                    continue
                j = mj.mj_name2id(model, mj.mjtObj.mjOBJ_JOINT, name)
                qpos[qpos_at[j]] = float(dof.initial_position)  # the file's coordinate
                qvel[dofs_at[j]] = float(dof.initial_velocity)
        for name in self.free_roots:
            body = self.scene.body(name)
            b = mj.mj_name2id(model, mj.mjtObj.mjOBJ_BODY, name)
            dof = int(model.jnt_dofadr[model.body_jntadr[b]])
            qvel[dof:dof + 3] = body.linear_velocity  # world frame
            # MuJoCo's free angular velocity is in the body frame.
            qvel[dof + 3:dof + 6] = quat_rotate(quat_conjugate(body.pose.rot), body.angular_velocity)
        ctrl = np.array(self.controls, dtype=float)
        if not (np.any(qpos != model.qpos0) or np.any(qvel) or np.any(ctrl)):
            return False
        key = self.spec.add_key()
        key.name = self.initial_name
        key.qpos, key.qvel = qpos, qvel
        if model.nu:
            key.ctrl = ctrl
        if model.nmocap:
            key.mpos = np.array(model.body_pos[model.body_mocapid >= 0]).ravel()
            key.mquat = np.array(model.body_quat[model.body_mocapid >= 0]).ravel()
        return True


def _as_written(value: float) -> float:
    """``value`` as ``to_xml`` writes it: 6 significant digits, below 1e-12 zero."""
    return 0.0 if abs(value) < 1e-12 else float(f"{value:.6g}")


def _writable_inertia(diagonal) -> Optional[list[float]]:
    """Principal moments that still satisfy MuJoCo's A + B >= C once written with 6 digits (the
    largest lowered to the sum of the others where rounding broke it), or None when rounding leaves
    nothing that can (moments below 1e-12)."""
    moments = [_as_written(float(m)) for m in diagonal]
    order = sorted(range(3), key=lambda k: moments[k])
    a, b, c = (moments[k] for k in order)
    if a + b >= c:
        return moments
    if a + b == 0.0 or c - (a + b) > 1e-5 * c:
        return None if a + b == 0.0 else moments  # a real violation stays for validation to name
    edge = _as_written(a + b)
    while edge > a + b:
        edge = _as_written(edge * (1.0 - 1e-6))
    moments[order[2]] = edge
    return moments


def _violates_triangle(moments) -> bool:
    a, b, c = sorted(moments)
    return a + b < c


def _dof_scalars(dof: Dof) -> tuple:
    return (dof.armature, dof.viscous_damping, dof.dynamic_friction, dof.spring_stiffness, dof.max_effort)
