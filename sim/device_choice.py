"""Which device "Auto" simulates on, and why, in words for the status bar (bpy-free, no Warp call: the
caller says whether a CUDA GPU is there).

One robot in one world steps faster on the CPU: MuJoCo's C library takes microseconds a step, and a GPU
pays a kernel launch per kernel per step (besides compiling its kernels on first use, minutes without
prebuilt ones). Many replicas step faster on a GPU, all worlds in each launch. Auto takes the GPU from a
crossover number of replicas on; "cpu" and "cuda" force the device.
"""

from __future__ import annotations

from typing import NamedTuple, Optional

from ..core.model import Solver

#: Featherstone and XPBD: from this many replicas Auto takes a CUDA GPU, below it the CPU. An estimate,
#: not yet measured on a GPU: `bench/bench_device_crossover.py` prints the measured one when a GPU is lent.
NEWTON_CUDA_CROSSOVER_REPLICAS = 8

#: Replicas from which the automatic device puts MuJoCo on CUDA (MuJoCo Warp) when there is a GPU;
#: below it MuJoCo's C library steps every replica on the CPU. Not yet measured on a GPU: a guess
#: from MuJoCo Warp's published throughput against the C library's microseconds per robot step.
MUJOCO_CUDA_CROSSOVER_REPLICAS = 256


class DeviceChoice(NamedTuple):  # not a frozen dataclass: generating one costs a millisecond at a first Bake
    device: str  # "cpu" or "cuda:0" (or the CUDA device asked for)
    reason: str  # why, in words: "1 world, below the GPU crossover of 8 replicas"


def choose_device(asked: str, solver: Solver | str | None, replicas: Optional[int], cuda_available: bool,
                  mujoco_crossover: int) -> DeviceChoice:
    """The device for ``asked`` ("auto", "cpu", "cuda[:n]"). ``replicas`` None (not known to the caller):
    Featherstone and XPBD take a GPU wherever there is one, as before the crossover existed."""
    asked = (asked or "auto").lower()
    if asked == "cpu":
        return DeviceChoice("cpu", "CPU chosen in the preferences")
    if asked.startswith("cuda"):
        if not cuda_available:
            raise RuntimeError("no CUDA device: choose 'cpu' or 'auto'")
        return DeviceChoice(asked, "CUDA chosen in the preferences")
    if asked != "auto":
        raise ValueError(f"unknown device {asked!r}: 'auto', 'cpu' or 'cuda'")
    worlds = max(1, int(replicas or 1))
    count = f"{worlds} {'world' if worlds == 1 else 'replicas'}"
    if solver is not None and Solver(solver) == Solver.MUJOCO and worlds < mujoco_crossover:
        return DeviceChoice("cpu", f"MuJoCo's C library: {count}, below the GPU crossover of "
                                   f"{mujoco_crossover}")
    if not cuda_available:
        return DeviceChoice("cpu", "no CUDA GPU")
    if replicas is not None and worlds < NEWTON_CUDA_CROSSOVER_REPLICAS:
        return DeviceChoice("cpu", f"{count}, below the GPU crossover of {NEWTON_CUDA_CROSSOVER_REPLICAS}")
    if replicas is None:
        return DeviceChoice("cuda:0", "a CUDA GPU is present")
    crossover = mujoco_crossover if solver is not None and Solver(solver) == Solver.MUJOCO \
        else NEWTON_CUDA_CROSSOVER_REPLICAS
    return DeviceChoice("cuda:0", f"{count}, at or above the GPU crossover of {crossover}")


def device_for(asked: str = "auto", solver: Solver | str | None = None,
               replicas: Optional[int] = None) -> DeviceChoice:
    """:func:`choose_device` on this machine. MuJoCo below its crossover never starts Warp."""
    choice = choose_device(asked, solver, replicas, False, MUJOCO_CUDA_CROSSOVER_REPLICAS)
    if choice.reason.startswith("MuJoCo's C library"):
        return choice
    import warp as wp

    from .shipped_kernels import init_warp

    init_warp()
    return choose_device(asked, solver, replicas, wp.is_cuda_available(), MUJOCO_CUDA_CROSSOVER_REPLICAS)


def resolve_device(device: str = "auto", solver: Solver | str | None = None,
                   replicas: Optional[int] = None) -> str:
    """"auto": by :func:`sim.device_choice.choose_device`; "cpu"; "cuda" (raises without a CUDA device).

    MuJoCo on "auto" stays on the CPU, its C library stepping a robot in microseconds, unless there
    are at least :data:`MUJOCO_CUDA_CROSSOVER_REPLICAS` replicas and a GPU; Featherstone
    and XPBD below :data:`NEWTON_CUDA_CROSSOVER_REPLICAS` replicas (a caller that does not know the
    count, ``replicas`` None, gets CUDA wherever present)."""
    return device_for(device, solver, replicas).device


def builds_kernels(solver: Solver | str, device: str) -> bool:
    """Whether a simulation of ``solver`` on ``device`` runs Warp kernels: all but MuJoCo on a CPU, whose
    C library steps the robot."""
    return not (Solver(solver) == Solver.MUJOCO and not device.startswith("cuda"))


def solver_to_run(solver: Solver | str) -> Solver:
    """The solver a simulation asked for ``solver`` runs: MuJoCo falls back to Featherstone when
    its packages are not installed."""
    solver = Solver(solver)
    return Solver.FEATHERSTONE if solver == Solver.MUJOCO and not _mujoco_available() else solver


def _mujoco_available() -> bool:
    """mujoco and mujoco-warp installed (found, not imported: mujoco-warp imports Warp)."""
    from importlib.util import find_spec

    return find_spec("mujoco") is not None and find_spec("mujoco_warp") is not None
