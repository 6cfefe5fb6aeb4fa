"""What the MJCF writer writes beyond bodies, joints and colliders: sites, cameras, lights, sensors,
keyframes, weld/connect equalities, spatial tendons, frame actuators, contact pairs, per-geom contact
parameters and ``<option>``, all through ``MjSpec``. Mixed into :class:`.writer._SpecBuilder`."""

from __future__ import annotations

import math
from typing import Optional

import numpy as np

from ..model import ContactParams, EqualityKind, Keyframe, MuJoCoOptions, Sensor, Shape, WrapKind
from ..transforms import quat_conjugate, quat_normalize, quat_rotate
from .errors import MjcfWriteError
from .read_extras import CONTACT_DATA, CONTACT_REDUCE, SENSOR_KEYWORDS

_SENSOR_ENUMS = {word: enum for enum, word in SENSOR_KEYWORDS.items()}
#: Transmission keyword -> MuJoCo's mjtTrn member name.
_TRANSMISSIONS = {"site": "mjTRN_SITE", "body": "mjTRN_BODY", "joint": "mjTRN_JOINT",
                  "jointinparent": "mjTRN_JOINTINPARENT", "tendon": "mjTRN_TENDON",
                  "slidercrank": "mjTRN_SLIDERCRANK"}


def _floats(values) -> list[float]:
    return [float(v) for v in values]


#: What MJCF's parser gives a sensor whose file says nothing (a rangefinder measures distance).
_DEFAULT_INTPRM = {"rangefinder": "1 0 0"}


def tendon_friction_and_spring(spec_tendon, tendon) -> None:
    """A tendon's dry friction and armature, and its spring's rest length (left to MuJoCo, the length at
    the start, where the description has none)."""
    spec_tendon.frictionloss = float(tendon.frictionloss)
    spec_tendon.armature = float(tendon.armature)
    if tendon.spring_length is not None:
        spec_tendon.springlength = [float(v) for v in tendon.spring_length]


class _KeyStart:
    """A compiled model's rest state, mocap poses (in mocap order), actuator names and description DOF
    addresses: what every keyframe starts from."""

    def __init__(self, model, mj, addresses: dict[tuple[str, str], tuple[Optional[int], int]]):
        self.model = model
        self.qpos0 = np.array(model.qpos0, dtype=float)
        mocap_id = model.body_mocapid
        mocap = mocap_id >= 0
        order = np.argsort(mocap_id[mocap])
        self.mpos = np.array(model.body_pos[mocap], dtype=float)[order]
        self.mquat = np.array(model.body_quat[mocap], dtype=float)[order]
        self.actuator_names = [mj.mj_id2name(model, mj.mjtObj.mjOBJ_ACTUATOR, a) for a in range(model.nu)]
        self.addresses = addresses


