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

        from ..sim.device_choice import device_for

        wanted = context.scene.articula.solver if solver in (None, "SCENE") else solver
        asked = simulation_device(context)
        build = KernelBuild.start(wanted, asked)
        if build is None:
            return None
        return cls(build, report, device_for(asked, build.solver).reason)  # as the simulation will resolve it

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


def wait_for_kernels(context, solver: Optional[str], report, action: str) -> tuple[bool, Optional[KernelWait]]:
    """:meth:`KernelWait.needed` for an operator: ``(False, None)`` after reporting why it cannot
    ``action`` (no CUDA device where one is preferred, say), else ``(True, the wait or None)``."""
    try:
        return True, KernelWait.needed(context, solver, report)
    except Exception as error:
        report({"ERROR"}, f"Cannot {action}: {plain(error)}")
        return False, None
