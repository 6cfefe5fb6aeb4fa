"""What the MJCF reader takes beyond bodies, joints and colliders: sites, cameras, lights, sensors,
keyframes, weld/connect equalities, spatial tendons, contact pairs and ``<option>``, from MuJoCo's
compiled model (defaults and compiler settings resolved). Mixed into :class:`.reader.MjcfReader`."""

from __future__ import annotations

import math
from typing import Optional

import numpy as np

from ..model import (Camera, CameraMode, ContactPair, ContactParams, Equality, EqualityKind, Keyframe,
                     Light, LightKind, MuJoCoOptions, Pose, Sensor, Site, SiteKind, SpatialTendon, TendonWrap,
                     WrapKind)
from ..transforms import quat_rotate

#: MJCF sensor element names where they differ from MuJoCo's enum (mjSENS_GEOMDIST is <distance>).
SENSOR_KEYWORDS = {"geomdist": "distance", "geomnormal": "normal", "geomfromto": "fromto",
                   "jointactfrc": "jointactuatorfrc", "tendonactfrc": "tendonactuatorfrc"}
#: A contact sensor's ``data`` bits and ``reduce`` values, as MJCF names them.
CONTACT_DATA = ("found", "force", "torque", "dist", "pos", "normal", "tangent")
CONTACT_REDUCE = ("none", "mindist", "maxforce", "netforce")
#: Sensors the description cannot hold: a tactile sensor reads a mesh asset (the description keeps
#: meshes per collider, not by asset), a plugin's is the plugin's own.
UNHELD_SENSORS = ("tactile", "plugin")
#: MuJoCo's object types a sensor, equality or actuator may name (mjOBJ_<KIND>).
OBJECT_KINDS = ("body", "xbody", "joint", "geom", "site", "camera", "tendon", "actuator")


def keyword(enum_value) -> str:
    """MuJoCo's enum member as its XML keyword: mjSENS_JOINTPOS -> "jointpos"."""
    return enum_value.name.split("_", 1)[1].lower()


def sensor_keyword(enum_value) -> str:
    word = keyword(enum_value)
    return SENSOR_KEYWORDS.get(word, word)


def _vec(values) -> tuple:
    return tuple(float(v) for v in values)


def tendon_friction_and_spring(m, t: int, tendon) -> None:
    """A tendon's dry friction and armature, and its spring's rest length where it has a spring
    (compiled: MuJoCo's -1, the length at the start, resolved to the number)."""
    tendon.frictionloss = float(m.tendon_frictionloss[t])
    tendon.armature = float(m.tendon_armature[t])
    if m.tendon_stiffness[t]:
        tendon.spring_length = (float(m.tendon_lengthspring[t][0]), float(m.tendon_lengthspring[t][1]))


def _quat(values) -> tuple:
    q = np.asarray(values, dtype=float)
    return tuple(float(c) for c in q / (np.linalg.norm(q) or 1.0))


def _rotation_onto(direction) -> tuple:
    """The rotation taking -Z onto ``direction`` (a light's frame, shining down its -Z)."""
    d = np.asarray(direction, dtype=float)
    d = d / (np.linalg.norm(d) or 1.0)
    z = np.array([0.0, 0.0, -1.0])
    dot = float(np.dot(z, d))
    if dot < -1.0 + 1e-12:
        return (0.0, 1.0, 0.0, 0.0)
    q = np.array([1.0 + dot, *np.cross(z, d)])
    return _quat(q)


