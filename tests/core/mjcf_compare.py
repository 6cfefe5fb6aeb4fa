"""Two MuJoCo models compared BY NAME: what an MJCF robot must keep through Articula (read -> write, or
read -> Blender -> write): joints (names, free joints' too, frictionloss, armature, damping, group),
sites, sensors, cameras, lights, keyframes, weld/connect and joint equalities, tendons with their wraps
and armature, actuator transmissions, types (muscles), dynamics and length ranges, ``<option>``,
contact pairs and excludes, each collider's contact parameters, and the height field of each hfield
geom (its grid, sizes and pose).

Numbers are equal at the 6 significant digits ``to_xml`` writes (rtol 2e-5, atol 1e-9). Unnamed
objects are named as ``core.mjcf.reader`` names them (``site_3``, ``tendon_0``, ``body_2``...), so the
written file, which carries those names, compares with its unnamed original. Joint positions in
keyframes are compared from the joint's ``qpos0`` (its ``ref``: the description's zero is the file's
pose), quaternions up to sign. Use :func:`mjcf_differences`; it returns readable differences, [] when
the models agree."""

from __future__ import annotations

import numpy as np

import mujoco

RTOL, ATOL = 2e-5, 1e-9
_OBJ = mujoco.mjtObj


def close(a, b) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.allclose(a, b, rtol=RTOL, atol=ATOL)


def close_quat(a, b) -> bool:
    return close(a, b) or close(a, -np.asarray(b, dtype=float))


class Names:
    """Names of a model's objects, unnamed ones as the reader names them."""

    def __init__(self, model):
        self.m = model

    def of(self, kind: str, index: int) -> str | None:
        m = self.m
        if index < 0:
            return None
        if kind in ("body", "xbody"):
            if index == 0:
                return "world"
            return mujoco.mj_id2name(m, _OBJ.mjOBJ_BODY, index) or f"body_{index - 1}"
        if kind == "joint":
            return mujoco.mj_id2name(m, _OBJ.mjOBJ_JOINT, index) or \
                f"{self.of('body', int(m.jnt_bodyid[index]))}_joint_{index}"
        if kind == "geom":
            body = int(m.geom_bodyid[index])
            return mujoco.mj_id2name(m, _OBJ.mjOBJ_GEOM, index) or \
                f"{self.of('body', body) if body else 'world'}_geom_{index}"
        obj = getattr(_OBJ, f"mjOBJ_{kind.upper()}", None)
        if obj is None:
            return f"{kind}_{index}"
        return mujoco.mj_id2name(m, obj, index) or f"{kind}_{index}"

    def obj(self, objtype: int, index: int) -> str | None:
        if objtype == int(_OBJ.mjOBJ_UNKNOWN):
            return None
        return f"{_OBJ(objtype).name[6:].lower()} {self.of(_OBJ(objtype).name[6:].lower(), index)}"

    def all(self, kind: str, count: int) -> dict[str, int]:
        return {self.of(kind, i): i for i in range(count)}


def _rows(found: list[str], what: str, a: dict, b: dict, row) -> None:
    """Compare ``row(model_side, index)`` of every name on both sides; rows hold (label, value, kind)."""
    if set(a) != set(b):
        found.append(f"{what}: {sorted(a)} != {sorted(b)}")
    for name in sorted(set(a) & set(b)):
        for (label, x, kind), (_, y, _) in zip(row(0, a[name]), row(1, b[name])):
            same = x == y if kind == "=" else close_quat(x, y) if kind == "q" else close(x, y)
            if not same:
                found.append(f"{what} {name} {label}: {x} != {y}")


def mjcf_differences(original, ours) -> list[str]:
    """Everything listed in the module's docstring that differs between the two compiled models."""
    found: list[str] = []
    models, names = (original, ours), (Names(original), Names(ours))
    for check in (_options, _joints, _sites, _cameras, _lights, _sensors, _equalities, _tendons, _actuators,
                  _keyframes, _contacts, _height_fields):
        check(found, models, names)
    return found


def _options(found, models, names) -> None:
    fields = ("timestep", "gravity", "integrator", "cone", "impratio", "solver", "iterations", "tolerance",
              "ls_iterations", "ls_tolerance", "noslip_iterations", "noslip_tolerance", "jacobian", "density",
              "viscosity", "wind", "magnetic", "o_margin", "o_solref", "o_solimp", "o_friction",
              "disableflags", "enableflags")
    for name in fields:
        x, y = (np.asarray(getattr(m.opt, name), dtype=float) for m in models)
        if not close(x, y):
            found.append(f"option {name}: {x.tolist()} != {y.tolist()}")


