"""USD's C++ UsdPhysics parse through Blender's own bundled pxr (Blender 5.x; Blender 4.5's USD has
none, and the reader then refuses ``parser="usd"`` by name): the same description as the Python
reader on the samples and on NVIDIA's conversions of the gymnasium and Newton robots."""

import glob
import os

import pytest

from articula.core import samples
from articula.core.usd import physics_parse
from articula.core.usd.reader import read_usd
from articula.core.usd.writer import write_usd

CORPUS = os.environ.get("ARTICULA_CORPUS", os.path.expanduser("~/.cache/articula/corpus"))

def _same(path):
    ours, python = read_usd(path, parser="usd"), read_usd(path, parser="python")
    assert ours.scene == python.scene
    assert ours.warnings == python.warnings
    assert ours.prim_paths == python.prim_paths

@pytest.mark.skipif(not physics_parse.available(), reason="this Blender's USD has no C++ UsdPhysics parse")
@pytest.mark.parametrize("name", sorted(samples.SAMPLES))
def test_samples_read_the_same_with_both_parsers_in_blender(articula_addon, tmp_path, name):
    for layout in ("NESTED", "FLAT"):
        path = str(tmp_path / f"{name}_{layout}.usda")
        write_usd(samples.SAMPLES[name](), path, layout=layout)
        _same(path)

@pytest.mark.skipif(not physics_parse.available(), reason="this Blender's USD has no C++ UsdPhysics parse")
def test_converted_robots_read_the_same_with_both_parsers_in_blender(articula_addon):
    files = sorted(glob.glob(os.path.join(CORPUS, "*", "*.usda")))
    if not files:
        pytest.skip("the converted corpus comes with `make corpus`")
    for path in files:
        _same(path)

@pytest.mark.skipif(physics_parse.available(), reason="this Blender's USD has the C++ UsdPhysics parse")
def test_without_the_parse_the_reader_names_the_python_parser(articula_addon, tmp_path):
    path = str(tmp_path / "pendulum.usda")
    write_usd(samples.pendulum(), path)
    with pytest.raises(RuntimeError, match="parser=.python."):
        read_usd(path, parser="usd")
    assert read_usd(path, parser="python").scene.bodies
