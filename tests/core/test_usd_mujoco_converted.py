"""MuJoCo robots whole from NVIDIA's mujoco-usd-converter: the corpus robots (``make corpus``: gymnasium's
and Newton's) and MuJoCo Warp's test models with sites, weld and connect equalities, spatial tendons
(pulleys, wrapped geoms), site and ball-joint actuators and options, converted
(``.venv-converter``, cached under ~/.cache/articula/corpus_mujoco) and read by ``read_usd``, give the
sites, equalities, spatial tendons, frame actuators, options and contact parameters that
``core.mjcf.reader.read_mjcf`` gives for the original MJCF, and that MuJoCo compiles it to.

What the converter itself does not carry (0.8.0 warns: cameras, lights, keys, pairs, sensors; a
site-based weld's anchor; names of unnamed elements, which each tool makes up) is not compared.
"""

import math
import os
import subprocess
import warnings

import pytest

from articula.core.mjcf.reader import read_mjcf
from articula.core.model import EqualityKind, Pose
from articula.core.transforms import poses_close
from articula.core.usd.mujoco_model import rest_relative_pose
from articula.core.usd.reader import read_usd

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONVERTER = os.path.join(ROOT, ".venv-converter", "bin", "mujoco_usd_converter")
CACHE = os.environ.get("ARTICULA_MUJOCO_CORPUS", os.path.expanduser("~/.cache/articula/corpus_mujoco"))
MODELS = ["constraints.xml", "tendon/pulley_wrap.xml", "tendon/wrap.xml", "tendon/site.xml",
          "actuation/site.xml", "jdotv/weld_3d.xml", "jdotv/connect_3d.xml", "pendula.xml"]


def _test_data() -> str:
    mujoco_warp = pytest.importorskip("mujoco_warp")
    return os.path.join(os.path.dirname(mujoco_warp.__file__), "test_data")


def _converted(rel: str) -> tuple[str, str]:
    """(the MJCF, its conversion), converted once into the cache."""
    mjcf = os.path.join(_test_data(), rel)
    out = os.path.join(CACHE, os.path.splitext(rel)[0].replace("/", "_"))
    found = [f for f in os.listdir(out) if f.endswith(".usda")] if os.path.isdir(out) else []
    if not found:
        if not os.path.exists(CONVERTER):
            pytest.skip("mujoco-usd-converter's venv is made by `make corpus`")
        subprocess.run([CONVERTER, mjcf, out], check=True, capture_output=True, timeout=300)
        found = [f for f in os.listdir(out) if f.endswith(".usda")]
    return mjcf, os.path.join(out, found[0])


CORPUS = os.environ.get("ARTICULA_CORPUS", os.path.expanduser("~/.cache/articula/corpus"))
#: ``make corpus``'s robots (tools/convert_corpus.py): key -> the MJCF file's name in its package.
CORPUS_ROBOTS = {f"gym_{n}": ("gymnasium", n) for n in (
    "ant", "half_cheetah", "hopper", "humanoid", "humanoidstandup", "inverted_double_pendulum",
    "inverted_pendulum", "pusher", "reacher", "swimmer", "walker2d")}
CORPUS_ROBOTS.update({"newton_nv_ant": ("newton", "nv_ant"), "newton_nv_humanoid": ("newton", "nv_humanoid")})


def _corpus(key: str) -> tuple[str, str]:
    """(the MJCF, its conversion by ``make corpus``)."""
    import glob
    package, name = CORPUS_ROBOTS[key]
    folders = {"gymnasium": ".venv-converter/lib/python3.*/site-packages/gymnasium/envs/mujoco/assets",
               "newton": ".venv/lib/python3.*/site-packages/newton/examples/assets"}
    mjcf = glob.glob(os.path.join(ROOT, folders[package], name + ".xml"))
    usd = glob.glob(os.path.join(CORPUS, key, "*.usda"))
    if not mjcf or not usd:
        pytest.skip(f"{key} not converted: run `make corpus`")
    return mjcf[0], usd[0]


@pytest.fixture(scope="module", params=MODELS + sorted(CORPUS_ROBOTS))
def pair(request):
    mjcf, usd = _corpus(request.param) if request.param in CORPUS_ROBOTS else _converted(request.param)
    return request.param, read_mjcf(mjcf).scene, read_usd(usd).scene


def _body_names(mjcf_scene, usd_scene) -> dict:
    """MJCF body name -> the converted file's (bodies in the same depth-first order; an unnamed body
    is named by each tool its own way)."""
    assert len(mjcf_scene.bodies) == len(usd_scene.bodies)
    names = {a.name: b.name for a, b in zip(mjcf_scene.bodies, usd_scene.bodies)}
    for a in mjcf_scene.bodies:
        assert poses_close(a.pose, usd_scene.body(names[a.name]).pose, 1e-4, 1e-6), a.name  # float32 in USD
    return {**names, None: None}


def test_sites_are_mujocos(pair):
    rel, mjcf, usd = pair
    bodies = _body_names(mjcf, usd)
    assert [s.name for s in usd.sites] == [s.name for s in mjcf.sites if s.kind.value != "ELLIPSOID"]
    for site in usd.sites:
        expected = mjcf.site(site.name)
        assert (site.body, site.kind, site.group) == (bodies[expected.body], expected.kind, expected.group)
        assert poses_close(site.pose, expected.pose, 1e-5, 1e-6), site.name
        used = _SIZE_USED[site.kind.value]  # USD has no place for the numbers MuJoCo does not use
        assert site.size[:used] == pytest.approx(expected.size[:used], rel=1e-5), site.name
        assert site.color == pytest.approx(expected.color, abs=1e-6), site.name


