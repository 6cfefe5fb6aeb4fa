"""A solver's Warp kernels built in a worker thread, so an application stays responsive meanwhile.

The first simulation with a solver on a device kind builds its Warp kernels: half a minute to a
minute on a CPU, about five minutes for all solvers on a CUDA GPU. Warp's compilers (Clang, NVRTC)
run outside the GIL, so a worker thread leaves the caller's thread free to draw and handle events
while it waits. One build per solver and device kind runs at a time: a second caller waits on the
first. A build that is waited for no longer still finishes, and the next simulation finds its
kernels in Warp's cache.
"""

from __future__ import annotations

import threading
import time
from typing import Optional

from ..core.model import Solver
from .device_choice import builds_kernels, resolve_device, solver_to_run

SOLVER_NAMES = {Solver.MUJOCO: "MuJoCo", Solver.FEATHERSTONE: "Featherstone", Solver.XPBD: "XPBD"}
_lock = threading.Lock()
_running: dict[tuple[Solver, str], "KernelBuild"] = {}


class KernelBuild:
    """``warm_kernels(solver, device)`` on a daemon thread; :meth:`done` re-raises its error."""

    def __init__(self, solver: Solver, device: str):
        self.solver, self.device = solver, device
        self.started = time.monotonic()
        self.error: Optional[BaseException] = None
        self._thread = threading.Thread(target=self._build, name=f"articula-kernels-{solver.value.lower()}",
                                        daemon=True)

    @classmethod
    def start(cls, solver: Solver | str, device: str = "auto",
              replicas: Optional[int] = 1) -> Optional["KernelBuild"]:
        """The build of ``solver``'s kernels on ``device`` (the running one if any), or None when an
        earlier run built them."""
        solver = solver_to_run(solver)
        device = resolve_device(device, solver, replicas)  # where the simulation of them will run
        if not builds_kernels(solver, device):
            return None  # MuJoCo's C library: nothing to build, and Newton and Warp stay unimported
        from .simulation import kernels_cached

        if kernels_cached(solver, device):
            return None
        key = (solver, device_kind(device))
        with _lock:
            build = _running.get(key)
            if build is None:
                build = _running[key] = cls(solver, device)
                build._thread.start()
        return build

    def _build(self):
        from .simulation import warm_kernels

        try:
            warm_kernels(self.solver, self.device)
        except BaseException as error:  # handed to the waiting thread by done()
            self.error = error
        finally:
            with _lock:
                _running.pop((self.solver, device_kind(self.device)), None)

    def done(self) -> bool:
        """True once the kernels are built; raises what the build raised."""
        if self._thread.is_alive():
            return False
        if self.error is not None:
            raise self.error
        return True

    def wait(self, timeout: Optional[float] = None) -> bool:
        self._thread.join(timeout)
        return self.done()

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.started

    def describe(self) -> str:
        where = "the GPU" if device_kind(self.device) == "cuda" else "the CPU"
        return f"Building the {SOLVER_NAMES[self.solver]} solver's Warp kernels on {where} (first run only)"


def device_kind(device: str) -> str:
    return "cuda" if device.startswith("cuda") else "cpu"


def running() -> int:
    """How many builds are running (the extension waits for none of them when disabled)."""
    with _lock:
        return len(_running)
