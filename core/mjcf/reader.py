"""MJCF (MuJoCo's XML) -> the physics description, through MuJoCo's own compiler.

``mujoco.MjSpec`` parses the file (includes, default classes, compiler options: angle units,
autolimits, inertiafromgeom, ``fromto``, mesh assets) and ``spec.compile()`` gives the resolved
numbers; nothing here reads XML. What becomes what:

- each MuJoCo body -> a :class:`Body` at its world pose at ``qpos0`` (the file's pose), with the
  compiled mass, center of mass and principal inertia (MuJoCo's own, from ``<inertial>`` or geoms);
- a top-level body with a free joint floats; one without joints is fixed to the world (a FIXED
  world joint); a child body without joints is welded to its parent (a FIXED joint);
- hinge/slide joints -> REVOLUTE/PRISMATIC, ball -> SPHERICAL (cone limit = range[1]). A body with
  several joints keeps them as several joints between the same two bodies (core/articulation.py's
  stacked joints, as mujoco-usd-converter writes them and as Newton's ``add_usd`` merges them into
  one D6). The joint frame sits at the joint's anchor with its X (or the matching Y/Z) on the axis;
  ``ref`` -> ``Dof.reference`` (and the initial position: MuJoCo starts at ``qpos0``), so ranges,
  servo ctrls, keyframes and sensors keep the file's joint coordinate;
- per DOF: range, margin, armature, damping (viscous), frictionloss (static = dynamic friction),
  stiffness (passive spring), ``actuatorfrcrange`` (effort limit);
- actuators on a hinge/slide joint -> :class:`Actuator` on its DOF, on a fixed tendon -> on the
  :class:`FixedTendon`, in MuJoCo's general form as compiled (gainprm, biasprm, gear, ranges, muscles'
  bias type and length range; no drive is made from them: a DOF's drive is its UsdPhysics drive);
  fixed tendons -> FixedTendon; joint equalities -> ``Joint.mimic`` of joint1 (polynomial terms too);
- geoms follow Newton's ``add_mjcf``: class ``visual*`` or contype = conaffinity = 0 -> visuals,
  the rest -> colliders (which MuJoCo also draws: a visual copy is added for each one in a drawn
  group 0-2); friction -> physics materials; contype/conaffinity -> collision groups where exact,
  else filtered body pairs plus a warning; ``<exclude>`` -> filtered pairs;
- MuJoCo's own model (read_extras.py): sites, cameras, lights, sensors (by MJCF keyword),
  keyframes (decoded by joint, ball, floating root, mocap body and actuator), weld/connect equalities
  -> ``Equality``, spatial tendons -> ``SpatialTendon``, actuators on sites, bodies, ball joints,
  named free joints and spatial tendons -> ``frame_actuators``, ``<pair>`` -> ``ContactPair``,
  ``<option>`` -> ``SceneSettings.mujoco`` (``solver_iterations``, Newton's, keeps its default),
  each collider's condim/priority/solref/solimp/solmix -> ``Shape.contact`` (None: all defaults),
  height fields -> HEIGHT_FIELD shapes (the compiled, normalized grid: files and inline data alike),
  margin/gap -> ``contact_margin``/``contact_gap``, a DOF's joint name -> ``Dof.name``, a named
  free joint -> ``Body.free_joint_name``; geoms that pairs and tendons name stay colliders;
- what the description cannot hold (flexes, skins, flex
  equalities, tactile sensors, ...) is named in one warning.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..format_types import FormatError, ReadResult
from ..model import (Actuator, Body, Dof, FixedTendon, HeightField, Joint, JointType, MassProperties,
                     MeshData, Mimic,
                     DofMotion, PhysicsMaterial, PhysicsScene, Pose, SceneSettings, Shape, ShapeKind, Solver,
                     TendonEquality, TendonJoint, Visual, make_joint)
from ..transforms import pose_inverse, pose_mul, quat_normalize
from . import primitives
from .compiler import compile_spec
from .fragments import fragment_advice, has_top_level_bodies, included_note, is_include_file_error
from .read_extras import ExtrasReader, tendon_friction_and_spring

#: MuJoCo draws geom groups 0, 1 and 2 by default.
DRAWN_GROUPS = range(0, 3)


class MjcfReadError(FormatError):
    """An MJCF file that MuJoCo cannot load (or that holds no robot the description can take)."""


@dataclass
class MeshSource:
    """Where a visual's mesh came from: ``path`` (OBJ, STL...) whose vertices, times ``scale``, are in
    the frame ``offset`` of the visual (MuJoCo re-centres meshes at their centre of mass and principal
    axes and moves the geometry's pose to match): in the visual's frame a file vertex ``v`` lies at
    ``inverse(offset) * (scale * v)``. A Blender importer reading ``path`` can replace the mesh
    (UV maps, n-gons), as addon/adapters/mesh_files_to_blender.py does."""

    path: str
    offset: Pose
    scale: tuple


#: What :func:`read_mjcf` gives: the description, its warnings, ``mesh_sources`` (visual name ->
#: :class:`MeshSource`) and ``material_textures`` (material name -> the image of its 2D color texture,
#: for meshes with UVs: MuJoCo maps a 2D texture onto a mesh by its texture coordinates; onto
#: primitives it projects, which is not carried).
MjcfRead = ReadResult


def _mujoco():
    try:
        import mujoco
    except ImportError as error:  # pragma: no cover - bundled with the extension
        raise MjcfReadError("", f"MuJoCo is not available to read MJCF ({error})") from error
    return mujoco


def _quat(q) -> tuple:
    return quat_normalize(tuple(float(c) for c in q))


def _vec(v) -> tuple:
    return tuple(float(c) for c in v)


def _axis_frame(axis) -> tuple[str, tuple]:
    """(letter, rotation) putting the joint frame's letter axis onto ``axis`` (a unit vector).

    An axis along +X, +Y or +Z keeps an unrotated frame with that letter; any other gets X rotated
    onto it (the shortest arc; 180 degrees about Z for -X)."""
    a = np.asarray(axis, dtype=float)
    a = a / (np.linalg.norm(a) or 1.0)
    for k, letter in enumerate("XYZ"):
        if a[k] > 1.0 - 1e-12:
            return letter, (1.0, 0.0, 0.0, 0.0)
    x = np.array([1.0, 0.0, 0.0])
    d = float(np.dot(x, a))
    if d < -1.0 + 1e-12:
        return "X", (0.0, 0.0, 0.0, 1.0)
    c = np.cross(x, a)
    q = np.array([1.0 + d, *c])
    return "X", _quat(q / np.linalg.norm(q))


def _name(mujoco, model, kind, index: int, fallback: str) -> str:
    return mujoco.mj_id2name(model, kind, index) or fallback


class MjcfReader(ExtrasReader):
    """One MJCF file read through MuJoCo's compiler (the URDF reader subclasses it)."""

    Error = MjcfReadError
    #: A file that fails may be a piece other MJCF files include: name them (not for URDF).
    names_includers = True

    def __init__(self, path: str | os.PathLike, visuals_from_colliders: bool = True):
        self.path = os.fspath(path)  # MuJoCo's from_file takes only str
        self.mesh_sources: dict[str, MeshSource] = {}
        self.material_textures: dict[str, str] = {}
        self.visuals_from_colliders = visuals_from_colliders
        self.warnings: list[str] = []
        self.unsupported: list[str] = []
        self.mujoco = _mujoco()

    # --- load ------------------------------------------------------------------------------
    def parse(self):
        """The file's MjSpec (MuJoCo parses it: includes, defaults, compiler options)."""
        try:
            return self.mujoco.MjSpec.from_file(self.path)
        except Exception as error:  # MuJoCo names the element and line
            message = " ".join(str(error).split())
            if is_include_file_error(message):
                message = ("a piece of a model for other files to include (<mujocoinclude>), not a robot of "
                           f"its own: {fragment_advice(self.path)}")
            elif self.names_includers:
                message += included_note(self.path)
            raise self.Error(self.path, message) from error

    def load(self):
        mujoco = self.mujoco
        if not os.path.isfile(self.path):
            raise self.Error(self.path, "no such file")
        self.spec = self.parse()
        self.model = None
        while self.model is None:
            try:
                self.model = self._compile()
            except Exception as error:  # MuJoCo names the element
                message = " ".join(str(error).split())
                if not self.recover(message):
                    note = included_note(self.path) if self.names_includers else ""
                    raise self.Error(self.path, message + note) from error
        self.data = mujoco.MjData(self.model)
        mujoco.mj_kinematics(self.model, self.data)  # qpos = qpos0: the file's pose

    def recover(self, message: str) -> bool:
        """Change the spec so that a failed compile may pass; False when nothing is left to try.

        Sensors are not carried over: ones MuJoCo rejects (Newton's nv_humanoid.xml names a
        sensorized object that does not exist) need not stop the robot from loading."""
        if self.spec.sensors:
            for sensor in list(self.spec.sensors):
                self.spec.delete(sensor)
            self.warn(f"sensors left out: MuJoCo cannot compile them ({message})")
            return True
        return False

    def _compile(self):
        """spec.compile(), MuJoCo's warnings kept as ours."""
        model, messages = compile_spec(self.spec)
        for message in messages:
            self.warn(f"MuJoCo: {message}")
        return model

    def read(self) -> ReadResult:
        self.load()
        m, mujoco = self.model, self.mujoco
        if m.nbody == 1 and has_top_level_bodies(self.path):
            self.warn("its <body> elements stand outside <worldbody>, where MuJoCo ignores them: a piece "
                      "of a model for other files to include, not a robot of its own; "
                      + fragment_advice(self.path))
        name = m.names[:m.names.find(b"\0")].decode() if m.names else ""
        scene = PhysicsScene(name=name or os.path.splitext(os.path.basename(self.path))[0])
        self.scene = scene
        # MuJoCo's iterations are its own option; solver_iterations (Newton's) stays at its default.
        scene.settings = SceneSettings(gravity=_vec(m.opt.gravity), steps_per_second=1.0 / m.opt.timestep,
                                       solver=Solver.MUJOCO, mujoco=self.mujoco_options(),
                                       collision_filter_parent=not m.opt.disableflags
                                       & int(mujoco.mjtDisableBit.mjDSBL_FILTERPARENT))
        # Unnamed bodies are called as Newton's add_mjcf calls them (its index: MuJoCo's - 1).
        self.body_names = [""] + [_name(mujoco, m, mujoco.mjtObj.mjOBJ_BODY, i, f"body_{i - 1}")
                                  for i in range(1, m.nbody)]
        self.joint_names = [_name(mujoco, m, mujoco.mjtObj.mjOBJ_JOINT, j,
                                  f"{self.body_names[m.jnt_bodyid[j]]}_joint_{j}") for j in range(m.njnt)]
        self._unique_names()
        self.poses = [Pose(_vec(self.data.xpos[i]), _quat(self.data.xquat[i])) for i in range(m.nbody)]
        for i in range(1, m.nbody):
            self.add_body(i)
        for i in range(1, m.nbody):
            self.add_joints(i)
        self.geom_names = self._geom_names()
        self.add_sites()
        self.add_cameras()
        self.add_lights()
        self.add_tendons()
        self.add_actuators()
        self.add_equalities()
        self.add_geoms()
        self.add_excludes()
        self.add_contact_pairs()
        self.add_keyframes()
        self.add_sensors()
        self.finish()
        self.list_unsupported()
        return ReadResult(scene=scene, warnings=self.warnings, mesh_sources=self.mesh_sources,
                        material_textures=self.material_textures)

    def finish(self) -> None:
        """What a format adds after the MuJoCo model was read (nothing for MJCF)."""

    def _unique_names(self) -> None:
        """Body names and joint names each unique (MuJoCo's are, unnamed ones get body_<i>)."""
        seen: set = set()
        for names in (self.body_names, self.joint_names):
            seen.clear()
            for k, n in enumerate(names):
                base, count = n, 1
                while n in seen:
                    n, count = f"{base}_{count}", count + 1
                names[k] = n
                seen.add(n)

    def warn(self, message: str) -> None:
        self.warnings.append(f"{os.path.basename(self.path)}: {message}")

    # --- bodies and joints -----------------------------------------------------------------
    def add_body(self, i: int) -> None:
        m = self.model
        parent = int(m.body_parentid[i])
        body = Body(name=self.body_names[i], pose=self.poses[i], parent=self.body_names[parent] if parent else None)
        mass = float(m.body_mass[i])
        if mass > 0.0:
            body.mass = MassProperties(mass=mass, center_of_mass=_vec(m.body_ipos[i]),
                                       diagonal_inertia=_vec(m.body_inertia[i]),
                                       principal_axes=_quat(m.body_iquat[i]))
        else:
            body.mass = MassProperties(mass=0.0)
        if m.body_mocapid[i] >= 0:
            body.kinematic = True
        self.scene.bodies.append(body)

    def _frames(self, i: int, pos, rot) -> tuple[Pose, Pose]:
        """Joint frame ``(pos, rot)`` in body ``i``'s frame -> (local_pose0, local_pose1)."""
        local1 = Pose(_vec(pos), rot)
        parent = int(self.model.body_parentid[i])
        world = pose_mul(self.poses[i], local1)
        local0 = world if parent == 0 else pose_mul(pose_inverse(self.poses[parent]), world)
        return Pose(local0.pos, quat_normalize(local0.rot)), local1

    def add_joints(self, i: int) -> None:
        m, mj = self.model, self.mujoco
        body_name = self.body_names[i]
        parent = int(m.body_parentid[i])
        body0 = self.body_names[parent] if parent else None
        first, count = int(m.body_jntadr[i]), int(m.body_jntnum[i])
        if count == 0:
            local0, local1 = self._frames(i, (0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0))
            kind = "fixed_base" if parent == 0 else "joint"
            if m.body_mocapid[i] < 0:
                self.scene.joints.append(Joint(name=self.fixed_joint_name(i, f"{body_name}_{kind}"),
                                               type=JointType.FIXED, body0=body0, body1=body_name,
                                               local_pose0=local0, local_pose1=local1))
            return
        for j in range(first, first + count):
            jtype = int(m.jnt_type[j])
            if jtype == int(mj.mjtJoint.mjJNT_FREE):
                if count > 1 or parent != 0:
                    self.warn(f"body {body_name}: a free joint with other joints or under a body is not "
                              "representable; the body floats")
                else:
                    self.scene.body(body_name).free_joint_name = mj.mj_id2name(m, mj.mjtObj.mjOBJ_JOINT, j)
                self.free_joint_values(j, body_name)
                continue
            self.scene.joints.append(self.joint(i, j, body0))

    def free_joint_values(self, j: int, body_name: str) -> None:
        """A floating root's free joint's damping, armature, frictionloss and stiffness (MuJoCo sets each
        on all 6 DOFs alike; DOFs that differ keep their largest, with a warning)."""
        m = self.model
        dofs = slice(int(m.jnt_dofadr[j]), int(m.jnt_dofadr[j]) + 6)
        body = self.scene.body(body_name)
        for what, values in (("damping", m.dof_damping[dofs]), ("armature", m.dof_armature[dofs]),
                             ("friction", m.dof_frictionloss[dofs])):
            if np.ptp(values) > 0.0:
                self.warn(f"body {body_name}: its free joint's DOFs differ in {what}; the largest is kept")
            setattr(body, f"free_joint_{what}", float(np.max(values)))
        body.free_joint_stiffness = float(m.jnt_stiffness[j])

    def fixed_joint_name(self, i: int, name: str) -> str:
        """The name of the FIXED joint made for jointless body ``i``: ``name`` made unique."""
        return self._free_joint_name(name)

    def _free_joint_name(self, name: str) -> str:
        taken = set(self.joint_names) | {j.name for j in self.scene.joints}
        base, count = name, 1
        while name in taken:
            name, count = f"{base}_{count}", count + 1
        return name

    def joint(self, i: int, j: int, body0: Optional[str]) -> Joint:
        m, mj = self.model, self.mujoco
        jtype, dof = int(m.jnt_type[j]), int(m.jnt_dofadr[j])
        name = self.joint_names[j]
        if jtype == int(mj.mjtJoint.mjJNT_BALL):
            local0, local1 = self._frames(i, m.jnt_pos[j], (1.0, 0.0, 0.0, 0.0))
            joint = make_joint(name, JointType.SPHERICAL, body0, self.body_names[i],
                               local_pose0=local0, local_pose1=local1)
            if m.jnt_limited[j]:
                joint.cone_limit0 = joint.cone_limit1 = float(m.jnt_range[j][1])
            for k, d in enumerate(joint.dofs):
                self._dof_values(d, j, dof + k)
            return joint
        letter, rot = _axis_frame(m.jnt_axis[j])
        local0, local1 = self._frames(i, m.jnt_pos[j], rot)
        joint_type = JointType.REVOLUTE if jtype == int(mj.mjtJoint.mjJNT_HINGE) else JointType.PRISMATIC
        joint = make_joint(name, joint_type, body0, self.body_names[i], axis=letter,
                           local_pose0=local0, local_pose1=local1)
        d = joint.dofs[0]
        d.name = name
        self._dof_values(d, j, dof)
        # The file's coordinate throughout: the authored pose is q = ref, where MuJoCo starts.
        d.reference = d.initial_position = float(m.qpos0[m.jnt_qposadr[j]])
        if m.jnt_limited[j]:
            d.motion, d.lower, d.upper = DofMotion.LIMITED, float(m.jnt_range[j][0]), float(m.jnt_range[j][1])
        d.spring_reference = float(m.qpos_spring[m.jnt_qposadr[j]])
        return joint

    def _dof_values(self, d: Dof, j: int, dof: int) -> None:
        m = self.model
        d.armature = float(m.dof_armature[dof])
        d.viscous_damping = float(m.dof_damping[dof])
        d.static_friction = d.dynamic_friction = float(m.dof_frictionloss[dof])
        d.spring_stiffness = float(m.jnt_stiffness[j])
        d.limit_margin = float(m.jnt_margin[j])
        d.limit_solref, d.limit_solimp = _vec(m.jnt_solref[j]), _vec(m.jnt_solimp[j])
        d.group = int(m.jnt_group[j])
        if m.jnt_actfrclimited[j]:
            d.max_effort = float(max(abs(m.jnt_actfrcrange[j][0]), abs(m.jnt_actfrcrange[j][1])))

    # --- actuators, tendons, coupled joints ------------------------------------------------
    def add_tendons(self) -> None:
        """Fixed tendons -> :class:`FixedTendon` (joints with coefficients, length limits, spring and
        damper, friction, armature), spatial tendons -> :class:`SpatialTendon`; a fixed tendon on a ball
        or free joint is named as not carried."""
        m, mj = self.model, self.mujoco
        joint_wrap = int(mj.mjtWrap.mjWRAP_JOINT)
        self.spatial_tendons: dict[int, object] = {}  # MuJoCo tendon id -> SpatialTendon
        self.tendons: dict[int, object] = {}  # MuJoCo tendon id -> FixedTendon
        self.tendon_names: list[str] = []
        on_ball = []
        for t in range(m.ntendon):
            name = self._unique(_name(mj, m, mj.mjtObj.mjOBJ_TENDON, t, f"tendon_{t}"),
                                set(self.tendon_names))
            self.tendon_names.append(name)
            first, count = int(m.tendon_adr[t]), int(m.tendon_num[t])
            wraps = range(first, first + count)
            if any(int(m.wrap_type[w]) != joint_wrap for w in wraps):
                self.spatial_tendons[t] = self.spatial_tendon(t, name)
                self.scene.spatial_tendons.append(self.spatial_tendons[t])
                continue
            joints = [TendonJoint(joint=self.joint_names[int(m.wrap_objid[w])], coef=float(m.wrap_prm[w]))
                      for w in wraps]
            if any(int(m.jnt_type[int(m.wrap_objid[w])]) not in self._scalar_joint_types() for w in wraps):
                on_ball.append(f"{name} (on a ball or free joint)")
                continue
            tendon = FixedTendon(name=name, joints=joints, stiffness=float(m.tendon_stiffness[t]),
                                 damping=float(m.tendon_damping[t]))
            if m.tendon_limited[t]:
                tendon.lower, tendon.upper = (float(v) for v in m.tendon_range[t])
            tendon_friction_and_spring(m, t, tendon)
            self.tendons[t] = tendon
            self.scene.tendons.append(tendon)
        if on_ball:
            self.unsupported.append(f"{len(on_ball)} fixed tendons ({_listed(on_ball)})")

    def _scalar_joint_types(self) -> tuple[int, int]:
        return int(self.mujoco.mjtJoint.mjJNT_HINGE), int(self.mujoco.mjtJoint.mjJNT_SLIDE)

    def add_actuators(self) -> None:
        """Each actuator on a hinge/slide joint or a fixed tendon -> an :class:`Actuator` in MuJoCo's
        general form, as the compiled model holds it (defaults, autolimits and dampratio resolved):
        gainprm, biasprm, gear[0], ctrl/force ranges where limited, the joint's actgravcomp, dynamics
        kept verbatim. ctrl starts at 0, as in MuJoCo. Site, body, ball and named free joint, spatial
        tendon and slider-crank transmissions -> ``frame_actuators``."""
        m, mj = self.model, self.mujoco
        trn = mj.mjtTrn
        joint_trns = (int(trn.mjTRN_JOINT), int(trn.mjTRN_JOINTINPARENT))
        skipped, activation = [], []
        self.actuator_names: list[str] = []
        for a in range(m.nu):
            name = self._unique(_name(mj, m, mj.mjtObj.mjOBJ_ACTUATOR, a, f"actuator_{a}"),
                                set(self.actuator_names))
            self.actuator_names.append(name)
            trntype, target = int(m.actuator_trntype[a]), int(m.actuator_trnid[a][0])
            biastype = int(m.actuator_biastype[a])
            # jointinparent differs from joint only on ball and free joints, which are not read.
            if trntype in joint_trns and int(m.jnt_type[target]) in self._scalar_joint_types():
                owner = self.scene.joint(self.joint_names[target])
                actuators, gravcomp = owner.dofs[0].actuators, bool(m.jnt_actgravcomp[target])
            elif trntype == int(trn.mjTRN_TENDON) and target in self.tendons:
                actuators, gravcomp = self.tendons[target].actuators, False
            elif self.frame_target(a) is not None:
                actuators, gravcomp = self.scene.frame_actuators, False
            else:  # no transmission the description holds
                skipped.append(f"{name} (on a {_enum_name(mj.mjtTrn(trntype))} transmission)")
                continue
            actuator = Actuator(
                name=name, gain=m.actuator_gainprm[a],
                bias=m.actuator_biasprm[a] if biastype != int(mj.mjtBias.mjBIAS_NONE) else (),
                bias_type=_enum_name(mj.mjtBias(biastype)) if biastype != int(mj.mjtBias.mjBIAS_NONE)
                else "affine",
                gear=float(m.actuator_gear[a][0]), gravity_compensation=gravcomp,
                dyn_type=_enum_name(mj.mjtDyn(int(m.actuator_dyntype[a]))),
                gain_type=_enum_name(mj.mjtGain(int(m.actuator_gaintype[a]))),
                dyn_params=m.actuator_dynprm[a])
            if m.actuator_ctrllimited[a]:
                actuator.ctrl_range = tuple(float(v) for v in m.actuator_ctrlrange[a])
            if m.actuator_forcelimited[a]:
                actuator.force_range = tuple(float(v) for v in m.actuator_forcerange[a])
            if m.actuator_lengthrange[a][0] < m.actuator_lengthrange[a][1]:
                actuator.length_range = tuple(float(v) for v in m.actuator_lengthrange[a])
            if m.actuator_actlimited[a] or int(m.actuator_actnum[a]) > 1:
                activation.append(name)
            if actuators is self.scene.frame_actuators:
                actuator.target_kind, actuator.target, actuator.reference_site = self.frame_target(a)
                actuator.gear_vector = tuple(float(g) for g in m.actuator_gear[a])
                if actuator.target_kind == "slidercrank":
                    actuator.slider_site = self.site_names[int(m.actuator_trnid[a][1])]
                    actuator.crank_length = float(m.actuator_cranklength[a])
            actuators.append(actuator)
        if skipped:
            self.unsupported.append(f"{len(skipped)} actuators ({_listed(skipped)})")
        if activation:
            self.unsupported.append(f"activation limits of actuators {_listed(activation)}")
        gravcomp_alone = [self.joint_names[j] for j in range(m.njnt)
                          if m.jnt_actgravcomp[j] and not self._has_actuator(self.joint_names[j])]
        if gravcomp_alone:
            self.unsupported.append(f"actuatorgravcomp on joints without an actuator ({_listed(gravcomp_alone)})")

    def frame_target(self, a: int) -> Optional[tuple[str, str, Optional[str]]]:
        """(transmission keyword, target, reference site) of an actuator on a site, a body, a ball
        joint or a spatial tendon; None for any other."""
        m, trn = self.model, self.mujoco.mjtTrn
        trntype = int(m.actuator_trntype[a])
        target, other = (int(i) for i in m.actuator_trnid[a])
        if trntype == int(trn.mjTRN_SITE):
            return "site", self.site_names[target], self.site_names[other] if other >= 0 else None
        if trntype == int(trn.mjTRN_BODY):
            return "body", self.body_names[target], None
        if trntype == int(trn.mjTRN_TENDON) and target in self.spatial_tendons:
            return "tendon", self.tendon_names[target], None
        if trntype == int(trn.mjTRN_SLIDERCRANK):
            return "slidercrank", self.site_names[target], None
        if trntype not in (int(trn.mjTRN_JOINT), int(trn.mjTRN_JOINTINPARENT)):
            return None
        keyword = "joint" if trntype == int(trn.mjTRN_JOINT) else "jointinparent"
        if int(m.jnt_type[target]) == int(self.mujoco.mjtJoint.mjJNT_BALL):
            return keyword, self.joint_names[target], None
        body = self.scene.body(self.body_names[int(m.jnt_bodyid[target])])
        if body.free_joint_name:  # a floating root's named free joint (the writer names it so)
            return keyword, body.free_joint_name, None
        return None

    def _has_actuator(self, joint_name: str) -> bool:
        joint = self.scene.joint(joint_name)
        return joint is not None and any(d.actuators for d in joint.dofs)

    def add_equalities(self) -> None:
        """Joint equalities between two hinge/slide joints -> ``Joint.mimic`` of joint1 (joint1 =
        polycoef[0] + polycoef[1] * joint2 + polycoef[2] * joint2 ** 2..., both from the file's pose, as
        MuJoCo measures them); weld and connect -> :class:`Equality`; tendon
        equalities -> :class:`TendonEquality`. Other equalities are named as not carried."""
        m, mj = self.model, self.mujoco
        joint_eq = int(mj.mjtEq.mjEQ_JOINT)
        skipped = []
        for e in range(m.neq):
            kind = int(m.eq_type[e])
            name = _name(mj, m, mj.mjtObj.mjOBJ_EQUALITY, e, f"equality_{e}")
            what = _enum_name(mj.mjtEq(kind))
            frame_equality = self.frame_equality(e, name)
            if frame_equality is not None:
                self.scene.equalities.append(frame_equality)
                continue
            if kind == int(mj.mjtEq.mjEQ_TENDON):
                self.add_tendon_equality(e, name, skipped)
                continue
            if kind != joint_eq:
                skipped.append(f"{name} ({what})")
                continue
            j1, j2 = int(m.eq_obj1id[e]), int(m.eq_obj2id[e])
            scalar = self._scalar_joint_types()
            follower = self.scene.joint(self.joint_names[j1])
            if j2 < 0 or int(m.jnt_type[j1]) not in scalar or int(m.jnt_type[j2]) not in scalar:
                skipped.append(f"{name} (joint {self.joint_names[j1]} {'held at a position' if j2 < 0 else 'not hinge/slide'})")
                continue
            if follower.mimic is not None or not m.eq_active0[e]:
                skipped.append(f"{name} ({'a second coupling of' if m.eq_active0[e] else 'inactive, on'} "
                               f"joint {follower.name})")
                continue
            poly = [float(c) for c in m.eq_data[e][:5]]
            follower.mimic = Mimic(leader=self.joint_names[j2], gear=poly[1], offset=poly[0],
                                   higher_terms=tuple(np.trim_zeros(poly[2:], "b")))
        if skipped:
            self.unsupported.append(f"{len(skipped)} equality constraints ({_listed(skipped)})")

    def add_tendon_equality(self, e: int, name: str, skipped: list) -> None:
        m = self.model
        ids = (int(m.eq_obj1id[e]), int(m.eq_obj2id[e]))
        held = {t.name for t in self.tendons.values()} | {t.name for t in self.spatial_tendons.values()}
        names = [self.tendon_names[t] if t >= 0 else None for t in ids]
        missing = [n for n in names if n is not None and n not in held]
        if missing:
            skipped.append(f"{name} (on tendon {missing[0]}, not carried)")
            return
        self.scene.tendon_equalities.append(TendonEquality(
            name=name, tendon0=names[0], tendon1=names[1], polycoef=_vec(m.eq_data[e][:5]),
            active=bool(m.eq_active0[e]), solref=_vec(m.eq_solref[e]), solimp=_vec(m.eq_solimp[e])))

    @staticmethod
    def _unique(name: str, taken: set) -> str:
        base, count = name, 1
        while name in taken:
            name, count = f"{base}_{count}", count + 1
        return name

    # --- geoms -----------------------------------------------------------------------------
    def referenced_geoms(self) -> set:
        """Geoms that explicit contact pairs and spatial tendons name: colliders whatever their masks."""
        if getattr(self, "_referenced_geoms", None) is None:
            m, mj = self.model, self.mujoco
            geom_wraps = (int(mj.mjtWrap.mjWRAP_SPHERE), int(mj.mjtWrap.mjWRAP_CYLINDER))
            self._referenced_geoms = {int(g) for g in m.pair_geom1} | {int(g) for g in m.pair_geom2} | \
                {int(m.wrap_objid[w]) for w in range(m.nwrap) if int(m.wrap_type[w]) in geom_wraps}
        return self._referenced_geoms

    def _geom_names(self) -> list[str]:
        """Each geom's name: its own, else ``<body>_geom_<index>``, unique among bodies and joints."""
        m, mj = self.model, self.mujoco
        self.used_names = used = {b.name for b in self.scene.bodies} | {j.name for j in self.scene.joints}
        names = []
        for g in range(m.ngeom):
            b = int(m.geom_bodyid[g])
            fallback = f"{self.body_names[b] if b else 'world'}_geom_{g}"
            base = _name(mj, m, mj.mjtObj.mjOBJ_GEOM, g, "") or fallback
            name, count = base, 1
            while name in used:
                name, count = f"{base}_{count}", count + 1
            used.add(name)
            names.append(name)
        return names

    def add_geoms(self) -> None:
        m, mj = self.model, self.mujoco
        materials: dict[tuple, str] = {}
        self.geom_classes: dict[str, tuple[int, int]] = {}
        collider_masks = []
        used = self.used_names
        for g in range(m.ngeom):
            name = self.geom_names[g]
            b = int(m.geom_bodyid[g])
            body = self.body_names[b] if b else None
            spec_geom = self.spec.geom(mj.mj_id2name(m, mj.mjtObj.mjOBJ_GEOM, g)) if m.name_geomadr[g] >= 0 \
                and mj.mj_id2name(m, mj.mjtObj.mjOBJ_GEOM, g) else None
            geom_class = getattr(getattr(spec_geom, "classname", None), "name", "") if spec_geom else ""
            contype, conaffinity = int(m.geom_contype[g]), int(m.geom_conaffinity[g])
            is_visual = geom_class.startswith("visual") or (contype == 0 and conaffinity == 0)
            if geom_class.startswith("collision") or g in self.referenced_geoms():
                is_visual = False  # a pair's or a tendon's geom stays one (group 0: touches nothing)
            pose = Pose(_vec(m.geom_pos[g]), _quat(m.geom_quat[g]))
            if body is None:
                pose = Pose(_vec(self.data.geom_xpos[g]), _quat(_mat_to_quat(self.data.geom_xmat[g])))
            if not is_visual:
                shape = self.shape(g, name, body, pose)
                if shape is not None:
                    friction = tuple(float(f) for f in m.geom_friction[g])
                    material = materials.get(friction)
                    if material is None:
                        material = materials[friction] = f"mjcf_friction_{len(materials)}"
                        self.scene.materials.append(PhysicsMaterial(
                            name=material, static_friction=friction[0], dynamic_friction=friction[0],
                            torsional_friction=friction[1], rolling_friction=friction[2]))
                    shape.material = material
                    shape.contact = self.contact_params(g)
                    shape.contact_margin, shape.contact_gap = float(m.geom_margin[g]), float(m.geom_gap[g])
                    if body is None:
                        shape.world = -1
                    self.scene.shapes.append(shape)
                    collider_masks.append((shape, contype, conaffinity))
            # A collider's drawn copy, but for floors and terrain: shown by their collider.
            surface = int(m.geom_type[g]) in (int(mj.mjtGeom.mjGEOM_PLANE), int(mj.mjtGeom.mjGEOM_HFIELD))
            drawn = int(m.geom_group[g]) in DRAWN_GROUPS and not surface
            if is_visual or (self.visuals_from_colliders and drawn):
                mesh = self.geom_mesh(g)
                if mesh is not None:
                    visual_name = name if is_visual else self._visual_name(name, used)
                    self.scene.visuals.append(Visual(name=visual_name, body=body, mesh=mesh, pose=pose,
                                                     color=self.geom_color(g),
                                                     material_name=self.material_name(g)))
                    self.visual_added(visual_name, g)
        self.collision_groups(collider_masks)

    def visual_added(self, name: str, g: int) -> None:
        """A visual named ``name`` made from a mesh geom ``g`` records the file it came from."""
        m, mj = self.model, self.mujoco
        if int(m.geom_type[g]) != int(mj.mjtGeom.mjGEOM_MESH):
            return
        mesh = int(m.geom_dataid[g])
        spec_mesh = self.spec.mesh(mj.mj_id2name(m, mj.mjtObj.mjOBJ_MESH, mesh))
        path = self.mesh_file(spec_mesh) if spec_mesh is not None else None
        if path:
            self.mesh_sources[name] = MeshSource(path, Pose(_vec(m.mesh_pos[mesh]), _quat(m.mesh_quat[mesh])),
                                                 _vec(m.mesh_scale[mesh]))

    def mesh_file(self, spec_mesh) -> Optional[str]:
        """The file a mesh asset was read from, as MuJoCo finds it (the compiler's meshdir or
        assetdir, relative to the model's folder), or None (vertices in the file, or not found)."""
        if not spec_mesh.file:
            return None
        base = self.spec.modelfiledir or os.path.dirname(os.path.abspath(self.path))
        path = os.path.join(base, self.spec.meshdir or "", spec_mesh.file)
        return path if os.path.isfile(path) else None

    def _visual_name(self, name: str, used: set) -> str:
        base, candidate, count = f"{name}_visual", f"{name}_visual", 1
        while candidate in used:
            candidate, count = f"{base}_{count}", count + 1
        used.add(candidate)
        return candidate

    def geom_color(self, g: int) -> tuple:
        m = self.model
        mat = int(m.geom_matid[g])
        rgba = m.mat_rgba[mat] if mat >= 0 else m.geom_rgba[g]
        return tuple(float(c) for c in rgba)

    def material_name(self, g: int) -> Optional[str]:
        m, mj = self.model, self.mujoco
        mat = int(m.geom_matid[g])
        if mat < 0:
            return None
        name = mj.mj_id2name(m, mj.mjtObj.mjOBJ_MATERIAL, mat) or f"mjcf_material_{mat}"
        if int(m.geom_type[g]) == int(mj.mjtGeom.mjGEOM_MESH) and name not in self.material_textures:
            image = self.texture_file(mat)
            if image:
                self.material_textures[name] = image
        return name

    def texture_file(self, mat: int) -> Optional[str]:
        """The image file of material ``mat``'s 2D color texture, as MuJoCo finds it (the compiler's
        texturedir or assetdir, relative to the model's folder), or None (none, procedural, cube)."""
        m, mj = self.model, self.mujoco
        tex = int(m.mat_texid[mat][int(mj.mjtTextureRole.mjTEXROLE_RGB)])
        if tex < 0 or int(m.tex_type[tex]) != int(mj.mjtTexture.mjTEXTURE_2D):
            return None
        spec_texture = self.spec.texture(mj.mj_id2name(m, mj.mjtObj.mjOBJ_TEXTURE, tex) or "")
        if spec_texture is None or not spec_texture.file:
            return None
        base = self.spec.modelfiledir or os.path.dirname(os.path.abspath(self.path))
        path = os.path.join(base, self.spec.texturedir or "", spec_texture.file)
        return path if os.path.isfile(path) else None

    def shape(self, g: int, name: str, body: Optional[str], pose: Pose) -> Optional[Shape]:
        m, mj = self.model, self.mujoco
        t, size = int(m.geom_type[g]), m.geom_size[g]
        G = _GeomTypes(mj)
        if t == G.mjGEOM_BOX:
            return Shape(name=name, kind=ShapeKind.BOX, body=body, pose=pose, half_extents=_vec(size))
        if t == G.mjGEOM_SPHERE:
            return Shape(name=name, kind=ShapeKind.SPHERE, body=body, pose=pose, radius=float(size[0]))
        if t in (G.mjGEOM_CAPSULE, G.mjGEOM_CYLINDER):
            kind = ShapeKind.CAPSULE if t == G.mjGEOM_CAPSULE else ShapeKind.CYLINDER
            return Shape(name=name, kind=kind, body=body, pose=pose, radius=float(size[0]),
                         half_height=float(size[1]), axis="Z")
        if t == G.mjGEOM_PLANE:
            return Shape(name=name, kind=ShapeKind.PLANE, body=body, pose=pose)
        if t == G.mjGEOM_HFIELD:
            return Shape(name=name, kind=ShapeKind.HEIGHT_FIELD, body=body, pose=pose,
                         height_field=self.height_field(g))
        if t == G.mjGEOM_ELLIPSOID:
            self.warn(f"geom {name}: an ellipsoid collides as its convex hull (no ellipsoid shape)")
            return Shape(name=name, kind=ShapeKind.CONVEX_HULL, body=body, pose=pose,
                         mesh=primitives.ellipsoid(_vec(size)))
        if t == G.mjGEOM_MESH:
            # MuJoCo collides a mesh as its convex hull.
            return Shape(name=name, kind=ShapeKind.CONVEX_HULL, body=body, pose=pose, mesh=self.mesh(g))
        self.unsupported.append(f"geom {name} of type {self.mujoco.mjtGeom(t).name[7:].lower()}")
        return None

    def mesh(self, g: int) -> MeshData:
        m = self.model
        mesh = int(m.geom_dataid[g])
        v0, nv = int(m.mesh_vertadr[mesh]), int(m.mesh_vertnum[mesh])
        f0, nf = int(m.mesh_faceadr[mesh]), int(m.mesh_facenum[mesh])
        vertices = [tuple(float(c) for c in v) for v in m.mesh_vert[v0:v0 + nv]]
        triangles = [tuple(int(c) for c in f) for f in m.mesh_face[f0:f0 + nf]]
        return MeshData(vertices=vertices, triangles=triangles)

    def height_field(self, g: int) -> HeightField:
        """Geom ``g``'s elevation grid as MuJoCo compiled it (normalized, row 0 at -y)."""
        m, mj = self.model, self.mujoco
        h = int(m.geom_dataid[g])
        nrow, ncol = int(m.hfield_nrow[h]), int(m.hfield_ncol[h])
        start = int(m.hfield_adr[h])
        half_x, half_y, elevation, base = (float(v) for v in m.hfield_size[h])
        return HeightField(name=mj.mj_id2name(m, mj.mjtObj.mjOBJ_HFIELD, h) or f"hfield_{h}",
                           nrow=nrow, ncol=ncol, half_x=half_x, half_y=half_y, elevation=elevation,
                           base=base, heights=m.hfield_data[start:start + nrow * ncol].tolist())

    def geom_mesh(self, g: int) -> Optional[MeshData]:
        m, G = self.model, _GeomTypes(self.mujoco)
        t, size = int(m.geom_type[g]), m.geom_size[g]
        if t == G.mjGEOM_BOX:
            return primitives.box(_vec(size))
        if t == G.mjGEOM_SPHERE:
            return primitives.sphere(float(size[0]))
        if t == G.mjGEOM_CAPSULE:
            return primitives.capsule(float(size[0]), float(size[1]))
        if t == G.mjGEOM_CYLINDER:
            return primitives.cylinder(float(size[0]), float(size[1]))
        if t == G.mjGEOM_ELLIPSOID:
            return primitives.ellipsoid(_vec(size))
        if t == G.mjGEOM_MESH:
            return self.mesh(g)
        if t == G.mjGEOM_PLANE:
            return primitives.plane(float(size[0]) or 10.0, float(size[1]) or 10.0)
        if t == G.mjGEOM_HFIELD:
            return primitives.height_field(self.height_field(g))
        return None

    def collision_groups(self, colliders: list) -> None:
        """contype/conaffinity -> Newton collision groups where exact: when every two different mask
        classes that collide at all may touch each other, a class whose geoms touch each other goes in
        group 1 and one whose geoms do not (MuJoCo's usual robot 1/0 against a 1/1 floor) gets its own
        negative group (-1, -2, ...: all but the same negative); colliders that touch nothing, group 0.
        Else every collider stays in group 1, body pairs none of whose geoms may touch become filtered
        pairs, and a warning says the masks are approximated."""
        classes = sorted({(c, a) for _, c, a in colliders})

        def touch(x, y):
            return bool((x[0] & y[1]) or (y[0] & x[1]))

        live = [k for k in classes if any(touch(k, o) for o in classes)]
        if all(touch(x, y) for x in live for y in live if x != y):
            groups, negative = {}, 0
            for k in live:
                if touch(k, k):
                    groups[k] = 1
                else:
                    negative -= 1
                    groups[k] = negative
            for shape, c, a in colliders:
                shape.collision_group = groups.get((c, a), 0)
            return
        by_body: dict[Optional[str], set] = {}
        for shape, c, a in colliders:
            if (c, a) not in live:  # touches nothing (a geom only explicit pairs or tendons use)
                shape.collision_group = 0
                continue
            by_body.setdefault(shape.body, set()).add((c, a))
        names = [n for n in by_body if n is not None]
        for k, x in enumerate(names):
            for y in names[k + 1:]:
                if not any(touch(p, q) for p in by_body[x] for q in by_body[y]):
                    self.scene.filtered_pairs.append((x, y))
        self.warn("contype/conaffinity masks " + ", ".join(f"{c}/{a}" for c, a in sorted(classes))
                  + " have no exact collision groups: colliders share one group, body pairs that never "
                  "touch are filtered pairs; geoms of one body pair collide where any of theirs may")

    def add_excludes(self) -> None:
        for exclude in self.spec.excludes:
            pair = (exclude.bodyname1, exclude.bodyname2)
            if all(self.scene.body(n) for n in pair):
                self.scene.filtered_pairs.append(pair)

    # --- what cannot be represented -----------------------------------------------------
    def unsupported_counts(self) -> list[tuple[str, int]]:
        m = self.model
        return [("flexes", getattr(m, "nflex", 0)), ("skins", m.nskin)]

    def list_unsupported(self) -> None:
        parts = [f"{n} {what}" for what, n in self.unsupported_counts() if n] + self.unsupported
        if parts:
            self.warn("not carried over (the description has no place for them): " + "; ".join(parts))


class _GeomTypes:
    """MuJoCo's geom type numbers as plain ints (its enum and numpy ints do not compare in tuples)."""

    def __init__(self, mujoco):
        for name in ("BOX", "SPHERE", "CAPSULE", "CYLINDER", "PLANE", "HFIELD", "ELLIPSOID", "MESH"):
            setattr(self, f"mjGEOM_{name}", int(getattr(mujoco.mjtGeom, f"mjGEOM_{name}")))


def _enum_name(value) -> str:
    """MuJoCo's enum member as its XML keyword: mjDYN_FILTER -> "filter"."""
    return value.name.split("_", 1)[1].lower()


def _listed(names: list, shown: int = 8) -> str:
    """At most ``shown`` names, then how many more."""
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f", ... ({more} more)" if more > 0 else "")


def _mat_to_quat(mat) -> tuple:
    import mujoco

    q = np.zeros(4)
    mujoco.mju_mat2Quat(q, np.asarray(mat, dtype=float))
    return q


def read_mjcf(path: str | os.PathLike, visuals_from_colliders: bool = True) -> ReadResult:
    """Read an MJCF file into the description; raises :class:`MjcfReadError` naming file and element.

    ``visuals_from_colliders``: add a drawn visual for each collider of a drawn group (MuJoCo shows
    them; a file with only colliders would otherwise show nothing rendered).
    """
    return MjcfReader(path, visuals_from_colliders).read()
