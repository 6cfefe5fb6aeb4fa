"""USD's own C++ UsdPhysics parse (``read_usd(parser="usd")``) and the Python reader
(``parser="python"``, the only one Blender 4.5's USD allows) give the same description of every
corpus file: Newton's shipped USD assets, NVIDIA's conversions of gymnasium's and Newton's MJCF
robots, and the core writer's exports of the samples (nested and flat). Same warnings, same prim
paths; a file one refuses, the other refuses with the same error."""

import glob
import os

import pytest

from articula.core import samples
from articula.core.usd import physics_parse
from articula.core.usd.compare import scene_differences
from articula.core.usd.errors import UsdReadError
from articula.core.usd.reader import read_usd
from articula.core.usd.writer import write_usd

pytestmark = pytest.mark.skipif(not physics_parse.available(), reason="this USD has no C++ UsdPhysics parse")

CORPUS = os.environ.get("ARTICULA_CORPUS", os.path.expanduser("~/.cache/articula/corpus"))


def _newton_files() -> list[str]:
    try:
        import newton
    except ImportError:
        return []
    root = os.path.dirname(newton.__file__)
    return sorted(f for ext in ("usd", "usda", "usdc") for f in glob.glob(f"{root}/**/*.{ext}", recursive=True))


NEWTON_FILES = _newton_files()
CONVERTED_FILES = sorted(glob.glob(os.path.join(CORPUS, "*", "*.usda")))


def _read(path, parser):
    try:
        return read_usd(path, parser=parser)
    except UsdReadError as error:
        return error


def assert_same_reading(path) -> None:
    ours, python = _read(path, "usd"), _read(path, "python")
    if isinstance(python, UsdReadError) or isinstance(ours, UsdReadError):
        assert str(ours) == str(python)
        return
    differences = scene_differences(ours.scene, python.scene, tol=1e-9)
    assert not differences, differences[:5]
    assert ours.scene == python.scene  # every field, not only those compare.py looks at
    assert ours.warnings == python.warnings
    assert ours.prim_paths == python.prim_paths
    assert ours.articulation_wrappers == python.articulation_wrappers


def _rel(path: str) -> str:
    return path.split("/newton/", 1)[-1]


@pytest.mark.skipif(not NEWTON_FILES, reason="Newton is not installed")
@pytest.mark.parametrize("path", NEWTON_FILES, ids=_rel)
def test_newton_asset_reads_the_same_on_both_parsers(path):
    assert_same_reading(path)


@pytest.mark.skipif(not CONVERTED_FILES, reason="the converted corpus comes with `make corpus`")
@pytest.mark.parametrize("path", CONVERTED_FILES, ids=lambda p: os.path.basename(os.path.dirname(p)))
def test_converted_robot_reads_the_same_on_both_parsers(path):
    assert_same_reading(path)


@pytest.mark.parametrize("layout", ["NESTED", "FLAT"])
@pytest.mark.parametrize("name", sorted(samples.SAMPLES))
def test_sample_export_reads_the_same_on_both_parsers(name, layout, tmp_path):
    path = str(tmp_path / f"{name}.usda")
    write_usd(samples.SAMPLES[name](), path, layout=layout)
    assert_same_reading(path)


def test_long_chain_export_reads_the_same_on_both_parsers(tmp_path):
    path = str(tmp_path / "chain.usdc")
    write_usd(samples.hanging_chain(links=60), path)
    assert_same_reading(path)


def test_parse_finds_the_bodies_and_joints(tmp_path):
    path = str(tmp_path / "arm.usda")
    scene = samples.six_dof_arm()
    write_usd(scene, path)
    from pxr import Usd

    parsed = physics_parse.parse_physics(Usd.Stage.Open(path))
    assert len(parsed.bodies) == len(scene.bodies)
    assert len(parsed.joints) == len(scene.joints)
    assert not parsed.diagnostics


def test_unknown_parser_is_refused(tmp_path):
    path = str(tmp_path / "p.usda")
    write_usd(samples.pendulum(), path)
    with pytest.raises(ValueError, match="parser must be one of"):
        read_usd(path, parser="cpp")


_BROKEN_CASES = ["test_missing_body_target", "test_joint_without_any_body", "test_joint_cycle",
                 "test_wrong_attribute_type", "test_wrong_relationship_type_on_a_count", "test_nan_value",
                 "test_nan_in_a_joint_frame", "test_truncated_text_file"]


@pytest.mark.parametrize("case", _BROKEN_CASES)
def test_broken_input_gets_the_same_error_on_the_parse_path(case, tmp_path, monkeypatch):
    """tests/core/test_usd_broken.py's cases, read with parser="usd": the same errors."""
    import functools

    from . import test_usd_broken as broken

    monkeypatch.setattr(broken, "read_usd", functools.partial(read_usd, parser="usd"))
    test = getattr(broken, case)
    arguments = {"tmp_path": tmp_path}
    if "finger_text" in test.__code__.co_varnames[:test.__code__.co_argcount]:
        arguments["finger_text"] = broken.finger_text.__wrapped__()
    test(**arguments)