#: The sizes a site (or geom) of each type uses: the rest is not written by ``to_xml``.
USED_SIZES = {int(mujoco.mjtGeom.mjGEOM_SPHERE): 1, int(mujoco.mjtGeom.mjGEOM_CAPSULE): 2,
              int(mujoco.mjtGeom.mjGEOM_CYLINDER): 2}


def _joints(found, models, names) -> None:
    """Joints by name (a free joint's included): type, body, the limit (range, margin, solref, solimp),
    the spring (stiffness, rest), and per DOF frictionloss, armature, damping."""
    def row(k, j):
        m, n = models[k], names[k]
        dofs = slice(int(m.jnt_dofadr[j]), int(m.jnt_dofadr[j]) + {0: 6, 1: 3}.get(int(m.jnt_type[j]), 1))
        limited = bool(m.jnt_limited[j])  # a limit's parameters, and a spring's rest, only where they act
        sprung = bool(m.jnt_stiffness[j]) and int(m.jnt_type[j]) > 1  # a hinge or slide: one qpos
        return [("type", int(m.jnt_type[j]), "="), ("body", n.of("body", int(m.jnt_bodyid[j])), "="),
                ("limited", limited, "="), ("range", m.jnt_range[j] if limited else 0.0, "~"),
                ("margin", m.jnt_margin[j] if limited else 0.0, "~"),
                ("solreflimit", m.jnt_solref[j] if limited else 0.0, "~"),
                ("solimplimit", m.jnt_solimp[j] if limited else 0.0, "~"),
                ("stiffness", m.jnt_stiffness[j], "~"),
                ("springref", m.qpos_spring[m.jnt_qposadr[j]] if sprung else 0.0, "~"),
                ("frictionloss", m.dof_frictionloss[dofs], "~"), ("armature", m.dof_armature[dofs], "~"),
                ("damping", m.dof_damping[dofs], "~"), ("group", int(m.jnt_group[j]), "=")]
    _rows(found, "joint", *(n.all("joint", m.njnt) for m, n in zip(models, names)), row)


def _sites(found, models, names) -> None:
    def row(k, i):
        m, n = models[k], names[k]
        used = USED_SIZES.get(int(m.site_type[i]), 3)
        return [("body", n.of("body", int(m.site_bodyid[i])), "="), ("type", int(m.site_type[i]), "="),
                ("size", m.site_size[i][:used], "~"), ("pos", m.site_pos[i], "~"),
                ("quat", m.site_quat[i], "q"),
                ("rgba", m.site_rgba[i], "~"), ("group", int(m.site_group[i]), "=")]
    _rows(found, "site", *(n.all("site", m.nsite) for m, n in zip(models, names)), row)


def _cameras(found, models, names) -> None:
    def row(k, i):
        m, n = models[k], names[k]
        return [("body", n.of("body", int(m.cam_bodyid[i])), "="), ("pos", m.cam_pos[i], "~"),
                ("quat", m.cam_quat[i], "q"), ("fovy", m.cam_fovy[i], "~"), ("mode", int(m.cam_mode[i]), "="),
                ("target", n.of("body", int(m.cam_targetbodyid[i])), "="),
                ("resolution", tuple(m.cam_resolution[i]), "=")]
    _rows(found, "camera", *(n.all("camera", m.ncam) for m, n in zip(models, names)), row)


def _lights(found, models, names) -> None:
    def row(k, i):
        m, n = models[k], names[k]
        return [("body", n.of("body", int(m.light_bodyid[i])), "="), ("type", int(m.light_type[i]), "="),
                ("pos", m.light_pos[i], "~"), ("dir", m.light_dir[i], "~"),
                ("diffuse", m.light_diffuse[i], "~"), ("cutoff", m.light_cutoff[i], "~"),
                ("exponent", m.light_exponent[i], "~"), ("attenuation", m.light_attenuation[i], "~"),
                ("castshadow", bool(m.light_castshadow[i]), "="),
                ("active", bool(m.light_active[i]), "=")]
    _rows(found, "light", *(n.all("light", m.nlight) for m, n in zip(models, names)), row)