class ExtrasWriter:
    """Methods of :class:`.writer._SpecBuilder` (``self.spec``, ``self.mj``, ``self.scene``, ``self.say``)."""

    def enum(self, enum_type, prefix: str, word: str, what: str):
        """MuJoCo's enum member for an XML keyword, or a :class:`MjcfWriteError` naming ``what``."""
        member = getattr(enum_type, f"{prefix}_{word.upper()}", None)
        if member is None:
            raise MjcfWriteError(self.path, [f"{what}: MuJoCo has no {word!r}"])
        return member

    # --- options ---------------------------------------------------------------------------
    def mujoco_options(self, options: MuJoCoOptions) -> None:
        mj, option = self.mj, self.spec.option
        option.integrator = self.enum(mj.mjtIntegrator, "mjINT", options.integrator, "option integrator")
        option.cone = self.enum(mj.mjtCone, "mjCONE", options.cone, "option cone")
        option.solver = self.enum(mj.mjtSolver, "mjSOL", options.solver, "option solver")
        option.jacobian = self.enum(mj.mjtJacobian, "mjJAC", options.jacobian, "option jacobian")
        option.impratio = float(options.impratio)
        option.iterations = int(options.iterations)
        option.tolerance = float(options.tolerance)
        option.ls_iterations = int(options.ls_iterations)
        option.ls_tolerance = float(options.ls_tolerance)
        option.noslip_iterations = int(options.noslip_iterations)
        option.noslip_tolerance = float(options.noslip_tolerance)
        option.density, option.viscosity = float(options.density), float(options.viscosity)
        option.wind, option.magnetic = _floats(options.wind), _floats(options.magnetic)
        option.o_margin = float(options.override_margin)
        option.o_solref, option.o_solimp = _floats(options.override_solref), _floats(options.override_solimp)
        option.o_friction = _floats(options.override_friction)
        for flag in options.disabled:  # filterparent is the scene's collision_filter_parent, which wins
            if flag != "filterparent":
                option.disableflags |= int(self.enum(mj.mjtDisableBit, "mjDSBL", flag, "option flag"))
        for flag in options.enabled:
            option.enableflags |= int(self.enum(mj.mjtEnableBit, "mjENBL", flag, "option flag"))

    # --- frames ---------------------------------------------------------------------------
    def sites(self) -> None:
        mj = self.mj
        for site in self.scene.sites:
            spec_site = self.parent_of(site.body).add_site()
            spec_site.name = site.name
            spec_site.type = self.enum(mj.mjtGeom, "mjGEOM", site.kind.value, f"site {site.name}")
            spec_site.size = _floats(site.size)
            spec_site.pos, spec_site.quat = _floats(site.pose.pos), _floats(quat_normalize(site.pose.rot))
            spec_site.rgba = _floats(site.color)
            spec_site.group = int(site.group)

    def cameras(self) -> None:
        mj = self.mj
        for camera in self.scene.cameras:
            spec_camera = self.parent_of(camera.body).add_camera()
            spec_camera.name = camera.name
            spec_camera.pos = _floats(camera.pose.pos)
            spec_camera.quat = _floats(quat_normalize(camera.pose.rot))
            spec_camera.fovy = math.degrees(camera.fovy)  # MJCF: degrees whatever the angle unit
            spec_camera.mode = self.enum(mj.mjtCamLight, "mjCAMLIGHT", camera.mode.value,
                                         f"camera {camera.name}")
            if camera.target:
                spec_camera.targetbody = camera.target
            spec_camera.resolution = [int(r) for r in camera.resolution]

    def lights(self) -> None:
        mj = self.mj
        for light in self.scene.lights:
            spec_light = self.parent_of(light.body).add_light()
            spec_light.name = light.name
            spec_light.type = self.enum(mj.mjtLightType, "mjLIGHT", light.kind.value, f"light {light.name}")
            spec_light.pos = _floats(light.pose.pos)
            spec_light.dir = _floats(quat_rotate(light.pose.rot, (0.0, 0.0, -1.0)))
            spec_light.diffuse = _floats(light.color)
            spec_light.cutoff = math.degrees(light.cutoff)  # degrees, as the camera's fovy
            spec_light.exponent = float(light.exponent)
            spec_light.attenuation = _floats(light.attenuation)
            spec_light.castshadow = bool(light.cast_shadow)
            spec_light.active = bool(light.active)

    # --- contacts --------------------------------------------------------------------------
    def geom_contact(self, geom, shape: Shape) -> None:
        geom.margin, geom.gap = float(shape.contact_margin), float(shape.contact_gap)
        params = shape.contact or ContactParams()
        geom.condim, geom.priority = int(params.condim), int(params.priority)
        geom.solref, geom.solimp = _floats(params.solref), _floats(params.solimp)
        geom.solmix = float(params.solmix)

    def contact_pairs(self) -> None:
        for pair in self.scene.contact_pairs:
            names = [self.shape_geoms.get(pair.shape0), self.shape_geoms.get(pair.shape1)]
            if None in names:
                self.say(f"contact pair {pair.name} (on a collider that is not written)")
                continue
            spec_pair = self.spec.add_pair()
            spec_pair.name = pair.name
            spec_pair.geomname1, spec_pair.geomname2 = names
            spec_pair.condim = int(pair.condim)
            spec_pair.friction = _floats(pair.friction)
            spec_pair.solref, spec_pair.solimp = _floats(pair.solref), _floats(pair.solimp)
            spec_pair.margin, spec_pair.gap = float(pair.margin), float(pair.gap)

    # --- sensors ---------------------------------------------------------------------------
    def sensors(self) -> None:
        for sensor in self.scene.sensors:
            self.sensor(sensor)

    def sensor(self, sensor: Sensor) -> None:
        mj = self.mj
        what = f"sensor {sensor.name}"
        spec_sensor = self.spec.add_sensor()
        spec_sensor.name = sensor.name
        enum_word = _SENSOR_ENUMS.get(sensor.kind, sensor.kind)
        spec_sensor.type = self.enum(mj.mjtSensor, "mjSENS", enum_word, what)
        if sensor.target_kind:
            spec_sensor.objtype = self.enum(mj.mjtObj, "mjOBJ", sensor.target_kind, what)
            spec_sensor.objname = self.object_name(sensor.target_kind, sensor.target)
        if sensor.reference_kind:
            spec_sensor.reftype = self.enum(mj.mjtObj, "mjOBJ", sensor.reference_kind, what)
            spec_sensor.refname = self.object_name(sensor.reference_kind, sensor.reference)
        spec_sensor.noise, spec_sensor.cutoff = float(sensor.noise), float(sensor.cutoff)
        settings = sensor.settings
        try:
            intprm = self.sensor_intprm(sensor)
            if "dim" in settings:
                spec_sensor.dim = int(settings["dim"])
        except ValueError as error:
            raise MjcfWriteError(self.path, [f"{what}: settings {settings} ({error})"]) from error
        spec_sensor.intprm = intprm + [0] * (len(spec_sensor.intprm) - len(intprm))
        if "needstage" in settings:
            spec_sensor.needstage = self.enum(mj.mjtStage, "mjSTAGE", settings["needstage"], what)
        if "datatype" in settings:
            spec_sensor.datatype = self.enum(mj.mjtDataType, "mjDATATYPE", settings["datatype"], what)

    @staticmethod
    def sensor_intprm(sensor: Sensor) -> list[int]:
        """MuJoCo's integer parameters of a sensor: a contact sensor's data bits, reduce and num from
        their MJCF words; ValueError on a word MuJoCo does not know."""
        settings = sensor.settings
        if sensor.kind != "contact":
            return [int(v) for v in settings.get("intprm", _DEFAULT_INTPRM.get(sensor.kind, "0 0 0")).split()]
        data = settings.get("data", "found").split()
        unknown = [word for word in data if word not in CONTACT_DATA]
        if unknown:
            raise ValueError(f"unknown contact data {unknown}")
        return [sum(1 << CONTACT_DATA.index(word) for word in data),
                CONTACT_REDUCE.index(settings.get("reduce", "none")), int(settings.get("num", "1"))]

    def object_name(self, kind: str, name: Optional[str]) -> str:
        """A sensor's or equality's object as MuJoCo's file names it (colliders by their geom's name)."""
        if kind == "geom":
            return self.shape_geoms.get(name, name)
        rows = self.dof_joints.get(name) if kind == "joint" else None
        return rows[0][0] if rows else name or ""

    # --- equalities, tendons, frame actuators -------------------------------------------------
    def frame_equalities(self) -> None:
        mj = self.mj
        for equality in self.scene.equalities:
            spec_eq = self.spec.add_equality()
            spec_eq.name = equality.name
            weld = equality.kind == EqualityKind.WELD
            spec_eq.type = mj.mjtEq.mjEQ_WELD if weld else mj.mjtEq.mjEQ_CONNECT
            if equality.site0 or equality.site1:
                spec_eq.objtype = mj.mjtObj.mjOBJ_SITE
                spec_eq.name1, spec_eq.name2 = equality.site0 or "", equality.site1 or ""
            else:
                spec_eq.objtype = mj.mjtObj.mjOBJ_BODY
                spec_eq.name1, spec_eq.name2 = equality.body0 or "world", equality.body1 or "world"
            data = np.zeros(len(spec_eq.data))
            data[0:3] = equality.anchor
            if weld:
                if equality.relative_pose is not None:
                    data[3:6] = equality.relative_pose.pos
                    data[6:10] = quat_normalize(equality.relative_pose.rot)
                data[10] = float(equality.torque_scale)
            spec_eq.data = data
            spec_eq.active = bool(equality.active)
            spec_eq.solref, spec_eq.solimp = _floats(equality.solref), _floats(equality.solimp)

    def tendon_equalities(self) -> None:
        """Each tendon equality whose tendons are written (a fixed tendon on a joint MJCF cannot hold is
        left out, and said so)."""
        mj = self.mj
        for equality in self.scene.tendon_equalities:
            tendons = [t for t in (equality.tendon0, equality.tendon1) if t is not None]
            if any(t not in self.tendon_names for t in tendons):
                self.say(f"tendon equality {equality.name} (its tendon is not written)")
                continue
            spec_eq = self.spec.add_equality()
            spec_eq.name = equality.name
            spec_eq.type, spec_eq.objtype = mj.mjtEq.mjEQ_TENDON, mj.mjtObj.mjOBJ_TENDON
            spec_eq.name1, spec_eq.name2 = equality.tendon0, equality.tendon1 or ""
            data = np.zeros(len(spec_eq.data))
            data[:len(equality.polycoef)] = equality.polycoef
            spec_eq.data = data
            spec_eq.active = bool(equality.active)
            spec_eq.solref, spec_eq.solimp = _floats(equality.solref), _floats(equality.solimp)

    def spatial_tendons(self) -> None:
        mj = self.mj
        for tendon in self.scene.spatial_tendons:
            spec_tendon = self.spec.add_tendon()
            spec_tendon.name = tendon.name
            for wrap in tendon.path:
                if wrap.kind == WrapKind.SITE:
                    spec_tendon.wrap_site(wrap.target)
                elif wrap.kind == WrapKind.PULLEY:
                    spec_tendon.wrap_pulley(float(wrap.divisor))
                else:
                    geom = self.shape_geoms.get(wrap.target, wrap.target)
                    spec_tendon.wrap_geom(geom, wrap.side_site or "")
            limited = math.isfinite(tendon.lower) or math.isfinite(tendon.upper)
            spec_tendon.limited = mj.mjtLimited.mjLIMITED_TRUE if limited else mj.mjtLimited.mjLIMITED_FALSE
            if limited:
                spec_tendon.range = [tendon.lower if math.isfinite(tendon.lower) else -1e10,
                                     tendon.upper if math.isfinite(tendon.upper) else 1e10]
            spec_tendon.stiffness = [float(tendon.stiffness), 0.0, 0.0]
            spec_tendon.damping = [float(tendon.damping), 0.0, 0.0]
            spec_tendon.width = float(tendon.width)
            spec_tendon.rgba = _floats(tendon.color)
            tendon_friction_and_spring(spec_tendon, tendon)
            self.tendon_names.add(tendon.name)

    def frame_actuators(self) -> None:
        """``frame_actuators``, and any actuator a spatial tendon holds itself (as on its tendon)."""
        mj = self.mj
        for tendon in self.scene.spatial_tendons:
            for actuator in tendon.actuators if tendon.name in self.tendon_names else ():
                self.actuator(actuator, mj.mjtTrn.mjTRN_TENDON, tendon.name)
        for actuator in self.scene.frame_actuators:
            kind = _TRANSMISSIONS.get(actuator.target_kind or "")
            if kind is None or not actuator.target:
                self.say(f"actuator {actuator.name} (on a {actuator.target_kind or 'missing'} transmission)")
                continue
            spec_actuator = self.actuator(actuator, getattr(mj.mjtTrn, kind), actuator.target)
            if actuator.gear_vector:
                spec_actuator.gear = (_floats(actuator.gear_vector) + [0.0] * 6)[:6]
            if actuator.reference_site:
                spec_actuator.refsite = actuator.reference_site
            if actuator.target_kind == "slidercrank":
                self.slider_crank(spec_actuator, actuator)

    def slider_crank(self, spec_actuator, actuator) -> None:
        if not actuator.slider_site or actuator.crank_length <= 0.0:
            raise MjcfWriteError(self.path, [
                f"actuator {actuator.name}: a slider-crank needs a slider site and a crank length above 0 "
                f"(has {actuator.slider_site!r}, {actuator.crank_length:g})"])
        spec_actuator.slidersite = actuator.slider_site
        spec_actuator.cranklength = float(actuator.crank_length)

    # --- keyframes -------------------------------------------------------------------------
    def file_keyframes(self, model) -> None:
        """The description's keyframes, decoded onto ``model``'s qpos, qvel, ctrl and mocap poses."""
        taken = {k.name for k in self.scene.keyframes}
        self.initial_name = next(n for n in ("initial", *(f"initial_{k}" for k in range(1, 100)))
                                 if n not in taken)
        for keyframe in self.scene.keyframes:
            self.add_keyframe(model, keyframe)

    def add_keyframe(self, model, keyframe: Keyframe) -> None:
        mj = self.mj
        start = self.key_start(model)
        qpos, qvel = start.qpos0.copy(), np.zeros(model.nv)
        mpos, mquat = start.mpos.copy(), start.mquat.copy()
        for (joint_name, axis), value in keyframe.joint_positions.items():
            q = start.addresses.get((joint_name, axis))
            if q is not None and q[0] is not None:
                qpos[q[0]] = float(value)
        for (joint_name, axis), value in keyframe.joint_velocities.items():
            q = start.addresses.get((joint_name, axis))
            if q is not None:
                qvel[q[1]] = float(value)
        for joint_name, rot in keyframe.ball_rotations.items():
            name = self.dof_joints.get(joint_name, [(joint_name, None)])[0][0]
            j = mj.mj_name2id(model, mj.mjtObj.mjOBJ_JOINT, name)
            if j >= 0:
                qpos[model.jnt_qposadr[j]:model.jnt_qposadr[j] + 4] = quat_normalize(rot)
        for body_name, pose in keyframe.root_poses.items():
            b = mj.mj_name2id(model, mj.mjtObj.mjOBJ_BODY, body_name)
            if b < 0:
                continue
            if model.body_mocapid[b] >= 0:
                mpos[model.body_mocapid[b]], mquat[model.body_mocapid[b]] = pose.pos, quat_normalize(pose.rot)
            elif body_name in self.free_roots:
                q = int(model.jnt_qposadr[model.body_jntadr[b]])
                qpos[q:q + 3], qpos[q + 3:q + 7] = pose.pos, quat_normalize(pose.rot)
        for body_name, (linear, angular) in keyframe.root_velocities.items():
            if body_name not in self.free_roots:
                continue
            b = mj.mj_name2id(model, mj.mjtObj.mjOBJ_BODY, body_name)
            v, q = int(model.jnt_dofadr[model.body_jntadr[b]]), int(model.jnt_qposadr[model.body_jntadr[b]])
            rot = tuple(qpos[q + 3:q + 7])
            qvel[v:v + 3], qvel[v + 3:v + 6] = linear, quat_rotate(quat_conjugate(rot), angular)  # body frame
        key = self.spec.add_key()
        key.name, key.time = keyframe.name, float(keyframe.time)
        key.qpos, key.qvel = qpos, qvel
        if model.nu:
            key.ctrl = np.array([float(keyframe.controls.get(n, 0.0)) for n in start.actuator_names])
        if model.nmocap:
            key.mpos, key.mquat = mpos.ravel(), mquat.ravel()

    def key_start(self, model) -> _KeyStart:
        """What every keyframe on ``model`` starts from, found once per model."""
        start = getattr(self, "_key_start", None)
        if start is None or start.model is not model:
            start = self._key_start = _KeyStart(model, self.mj, self._dof_addresses(model))
        return start

    def _dof_addresses(self, model) -> dict[tuple[str, str], tuple[Optional[int], int]]:
        """Description DOF (joint, axis) -> its (qpos, qvel) address in ``model`` (qpos None on a ball
        joint); DOFs that were not written are absent."""
        mj = self.mj
        ball, joint_kind = int(mj.mjtJoint.mjJNT_BALL), mj.mjtObj.mjOBJ_JOINT
        types, qpos, dofs_at = model.jnt_type.tolist(), model.jnt_qposadr.tolist(), model.jnt_dofadr.tolist()
        found = {}
        for joint_name, dofs in self.dof_joints.items():
            for name, dof in dofs:
                axis = dof.axis.value
                if (joint_name, axis) in found:
                    continue
                j = mj.mj_name2id(model, joint_kind, name)
                if types[j] == ball:  # its rotation is a quaternion
                    found[(joint_name, axis)] = None, dofs_at[j] + "XYZ".index(axis[-1])
                else:
                    found[(joint_name, axis)] = qpos[j], dofs_at[j]
        return found
