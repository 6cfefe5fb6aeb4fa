"""A script that imports bpy and enables Articula exits, whether or not it disables it again.

The bpy 4.5 module hangs at exit while an add-on's classes stay registered; Articula unregisters
itself at exit where nothing else did (Blender itself disables add-ons before its Python ends), and
a disabled Articula leaves no exit handler behind (it would unregister twice)."""

import subprocess
import sys
from pathlib import Path

import bpy
import pytest

HERE = Path(__file__).resolve().parent
pytestmark = pytest.mark.skipif(not bpy.app.module, reason="needs the bpy module, not a Blender executable")


@pytest.mark.parametrize("last_state", ["enabled", "disabled"])
def test_a_script_exits_after_enabling_articula(last_state):
    try:
        probe = [sys.executable, str(HERE / "_exit_probe.py"), str(HERE.parents[1]), last_state]
        done = subprocess.run(probe, capture_output=True, text=True, timeout=180)
    except subprocess.TimeoutExpired:
        pytest.fail("the script ended but its process never exited")
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"{last_state}, exiting" in done.stdout
    assert "atexit" not in done.stderr and "Traceback" not in done.stderr, done.stderr[-3000:]
