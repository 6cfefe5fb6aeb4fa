"""Every robot of the corpora leaves as MJCF that MuJoCo compiles and Newton reads as the same robot.

For each robot (gymnasium's and Newton's MJCF files, pybullet's URDFs, Newton's USD assets, the
MJCF robots NVIDIA's converter made USD of, the samples behind ``examples/``): its description ->
``write_mjcf``, and

1. MuJoCo compiles the written file (``MjModel.from_xml_path``, meshes from the assets folder);
2. Newton 1.8's ``add_mjcf`` of the export has the same bodies, body poses, masses, inertias, joint
   types, DOFs in the same order, limits, armature, friction, gains and effort limits as Newton's
   ``add_usd`` of Articula's NESTED USD export of the same description (tests/core/robot_models.py);

and for the MJCF originals, also

3. MuJoCo's compiled model of the export equals that of the original: body mass, inertia, ipos;
   joint ranges (about the file's pose, ``ref`` being the description's zero); DOF armature, damping,
   frictionloss; actuator gain, bias, gear and ranges; collider geom types and sizes; tendons;
   equalities. Tolerance: ``to_xml`` writes 6 significant digits, so rtol 2e-5 (atol 1e-9);
4. 1 s of ``mj_step`` from the initial state with ctrl = 0 and contacts off moves every body to
   within 1 mm of where the original's bodies go;
5. ``read_mjcf`` of the export gives back the same description, and export -> import -> export
   writes the same XML (numbers equal to the 6 digits written; see :func:`xml_differences`).
"""

import glob
import os
import warnings
import xml.etree.ElementTree as ET

import numpy as np
import pytest

newton = pytest.importorskip("newton")
pytest.importorskip("newton_usd_schemas")
pytest.importorskip("scipy")
mujoco = pytest.importorskip("mujoco")

from articula.core import samples  # noqa: E402
from articula.core.mjcf import read_mjcf  # noqa: E402
from articula.core.mjcf.writer import write_mjcf  # noqa: E402
from articula.core.model import JointType  # noqa: E402
from articula.core.usd.writer import write_usd  # noqa: E402

from .robot_models import (actuator_rows, description_actuator_rows, description_tendon_rows,  # noqa: E402
                           load_usd, load_usd_mujoco, model_differences, row_differences, tendon_rows)
from .test_mjcf_corpus import CORPUS as MJCF_CORPUS, corpus_file  # noqa: E402

