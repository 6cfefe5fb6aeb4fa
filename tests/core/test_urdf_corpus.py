"""Every URDF robot of the corpus imports, and its NESTED export is the robot Newton builds itself.

Corpus: every ``.urdf`` of pybullet 3.2.7's ``pybullet_data`` (``make urdf-corpus``, which ``make test``
depends on, extracts it into ~/.cache/articula/pybullet_data; ``ARTICULA_PYBULLET_DATA`` overrides)
but its 1,000 generated ``random_urdfs``, and Newton's ``examples/assets`` URDFs. For each file:
core.urdf.read_urdf -> core.usd.writer.write_usd NESTED -> Newton 1.8's ``add_usd`` has the same
bodies, body poses, joint types, anchors, DOF axes, limits, armature, friction, gains, springs,
masses and inertias as Newton's own ``add_urdf`` of the original (tests/core/robot_models.py).
Exceptions, each with its written reason, are below.
"""

import glob
import os
import warnings

import pytest

newton = pytest.importorskip("newton")
pytest.importorskip("newton_usd_schemas")
pytest.importorskip("scipy")
pytest.importorskip("mujoco")

from articula.core.urdf import UrdfReadError, read_urdf  # noqa: E402
from articula.core.usd.writer import write_usd  # noqa: E402
from articula.core.validation import ERROR, validate  # noqa: E402

from .robot_models import load_usd, model_differences  # noqa: E402

PYBULLET_DATA = os.environ.get("ARTICULA_PYBULLET_DATA", os.path.expanduser("~/.cache/articula/pybullet_data"))
NEWTON_ASSETS = os.path.join(os.path.dirname(newton.__file__), "examples", "assets")


def _corpus() -> list[str]:
    found = sorted(os.path.relpath(p, PYBULLET_DATA) for p in glob.glob(
        os.path.join(PYBULLET_DATA, "**", "*.urdf"), recursive=True) if "random_urdfs" not in p)
    return [f"pybullet/{p}" for p in found] + ["newton/cartpole.urdf", "newton/quadruped.urdf"]


CORPUS = _corpus()

#: Files MuJoCo's URDF compiler refuses, with why: each must fail with a message naming the file and
#: the element (and line), leaving nothing half-read.
REFUSED = {
    "pybullet/bicycle/bike.urdf": "xyz=\"0.07, 0, -0.69\": commas in a vector (line 103)",
    "pybullet/husky/husky.urdf": "unexpanded xacro: rpy=\"$(optenv HUSKY_IMU_RPY ...)\" (line 97)",
    "pybullet/biped/biped2d_pybullet.urdf": "a <limit lower> that is no number (line 111)",
    "pybullet/humanoid/humanoid.urdf": "not well-formed XML (line 288)",
    "pybullet/quadruped/microtaur/microtaur.urdf": "an rpy with more than three numbers (line 270)",
    "pybullet/quadruped/spirit40newer.urdf": "a joint with two <axis> elements (line 546)",
    "pybullet/racecar/racecar_differential.urdf": "a mesh scale with more than three numbers (line 11)",
    "pybullet/plane_implicit.urdf": "<plane> geometry (a pybullet extension; no URDF geometry type)",
    "pybullet/toys/concave_box.urdf": "<plane> geometry (a pybullet extension; no URDF geometry type)",
    "pybullet/spherical_joint_limit.urdf": "a pybullet 'spherical' joint with a lower limit (no URDF type)",
    "pybullet/cube_no_rotation.urdf": "an inertia that is not positive definite on a moving link",
    "pybullet/table_square/table_square.urdf": "an OBJ whose faces name texture coordinates it lacks",
}
#: Newton 1.8's add_urdf cannot load these; the import alone is checked.
NEWTON_UNREADABLE = {
    "pybullet/differential/diff_ring.urdf": "blank line before <?xml: Newton's XML parser refuses it",
    "pybullet/torus_deform.urdf": "a pybullet <deformable> (no links for Newton)",
}
_MASS_ZERO = ("a link with mass 0 (pybullet's static links): UsdPhysics reads mass 0 as 'not set' and "
              "derives it from the colliders; Newton's add_urdf keeps 0")
_INERTIA_ZERO = ("links with a mass and an all-zero inertia: UsdPhysics derives the inertia from the colliders; "
                 "Newton's add_urdf puts 1e-6 kg m^2 on the diagonal")
#: Values that differ for a written reason: (compared arrays left out, reason).
SKIPS = {key: (("body_mass", "body_inertia"), _MASS_ZERO) for key in (
    "pybullet/kuka_iiwa/model.urdf", "pybullet/kuka_iiwa/model_vr_limits.urdf", "pybullet/plane.urdf",
    "pybullet/plane100.urdf", "pybullet/plane_transparent.urdf", "pybullet/samurai.urdf",
    "pybullet/table/table.urdf", "pybullet/tray/tray.urdf", "pybullet/tray/tray_textured2.urdf",
    "pybullet/tray/traybox.urdf")}
SKIPS.update({key: (("body_inertia",), _INERTIA_ZERO) for key in (
    "pybullet/laikago/laikago.urdf", "pybullet/laikago/laikago_toes.urdf",
    "pybullet/laikago/laikago_toes_limits.urdf")})
#: Effort limits without a drive are written as MuJoCo's joint force range (mjc:actuatorfrcrange),
#: which Newton's add_usd reads as the joint's effort limit: compared everywhere.
ALWAYS_SKIPPED = ()


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def corpus_file(key: str) -> str:
    source, rel = key.split("/", 1)
    path = os.path.join(PYBULLET_DATA if source == "pybullet" else NEWTON_ASSETS, rel)
    if not os.path.exists(path):
        pytest.skip(f"{path} not found: run `make urdf-corpus`")
    return path


def test_the_corpus_is_there_and_its_exceptions_exist():
    if not os.path.isdir(PYBULLET_DATA):
        pytest.skip("pybullet_data not extracted: run `make urdf-corpus`")
    assert len(CORPUS) > 90
    for key in (*REFUSED, *NEWTON_UNREADABLE, *SKIPS):
        assert key in CORPUS, key
    for robot in ("franka_panda/panda.urdf", "kuka_iiwa/model.urdf", "laikago/laikago.urdf", "r2d2.urdf"):
        assert f"pybullet/{robot}" in CORPUS


def newton_reference(path: str):
    builder = newton.ModelBuilder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder.add_urdf(path)
        return builder.finalize(device="cpu")


@pytest.mark.parametrize("key", CORPUS)
def test_urdf_robot_exports_to_newtons_own_model(key, tmp_path):
    path = corpus_file(key)
    if key in REFUSED:
        with pytest.raises(UrdfReadError) as error:
            read_urdf(path)
        assert path in str(error.value)
        return
    read = read_urdf(path)
    if key == "pybullet/torus_deform.urdf":  # a deformable, no links: named, nothing else
        assert not read.scene.bodies and any("1 deformables" in w for w in read.warnings)
        return
    assert read.scene.bodies
    assert [str(p) for p in validate(read.scene) if p.severity == ERROR] == []
    assert sum("not carried over" in w for w in read.warnings) <= 1
    out = str(tmp_path / "robot.usda")
    write_usd(read.scene, out, layout="NESTED")
    ours = load_usd(out)
    if key in NEWTON_UNREADABLE:
        assert ours.body_count == len(read.scene.bodies)
        return
    skip, _ = SKIPS.get(key, ((), ""))
    differences = model_differences(newton_reference(path), ours, skip=skip + ALWAYS_SKIPPED,
                                    world_links=("world",))
    assert differences == [], "\n".join(differences)
