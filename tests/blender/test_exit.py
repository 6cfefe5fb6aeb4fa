"""A script that imports bpy and enables Articula exits cleanly, however it enabled it.

The bpy 4.5 module hangs at exit while an add-on's classes stay registered; Articula unregisters
itself at exit where nothing else will (a script calling register() itself), and leaves it to Blender
where Blender disables it (addon_utils, an installed extension): unregistering twice raises
"unregister_class(...): missing bl_rna attribute" at exit."""

import subprocess
import sys
from pathlib import Path

import bpy
import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
pytestmark = pytest.mark.skipif(not bpy.app.module, reason="needs the bpy module, not a Blender executable")


def run_probe(*args):
    try:
        done = subprocess.run([sys.executable, str(HERE / "_exit_probe.py"), *args],
                              capture_output=True, text=True, timeout=180)
    except subprocess.TimeoutExpired:
        pytest.fail("the script ended but its process never exited")
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"{args[0]}, exiting" in done.stdout
    for sign in ("atexit", "Traceback", "Error", "unregister_class"):
        assert sign not in done.stderr, done.stderr[-3000:]


@pytest.mark.parametrize("way", ["script-enabled", "script-disabled", "addon-utils"])
def test_a_script_exits_cleanly_after_enabling_articula(way):
    run_probe(way)


@pytest.fixture(scope="module")
def source_zip(tmp_path_factory):
    """The extension zip of this clone without its wheels (the venv already holds them)."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import extension
    finally:
        sys.path.remove(str(ROOT / "tools"))
    platform = extension.this_platform()
    stage_dir, out = tmp_path_factory.mktemp("stage"), tmp_path_factory.mktemp("zip")
    extension.stage(stage_dir, [platform], [])
    extension.run_cli(["build", "--source-dir", str(stage_dir), "--output-dir", str(out)])
    [zip_path] = out.glob("articula-*.zip")
    return zip_path


def test_a_script_exits_cleanly_after_installing_the_extension(source_zip):
    run_probe("extension-install", str(source_zip))