class ExtrasReader:
    """Methods of :class:`.reader.MjcfReader`; ``self.model``, ``self.mujoco``, ``self.scene``,
    ``self.body_names``, ``self.joint_names`` and ``self.geom_names`` are the reader's."""

    def object_name(self, kind: str, index: int) -> Optional[str]:
        """The description's name of MuJoCo object ``index`` of ``kind``: "world" for body 0, None for
        index -1 or a kind the description does not name."""
        if index < 0:
            return None
        if kind in ("body", "xbody"):
            return self.body_names[index] if index else "world"
        table = {"joint": self.joint_names, "geom": self.geom_names, "site": self.site_names,
                 "camera": self.camera_names, "tendon": self.tendon_names, "actuator": self.actuator_names}
        names = table.get(kind)
        return names[index] if names is not None and index < len(names) else None

    def _names(self, kind: str, count: int) -> list[str]:
        mj, m = self.mujoco, self.model
        obj = getattr(mj.mjtObj, f"mjOBJ_{kind.upper()}")
        return [mj.mj_id2name(m, obj, i) or f"{kind}_{i}" for i in range(count)]

    def _body_or_none(self, index: int) -> Optional[str]:
        return self.body_names[index] if index else None

    # --- frames ---------------------------------------------------------------------------
    def add_sites(self) -> None:
        m = self.model
        self.site_names = self._names("site", m.nsite)
        for i, name in enumerate(self.site_names):
            self.scene.sites.append(Site(
                name=name, body=self._body_or_none(int(m.site_bodyid[i])),
                pose=Pose(_vec(m.site_pos[i]), _quat(m.site_quat[i])),
                kind=SiteKind(keyword(self.mujoco.mjtGeom(int(m.site_type[i]))).upper()),
                size=_vec(m.site_size[i]), color=_vec(m.site_rgba[i]), group=int(m.site_group[i])))

    def add_cameras(self) -> None:
        m, mj = self.model, self.mujoco
        self.camera_names = self._names("camera", m.ncam)
        for i, name in enumerate(self.camera_names):
            target = int(m.cam_targetbodyid[i])
            self.scene.cameras.append(Camera(
                name=name, body=self._body_or_none(int(m.cam_bodyid[i])),
                pose=Pose(_vec(m.cam_pos[i]), _quat(m.cam_quat[i])), fovy=math.radians(float(m.cam_fovy[i])),
                mode=CameraMode(keyword(mj.mjtCamLight(int(m.cam_mode[i]))).upper()),
                target=self.body_names[target] if target > 0 else None,
                resolution=tuple(int(r) for r in m.cam_resolution[i])))

    def add_lights(self) -> None:
        m, mj = self.model, self.mujoco
        for i, name in enumerate(self._names("light", m.nlight)):
            kind = keyword(mj.mjtLightType(int(m.light_type[i]))).upper()
            if kind not in LightKind.__members__:
                self.unsupported.append(f"light {name} of type {kind.lower()}")
                continue
            self.scene.lights.append(Light(
                name=name, body=self._body_or_none(int(m.light_bodyid[i])),
                pose=Pose(_vec(m.light_pos[i]), _rotation_onto(m.light_dir[i])), kind=LightKind(kind),
                color=_vec(m.light_diffuse[i]), cutoff=math.radians(float(m.light_cutoff[i])),
                exponent=float(m.light_exponent[i]), attenuation=_vec(m.light_attenuation[i]),
                cast_shadow=bool(m.light_castshadow[i]), active=bool(m.light_active[i])))

    # --- sensors ---------------------------------------------------------------------------
    def add_sensors(self) -> None:
        m, mj = self.model, self.mujoco
        unheld = []
        for i, name in enumerate(self._names("sensor", m.nsensor)):
            kind = sensor_keyword(mj.mjtSensor(int(m.sensor_type[i])))
            if kind in UNHELD_SENSORS:
                unheld.append(f"{name} ({kind})")
                continue
            target_kind = self._object_kind(int(m.sensor_objtype[i]))
            reference_kind = self._object_kind(int(m.sensor_reftype[i]))
            target = self.object_name(target_kind, int(m.sensor_objid[i])) if target_kind else None
            reference = self.object_name(reference_kind, int(m.sensor_refid[i])) if reference_kind else None
            sensor = Sensor(name=name, kind=kind, target_kind=target_kind, target=target,
                            reference_kind=reference_kind, reference=reference,
                            noise=float(m.sensor_noise[i]), cutoff=float(m.sensor_cutoff[i]))
            sensor.settings = self._sensor_settings(i, kind)
            self.scene.sensors.append(sensor)
        if unheld:
            self.unsupported.append(f"{len(unheld)} sensors ({', '.join(unheld)})")

    def _object_kind(self, objtype: int) -> Optional[str]:
        if objtype == int(self.mujoco.mjtObj.mjOBJ_UNKNOWN):
            return None
        word = keyword(self.mujoco.mjtObj(objtype))
        return word if word in OBJECT_KINDS else None

    def _sensor_settings(self, i: int, kind: str) -> dict[str, str]:
        m = self.model
        intprm = [int(v) for v in m.sensor_intprm[i]]
        if kind == "contact":
            data = [word for bit, word in enumerate(CONTACT_DATA) if intprm[0] & (1 << bit)]
            return {"data": " ".join(data), "reduce": CONTACT_REDUCE[intprm[1]], "num": str(intprm[2])}
        settings = {}
        if kind == "user":  # its size, what it needs computed, and what its numbers are
            settings["dim"] = str(int(m.sensor_dim[i]))
            settings["needstage"] = keyword(self.mujoco.mjtStage(int(m.sensor_needstage[i])))
            settings["datatype"] = keyword(self.mujoco.mjtDataType(int(m.sensor_datatype[i])))
        if any(intprm):
            settings["intprm"] = " ".join(str(v) for v in intprm)
        return settings

    # --- keyframes -------------------------------------------------------------------------
    def add_keyframes(self) -> None:
        m, mj = self.model, self.mujoco
        free, ball = int(mj.mjtJoint.mjJNT_FREE), int(mj.mjtJoint.mjJNT_BALL)
        with_activation = []
        for k, name in enumerate(self._names("key", m.nkey)):
            key = Keyframe(name=name, time=float(m.key_time[k]))
            qpos, qvel = m.key_qpos[k], m.key_qvel[k]
            for j in range(m.njnt):
                q, v = int(m.jnt_qposadr[j]), int(m.jnt_dofadr[j])
                body = int(m.jnt_bodyid[j])
                if int(m.jnt_type[j]) == free:
                    if int(m.body_parentid[body]) == 0 and int(m.body_jntnum[body]) == 1:
                        rot, root = _quat(qpos[q + 3:q + 7]), self.body_names[body]
                        key.root_poses[root] = Pose(_vec(qpos[q:q + 3]), rot)
                        angular = quat_rotate(rot, _vec(qvel[v + 3:v + 6]))  # MuJoCo's is in the body frame
                        key.root_velocities[root] = (_vec(qvel[v:v + 3]), angular)
                    continue
                joint = self.scene.joint(self.joint_names[j])
                if int(m.jnt_type[j]) == ball:
                    key.ball_rotations[joint.name] = _quat(qpos[q:q + 4])
                    for d, dof in enumerate(joint.dofs):
                        key.joint_velocities[(joint.name, dof.axis.value)] = float(qvel[v + d])
                    continue
                axis = joint.dofs[0].axis.value
                key.joint_positions[(joint.name, axis)] = float(qpos[q])  # the file's coordinate
                key.joint_velocities[(joint.name, axis)] = float(qvel[v])
            for b in range(1, m.nbody):
                mocap = int(m.body_mocapid[b])
                if mocap >= 0:
                    key.root_poses[self.body_names[b]] = Pose(_vec(m.key_mpos[k][3 * mocap:3 * mocap + 3]),
                                                              _quat(m.key_mquat[k][4 * mocap:4 * mocap + 4]))
            key.controls = {self.actuator_names[a]: float(m.key_ctrl[k][a]) for a in range(m.nu)}
            if m.na and np.any(m.key_act[k]):
                with_activation.append(name)
            self.scene.keyframes.append(key)
        if with_activation:
            self.unsupported.append(f"actuator activations of keyframes {', '.join(with_activation)}")

    # --- equalities, spatial tendons, contacts ---------------------------------------------
    def frame_equality(self, e: int, name: str) -> Optional[Equality]:
        """A weld or connect equality (body or site form), or None for another kind."""
        m, mj = self.model, self.mujoco
        kind = int(m.eq_type[e])
        if kind not in (int(mj.mjtEq.mjEQ_WELD), int(mj.mjtEq.mjEQ_CONNECT)):
            return None
        by_site = int(m.eq_objtype[e]) == int(mj.mjtObj.mjOBJ_SITE)
        ids = (int(m.eq_obj1id[e]), int(m.eq_obj2id[e]))
        bodies = [int(m.site_bodyid[i]) if by_site else i for i in ids]
        data = m.eq_data[e]
        equality = Equality(name=name, kind=EqualityKind.WELD if kind == int(mj.mjtEq.mjEQ_WELD)
                            else EqualityKind.CONNECT, body0=self._body_or_none(bodies[0]),
                            body1=self._body_or_none(bodies[1]), anchor=_vec(data[0:3]),
                            active=bool(m.eq_active0[e]), solref=_vec(m.eq_solref[e]),
                            solimp=_vec(m.eq_solimp[e]))
        if by_site:
            equality.site0, equality.site1 = (self.site_names[i] for i in ids)
        if equality.kind == EqualityKind.WELD:
            equality.torque_scale = float(data[10])
            # The file's relpose (zeros: as they stand at rest, which the compiled data no longer says).
            spec_equalities = list(self.spec.equalities)
            written = spec_equalities[e].data if len(spec_equalities) == m.neq else data
            if np.any(written[6:10]):
                equality.relative_pose = Pose(_vec(written[3:6]), _quat(written[6:10]))
        return equality

    def spatial_tendon(self, t: int, name: str) -> SpatialTendon:
        m, mj = self.model, self.mujoco
        tendon = SpatialTendon(name=name, stiffness=float(m.tendon_stiffness[t]),
                               damping=float(m.tendon_damping[t]), width=float(m.tendon_width[t]),
                               color=_vec(m.tendon_rgba[t]))
        if m.tendon_limited[t]:
            tendon.lower, tendon.upper = (float(v) for v in m.tendon_range[t])
        tendon_friction_and_spring(m, t, tendon)
        first, count = int(m.tendon_adr[t]), int(m.tendon_num[t])
        for w in range(first, first + count):
            kind, obj, prm = int(m.wrap_type[w]), int(m.wrap_objid[w]), float(m.wrap_prm[w])
            if kind == int(mj.mjtWrap.mjWRAP_SITE):
                tendon.path.append(TendonWrap(WrapKind.SITE, target=self.site_names[obj]))
            elif kind == int(mj.mjtWrap.mjWRAP_PULLEY):
                tendon.path.append(TendonWrap(WrapKind.PULLEY, divisor=prm))
            else:  # a sphere or cylinder geom, on the side of an optional site
                side = self.site_names[int(prm)] if prm >= 0 else None
                tendon.path.append(TendonWrap(WrapKind.GEOM, target=self.geom_names[obj], side_site=side))
        return tendon

    def contact_params(self, g: int) -> Optional[ContactParams]:
        """A geom's contact model, None when it is all MuJoCo's defaults."""
        m = self.model
        params = ContactParams(condim=int(m.geom_condim[g]), priority=int(m.geom_priority[g]),
                               solref=_vec(m.geom_solref[g]), solimp=_vec(m.geom_solimp[g]),
                               solmix=float(m.geom_solmix[g]))
        return None if params == ContactParams() else params

    def add_contact_pairs(self) -> None:
        m = self.model
        for i, name in enumerate(self._names("pair", m.npair)):
            self.scene.contact_pairs.append(ContactPair(
                name=name, shape0=self.geom_names[int(m.pair_geom1[i])],
                shape1=self.geom_names[int(m.pair_geom2[i])],
                condim=int(m.pair_dim[i]), friction=_vec(m.pair_friction[i]), solref=_vec(m.pair_solref[i]),
                solimp=_vec(m.pair_solimp[i]), margin=float(m.pair_margin[i]), gap=float(m.pair_gap[i])))

    # --- options ---------------------------------------------------------------------------
    def mujoco_options(self) -> MuJoCoOptions:
        opt, mj = self.model.opt, self.mujoco
        disabled = tuple(keyword(bit) for bit in mj.mjtDisableBit.__members__.values()
                         if bit.name != "mjNDISABLE" and opt.disableflags & int(bit))
        enabled = tuple(keyword(bit) for bit in mj.mjtEnableBit.__members__.values()
                        if bit.name != "mjNENABLE" and opt.enableflags & int(bit))
        return MuJoCoOptions(
            integrator=keyword(mj.mjtIntegrator(int(opt.integrator))),
            cone=keyword(mj.mjtCone(int(opt.cone))), impratio=float(opt.impratio),
            solver=keyword(mj.mjtSolver(int(opt.solver))), iterations=int(opt.iterations),
            tolerance=float(opt.tolerance), ls_iterations=int(opt.ls_iterations),
            ls_tolerance=float(opt.ls_tolerance), noslip_iterations=int(opt.noslip_iterations),
            noslip_tolerance=float(opt.noslip_tolerance), jacobian=keyword(mj.mjtJacobian(int(opt.jacobian))),
            density=float(opt.density), viscosity=float(opt.viscosity), wind=_vec(opt.wind),
            magnetic=_vec(opt.magnetic), override_margin=float(opt.o_margin),
            override_solref=_vec(opt.o_solref),
            override_solimp=_vec(opt.o_solimp), override_friction=_vec(opt.o_friction),
            disabled=disabled, enabled=enabled)

