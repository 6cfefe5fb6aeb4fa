"""The Python examples of docs/scripting.md, run as a reader copies them (in one folder holding the files
they name): each finishes, so the page never shows a call that has changed. The Blender block is
left to the Blender tier, whose operators it lists."""

import os
import re
import shutil

import pytest

pytest.importorskip("mujoco")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE = os.path.join(ROOT, "docs", "scripting.md")
PYBULLET_DATA = os.environ.get("ARTICULA_PYBULLET_DATA", os.path.expanduser("~/.cache/articula/pybullet_data"))


def python_blocks() -> list[str]:
    with open(PAGE, encoding="utf-8") as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
    return [block for block in blocks if "import bpy" not in block]


def test_the_page_has_its_examples():
    blocks = python_blocks()
    assert len(blocks) >= 3
    assert any("Simulation(" in block for block in blocks) and any("read_urdf(" in block for block in blocks)


def test_every_python_example_runs_in_order(tmp_path, monkeypatch):
    kuka = os.path.join(PYBULLET_DATA, "kuka_iiwa")
    if not os.path.isdir(kuka):
        pytest.skip("pybullet's KUKA iiwa comes with `make urdf-corpus`")
    shutil.copytree(kuka, tmp_path / "kuka_iiwa")
    (tmp_path / "tests" / "data").mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "tests", "data", "mjcf_everything.xml"), tmp_path / "tests" / "data")
    monkeypatch.chdir(tmp_path)
    names: dict = {}  # one namespace: a later block uses what an earlier one imported, as on the page
    for block in python_blocks():
        exec(compile(block, PAGE, "exec"), names)  # noqa: S102 - the repository's own documentation
    assert (tmp_path / "iiwa.usda").is_file() and (tmp_path / "iiwa.xml").is_file()
    assert names["poses"] and names["sim"].replicas == 1
