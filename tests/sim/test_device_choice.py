"""Auto's device by the replica crossover, with its reason in words (``sim.device_choice``). The rule is
a plain function of whether a GPU is there, so both cases run here without one."""

import pytest

from articula.sim.device_choice import NEWTON_CUDA_CROSSOVER_REPLICAS, choose_device
from articula.sim.simulation import resolve_device

MUJOCO_CROSSOVER = 256


def choose(asked="auto", solver="FEATHERSTONE", replicas=1, cuda=True):
    return choose_device(asked, solver, replicas, cuda, MUJOCO_CROSSOVER)


@pytest.mark.parametrize("solver", ["FEATHERSTONE", "XPBD"])
def test_one_robot_stays_on_the_cpu_and_many_replicas_take_the_gpu(solver):
    one = choose(solver=solver, replicas=1)
    assert one.device == "cpu" and f"below the GPU crossover of {NEWTON_CUDA_CROSSOVER_REPLICAS}" in one.reason
    many = choose(solver=solver, replicas=NEWTON_CUDA_CROSSOVER_REPLICAS)
    assert many.device == "cuda:0" and f"{NEWTON_CUDA_CROSSOVER_REPLICAS} replicas" in many.reason
    assert choose(solver=solver, replicas=NEWTON_CUDA_CROSSOVER_REPLICAS - 1).device == "cpu"


def test_mujoco_keeps_its_own_crossover():
    assert choose(solver="MUJOCO", replicas=NEWTON_CUDA_CROSSOVER_REPLICAS).device == "cpu"
    assert "MuJoCo's C library" in choose(solver="MUJOCO").reason
    assert choose(solver="MUJOCO", replicas=MUJOCO_CROSSOVER).device == "cuda:0"


def test_without_the_replica_count_a_gpu_is_taken_where_there_is_one():
    assert choose(replicas=None) == choose(replicas=None, solver=None)
    assert choose(replicas=None).device == "cuda:0"


def test_no_gpu_means_the_cpu_and_a_forced_device_is_kept():
    assert choose(replicas=1000, cuda=False).reason == "no CUDA GPU"
    assert choose("cpu", replicas=1000).device == "cpu"
    assert choose("cuda", replicas=1).device == "cuda"
    with pytest.raises(RuntimeError, match="no CUDA device"):
        choose("cuda", cuda=False)
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        choose("tpu")


def test_resolve_device_on_this_machine_follows_the_rule():
    for solver in ("MUJOCO", "FEATHERSTONE", "XPBD", None):
        assert resolve_device("auto", solver, 1) == "cpu"  # one world: the CPU, GPU or not
    assert resolve_device("cpu") == "cpu"