#: How many of a site's three sizes its kind uses.
_SIZE_USED = {"SPHERE": 1, "CAPSULE": 2, "CYLINDER": 2, "BOX": 3, "ELLIPSOID": 3}


def test_options_and_contact_parameters_are_mujocos(pair):
    rel, mjcf, usd = pair
    for field in ("integrator", "cone", "impratio", "solver", "ls_iterations", "tolerance", "jacobian",
                  "disabled", "enabled", "override_solref", "wind", "magnetic"):
        expected = getattr(mjcf.settings.mujoco, field)
        assert getattr(usd.settings.mujoco, field) == pytest.approx(expected), field
    bodies = _body_names(mjcf, usd)
    compared = 0
    for expected in mjcf.shapes:  # by body and place: an unnamed geom is named by each tool its own way
        shape = next((s for s in usd.shapes if s.body == bodies[expected.body] and s.kind == expected.kind
                      and math.dist(s.pose.pos, expected.pose.pos) < 1e-5), None)
        if shape is None:
            assert expected.contact is None, f"{expected.name} with contact parameters is not read"
            continue  # a geom the converter writes as no collider (contype and conaffinity 0)
        compared += 1
        assert (shape.contact or _defaults()) == (expected.contact or _defaults()), shape.name
        assert shape.contact_margin == pytest.approx(expected.contact_margin) and \
            shape.contact_gap == pytest.approx(expected.contact_gap), shape.name
    assert compared == len(usd.shapes)


def _defaults():
    from articula.core.model import ContactParams
    return ContactParams()


def _effective_relative_pose(scene, equality) -> Pose:
    return equality.relative_pose or rest_relative_pose(scene, equality)


def test_weld_and_connect_equalities_are_mujocos(pair):
    rel, mjcf, usd = pair
    bodies = _body_names(mjcf, usd)
    assert len(usd.equalities) == len(mjcf.equalities)
    for ours, expected in zip(usd.equalities, mjcf.equalities):
        what = expected.name
        assert ours.kind == expected.kind and ours.active == expected.active, what
        assert (ours.body0, ours.body1) == (bodies[expected.body0], bodies[expected.body1]), what
        assert (ours.site0, ours.site1) == (expected.site0, expected.site1), what
        assert ours.solref == pytest.approx(expected.solref), what
        assert ours.solimp == pytest.approx(expected.solimp), what
        if expected.site0 is not None:
            continue  # the converter snaps sites together: a site weld's anchor is not written
        assert ours.anchor == pytest.approx(expected.anchor, abs=1e-5), what
        if expected.kind == EqualityKind.WELD:
            assert ours.torque_scale == pytest.approx(expected.torque_scale), what
            assert poses_close(_effective_relative_pose(usd, ours), _effective_relative_pose(mjcf, expected),
                               1e-5, 1e-6), what


def test_spatial_tendons_and_frame_actuators_are_mujocos(pair):
    rel, mjcf, usd = pair
    assert len(usd.spatial_tendons) == len(mjcf.spatial_tendons)
    for ours, expected in zip(usd.spatial_tendons, mjcf.spatial_tendons):
        assert [(w.kind, w.target, w.side_site) for w in ours.path] == \
            [(w.kind, w.target, w.side_site) for w in expected.path], expected.name
        assert [w.divisor for w in ours.path] == pytest.approx([w.divisor for w in expected.path])
        for field in ("lower", "upper", "stiffness", "damping", "width"):
            assert getattr(ours, field) == pytest.approx(getattr(expected, field)), (expected.name, field)
    tendons = {e.name: o.name for o, e in zip(usd.spatial_tendons, mjcf.spatial_tendons)}
    expected_rows = [(a.target_kind, tendons.get(a.target, a.target) if a.target_kind == "tendon"
                      else a.target, a.reference_site, _gear(a)) for a in mjcf.frame_actuators
                     if a.target_kind != "jointinparent"]  # the converter 0.8.0 writes no jointinparent
    rows = [(a.target_kind, a.target, a.reference_site, _gear(a)) for a in usd.frame_actuators]
    assert rows == expected_rows


def _gear(actuator) -> tuple:
    """The 6-vector gear a site or tendon transmission has (``gear`` alone: the rest zero)."""
    vector = tuple(actuator.gear_vector) or (actuator.gear,)
    return tuple(round(g, 9) for g in vector + (0.0,) * (6 - len(vector)))


def test_converted_items_come_back_from_our_own_export(pair, tmp_path):
    """The converted file's items, written by Articula and read again, are the same."""
    from articula.core.usd.compare import scene_differences
    from articula.core.usd.writer import build_stage
    rel, _, usd = pair
    for layout in ("NESTED", "FLAT"):
        assert scene_differences(usd, read_usd(build_stage(usd, layout)).scene) == [], layout


def test_mujoco_compiles_the_sites_read(pair):
    """Independent of both readers: MuJoCo's compiled site sizes and groups, by name."""
    mujoco = pytest.importorskip("mujoco")
    rel, _, usd = pair
    mjcf = _corpus(rel)[0] if rel in CORPUS_ROBOTS else os.path.join(_test_data(), rel)
    spec = mujoco.MjSpec.from_file(mjcf)
    for sensor in list(spec.sensors):  # nv_humanoid's name a body it has not: MuJoCo 3.17 refuses them
        spec.delete(sensor)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the half cheetah's deprecated settotalmass
        model = spec.compile()
    for site in usd.sites:
        index = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, site.name)
        assert index >= 0, site.name
        assert site.size[0] == pytest.approx(float(model.site_size[index][0]), rel=1e-5)
        assert site.group == int(model.site_group[index])
        assert math.dist(site.pose.pos, model.site_pos[index]) < 1e-5