def _sensors(found, models, names) -> None:
    def row(k, i):
        m, n = models[k], names[k]
        return [("type", int(m.sensor_type[i]), "="),
                ("object", n.obj(int(m.sensor_objtype[i]), int(m.sensor_objid[i])), "="),
                ("reference", n.obj(int(m.sensor_reftype[i]), int(m.sensor_refid[i])), "="),
                ("noise", m.sensor_noise[i], "~"), ("cutoff", m.sensor_cutoff[i], "~"),
                ("dim", int(m.sensor_dim[i]), "="), ("intprm", tuple(m.sensor_intprm[i]), "="),
                ("needstage", int(m.sensor_needstage[i]), "="), ("datatype", int(m.sensor_datatype[i]), "=")]
    _rows(found, "sensor", *(n.all("sensor", m.nsensor) for m, n in zip(models, names)), row)


#: What joint and tendon equalities couple (their eq_objtype is not set).
_EQUALITY_OBJECTS = {mujoco.mjtEq.mjEQ_JOINT: int(_OBJ.mjOBJ_JOINT),
                     mujoco.mjtEq.mjEQ_TENDON: int(_OBJ.mjOBJ_TENDON)}


def _equality_keys(model, names: Names) -> dict[str, int]:
    """Weld and connect by name; joint, tendon (and other) equalities by what they couple (the
    description keeps a joint coupling as the follower's mimic, without the equality's name)."""
    keys = {}
    for e in range(model.neq):
        kind = mujoco.mjtEq(int(model.eq_type[e]))
        if kind in (mujoco.mjtEq.mjEQ_WELD, mujoco.mjtEq.mjEQ_CONNECT):
            keys[names.of("equality", e)] = e
        else:
            objtype = _EQUALITY_OBJECTS.get(kind, int(model.eq_objtype[e]))
            keys[f"{kind.name[5:].lower()} {names.obj(objtype, int(model.eq_obj1id[e]))} "
                 f"{names.obj(objtype, int(model.eq_obj2id[e]))}"] = e
    return keys


def _equalities(found, models, names) -> None:
    def row(k, i):
        m, n = models[k], names[k]
        objtype = _EQUALITY_OBJECTS.get(mujoco.mjtEq(int(m.eq_type[i])), int(m.eq_objtype[i]))
        return [("type", int(m.eq_type[i]), "="), ("object1", n.obj(objtype, int(m.eq_obj1id[i])), "="),
                ("object2", n.obj(objtype, int(m.eq_obj2id[i])), "="), ("data", m.eq_data[i], "~"),
                ("active", bool(m.eq_active0[i]), "="), ("solref", m.eq_solref[i], "~"),
                ("solimp", m.eq_solimp[i], "~")]
    _rows(found, "equality", *(_equality_keys(m, n) for m, n in zip(models, names)), row)


_WRAP_OBJECTS = {int(mujoco.mjtWrap.mjWRAP_JOINT): "joint", int(mujoco.mjtWrap.mjWRAP_SITE): "site",
                 int(mujoco.mjtWrap.mjWRAP_SPHERE): "geom", int(mujoco.mjtWrap.mjWRAP_CYLINDER): "geom"}


def _wraps(m, n: Names, t: int) -> tuple[list, list]:
    """A tendon's path: (type, object, side site) of each wrap, and the numbers of its joint
    coefficients and pulley divisors."""
    path, numbers = [], []
    for w in range(int(m.tendon_adr[t]), int(m.tendon_adr[t]) + int(m.tendon_num[t])):
        kind, obj, prm = int(m.wrap_type[w]), _WRAP_OBJECTS.get(int(m.wrap_type[w])), float(m.wrap_prm[w])
        side = n.of("site", int(prm)) if obj == "geom" and prm >= 0 else None  # a geom's prm: its side site
        if obj in ("joint", None):
            numbers.append(prm)
        path.append((kind, n.of(obj, int(m.wrap_objid[w])) if obj else None, side))
    return path, numbers


def _tendons(found, models, names) -> None:
    def row(k, i):
        m, n = models[k], names[k]
        path, numbers = _wraps(m, n, i)
        spatial = any(w[0] != int(mujoco.mjtWrap.mjWRAP_JOINT) for w in path)
        return [("wraps", path, "="), ("wrap numbers", numbers, "~"),
                ("limited", bool(m.tendon_limited[i]), "="),
                ("range", m.tendon_range[i] if m.tendon_limited[i] else 0.0, "~"),
                ("stiffness", m.tendon_stiffness[i], "~"), ("damping", m.tendon_damping[i], "~"),
                ("frictionloss", m.tendon_frictionloss[i], "~"), ("armature", m.tendon_armature[i], "~"),
                ("spring length", m.tendon_lengthspring[i] if m.tendon_stiffness[i] else 0.0, "~"),
                ("width", m.tendon_width[i] if spatial else 0.0, "~"),
                ("rgba", m.tendon_rgba[i] if spatial else 0.0, "~")]
    _rows(found, "tendon", *(n.all("tendon", m.ntendon) for m, n in zip(models, names)), row)


