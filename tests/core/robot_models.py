"""Newton 1.8 models of one robot from two sources, compared by meaning (shared by the MJCF and URDF tests).

Bodies are matched by name (the last part of Newton's label; USD prim names are the description's
names made valid identifiers); joints by their child body (a tree has one joint per child). Joint
frames are compared in world space (anchor and DOF axes at the rest pose), because an MJCF axis
``0 1 1`` is a rotated frame with axis X in USD and an unrotated frame with that axis in add_mjcf.
"""

from __future__ import annotations

import re
import warnings

import numpy as np

PER_DOF = ("joint_limit_lower", "joint_limit_upper", "joint_armature", "joint_friction", "joint_target_ke",
           "joint_target_kd", "joint_effort_limit", "joint_stiffness", "joint_velocity_limit",
           "joint_damping")


def leaf(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", label.rsplit("/", 1)[-1])


def quat_rotate(q_xyzw, v):
    x, y, z, w = q_xyzw
    u = np.array([x, y, z])
    v = np.asarray(v, dtype=float)
    return v + 2.0 * w * np.cross(u, v) + 2.0 * np.cross(u, np.cross(u, v))


def quat_mul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz])


def load_usd(source):
    import newton

    from .test_usd_newton import ALL_RESOLVERS

    builder = newton.ModelBuilder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder.add_usd(source, schema_resolvers=[r() for r in ALL_RESOLVERS])
        return builder.finalize(device="cpu")


def body_poses(model) -> np.ndarray:
    """Body poses at the model's joint_q by Newton's own forward kinematics (add_urdf leaves body_q
    at the origin)."""
    import newton

    state = model.state()
    newton.eval_fk(model, model.joint_q, model.joint_qd, state)
    return state.body_q.numpy()


