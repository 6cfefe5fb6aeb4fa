"""Simulate the scene's robots live: a modal operator running a :class:`BlenderSimulation`.

Keys while it runs: Space pauses/resumes, Right Arrow steps one frame (paused), Enter stops and
keeps the poses, Esc stops and restores the starting poses. With ``scene.articula.replicas`` > 1,
replica 0 moves the objects and the other replicas are drawn by instancing while the simulation
runs; any stop removes that display. ``articula.simulate_control`` does the same from buttons.
The session (``addon.simulation_session``) moves the data between Blender and the simulation;
this module handles the keys and reports.
"""

from __future__ import annotations

from typing import Optional

import bpy
from bpy.props import EnumProperty, IntProperty

from ..addon.reports import plain
from ..addon.simulation_session import BlenderSimulation

SOLVER_ITEMS = (
    ("SCENE", "Scene Setting", "The solver chosen in the scene's physics settings"),
    ("FEATHERSTONE", "Featherstone", "Reduced-coordinate articulated bodies"),
    ("MUJOCO", "MuJoCo", "MuJoCo (Warp on CUDA, MuJoCo's C library on the CPU)"),
    ("XPBD", "XPBD", "Extended position-based dynamics"),
)
#: The running modal instance, so buttons can pause, step or stop it.
_RUNNING: Optional["ARTICULA_OT_simulate"] = None


class ModalLoop:
    """The modal operator's logic on plain event names, so it can be driven without a window
    (the bpy module never invokes operators: its ``bpy.ops`` calls always execute).

    :meth:`handle` returns ``"RUNNING"``, ``"PASS_THROUGH"``, ``"FINISHED"`` (stopped, poses kept)
    or ``"CANCELLED"`` (start restored: Esc, or a blow-up, whose message is in ``error``).
    """

    def __init__(self, session: BlenderSimulation):
        self.session = session
        self.paused = False
        self.error: Optional[str] = None

    def frames(self, count: int) -> bool:
        from ..sim.simulation import SimulationDiverged

        try:
            for _ in range(count):
                self.session.advance_frame()
        except SimulationDiverged as error:
            self.session.restore()
            self.error = f"The simulation blew up at body {error.body!r}; the start was restored"
            return False
        return True

    def handle(self, event_type: str, value: str = "PRESS", request: Optional[str] = None) -> str:
        pressed = value == "PRESS"
        if request is None and event_type == "TIMER":
            if not self.paused and not self.frames(1):
                return "CANCELLED"
        elif request == "PAUSE" or (event_type == "SPACE" and pressed):
            self.paused = not self.paused
        elif request == "STEP" or (event_type == "RIGHT_ARROW" and pressed):
            self.paused = True
            if not self.frames(1):
                return "CANCELLED"
        elif request == "KEEP" or (event_type in {"RET", "NUMPAD_ENTER"} and pressed):
            self.session.keep()
            return "FINISHED"
        elif request == "CANCEL" or event_type == "ESC":
            self.session.restore()
            return "CANCELLED"
        else:
            return "PASS_THROUGH"  # viewport navigation keeps working
        return "RUNNING"

    def status(self) -> str:
        return f"{self.session.status(self.paused)}  |  Space pause, \u2192 step, Enter keep, Esc cancel"


class ARTICULA_OT_simulate(bpy.types.Operator):
    """Simulate the scene's physics bodies live in the viewport (Esc restores the start)"""

    bl_idname = "articula.simulate"
    bl_label = "Simulate"
    bl_options = {"REGISTER"}

    solver: EnumProperty(name="Solver", items=SOLVER_ITEMS, default="SCENE")
    frames: IntProperty(name="Frames", description="Frames to simulate when run without the modal loop",
                        default=1, min=1)

    def _start(self, context) -> Optional[ModalLoop]:
        try:
            session = BlenderSimulation(context, self.solver, on_status=lambda text: self.report({"INFO"}, text))
        except Exception as error:  # a clear message beats a traceback in the UI
            self.report({"ERROR"}, f"Cannot simulate: {plain(error)}")
            return None
        for note in session.sim.notes:
            self.report({"WARNING"}, note)
        return ModalLoop(session)

    def execute(self, context):
        """Without the modal loop (scripts, the bpy module): simulate ``frames`` frames, keep them."""
        loop = self._start(context)
        if loop is None:
            return {"CANCELLED"}
        if not loop.frames(self.frames):
            self.report({"ERROR"}, loop.error)
            return {"CANCELLED"}
        loop.session.keep()
        return {"FINISHED"}

    def invoke(self, context, event):
        global _RUNNING
        if _RUNNING is not None:
            self.report({"WARNING"}, "A simulation is already running")
            return {"CANCELLED"}
        self.loop = self._start(context)
        if self.loop is None:
            return {"CANCELLED"}
        self.request = None
        wm = context.window_manager
        self._timer = wm.event_timer_add(self.loop.session.frame_dt, window=context.window)
        wm.modal_handler_add(self)
        _RUNNING = self
        _set_status(context, self.loop.status())
        return {"RUNNING_MODAL"}

    def modal(self, context, event):
        request, self.request = self.request, None
        result = self.loop.handle(event.type, event.value, request)
        if result == "RUNNING":
            _set_status(context, self.loop.status())
            return {"RUNNING_MODAL"}
        if result == "PASS_THROUGH":
            return {"PASS_THROUGH"}
        if self.loop.error:
            self.report({"ERROR"}, self.loop.error)
        elif result == "FINISHED":
            sim = self.loop.session.sim
            self.report({"INFO"}, f"Simulated {sim.time:.2f} s ({sim.steps} steps)")
        self._finish(context)
        return {result}

    def _finish(self, context):
        global _RUNNING
        context.window_manager.event_timer_remove(self._timer)
        _set_status(context, None)
        _RUNNING = None

    def cancel(self, context):  # Blender closes the window or file while running
        self.loop.session.restore()
        self._finish(context)


def _set_status(context, text: Optional[str]):
    workspace = getattr(context, "workspace", None)
    if workspace is not None:
        workspace.status_text_set(text)


class ARTICULA_OT_simulate_control(bpy.types.Operator):
    """Pause, step, keep or cancel the running simulation"""

    bl_idname = "articula.simulate_control"
    bl_label = "Simulation Control"
    bl_options = {"INTERNAL"}

    action: EnumProperty(name="Action", items=(
        ("PAUSE", "Pause", "Pause or resume"),
        ("STEP", "Step", "Simulate one frame (pauses)"),
        ("KEEP", "Stop and Keep", "Stop, keeping the simulated poses"),
        ("CANCEL", "Cancel", "Stop and restore the starting poses"),
    ))

    @classmethod
    def poll(cls, context):
        return _RUNNING is not None

    def execute(self, context):
        _RUNNING.request = self.action  # handled by the modal loop on its next event
        return {"FINISHED"}


def running():
    """The running simulation operator, or None (for panels)."""
    return _RUNNING


classes = (ARTICULA_OT_simulate, ARTICULA_OT_simulate_control)

_register_classes, _unregister_classes = bpy.utils.register_classes_factory(classes)


def register():
    _register_classes()


def unregister():
    """Disabling the add-on while a simulation runs ends it as Esc does, so no dead operator
    stays in ``_RUNNING`` to refuse every later run and no timer keeps firing."""
    if _RUNNING is not None:
        _RUNNING.cancel(bpy.context)
    _unregister_classes()