_TRN_OBJECTS = {int(mujoco.mjtTrn.mjTRN_JOINT): "joint", int(mujoco.mjtTrn.mjTRN_JOINTINPARENT): "joint",
                int(mujoco.mjtTrn.mjTRN_TENDON): "tendon", int(mujoco.mjtTrn.mjTRN_SITE): "site",
                int(mujoco.mjtTrn.mjTRN_BODY): "body", int(mujoco.mjtTrn.mjTRN_SLIDERCRANK): "site"}


def _actuators(found, models, names) -> None:
    def row(k, i):
        m, n = models[k], names[k]
        trn = int(m.actuator_trntype[i])
        obj = _TRN_OBJECTS.get(trn)
        target = n.of(obj, int(m.actuator_trnid[i][0])) if obj else None
        on_site = trn == int(mujoco.mjtTrn.mjTRN_SITE)
        on_site = on_site or trn == int(mujoco.mjtTrn.mjTRN_SLIDERCRANK)  # its second site: the slider's
        reference = n.of("site", int(m.actuator_trnid[i][1])) if on_site else None
        return [("transmission", trn, "="), ("target", target, "="),
                ("refsite", reference, "="), ("gear", m.actuator_gear[i], "~"),
                ("types", (int(m.actuator_dyntype[i]), int(m.actuator_gaintype[i]),
                           int(m.actuator_biastype[i])), "="),
                ("gain", m.actuator_gainprm[i], "~"), ("bias", m.actuator_biasprm[i], "~"),
                ("dynprm", m.actuator_dynprm[i], "~"), ("lengthrange", m.actuator_lengthrange[i], "~"),
                ("cranklength", m.actuator_cranklength[i], "~"),
                ("ctrlrange", m.actuator_ctrlrange[i] if m.actuator_ctrllimited[i] else 0.0, "~")]
    _rows(found, "actuator", *(n.all("actuator", m.nu) for m, n in zip(models, names)), row)


def _key_state(m, n: Names, k: int) -> dict:
    """A keyframe by name: each joint's qpos (hinge/slide from its qpos0) and qvel, each actuator's ctrl,
    each mocap body's pose."""
    state = {}
    free, ball = int(mujoco.mjtJoint.mjJNT_FREE), int(mujoco.mjtJoint.mjJNT_BALL)
    sizes = {free: (7, 6), ball: (4, 3)}
    for j in range(m.njnt):
        kind = int(m.jnt_type[j])
        nq, nv = sizes.get(kind, (1, 1))
        q, v = int(m.jnt_qposadr[j]), int(m.jnt_dofadr[j])
        qpos = np.array(m.key_qpos[k][q:q + nq])
        if nq == 1:
            qpos = qpos - m.qpos0[q]
        name = n.of("joint", j) if kind != free else f"free joint of {n.of('body', int(m.jnt_bodyid[j]))}"
        # (numbers, quaternion): a free joint's position and rotation, a ball's rotation, a hinge's value
        state[f"{name} qpos"] = {7: (qpos[:3], qpos[3:]), 4: (None, qpos)}.get(nq, (qpos, None))
        state[f"{name} qvel"] = (np.array(m.key_qvel[k][v:v + nv]), None)
    for a in range(m.nu):
        state[f"ctrl {n.of('actuator', a)}"] = (m.key_ctrl[k][a], None)
    for b in range(m.nbody):
        mocap = int(m.body_mocapid[b])
        if mocap >= 0:
            state[f"mocap {n.of('body', b)}"] = (m.key_mpos[k][3 * mocap:3 * mocap + 3],
                                                 m.key_mquat[k][4 * mocap:4 * mocap + 4])
    state["time"] = (m.key_time[k], None)
    return state


