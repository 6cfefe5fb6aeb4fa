"""A solver's Warp kernels built on a worker thread (sim.kernel_build), so Blender stays responsive
while a first run compiles them.

The build is real (``warm_kernels``: the warm-up scene simulated on the solver); its "built" marker is
kept in a temporary folder, so each test starts from kernels not yet marked built, while Warp's own
cache makes the build itself take seconds rather than the first install's minutes.
"""

import os
import threading

import pytest
import warp as wp

from articula.core.model import Solver
from articula.sim import simulation
from articula.sim.kernel_build import KernelBuild, running
from articula.sim.simulation import kernels_cached, solver_to_run


@pytest.fixture
def unbuilt(tmp_path, monkeypatch):
    """Kernels not yet marked built: the markers go to ``tmp_path``."""
    monkeypatch.setattr(simulation, "_kernel_marker",
                        lambda solver, device: os.path.join(tmp_path, f"{solver.value}-{device}.built"))
    return tmp_path


def test_a_build_runs_on_a_worker_thread_and_marks_the_kernels_built(unbuilt):
    assert not kernels_cached(Solver.FEATHERSTONE, "cpu")
    build = KernelBuild.start("FEATHERSTONE", "cpu")
    assert build is not None and build._thread is not threading.current_thread()
    assert build.wait(timeout=600)
    assert kernels_cached(Solver.FEATHERSTONE, "cpu")
    assert KernelBuild.start("FEATHERSTONE", "cpu") is None  # built: nothing to wait for
    assert running() == 0
    assert "Featherstone" in build.describe() and "CPU" in build.describe()


def test_a_second_caller_waits_on_the_same_build(unbuilt):
    first = KernelBuild.start("FEATHERSTONE", "cpu")
    second = KernelBuild.start("FEATHERSTONE", "cpu")
    assert second is first or second is None  # the same build, or already done
    assert first.wait(timeout=600)


@pytest.mark.skipif(wp.is_cuda_available(), reason="a GPU is present")
def test_a_gpu_asked_for_where_there_is_none_is_a_clear_error(unbuilt):
    with pytest.raises(RuntimeError, match="no CUDA device"):
        KernelBuild.start("MUJOCO", "cuda")


def test_the_solver_to_run_is_the_one_asked_for_when_installed():
    assert solver_to_run("XPBD") == Solver.XPBD
    assert solver_to_run(Solver.MUJOCO) == Solver.MUJOCO  # mujoco and mujoco-warp are pinned here
