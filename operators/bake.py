"""Bake the simulation over a frame range into keyframes; clear the bake.

The bake itself (a transaction: simulating the range, writing the keys, restoring on clear) is
``addon.adapters.simulation_to_keyframes``; these operators drive it and report. From the UI the
bake is modal: its physics runs in a worker thread polled by a timer, the progress bar and the status
bar show how far it is and the time left (estimated from the first steps; a warning when over a
minute), and Esc (or right click) cancels it, leaving the scene as it was. On a solver's first run
it first waits for the Warp kernels, built in the background (``addon.kernel_wait``) while Blender
stays responsive. ``execute()`` bakes at once (scripts, the bpy module).
"""

from __future__ import annotations

from typing import Optional

import bpy
from bpy.props import EnumProperty, IntProperty

from ..addon.adapters.simulation_to_keyframes import BakeJob, bake_action, clear_bake
from ..addon.kernel_wait import CANCELLED, PASS_THROUGH, READY, wait_for_kernels
from ..addon.reports import plain
from ..addon.status_line import StatusLine
from .simulate import SOLVER_ITEMS

#: A bake estimated to take longer than this (s) is warned about.
LONG_BAKE = 60.0
#: The running modal bake, for panels and tests (one at a time).
_RUNNING: Optional["ARTICULA_OT_bake"] = None
_STATUS = StatusLine(header=True)  # one run at a time: one status line


def running():
    """The running modal bake operator, or None."""
    return _RUNNING


def format_duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class ARTICULA_OT_bake(bpy.types.Operator):
    """Simulate the frame range and bake the bodies' motion to keyframes (replaces an earlier bake only once the new one is complete; Esc cancels)"""

    bl_idname = "articula.bake"
    bl_label = "Bake Simulation"
    bl_options = {"REGISTER", "UNDO"}

    frame_start: IntProperty(name="Start", description="First frame (-1: the scene's start)", default=-1)
    frame_end: IntProperty(name="End", description="Last frame (-1: the scene's end)", default=-1)
    solver: EnumProperty(name="Solver", items=SOLVER_ITEMS, default="SCENE")
    substeps: IntProperty(name="Substeps", description="Physics steps per frame (0: from the scene's "
                          "steps per second)", default=0, min=0, soft_max=100)

    # --- shared -----------------------------------------------------------------------------

    def _range(self, context) -> tuple[int, int]:
        scene = context.scene
        start = scene.frame_start if self.frame_start < 0 else self.frame_start
        end = scene.frame_end if self.frame_end < 0 else self.frame_end
        return start, end

    def _start(self, context) -> Optional[BakeJob]:
        start, end = self._range(context)
        try:
            return BakeJob(context, start, end, self.solver, self.substeps,
                           on_status=lambda text: self.report({"INFO"}, text))
        except Exception as error:
            self.report({"ERROR"}, f"Cannot bake: {plain(error)}")
            return None

    def _failed(self, error: Exception) -> set:
        return {_failure(self.report, error)}

    def _finish(self, job: BakeJob) -> set:
        try:
            job.finish()
        except Exception as error:
            return self._failed(error)
        for note in job.session.sim.notes:
            self.report({"WARNING"}, note)
        for name in job.session.animation.not_simulated(job.session.sim):
            self.report({"WARNING"}, f"actuator {name!r}: its keyed control is not simulated on this solver")
        replicas = job.session.sim.replicas
        shown = f"; replicas 1-{replicas - 1} baked for display only (instances)" if replicas > 1 else ""
        self.report({"INFO"}, f"Baked {len(job.session.writer.objects)} bodies of replica 0 to keyframes over "
                    f"frames {job.frame_start}-{job.frame_end}{shown}")
        return {"FINISHED"}

    # --- at once (scripts) ------------------------------------------------------------------

    def execute(self, context):
        job = self._start(context)
        if job is None:
            return {"CANCELLED"}
        try:
            job.run()
        except Exception as error:
            return self._failed(error)
        return self._finish(job)

    # --- modal (the UI) ---------------------------------------------------------------------

    def invoke(self, context, event):
        global _RUNNING
        if _RUNNING is not None:
            self.report({"WARNING"}, "A bake is already running")
            return {"CANCELLED"}
        self.loop = None
        # A first run's kernels build in the background while Blender stays responsive.
        ready, self.waiting = wait_for_kernels(context, self.solver, self.report, "bake")
        if not ready:
            return {"CANCELLED"}
        if self.waiting is None and not self._begin(context):
            return {"CANCELLED"}
        wm = context.window_manager
        self._timer = wm.event_timer_add(0.01, window=context.window)
        wm.modal_handler_add(self)
        wm.progress_begin(0, 100)
        _RUNNING = self
        self._show(context)
        return {"RUNNING_MODAL"}

    def _begin(self, context) -> bool:
        job = self._start(context)
        if job is not None:
            self.loop = BakeLoop(job, self.report, self._finish)
        return job is not None

    def modal(self, context, event):
        if self.waiting is not None:
            return self._wait(context, event)
        result = self.loop.handle(event.type, event.value)
        if result == "RUNNING":
            self._show(context)
            return {"RUNNING_MODAL"}
        self._end(context)
        return {result}

    def _wait(self, context, event):
        result = self.waiting.handle(event.type, event.value)
        if result == PASS_THROUGH:
            return {"PASS_THROUGH"}
        if result == READY:
            self.waiting = None
            if not self._begin(context):
                result = CANCELLED
        if result == CANCELLED:
            self._end(context)
            return {"CANCELLED"}
        self._show(context)
        return {"RUNNING_MODAL"}

    def _show(self, context):
        if self.waiting is not None:
            _STATUS.show(context, self.waiting.status())
            return
        context.window_manager.progress_update(int(100 * self.loop.job.fraction))
        _STATUS.show(context, self.loop.status())

    def _end(self, context):
        global _RUNNING
        _RUNNING = None
        wm = context.window_manager
        if getattr(self, "_timer", None) is not None:
            wm.event_timer_remove(self._timer)
            self._timer = None
        wm.progress_end()
        _STATUS.show(context, None)

    def cancel(self, context):  # Blender closes the window or file while baking
        if self.loop is not None:
            self.loop.job.cancel()
        self._end(context)