def model_differences(original, ours, skip=(), atol=1e-5, rtol=1e-4, world_links=()) -> list[str]:
    """Readable differences between two Newton models (empty when they agree).

    ``skip``: per-DOF array names (``joint_armature``...) or ``"body_inertia"`` ... not compared.
    ``world_links``: bodies of ``original`` that are the world in ``ours`` (a URDF link named
    ``world``, which Newton's add_urdf makes a body welded to the world and MuJoCo the world itself)."""
    found = []
    names_a, names_b = [leaf(x) for x in original.body_label], [leaf(x) for x in ours.body_label]
    names_a = [n if n not in world_links else None for n in names_a]
    kept_a = [n for n in names_a if n is not None]
    if sorted(kept_a) != sorted(names_b):
        return [f"bodies {sorted(kept_a)} != {sorted(names_b)}"]
    index = {n: i for i, n in enumerate(names_b)}
    kept = [k for k, n in enumerate(names_a) if n is not None]
    order = [index[names_a[k]] for k in kept]
    for attr in ("body_mass", "body_com", "body_inertia"):
        if attr in skip:
            continue
        a, b = getattr(original, attr).numpy()[kept], getattr(ours, attr).numpy()[order]
        for k, name in enumerate(kept_a):
            if not np.allclose(a[k], b[k], rtol=rtol, atol=atol):
                found.append(f"body {name} {attr}: {a[k].ravel()} != {b[k].ravel()}")
    poses_a, poses_b = body_poses(original), body_poses(ours)
    qa, qb = poses_a[kept], poses_b[order]
    for k, name in enumerate(kept_a):
        same = np.allclose(qa[k, :3], qb[k, :3], atol=atol) and min(
            np.abs(qa[k, 3:] - qb[k, 3:]).max(), np.abs(qa[k, 3:] + qb[k, 3:]).max()) < atol
        if not same:
            found.append(f"body {name} pose: {qa[k]} != {qb[k]}")

    def joints_by_child(model, names):
        child = model.joint_child.numpy()
        return {names[c]: j for j, c in enumerate(child) if names[c] is not None}

    ja, jb = joints_by_child(original, names_a), joints_by_child(ours, names_b)
    if sorted(ja) != sorted(jb):
        return found + [f"joints by child body {sorted(ja)} != {sorted(jb)}"]
    arrays = {name: (original, ours) for name in PER_DOF if name not in skip}
    for child in kept_a:
        i, j = ja[child], jb[child]
        subject = f"joint {leaf(original.joint_label[i])} (child {child})"
        ta, tb = int(original.joint_type.numpy()[i]), int(ours.joint_type.numpy()[j])
        if ta != tb:
            found.append(f"{subject}: type {ta} != {tb}")
            continue
        frames = []
        for model, k, names, poses in ((original, i, names_a, poses_a), (ours, j, names_b, poses_b)):
            parent = int(model.joint_parent.numpy()[k])
            x_p = model.joint_X_p.numpy()[k]
            if parent >= 0:
                pq = poses[parent]
                pos = pq[:3] + quat_rotate(pq[3:], x_p[:3])
                rot = quat_mul(pq[3:], x_p[3:])
            else:
                pos, rot = x_p[:3], x_p[3:]
            s, e = model.joint_qd_start.numpy()[k], model.joint_qd_start.numpy()[k + 1]
            axes = [quat_rotate(rot, model.joint_axis.numpy()[d]) for d in range(s, e)]
            frames.append((pos, axes, list(range(s, e))))
        (pa, axes_a, dofs_a), (pb, axes_b, dofs_b) = frames
        if not np.allclose(pa, pb, atol=atol):
            found.append(f"{subject}: anchor {pa} != {pb}")
        if len(dofs_a) != len(dofs_b):
            found.append(f"{subject}: {len(dofs_a)} DOFs != {len(dofs_b)}")
            continue
        if ta == 6:  # D6: add_usd merges stacked joints in prim-name order, add_mjcf in file order
            match = [next((k for k, y in enumerate(axes_b) if np.allclose(x, y, atol=atol)), None) for x in axes_a]
            if None not in match and len(set(match)) == len(match):
                dofs_b = [dofs_b[k] for k in match]
                axes_b = [axes_b[k] for k in match]
        if ta in (0, 1, 6) and not all(np.allclose(x, y, atol=atol) for x, y in zip(axes_a, axes_b)):
            found.append(f"{subject}: axes {np.round(axes_a, 5).tolist()} != {np.round(axes_b, 5).tolist()}")
        for name in arrays:
            a = getattr(original, name).numpy()[dofs_a]
            b = getattr(ours, name).numpy()[dofs_b]
            if name == "joint_effort_limit":  # Newton's "no limit" is 1e6 from add_mjcf, inf from add_usd
                a, b = np.minimum(a, 1e6), np.minimum(b, 1e6)
            if not np.allclose(a, b, rtol=rtol, atol=atol):
                found.append(f"{subject} {name}: {a} != {b}")
    return found


# --- MuJoCo actuators, tendons and joint couplings (issue 16) -------------------------------------------
# Newton keeps these in ``model.mujoco`` only when ``SolverMuJoCo.register_custom_attributes(builder)`` ran
# before add_usd / add_mjcf (``load_usd(..., mujoco=True)``). Rows name their targets by meaning (a joint by
# its child body, a tendon by its name), so models from USD and from MJCF compare.

MUJOCO_ACTUATOR_TYPES = ("actuator_trntype", "actuator_gaintype", "actuator_biastype", "actuator_dyntype")


