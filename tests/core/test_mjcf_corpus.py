"""Every MJCF robot of the corpus imports, and its NESTED export is the robot Newton builds itself.

Corpus: gymnasium's ``envs/mujoco/assets`` (installed --no-deps into ``.venv-converter`` by
``make corpus``, which ``make test`` depends on) and Newton's ``examples/assets`` (in ``.venv``).
For each file: core.mjcf.read_mjcf -> core.usd.writer.write_usd NESTED -> Newton 1.8's ``add_usd``
has the same bodies, body poses, joint types, anchors, DOF axes, limits, armature, friction, gains,
effort limits, springs, masses and inertias as Newton's own ``add_mjcf`` of the original file
(tests/core/robot_models.py compares them by meaning). Exceptions, each with its reason, are below.
"""

import glob
import os
import warnings

import numpy as np
import pytest

newton = pytest.importorskip("newton")
pytest.importorskip("newton_usd_schemas")
pytest.importorskip("scipy")
pytest.importorskip("mujoco")

from articula.core.mjcf import read_mjcf  # noqa: E402
from articula.core.usd.writer import write_usd  # noqa: E402
from articula.core.validation import ERROR, validate  # noqa: E402

from .robot_models import load_usd, model_differences  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def _folder(pattern: str) -> str | None:
    found = sorted(glob.glob(os.path.join(ROOT, pattern)))
    return found[0] if found else None


GYM = _folder(".venv-converter/lib/python3.*/site-packages/gymnasium/envs/mujoco/assets")
NEWTON_ASSETS = os.path.join(os.path.dirname(newton.__file__), "examples", "assets")
GYM_FILES = ["ant", "half_cheetah", "hopper", "humanoid", "humanoidstandup", "inverted_double_pendulum",
             "inverted_pendulum", "point", "pusher", "pusher_v5", "reacher", "swimmer", "walker2d", "walker2d_v5"]
NEWTON_FILES = ["nv_ant", "nv_humanoid", "tabletop"]
CORPUS = [f"gym/{n}" for n in GYM_FILES] + [f"newton/{n}" for n in NEWTON_FILES]

#: Newton's add_mjcf ignores these values, which MuJoCo (and so Articula) applies: not compared.
NEWTON_SKIPS = {
    "gym/half_cheetah": (("body_mass", "body_inertia"),
                         "compiler settotalmass=14: MuJoCo scales every mass and inertia so the robot weighs "
                         "14 kg (Articula keeps MuJoCo's numbers); Newton 1.8's add_mjcf ignores it (9.5 kg)"),
}
#: Newton 1.8's add_mjcf cannot read these files; its reference is built from a copy without the attribute.
NEWTON_UNREADABLE = {
    "gym/humanoid": ('solver="PGS"', "Newton 1.8 parses <option solver> as cg/newton only (int('pgs') fails)"),
    "gym/humanoidstandup": ('solver="PGS"', "same as gym/humanoid"),
}


def corpus_file(key: str) -> str:
    source, name = key.split("/")
    folder = GYM if source == "gym" else NEWTON_ASSETS
    if folder is None:
        pytest.skip("gymnasium's MJCF files come with `make corpus` (.venv-converter)")
    path = os.path.join(folder, name + ".xml")
    if not os.path.exists(path):
        pytest.skip(f"{path} not found")
    return path


def test_corpus_lists_every_mjcf_file():
    """A new file in either folder is noticed (it must be added to the corpus)."""
    found = {os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(NEWTON_ASSETS, "*.xml"))}
    assert found == set(NEWTON_FILES)
    if GYM is not None:
        found = {os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(GYM, "*.xml"))}
        assert found == set(GYM_FILES)


def newton_reference(key: str, path: str, tmp_path, mujoco: bool = False):
    """Newton's own add_mjcf model of the file; ``mujoco``: with SolverMuJoCo's custom attributes
    registered first, so that the model holds MuJoCo's actuators, tendons and equalities."""
    if key in NEWTON_UNREADABLE:
        attribute, _ = NEWTON_UNREADABLE[key]
        with open(path) as f:
            text = f.read()
        assert attribute in text
        path = str(tmp_path / os.path.basename(path))
        with open(path, "w") as f:
            f.write(text.replace(attribute, ""))
    builder = newton.ModelBuilder()
    if mujoco:
        newton.solvers.SolverMuJoCo.register_custom_attributes(builder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder.add_mjcf(path)
        return builder.finalize(device="cpu")


@pytest.mark.parametrize("key", CORPUS)
def test_mjcf_robot_exports_to_newtons_own_model(key, tmp_path):
    path = corpus_file(key)
    read = read_mjcf(path)
    assert read.scene.bodies
    assert [str(p) for p in validate(read.scene) if p.severity == ERROR] == []
    assert sum("not carried over" in w for w in read.warnings) <= 1  # one list, not one line each
    out = str(tmp_path / "robot.usda")
    write_usd(read.scene, out, layout="NESTED")
    skip, _ = NEWTON_SKIPS.get(key, ((), ""))
    differences = model_differences(newton_reference(key, path, tmp_path), load_usd(out), skip=skip)
    assert differences == [], "\n".join(differences)


def test_half_cheetah_keeps_mujocos_total_mass():
    """The one documented mass exception: MuJoCo's settotalmass is applied (14 kg), as MuJoCo does."""
    import mujoco

    path = corpus_file("gym/half_cheetah")
    read = read_mjcf(path)
    assert not os.path.exists("MUJOCO_LOG.TXT")  # MuJoCo's warning is ours, not a file in the working folder
    total = sum(b.mass.mass for b in read.scene.bodies)
    assert total == pytest.approx(14.0, rel=1e-6)
    assert total == pytest.approx(float(np.sum(mujoco.MjModel.from_xml_path(path).body_mass)), rel=1e-9)
    assert any("settotalmass" in w for w in read.warnings)


def test_the_comparison_can_fail(tmp_path):
    """A changed limit, mass or axis is found."""
    path = corpus_file("newton/nv_ant")
    read = read_mjcf(path)
    joint = next(j for j in read.scene.joints if j.dofs and j.dofs[0].motion.value == "LIMITED")
    joint.dofs[0].upper += 0.1
    read.scene.bodies[1].mass.mass *= 2.0
    out = str(tmp_path / "robot.usda")
    write_usd(read.scene, out, layout="NESTED")
    differences = model_differences(newton_reference("newton/nv_ant", path, tmp_path), load_usd(out))
    assert any("joint_limit_upper" in d for d in differences)
    assert any("body_mass" in d for d in differences)