class BakeLoop:
    """The modal bake's logic on plain event names (the bpy module never invokes operators, so
    tests drive this with synthetic events): each TIMER polls the bake, whose physics runs in a
    worker thread (:meth:`BakeJob.poll`), so no event waits for a physics step; Esc or right click
    cancels at once; other events are swallowed (the bake owns the scene).

    :meth:`handle` returns ``"RUNNING"``, ``"FINISHED"`` (keys written) or ``"CANCELLED"``
    (Esc, a blow-up or an error: the scene as it was before the bake).
    """

    def __init__(self, job: BakeJob, report, finish):
        self.job = job
        self.report = report
        self.finish = finish
        self.warned = False

    def handle(self, event_type: str, value: str = "PRESS") -> str:
        if event_type in {"ESC", "RIGHTMOUSE"} and value == "PRESS":
            self.job.cancel()
            self.report({"WARNING"}, "Bake cancelled; the scene is as it was")
            return "CANCELLED"
        if event_type != "TIMER":
            return "RUNNING"
        try:
            complete = self.job.poll()
        except Exception as error:
            return _failure(self.report, error)
        if complete:
            return next(iter(self.finish(self.job)))
        left = self.job.seconds_left()
        if left is not None and left > LONG_BAKE and not self.warned:
            self.warned = True
            self.report({"WARNING"}, f"This bake will take about {format_duration(left)}; Esc cancels it")
        return "RUNNING"

    def status(self) -> str:
        job = self.job
        left = job.seconds_left()
        estimate = f", about {format_duration(left)} left" if left is not None else ", estimating the time left"
        return (f"Baking frame {job.frame_start + job.frames_done - 1} of {job.frame_start}-{job.frame_end} "
                f"({job.fraction:.0%}{estimate})  |  Esc cancel")


def _failure(report, error: Exception) -> str:
    from ..sim.divergence import SimulationDiverged

    if isinstance(error, SimulationDiverged):
        report({"ERROR"}, f"The simulation blew up at body {error.body!r}; nothing was baked "
               "and the scene is as it was")
    else:
        report({"ERROR"}, f"Cannot bake: {plain(error)}")
    return "CANCELLED"


class ARTICULA_OT_clear_bake(bpy.types.Operator):
    """Remove the baked simulation and put the bodies back where they were before baking (later edits such as scale stay)"""

    bl_idname = "articula.clear_bake"
    bl_label = "Clear Bake"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return bake_action() is not None

    def execute(self, context):
        restored = clear_bake(context.scene)
        self.report({"INFO"}, f"Cleared the bake of {restored} bodies")
        return {"FINISHED"}


classes = (ARTICULA_OT_bake, ARTICULA_OT_clear_bake)

_register_classes, _unregister_classes = bpy.utils.register_classes_factory(classes)


def register():
    _register_classes()


def unregister():
    """Disabling the add-on while a bake runs cancels it (the scene as it was, the timer removed)."""
    if _RUNNING is not None:
        _RUNNING.cancel(bpy.context)
    _unregister_classes()