def load_usd_mujoco(source):
    """Newton's model of a USD file (path or stage) with the MuJoCo custom attributes registered."""
    import newton
    from newton.solvers import SolverMuJoCo

    from .test_usd_newton import ALL_RESOLVERS

    builder = newton.ModelBuilder()
    SolverMuJoCo.register_custom_attributes(builder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder.add_usd(source, schema_resolvers=[r() for r in ALL_RESOLVERS])
        return builder.finalize(device="cpu")


def _joint_names(model, body_name=None) -> list[str]:
    """Each Newton joint named by its child body (names agree between add_usd and add_mjcf).
    ``body_name``: body label -> name, where leaf names repeat (USD prim names are unique per parent
    only: the converter's several ``Body`` prims); default their leaf."""
    bodies = [(body_name or leaf)(x) for x in model.body_label]
    return [bodies[c] for c in model.joint_child.numpy()]


def _dof_of_label(model, label: str) -> int:
    """Newton's DOF index of a USD joint (or per-axis) prim path, -1 if none: what SolverMuJoCo resolves
    an actuator target to when add_usd left its transmission unresolved (trnid -1)."""
    dof_labels = list(getattr(model.mujoco, "joint_dof_label", []))
    if label in dof_labels:
        return dof_labels.index(label)
    if label in model.joint_label:
        return int(model.joint_qd_start.numpy()[list(model.joint_label).index(label)])
    return -1


def _limits(limited: int, has_range: bool, lo: float, hi: float):
    """MuJoCo's effective limit: 0 = off, 1 = on, 2 = auto (on when a range was given)."""
    on = limited == 1 or (limited == 2 and (has_range or lo != 0.0 or hi != 0.0))
    return (round(float(lo), 5), round(float(hi), 5)) if on else None


def actuator_rows(model, body_name=None) -> list[dict]:
    """Newton's MuJoCo actuators as comparable rows, sorted by target.

    Each row: ``target`` ("joint <child body>" or "tendon <name>"), trntype/gaintype/biastype/dyntype,
    gainprm/biasprm/dynprm (10 values), gear (6), effective ``ctrl_limits``/``force_limits`` (None when
    unlimited), ``gravcomp`` (the joint's actgravcomp) and the initial ``ctrl``. Float32 values are
    rounded to 5 significant decimals so a double written back as float32 still matches."""
    mj = getattr(model, "mujoco", None)
    if mj is None or not hasattr(mj, "actuator_trntype"):
        return []
    joints = _joint_names(model, body_name)
    qd_start = model.joint_qd_start.numpy()
    target_labels = list(getattr(mj, "actuator_target_label", []))
    tendons = [leaf(x) for x in getattr(mj, "tendon_label", [])]
    gravcomp = mj.jnt_actgravcomp.numpy() if hasattr(mj, "jnt_actgravcomp") else None
    arrays = {k: getattr(mj, k).numpy() for k in (
        *MUJOCO_ACTUATOR_TYPES, "actuator_trnid", "actuator_gainprm", "actuator_biasprm", "actuator_dynprm",
        "actuator_gear", "actuator_ctrllimited", "actuator_ctrlrange", "actuator_forcelimited",
        "actuator_forcerange", "actuator_has_ctrlrange", "actuator_has_forcerange")}
    ctrl = mj.ctrl.numpy() if hasattr(mj, "ctrl") else np.zeros(len(arrays["actuator_trntype"]))
    rows = []
    for i, trntype in enumerate(arrays["actuator_trntype"]):
        target_id = int(arrays["actuator_trnid"][i][0])
        if target_id < 0 and i < len(target_labels):  # resolved by SolverMuJoCo from the target's path
            label = target_labels[i]
            tendon_labels = list(getattr(mj, "tendon_label", []))
            trntype, target_id = (2, tendon_labels.index(label)) if label in tendon_labels else (
                trntype, _dof_of_label(model, label))
        if trntype in (0, 1):  # joint, joint in parent frame: trnid is Newton's DOF index
            joint = int(np.searchsorted(qd_start, target_id, side="right")) - 1
            target = f"joint {joints[joint]} dof {target_id - int(qd_start[joint])}"
            grav = bool(gravcomp[target_id]) if gravcomp is not None else False  # per DOF
        elif trntype == 2:
            target, grav = f"tendon {tendons[target_id]}", False
        else:
            target, grav = f"trntype {int(trntype)} id {target_id}", False

        def prm(name, size):
            return tuple(float(np.format_float_positional(v, 6, unique=False, fractional=False))
                         for v in arrays[name][i][:size])

        rows.append({
            "target": target,
            **{k.removeprefix("actuator_"): int(arrays[k][i]) for k in MUJOCO_ACTUATOR_TYPES},
            "trntype": int(trntype),
            "gainprm": prm("actuator_gainprm", 10), "biasprm": prm("actuator_biasprm", 10),
            "dynprm": prm("actuator_dynprm", 10), "gear": prm("actuator_gear", 6),
            "ctrl_limits": _limits(int(arrays["actuator_ctrllimited"][i]), bool(arrays["actuator_has_ctrlrange"][i]),
                                   *arrays["actuator_ctrlrange"][i]),
            "force_limits": _limits(int(arrays["actuator_forcelimited"][i]),
                                    bool(arrays["actuator_has_forcerange"][i]), *arrays["actuator_forcerange"][i]),
            "gravcomp": grav, "ctrl": round(float(ctrl[i]), 5),
        })
    return sorted(rows, key=lambda r: r["target"])


def tendon_rows(model, body_name=None) -> list[dict]:
    """Newton's MuJoCo fixed tendons: name, (joint by child body, coef) pairs, effective range."""
    mj = getattr(model, "mujoco", None)
    if mj is None or not hasattr(mj, "tendon_joint_adr"):
        return []
    joints = _joint_names(model, body_name)
    adr, num = mj.tendon_joint_adr.numpy(), mj.tendon_joint_num.numpy()
    tjoint, coef = mj.tendon_joint.numpy(), mj.tendon_coef.numpy()
    limited, ranges = mj.tendon_limited.numpy(), mj.tendon_range.numpy()
    rows = []
    for t, label in enumerate(mj.tendon_label):
        span = range(int(adr[t]), int(adr[t] + num[t]))
        rows.append({"name": leaf(label), "joints": [(joints[int(tjoint[k])], round(float(coef[k]), 5)) for k in span],
                     "range": _limits(int(limited[t]), False, *ranges[t]),
                     "stiffness": round(float(mj.tendon_stiffness.numpy()[t]), 5),
                     "damping": round(float(mj.tendon_damping.numpy()[t]), 5)})
    return sorted(rows, key=lambda r: r["name"])


def coupling_rows(model, body_name=None) -> list[tuple]:
    """Joint couplings Newton holds: ("mimic", follower, leader, coef0, coef1) rows from its mimic
    constraints (add_mjcf, add_usd) or joint-owned mimics (``joint_mimic_joint``, what add_urdf builds)
    and ("equality", joint1, joint2, polycoef) rows from MuJoCo joint equalities, joints named by child
    body."""
    joints = _joint_names(model, body_name)
    rows = []
    if getattr(model, "joint_mimic_joint", None) is not None:
        for follower, (leader, (c0, c1)) in enumerate(zip(model.joint_mimic_joint.numpy(),
                                                          model.joint_mimic_coeffs.numpy())):
            if leader >= 0:
                rows.append(("mimic", joints[follower], joints[int(leader)], round(float(c0), 5), round(float(c1), 5)))
    if getattr(model, "constraint_mimic_count", 0):
        for j0, j1, c0, c1 in zip(model.constraint_mimic_joint0.numpy(), model.constraint_mimic_joint1.numpy(),
                                  model.constraint_mimic_coef0.numpy(), model.constraint_mimic_coef1.numpy()):
            rows.append(("mimic", joints[int(j0)], joints[int(j1)], round(float(c0), 5), round(float(c1), 5)))
    mj = getattr(model, "mujoco", None)
    if mj is not None and hasattr(mj, "equality_constraint_type"):
        for k, kind in enumerate(mj.equality_constraint_type.numpy()):
            if int(kind) == 2:  # mjEQ_JOINT
                j1, j2 = int(mj.equality_constraint_joint1.numpy()[k]), int(mj.equality_constraint_joint2.numpy()[k])
                poly = tuple(round(float(c), 5) for c in mj.equality_constraint_polycoef.numpy()[k])
                rows.append(("equality", joints[j1], joints[j2] if j2 >= 0 else None, poly))
    return sorted(rows, key=str)


def row_differences(rows_a: list, rows_b: list, what: str = "actuator") -> list[str]:
    """Readable differences between two row lists (empty when they agree)."""
    if len(rows_a) != len(rows_b):
        return [f"{len(rows_a)} {what}s != {len(rows_b)}: {rows_a} != {rows_b}"]
    found = []
    for a, b in zip(rows_a, rows_b):
        if a != b:
            keys = a.keys() if isinstance(a, dict) else range(len(a))
            diff = {k: (a[k], b[k]) for k in keys if a[k] != b[k]} if isinstance(a, dict) else (a, b)
            found.append(f"{what} {a['target'] if isinstance(a, dict) and 'target' in a else ''}: {diff}")
    return found


# --- The description's own actuators, tendons and couplings as the same rows (MJCF and URDF readers) ----

def _significant(values, size: int) -> tuple:
    """``values`` padded with zeros to ``size``, each to 6 significant digits (as actuator_rows)."""
    padded = [float(v) for v in values][:size] + [0.0] * (size - len(values))
    return tuple(float(np.format_float_positional(v, 6, unique=False, fractional=False)) for v in padded)


def description_actuator_rows(scene) -> list[dict]:
    """The description's actuators as :func:`actuator_rows` gives Newton's: a joint named by its child
    body and the DOF's index among the DOFs of every joint on that body (Newton merges a MuJoCo body's
    joints into one, in file order), a tendon by its name; MuJoCo's type numbers from their names."""
    import mujoco

    def enum(kind, prefix, name):
        return int(getattr(kind, prefix + name.upper()))

    first_dof, on_body, rows = {}, {}, []
    for joint in scene.joints:
        first_dof[joint.name] = on_body.get(joint.body1, 0)
        on_body[joint.body1] = first_dof[joint.name] + len(joint.active_dofs())
    for actuator, joint, dof, tendon in scene.actuators():
        if joint is not None:
            target = f"joint {leaf(joint.body1)} dof {first_dof[joint.name] + joint.active_dofs().index(dof)}"
        else:
            target = f"tendon {leaf(tendon.name)}"

        def limits(pair):
            return None if pair is None else (round(float(pair[0]), 5), round(float(pair[1]), 5))

        rows.append({
            "target": target, "trntype": 0 if joint is not None else 2,
            "gaintype": enum(mujoco.mjtGain, "mjGAIN_", actuator.gain_type),
            "biastype": 1 if actuator.bias else 0,
            "dyntype": enum(mujoco.mjtDyn, "mjDYN_", actuator.dyn_type),
            "gainprm": _significant(actuator.gain, 10), "biasprm": _significant(actuator.bias, 10),
            "dynprm": _significant(actuator.dyn_params, 10), "gear": _significant((actuator.gear,), 6),
            "ctrl_limits": limits(actuator.ctrl_range), "force_limits": limits(actuator.force_range),
            "gravcomp": actuator.gravity_compensation, "ctrl": round(float(actuator.control), 5),
        })
    return sorted(rows, key=lambda r: r["target"])


def description_tendon_rows(scene) -> list[dict]:
    """The description's fixed tendons as :func:`tendon_rows` gives Newton's."""
    rows = []
    for tendon in scene.tendons:
        limited = tendon.lower > -np.inf or tendon.upper < np.inf
        rows.append({"name": leaf(tendon.name),
                     "joints": [(leaf(scene.joint(tj.joint).body1), round(float(tj.coef), 5)) for tj in tendon.joints],
                     "range": (round(float(tendon.lower), 5), round(float(tendon.upper), 5)) if limited else None,
                     "stiffness": round(float(tendon.stiffness), 5), "damping": round(float(tendon.damping), 5)})
    return sorted(rows, key=lambda r: r["name"])


def description_mimic_rows(scene) -> list[tuple]:
    """The description's coupled joints as the "mimic" rows of :func:`coupling_rows`."""
    rows = [("mimic", leaf(j.body1), leaf(scene.joint(j.mimic.leader).body1), round(float(j.mimic.offset), 5),
             round(float(j.mimic.gear), 5)) for j in scene.joints if j.mimic is not None]
    return sorted(rows, key=str)
