"""MuJoCo on the CPU in Blender loads neither Newton nor Warp (their import takes seconds and Warp would
build a kernel on a first run): enabling the extension, a bake, and a live Simulate with a grab and a
push, in a process of their own."""

import json
import subprocess
import sys
from pathlib import Path

PROBE = Path(__file__).with_name("_mujoco_only_probe.py")


def test_bake_and_live_simulate_on_mujoco_load_neither_newton_nor_warp(tmp_path):
    done = subprocess.run([sys.executable, str(PROBE)], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["bake_result"] == ["FINISHED"] and seen["baked"]
    assert seen["grabbing"] and seen["pulled"] and seen["stopped"] == "CANCELLED"
    for step in ("register", "bake", "simulate"):
        assert seen[step] == [False, False], f"after {step}: newton, warp loaded = {seen[step]}"
