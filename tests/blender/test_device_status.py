"""Starting Simulate or Bake says in the status bar which device the simulation runs on, and why
(``addon.kernel_wait.wait_for_kernels``, an info report; the rule: ``sim.device_choice``)."""

import sys
from pathlib import Path

import bpy
import pytest
import warp as wp

from articula.addon.kernel_wait import wait_for_kernels

sys.path.insert(0, str(Path(__file__).parent))
from authoring_helpers import reset_scene_settings  # noqa: E402


def started(solver: str) -> list[tuple[str, str]]:
    reports = []

    def report(kind, text):
        reports.append((next(iter(kind)), text))

    ok, _wait = wait_for_kernels(bpy.context, solver, report, "bake")
    assert ok
    return reports


@pytest.mark.skipif(wp.is_cuda_available(), reason="a GPU is present")
def test_the_start_names_the_device_and_why(clean_scene):
    reset_scene_settings(clean_scene)
    one_world = "Articula simulates on the CPU: MuJoCo's C library: 1 world, below the GPU crossover of 256"
    assert started("MUJOCO") == [("INFO", one_world)]
    clean_scene.articula.replicas = 300
    assert started("MUJOCO")[-1] == ("INFO", "Articula simulates on the CPU: no CUDA GPU")
    assert started("FEATHERSTONE")[-1] == ("INFO", "Articula simulates on the CPU: no CUDA GPU")
