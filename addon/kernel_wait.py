"""Simulate and Bake wait for a first run's Warp kernels without freezing Blender.

The kernels build on a worker thread (``sim.kernel_build``); the operator waits in its modal loop,
the status bar counting the seconds, and starts the simulation when they are built. Meanwhile
Blender keeps drawing and the user keeps working; Esc stops waiting, and the kernels go on building
for the next run.
"""

from __future__ import annotations

from typing import Optional

from .reports import plain
from .simulation_session import simulation_device

WAITING, READY, CANCELLED, PASS_THROUGH = "WAITING", "READY", "CANCELLED", "PASS_THROUGH"


class KernelWait:
    """The wait's logic on plain event names (the bpy module never invokes operators, so tests drive
    it with synthetic events). :meth:`handle` returns ``WAITING`` (a timer tick before the build is
    done), ``READY`` (start the simulation now), ``CANCELLED`` (Esc, or the build failed: reported)
    or ``PASS_THROUGH`` (every other event is Blender's)."""

    def __init__(self, build, report, reason: str = ""):
        self.build = build
        self.report = report
        self.reason = reason  # why the simulation runs on this device ("no CUDA GPU")

    @classmethod
    def needed(cls, context, solver: Optional[str], report) -> Optional["KernelWait"]:
        """The wait for the kernels of ``solver`` ("SCENE" or None: the scene's) on the preferred
        device, their build started; None when an earlier run built them."""
        from ..sim.kernel_build import KernelBuild

        wanted = context.scene.articula.solver if solver in (None, "SCENE") else solver
        build = KernelBuild.start(wanted, simulation_device(context), context.scene.articula.replicas)
        if build is None:
            return None
        return cls(build, report, device_choice(context, build.solver).reason)

    def handle(self, event_type: str, value: str = "PRESS") -> str:
        if event_type == "ESC" and value == "PRESS":
            self.report({"WARNING"}, "Stopped waiting: the Warp kernels go on building in the background, "
                        "and the next run starts without waiting for them")
            return CANCELLED
        if event_type != "TIMER":
            return PASS_THROUGH
        try:
            ready = self.build.done()
        except Exception as error:
            self.report({"ERROR"}, f"Cannot build the simulation's Warp kernels: {plain(error)}")
            return CANCELLED
        return READY if ready else WAITING

    def status(self) -> str:
        from ..sim.kernel_build import SOLVER_NAMES, device_kind
        from ..sim.shipped_kernels import seeded_set

        what = self.build.describe()
        if device_kind(self.build.device) == "cpu" and seeded_set() is not None:
            solver = SOLVER_NAMES[self.build.solver]
            what = f"Loading the {solver} solver's Warp kernels (prebuilt) on the CPU"
        why = f" ({self.reason})" if self.reason else ""
        return f"{what}{why}: {self.build.seconds:.0f} s  |  Esc stop waiting"


def device_choice(context, solver):
    """The device the simulation of ``solver`` will run on, and why, as ``sim.simulation`` resolves it:
    by the scene's replicas against each solver's crossover."""
    from ..sim.device_choice import device_for
    from ..sim.device_choice import solver_to_run

    solver = solver_to_run(solver)
    return device_for(simulation_device(context), solver, context.scene.articula.replicas)


def wait_for_kernels(context, solver: Optional[str], report, action: str) -> tuple[bool, Optional[KernelWait]]:
    """:meth:`KernelWait.needed` for an operator: ``(False, None)`` after reporting why it cannot
    ``action`` (no CUDA device where one is preferred, say), else ``(True, the wait or None)``; the
    device chosen and why go to the status bar as an info report."""
    try:
        wait = KernelWait.needed(context, solver, report)
        wanted = context.scene.articula.solver if solver in (None, "SCENE") else solver
        choice = device_choice(context, wanted)
    except Exception as error:
        report({"ERROR"}, f"Cannot {action}: {plain(error)}")
        return False, None
    where = "the CPU" if choice.device == "cpu" else f"the GPU ({choice.device})"
    report({"INFO"}, f"Articula simulates on {where}: {choice.reason}")
    return True, wait