def _keyframes(found, models, names) -> None:
    a, b = (n.all("key", m.nkey) for m, n in zip(models, names))
    missing = sorted(set(a) - set(b))
    if missing:
        found.append(f"keyframes {missing} missing from {sorted(b)}")
    for key in sorted(set(a) & set(b)):
        x, y = _key_state(models[0], names[0], a[key]), _key_state(models[1], names[1], b[key])
        if set(x) != set(y):
            found.append(f"keyframe {key}: state {sorted(x)} != {sorted(y)}")
            continue
        for label in x:
            (p, q), (r, s) = x[label], y[label]
            if (p is not None and not close(p, r)) or (q is not None and not close_quat(q, s)):
                found.append(f"keyframe {key} {label}: {p, q} != {r, s}")


#: Geom types the description holds as another: an ellipsoid collides as its convex hull (a mesh).
HELD_AS = {int(mujoco.mjtGeom.mjGEOM_ELLIPSOID): int(mujoco.mjtGeom.mjGEOM_MESH)}


def _collider_rows(m, n: Names) -> dict:
    """Body name -> sorted contact rows of the geoms that may collide by their contype/conaffinity."""
    rows: dict = {}
    types = int(np.bitwise_or.reduce(m.geom_contype)) if m.ngeom else 0
    affinities = int(np.bitwise_or.reduce(m.geom_conaffinity)) if m.ngeom else 0
    for g in range(m.ngeom):
        if not (int(m.geom_contype[g]) & affinities or int(m.geom_conaffinity[g]) & types):
            continue  # touches nothing by its masks (a visual, or a geom only explicit pairs use)
        kind = int(m.geom_type[g])
        row = (HELD_AS.get(kind, kind), int(m.geom_condim[g]), int(m.geom_priority[g]),
               *np.round(np.concatenate([m.geom_solref[g], m.geom_solimp[g], [m.geom_solmix[g]],
                                         [m.geom_margin[g], m.geom_gap[g]], m.geom_friction[g]]), 9))
        rows.setdefault(n.of("body", int(m.geom_bodyid[g])), []).append(row)
    return {body: sorted(r) for body, r in rows.items()}


def _contacts(found, models, names) -> None:
    a, b = (_collider_rows(m, n) for m, n in zip(models, names))
    for body in sorted(set(a) | set(b)):
        x, y = a.get(body, []), b.get(body, [])
        if len(x) != len(y) or any(not close(p, q) for p, q in zip(x, y)):
            found.append(f"colliders of {body}: contact {x} != {y}")

    def row(k, i):
        m, n = models[k], names[k]
        geoms = sorted((n.of("geom", int(m.pair_geom1[i])), n.of("geom", int(m.pair_geom2[i]))))
        return [("geoms", geoms, "="),
                ("condim", int(m.pair_dim[i]), "="), ("friction", m.pair_friction[i], "~"),
                ("solref", m.pair_solref[i], "~"), ("solimp", m.pair_solimp[i], "~"),
                ("margin", m.pair_margin[i], "~"), ("gap", m.pair_gap[i], "~")]
    _rows(found, "contact pair", *(n.all("pair", m.npair) for m, n in zip(models, names)), row)
    excluded = [{frozenset(_exclude_bodies(m, n, e)) for e in range(m.nexclude)}
                for m, n in zip(models, names)]
    if not excluded[0] <= excluded[1]:
        found.append(f"contact excludes {sorted(map(sorted, excluded[0] - excluded[1]))} missing")


def _exclude_bodies(m, n: Names, e: int) -> tuple[str, str]:
    signature = int(m.exclude_signature[e])
    return n.of("body", signature >> 16), n.of("body", signature & 0xFFFF)  # MuJoCo: (body1 << 16) + body2


def _height_fields(found, models, names) -> None:
    """Each hfield geom, by name: its grid (rows, columns, the normalized samples), sizes and pose."""
    def hfield_geoms(m, n: Names) -> dict[str, int]:
        return {n.of("geom", g): g for g in range(m.ngeom) if int(m.geom_type[g]) == int(mujoco.mjtGeom.mjGEOM_HFIELD)}

    def row(k, g):
        m = models[k]
        h = int(m.geom_dataid[g])
        start, count = int(m.hfield_adr[h]), int(m.hfield_nrow[h]) * int(m.hfield_ncol[h])
        return [("grid", (int(m.hfield_nrow[h]), int(m.hfield_ncol[h])), "="),
                ("samples", m.hfield_data[start:start + count], "~"), ("size", m.hfield_size[h], "~"),
                ("pos", m.geom_pos[g], "~"), ("quat", m.geom_quat[g], "q"), ("body", int(m.geom_bodyid[g]) > 0, "=")]
    _rows(found, "height field", *(hfield_geoms(m, n) for m, n in zip(models, names)), row)