#: rtol of a number MuJoCo's to_xml wrote with 6 significant digits, read back.
RTOL, ATOL = 2e-5, 1e-9


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def newton_mjcf(path: str):
    """Newton's model of an MJCF file, SolverMuJoCo's custom attributes registered (actuator rows)."""
    builder = newton.ModelBuilder()
    newton.solvers.SolverMuJoCo.register_custom_attributes(builder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder.add_mjcf(path)
        return builder.finalize(device="cpu")


#: Per-DOF arrays not compared between Newton's two models, and why.
NOT_COMPARED = {
    "joint_target_ke": "MuJoCo 3.17's to_xml writes every actuator as <general>; Newton 1.8's add_mjcf makes "
                       "joint target gains only from <position>/<velocity> elements and keeps a <general> as "
                       "a MuJoCo actuator row (compared below, and the drives' gains on their own)",
    "joint_target_kd": "same as joint_target_ke",
    "joint_velocity_limit": "MJCF has no joint velocity limit (named in the export's warning)",
}
#: Newton's 'no limit' differs by importer (add_usd: +-1.7e8 rad from degrees, add_mjcf: +-1e10).
NO_LIMIT = 1e6


def _unlimited_as_one(model) -> None:
    for name in ("joint_limit_lower", "joint_limit_upper"):
        array = getattr(model, name)
        array.assign(np.clip(array.numpy(), -NO_LIMIT, NO_LIMIT))


def _drive_rows_differences(scene, model) -> list[str]:
    """Each enabled drive is a MuJoCo servo on its joint in Newton's model of the export."""
    rows = actuator_rows(model)
    found = []
    for joint in scene.joints:
        for dof in joint.active_dofs():
            kp, kv = dof.drive_stiffness, dof.drive_damping
            if not dof.drive_enabled or joint.type == JointType.SPHERICAL or not (kp > 0.0 or kv > 0.0):
                continue  # a drive without gains exerts nothing: no servo is written
            want = (0.0, -kp, -kv) if kp > 0.0 else (0.0, 0.0, -kv)
            if not any(_close(r["gainprm"][0], kp if kp > 0.0 else kv) and _close(r["biasprm"][:3], want)
                       for r in rows if r["target"].startswith(f"joint {joint.body1} ")):
                found.append(f"drive of {joint.name} {dof.axis.value}: no servo kp {kp} kv {kv} in {rows}")
    return found


def _without_frame_rows(scene, rows: list[dict]) -> list[dict]:
    """Newton's actuator rows but those of ``frame_actuators`` (on sites, bodies, ball and free joints,
    spatial tendons), which description_actuator_rows does not list: as many as the description has
    (tests/core/test_mjcf_roundtrip.py compares them by name, transmission and gear)."""
    spatial = {f"tendon {t.name}" for t in scene.spatial_tendons}
    joint_or_tendon = [r for r in rows if r["trntype"] in (0, 2) and r["target"] not in spatial]
    assert len(rows) - len(joint_or_tendon) == len(scene.frame_actuators), rows
    return joint_or_tendon


def _static_bodies_massless(model) -> None:
    """Bodies welded to the world never move: Newton's add_mjcf gives them no mass, add_usd keeps it."""
    kinds, parents, children = (model.joint_type.numpy(), model.joint_parent.numpy(), model.joint_child.numpy())
    static = [int(c) for k, p, c in zip(kinds, parents, children) if p < 0 and k == int(newton.JointType.FIXED)]
    for name in ("body_mass", "body_inertia", "body_com"):
        array = getattr(model, name).numpy()
        array[static] = 0.0
        getattr(model, name).assign(array)


#: Where the export's own warning says it changed a value MuJoCo would refuse, that value is not compared.
WARNED_CHANGES = {"written balanced": ("body_inertia",)}


def export_checks(scene, tmp_path, skip=()) -> tuple[str, list[str]]:
    """Checks 1 and 2: the written path, and the differences between Newton's two models."""
    path = str(tmp_path / "robot.xml")
    if scene.settings.mujoco.solver == "pgs":  # Newton 1.8's add_mjcf parses <option solver> as cg/newton only
        scene.settings.mujoco.solver = "newton"
    warned = write_mjcf(scene, path)
    skip = tuple(skip) + tuple(a for text, arrays in WARNED_CHANGES.items() if any(text in w for w in warned)
                               for a in arrays)
    mujoco.MjModel.from_xml_path(path)  # 1: MuJoCo compiles it
    usd = str(tmp_path / "robot.usda")
    write_usd(scene, usd, layout="NESTED")
    from_usd, from_mjcf = load_usd_mujoco(usd), newton_mjcf(path)
    for model in (from_usd, from_mjcf):
        _unlimited_as_one(model)
        _static_bodies_massless(model)
    found = model_differences(from_usd, from_mjcf, skip=(*NOT_COMPARED, *skip))
    # Actuator and tendon rows against the description's own (Newton's add_usd merges stacked joints in
    # prim-name order and drops tendon entries on them, so the USD side is no reference for these).
    if any(dof.drive_enabled for joint in scene.joints for dof in joint.dofs):
        found += _drive_rows_differences(scene, from_mjcf)
    else:
        rows = _without_frame_rows(scene, actuator_rows(from_mjcf))
        found += row_differences(description_actuator_rows(scene), rows)
    found += row_differences(description_tendon_rows(scene), tendon_rows(from_mjcf), "tendon")
    return path, found


# ------------------------------------------------------------------------------ MJCF originals
def load_original(path: str):
    """MuJoCo's model of a corpus file, sensors dropped as core.mjcf.reader drops them when MuJoCo
    refuses them (Newton's nv_humanoid.xml names a sensorized body that does not exist)."""
    spec = mujoco.MjSpec.from_file(path)
    try:
        return spec.compile()
    except ValueError:
        for sensor in list(spec.sensors):
            spec.delete(sensor)
        return spec.compile()


def _close(a, b) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.allclose(a, b, rtol=RTOL, atol=ATOL)


COMPILED_FIELDS = ("body_mass", "body_inertia", "body_ipos", "dof_armature", "dof_damping", "dof_frictionloss",
                   "jnt_stiffness", "jnt_type", "jnt_axis", "jnt_limited", "actuator_gainprm", "actuator_biasprm",
                   "actuator_gear", "actuator_ctrlrange", "actuator_forcerange", "actuator_ctrllimited",
                   "actuator_forcelimited", "actuator_trntype", "actuator_dyntype", "tendon_range", "tendon_limited",
                   "tendon_stiffness", "tendon_damping", "wrap_objid", "wrap_prm", "eq_type", "eq_obj1id",
                   "eq_obj2id", "eq_data")


#: The sizes MuJoCo uses per geom type (a plane's are drawing sizes: the description's planes are
#: infinite; a mesh's come from its vertices).
USED_SIZES = {int(mujoco.mjtGeom.mjGEOM_SPHERE): 1, int(mujoco.mjtGeom.mjGEOM_CAPSULE): 2,
              int(mujoco.mjtGeom.mjGEOM_CYLINDER): 2, int(mujoco.mjtGeom.mjGEOM_BOX): 3,
              int(mujoco.mjtGeom.mjGEOM_ELLIPSOID): 3}


def _colliders(model):
    """(body, type, used sizes) of each collider geom, told from visuals as core.mjcf.reader does."""
    rows = []
    for g in range(model.ngeom):
        if model.geom_contype[g] == 0 and model.geom_conaffinity[g] == 0:
            continue  # a visual
        kind = int(model.geom_type[g])
        if kind == int(mujoco.mjtGeom.mjGEOM_ELLIPSOID):  # the description holds it as its convex hull
            kind = int(mujoco.mjtGeom.mjGEOM_MESH)
        rows.append((int(model.geom_bodyid[g]), kind, tuple(model.geom_size[g][:USED_SIZES.get(kind, 0)])))
    return sorted(rows, key=lambda r: (r[0], r[1], tuple(round(s, 6) for s in r[2])))


def compiled_differences(original, ours) -> list[str]:
    """Check 3, field by field (bodies, joints, actuators... come in the same order)."""
    found = [f"{name}: {getattr(original, name).tolist()} != {getattr(ours, name).tolist()}"
             for name in COMPILED_FIELDS if not _close(getattr(original, name), getattr(ours, name))]
    # Ranges about the file's pose: the description's zero is the original's qpos0 (its ref).
    ref_a = np.array([original.qpos0[original.jnt_qposadr[j]] if original.jnt_type[j] >= 2 else 0.0
                      for j in range(original.njnt)])
    ref_b = np.array([ours.qpos0[ours.jnt_qposadr[j]] if ours.jnt_type[j] >= 2 else 0.0 for j in range(ours.njnt)])
    if not _close(original.jnt_range - ref_a[:, None] * original.jnt_limited[:, None],
                  ours.jnt_range - ref_b[:, None] * ours.jnt_limited[:, None]):
        found.append(f"jnt_range: {original.jnt_range.tolist()} != {ours.jnt_range.tolist()}")
    a, b = _colliders(original), _colliders(ours)
    if len(a) != len(b) or any(x[:2] != y[:2] or not _close(x[2], y[2]) for x, y in zip(a, b)):
        found.append(f"collider geoms: {a} != {b}")
    return found


def positions_after_one_second(model, integrator) -> np.ndarray:
    """Body positions after 1 s of mj_step from the initial state, ctrl = 0, contacts off, with
    ``integrator`` (the description has no integrator: the export leaves MuJoCo's default, Euler,
    and gymnasium's robots ask for RK4)."""
    model.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    model.opt.integrator = integrator
    data = mujoco.MjData(model)
    if model.nkey:
        mujoco.mj_resetDataKeyframe(model, data, 0)
    for _ in range(int(round(1.0 / model.opt.timestep))):
        mujoco.mj_step(model, data)
    return np.array(data.xpos)


def description_differences(a, b) -> list[str]:
    """Check 5 on the description: bodies, masses, joints, DOF values, actuators, tendons, mimics."""
    found = []
    if [x.name for x in a.bodies] != [x.name for x in b.bodies]:
        return [f"bodies {[x.name for x in a.bodies]} != {[x.name for x in b.bodies]}"]
    for x in a.bodies:
        y = b.body(x.name)
        if x.parent != y.parent or not _close(x.pose.pos, y.pose.pos) or \
                not _close(x.mass.mass, y.mass.mass) or not _close(x.mass.center_of_mass, y.mass.center_of_mass):
            found.append(f"body {x.name}")
    if sorted(j.name for j in a.joints) != sorted(j.name for j in b.joints):
        return found + [f"joints {sorted(j.name for j in a.joints)} != {sorted(j.name for j in b.joints)}"]
    for x in a.joints:
        y = b.joint(x.name)
        if (x.type, x.body0, x.body1, x.axis) != (y.type, y.body0, y.body1, y.axis) or \
                (x.mimic is None) != (y.mimic is None):
            found.append(f"joint {x.name}: {(x.type, x.body0, x.body1, x.axis)} != {(y.type, y.body0, y.body1, y.axis)}")
            continue
        for d, e in zip(x.dofs, y.dofs):
            values = [(d.motion == e.motion)] + [_close(getattr(d, f), getattr(e, f)) for f in (
                "lower", "upper", "armature", "viscous_damping", "dynamic_friction", "spring_stiffness",
                "max_effort")]
            if not all(values) or len(d.actuators) != len(e.actuators) or any(
                    p.name != q.name or not _close(p.gain, q.gain) or not _close(p.bias, q.bias) or
                    not _close(p.gear, q.gear) or p.ctrl_range is None != (q.ctrl_range is None)
                    for p, q in zip(d.actuators, e.actuators)):
                found.append(f"joint {x.name} DOF {d.axis.value}")
    if [(t.name, [(j.joint, j.coef) for j in t.joints], len(t.actuators)) for t in a.tendons] != \
            [(t.name, [(j.joint, j.coef) for j in t.joints], len(t.actuators)) for t in b.tendons]:
        found.append("tendons")
    if [s.name for s in a.shapes] != [s.name for s in b.shapes]:
        found.append(f"colliders {[s.name for s in a.shapes]} != {[s.name for s in b.shapes]}")
    return found


def xml_differences(first: str, second: str) -> list[str]:
    """The two files' element trees, attribute by attribute: words equal, numbers equal to the 6
    digits written (rtol 2e-5: the second file is written from MuJoCo's reading of the first, and a
    quaternion normalized again may move in its 6th digit). The assets folder's name (meshdir, texturedir) is not compared."""
    found = []
    a, b = ET.parse(first).getroot(), ET.parse(second).getroot()
    ea, eb = list(a.iter()), list(b.iter())
    if [e.tag for e in ea] != [e.tag for e in eb]:
        return [f"elements {[e.tag for e in ea]} != {[e.tag for e in eb]}"]
    for x, y in zip(ea, eb):
        if set(x.attrib) != set(y.attrib):
            found.append(f"<{x.tag} {x.attrib.get('name', '')}>: attributes {sorted(x.attrib)} != {sorted(y.attrib)}")
            continue
        for key, value in x.attrib.items():
            other = y.attrib[key]
            if value == other or key in ("meshdir", "texturedir"):
                continue
            try:
                same = _close([float(v) for v in value.split()], [float(v) for v in other.split()])
            except ValueError:
                same = False
            if not same and not (x.tag == "geom" and key == "quat" and x.attrib.get("type") == "mesh"):
                found.append(f"<{x.tag} {x.attrib.get('name', '')}> {key}: {value!r} != {other!r}")
    return found


#: MJCF originals that do not compare in full, each with its reason.
MOTION_EXCEPTIONS: dict[str, str] = {}


@pytest.mark.parametrize("key", MJCF_CORPUS)
def test_mjcf_original_exports_to_the_same_mujoco_model(key, tmp_path):
    source = corpus_file(key)
    read = read_mjcf(source)
    path, differences = export_checks(read.scene, tmp_path)
    assert differences == [], "\n".join(differences)
    original, ours = load_original(source), mujoco.MjModel.from_xml_path(path)
    differences = compiled_differences(original, ours)
    assert differences == [], "\n".join(differences)


@pytest.mark.parametrize("key", MJCF_CORPUS)
def test_mjcf_original_moves_the_same_for_one_second(key, tmp_path):
    if key in MOTION_EXCEPTIONS:
        pytest.skip(MOTION_EXCEPTIONS[key])
    source = corpus_file(key)
    path = str(tmp_path / "robot.xml")
    write_mjcf(read_mjcf(source).scene, path)
    original, ours = load_original(source), mujoco.MjModel.from_xml_path(path)
    integrator = original.opt.integrator
    a, b = positions_after_one_second(original, integrator), positions_after_one_second(ours, integrator)
    assert np.linalg.norm(a - b, axis=1).max() < 1e-3


@pytest.mark.parametrize("key", MJCF_CORPUS)
def test_mjcf_export_reads_back_and_writes_the_same_xml(key, tmp_path):
    read = read_mjcf(corpus_file(key))
    first, second = str(tmp_path / "first.xml"), str(tmp_path / "second.xml")
    write_mjcf(read.scene, first)
    back = read_mjcf(first).scene
    assert description_differences(read.scene, back) == []
    write_mjcf(back, second)
    assert xml_differences(first, second) == []


def test_the_comparisons_can_fail(tmp_path):
    """A changed limit, mass or actuator gain is found by checks 2, 3 and 5."""
    source = corpus_file("newton/nv_ant")
    scene = read_mjcf(source).scene
    joint = next(j for j in scene.joints if j.dofs and j.dofs[0].motion.value == "LIMITED")
    joint.dofs[0].upper += 0.1
    scene.bodies[1].mass.mass *= 2.0
    path = str(tmp_path / "robot.xml")
    write_mjcf(scene, path)
    differences = compiled_differences(load_original(source), mujoco.MjModel.from_xml_path(path))
    assert any(d.startswith("jnt_range") for d in differences)
    assert any(d.startswith("body_mass") for d in differences)
    assert description_differences(read_mjcf(source).scene, read_mjcf(path).scene) != []
    usd = str(tmp_path / "robot.usda")
    write_usd(read_mjcf(source).scene, usd)
    found = model_differences(load_usd(usd), newton_mjcf(path))
    assert any("body_mass" in d for d in found) and any("joint_limit_upper" in d for d in found)


# ------------------------------------------------------------------------ the samples (examples/)
#: Samples whose Newton models differ by design, with the per-DOF arrays and the reason.
SAMPLE_SKIPS = {
    "d6_sampler": (("joint_armature", "joint_damping"),
                   "Newton 1.8 reads one armature and damping per USD joint (NewtonJointAPI), so the USD side "
                   "gives the D6 none; the MJCF side has the D6's per-DOF values (MuJoCo's checked in "
                   "test_mjcf_writer.py)"),
}
#: Samples Newton cannot model alike from the two files: only MuJoCo's compile is checked.
SAMPLE_EXCEPTIONS = {
    "four_bar": "its loop-closing joint is a connect equality in MJCF (Newton: an equality constraint) and a "
                "joint in USD (Newton: a joint), so Newton's joints differ by construction",
}


@pytest.mark.parametrize("name", [*samples.SAMPLES, "hanging_chain"])
def test_sample_exports_to_the_same_newton_model(name, tmp_path):
    scene = getattr(samples, name)()
    skip, _ = SAMPLE_SKIPS.get(name, ((), ""))
    path, differences = export_checks(scene, tmp_path, skip)
    if name in SAMPLE_EXCEPTIONS:
        assert differences != []
        differences = []
    assert differences == [], "\n".join(differences)
    back = read_mjcf(path).scene
    assert [b.name for b in back.bodies] == [b.name for b in scene.bodies]
    kept = {j.name for j in scene.joints if j.type not in (JointType.FIXED, JointType.D6)
            and not j.exclude_from_articulation}
    assert kept <= {j.name for j in back.joints}
    # Check 5 for a robot made in Articula: one import loses what core.mjcf.reader does not read (the
    # keyframe, connect equalities) and adds drawn copies of colliders where there were no visuals;
    # from then on export -> import -> export writes the same XML.
    second, third = str(tmp_path / "second.xml"), str(tmp_path / "third.xml")
    write_mjcf(back, second)
    write_mjcf(read_mjcf(second).scene, third)
    assert xml_differences(second, third) == []


# -------------------------------------------------------- URDF, USD and converted robots (checks 1, 2)
from articula.core.urdf import read_urdf  # noqa: E402
from articula.core.usd.reader import read_usd  # noqa: E402

from . import test_urdf_corpus as urdf_corpus  # noqa: E402
from .test_corpus import ROBOTS as CONVERTED, robot_file  # noqa: E402
from .test_usd_newton import COMPARED_ASSETS, _asset  # noqa: E402

#: Robots that do not compare in full, with the arrays left out (or "all") and the reason.
OTHER_SKIPS: dict[str, tuple[tuple, str]] = {
    **urdf_corpus.SKIPS,  # the same USD-side quirks (mass 0 read as unset, inertia derived from colliders)
    "tests/assets/pendulum_revolute_vs_d6.usda": (("all",), "a D6 keeping one axis is a hinge in MJCF: Newton's "
                                                  "add_mjcf makes it a revolute joint, add_usd a D6 of one DOF"),
    "tests/assets/kamino/testing/joints/test_joint_fixed_unary.usda": (
        ("all",), "a fixed joint to the world outside any articulation root: Newton's add_usd gives the body "
                  "a free joint, the MJCF export (as the description says) welds it to the world"),
    "pybullet/quadruped/spirit40newer.urdf": (("body_mass", "body_inertia"), urdf_corpus._MASS_ZERO),
    "tests/assets/actuator_test.usda": (
        ("all",), "a joint to the world outside any articulation root: Newton's add_usd gives the body a "
                  "free joint, the MJCF export (as the description says) welds it to the world"),
    "articula_arm_gripper": (("all",), "a body named tool/frame: Newton's labels cut MJCF names at '/' "
                                       "(leaf 'frame') while USD keeps the converter's prim name"),
}


def _other_checks(key, scene, tmp_path):
    if not scene.bodies:
        pytest.skip(f"{key}: no rigid bodies")
    skip, _ = OTHER_SKIPS.get(key, ((), ""))
    path, differences = export_checks(scene, tmp_path, skip)
    if skip == ("all",):
        assert differences != []
        return
    assert differences == [], "\n".join(differences)


@pytest.mark.parametrize("key", [k for k in urdf_corpus.CORPUS if k != "pybullet/torus_deform.urdf"])
def test_urdf_robot_exports_as_mjcf(key, tmp_path):
    _other_checks(key, read_urdf(urdf_corpus.corpus_file(key)).scene, tmp_path)


@pytest.mark.parametrize("rel", COMPARED_ASSETS)
def test_newton_usd_asset_exports_as_mjcf(rel, tmp_path):
    _other_checks(rel, read_usd(_asset(rel)).scene, tmp_path)


@pytest.mark.parametrize("key", CONVERTED)
def test_converted_robot_exports_as_mjcf(key, tmp_path):
    _other_checks(key, read_usd(robot_file(key)).scene, tmp_path)
