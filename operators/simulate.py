"""Simulate the scene's robots live: a modal operator running a :class:`BlenderSimulation`.

Keys while it runs: Space pauses/resumes, Right Arrow steps one frame (paused), Enter stops and
keeps the poses, Esc stops and restores the starting poses. Ctrl + left-drag on a body grabs the
point under the mouse and pulls it toward the mouse (``sim.picking``; the pull is drawn as a line),
Shift + click pushes it along the view ray. With Record on (``scene.articula.record_simulation``)
the frames become keyframes on Stop & Keep (``adapters.live_recording``); Esc discards them.
With ``scene.articula.replicas`` > 1, replica 0 moves the objects (and is the one grabbed) and the
other replicas are drawn by instancing while the simulation runs; any stop removes that display.
``articula.simulate_control`` does the same from buttons. On a solver's first run it first waits
for the Warp kernels, built in the background (``addon.kernel_wait``). The session
(``addon.simulation_session``) moves the data between Blender and the simulation; this module handles
the keys, the mouse and reports.
"""

from __future__ import annotations

from typing import Optional

import bpy
import numpy as np
from bpy.props import EnumProperty, IntProperty

from ..addon.kernel_wait import CANCELLED, PASS_THROUGH, READY, wait_for_kernels
from ..addon.reports import plain
from ..addon.status_line import StatusLine
from ..addon.simulation_session import BlenderSimulation, forget_kept_robots

#: Events whose mouse position gives a ray into the view.
MOUSE_EVENTS = {"LEFTMOUSE", "MOUSEMOVE", "INBETWEEN_MOUSEMOVE"}

SOLVER_ITEMS = (
    ("SCENE", "Scene Setting", "The solver chosen in the scene's physics settings"),
    ("FEATHERSTONE", "Featherstone", "Reduced-coordinate articulated bodies"),
    ("MUJOCO", "MuJoCo", "MuJoCo (Warp on CUDA, MuJoCo's C library on the CPU)"),
    ("XPBD", "XPBD", "Extended position-based dynamics"),
)
#: The running modal instance, so buttons can pause, step or stop it.
_RUNNING: Optional["ARTICULA_OT_simulate"] = None
_STATUS = StatusLine(header=False)  # one run at a time: one status line


class ModalLoop:
    """The modal operator's logic on plain event names, so it can be driven without a window
    (the bpy module never invokes operators: its ``bpy.ops`` calls always execute).

    :meth:`handle` returns ``"RUNNING"``, ``"PASS_THROUGH"``, ``"FINISHED"`` (stopped, poses kept)
    or ``"CANCELLED"`` (start restored: Esc, or a blow-up, whose message is in ``error``).
    """

    def __init__(self, session: BlenderSimulation, recording=None):
        self.session = session
        self.recording = recording  # an adapters.live_recording.LiveRecording of this session
        self.paused = False
        self.error: Optional[str] = None
        self.message: Optional[str] = None  # shown in the status bar (a refused grab)
        self._grab = None

    @property
    def grab(self):
        """The :class:`sim.picking.Grab` of this simulation (made on the first use)."""
        if self._grab is None:
            from ..sim.picking import Grab

            props = self.session.scene.articula
            self._grab = Grab(self.session.sim, stiffness=props.grab_stiffness,
                              max_acceleration=props.grab_max_acceleration)
        return self._grab

    @property
    def grabbing(self) -> bool:
        return self._grab is not None and self._grab.holding

    def frames(self, count: int) -> bool:
        from ..sim.divergence import SimulationDiverged

        try:
            for _ in range(count):
                self.session.advance_frame()
                if self.recording is not None:
                    self.recording.record()
        except SimulationDiverged as error:
            self._discard()
            self.error = f"The simulation blew up at body {error.body!r}; the start was restored"
            return False
        return True

    def _keep(self):
        self._let_go()
        if self.recording is not None:
            self.recording.finish()
        else:
            self.session.keep()

    def _discard(self):
        self._let_go()
        if self.recording is not None:
            self.recording.cancel()
        else:
            self.session.restore()

    def _let_go(self):
        if self._grab is not None:
            self._grab.release()
        self.session.sim.clear_body_wrench()

    def mouse(self, event_type: str, value: str, ray, ctrl: bool = False, shift: bool = False) -> str:
        """Grab (Ctrl + press), drag, release, or push (Shift + press) with the mouse ray
        (origin, direction) in world space; other clicks pass through."""
        if self.grabbing:
            if event_type == "LEFTMOUSE" and value == "RELEASE":
                self._grab.release()
            elif ray is not None:
                self._grab.drag(*ray)
            return "RUNNING"
        if event_type != "LEFTMOUSE" or value != "PRESS" or ray is None or not (ctrl or shift):
            return "PASS_THROUGH"
        from ..sim.picking import KINEMATIC, MISSED, STATIC, push

        hit = self.grab.hit(*ray)
        if hit.kind == MISSED:
            return "PASS_THROUGH"
        if hit.kind == KINEMATIC:
            self.message = f"{hit.body!r} is kinematic (moved by its animation): it cannot be grabbed"
        elif hit.kind == STATIC:
            self.message = (f"{hit.body!r} is fixed to the world: it cannot be grabbed" if hit.body
                            else "A static shape cannot be grabbed")
        elif ctrl:
            self.message = None
            self._grab.grab_point(hit.row, hit.point, ray[0])
        else:
            self.message = None
            push(self.session.sim, hit.row, hit.point, ray[1], self.session.scene.articula.push_speed)
        return "RUNNING"

    def handle(self, event_type: str, value: str = "PRESS", request: Optional[str] = None, ray=None,
               ctrl: bool = False, shift: bool = False) -> str:
        """One event. ``ray`` (origin, direction), world space: where the mouse points, for mouse
        events in a 3D view (the operator computes it with :func:`mouse_ray`)."""
        pressed = value == "PRESS"
        if request is None and event_type in MOUSE_EVENTS:
            return self.mouse(event_type, value, ray, ctrl, shift)
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
            self._keep()
            return "FINISHED"
        elif request == "CANCEL" or event_type == "ESC":
            self._discard()
            return "CANCELLED"
        else:
            return "PASS_THROUGH"  # viewport navigation keeps working
        return "RUNNING"

    def status(self) -> str:
        recording = f", recording {self.recording.frames} frames" if self.recording is not None else ""
        keys = "Ctrl+drag grab, Shift+click push, Space pause, \u2192 step, Enter keep, Esc cancel"
        text = f"{self.session.status(self.paused)}{recording}  |  {keys}"
        if self.grabbing:
            grab = self._grab
            body = self.session.sim.body_keys[grab.row][0]
            pull = f"Pulling {body!r}: {np.linalg.norm(grab.last_force):,.0f} N of {grab.max_force:,.0f} N"
            return f"{pull}  |  {text}"
        return f"{self.message}  |  {text}" if self.message else text


def mouse_ray(context, event):
    """(origin, unit direction) in world space of the ray from the 3D view under the mouse, or
    None outside a 3D view's window region."""
    from bpy_extras import view3d_utils

    region, space = context.region, context.space_data
    if region is None or region.type != "WINDOW" or space is None or space.type != "VIEW_3D":
        return None
    rv3d = space.region_3d
    coord = (event.mouse_region_x, event.mouse_region_y)
    origin = view3d_utils.region_2d_to_origin_3d(region, rv3d, coord)
    direction = view3d_utils.region_2d_to_vector_3d(region, rv3d, coord)
    return tuple(origin), tuple(direction)


class ARTICULA_OT_simulate(bpy.types.Operator):
    """Simulate the scene's physics bodies live in the viewport (Esc restores the start)"""

    bl_idname = "articula.simulate"
    bl_label = "Simulate"
    bl_options = {"REGISTER"}

    solver: EnumProperty(name="Solver", items=SOLVER_ITEMS, default="SCENE")
    frames: IntProperty(name="Frames", description="Frames to simulate when run without the modal loop",
                        default=1, min=1)
    #: (context, event) -> the mouse's world ray or None; a view-less caller (tests) gives its own.
    ray_source = staticmethod(mouse_ray)

    def _start(self, context, record: bool = False) -> Optional[ModalLoop]:
        try:
            loop = start_loop(context, self.solver, record,
                              on_status=lambda text: self.report({"INFO"}, text))
        except Exception as error:  # a clear message beats a traceback in the UI
            self.report({"ERROR"}, f"Cannot simulate: {plain(error)}")
            return None
        for note in loop.session.sim.notes:
            self.report({"WARNING"}, note)
        for name in loop.session.animation.not_simulated(loop.session.sim):
            self.report({"WARNING"}, f"actuator {name!r}: its keyed control is not simulated on this solver")
        return loop

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
        self.loop = self._timer = self._draw = None
        self.request = None
        # A first run's kernels build in the background while Blender stays responsive.
        ready, self.waiting = wait_for_kernels(context, self.solver, self.report, "simulate")
        if not ready:
            return {"CANCELLED"}
        if self.waiting is None:
            if not self._begin(context):
                return {"CANCELLED"}
        else:
            self._timer = context.window_manager.event_timer_add(0.1, window=context.window)
            _STATUS.show(context, self.waiting.status())
        context.window_manager.modal_handler_add(self)
        _RUNNING = self
        return {"RUNNING_MODAL"}

    def _begin(self, context) -> bool:
        """Start the simulation loop with its frame timer and the pull's line."""
        self.loop = self._start(context, record=context.scene.articula.record_simulation)
        if self.loop is None:
            return False
        wm = context.window_manager
        self._timer = wm.event_timer_add(self.loop.session.frame_dt, window=context.window)
        self._draw = bpy.types.SpaceView3D.draw_handler_add(draw_pull, (self.loop,), "WINDOW", "POST_VIEW")
        _STATUS.show(context, self.loop.status())
        return True

    def _wait(self, context, event):
        request, self.request = self.request, None
        if request == "CANCEL":  # the panel's Cancel button
            result = self.waiting.handle("ESC", "PRESS")
        else:
            result = self.waiting.handle(event.type, event.value)
        if result == PASS_THROUGH:
            return {"PASS_THROUGH"}
        if result == READY:
            self.waiting = None
            context.window_manager.event_timer_remove(self._timer)
            self._timer = None
            if not self._begin(context):
                result = CANCELLED
        if result == CANCELLED:
            self._finish(context)
            return {"CANCELLED"}
        if self.waiting is not None:
            _STATUS.show(context, self.waiting.status())
        return {"RUNNING_MODAL"}

    def modal(self, context, event):
        if self.waiting is not None:
            return self._wait(context, event)
        request, self.request = self.request, None
        ray = self.ray_source(context, event) if event.type in MOUSE_EVENTS else None
        grabbing = self.loop.grabbing
        result = self.loop.handle(event.type, event.value, request, ray, ctrl=event.ctrl, shift=event.shift)
        if grabbing or self.loop.grabbing:
            _redraw_views(context)  # the pull's line
        if result == "RUNNING":
            _STATUS.show(context, self.loop.status())
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
        if self._timer is not None:
            context.window_manager.event_timer_remove(self._timer)
            self._timer = None
        if self._draw is not None:
            bpy.types.SpaceView3D.draw_handler_remove(self._draw, "WINDOW")
            self._draw = None
        _redraw_views(context)
        _STATUS.show(context, None)
        _RUNNING = None

    def cancel(self, context):  # Blender closes the window or file while running
        if self.loop is not None:
            self.loop.handle("ESC")
        self._finish(context)


def start_loop(context, solver: str = "SCENE", record: bool = False, on_status=None) -> ModalLoop:
    """The simulation of the scene from the current frame, recorded to keyframes when ``record``."""
    if record:
        from ..addon.adapters.live_recording import LiveRecording

        recording = LiveRecording(context, solver, on_status=on_status)
        return ModalLoop(recording.session, recording)
    return ModalLoop(BlenderSimulation(context, solver, on_status=on_status))


PULL_COLOR = (1.0, 0.55, 0.1, 1.0)


def draw_pull(loop: ModalLoop):
    """The grab's pull in the 3D view: a line from the grabbed point to the mouse's target."""
    if not loop.grabbing or loop.grab.point is None:
        return
    grab = loop.grab
    import gpu
    from gpu_extras.batch import batch_for_shader

    points = [tuple(map(float, grab.point)), tuple(map(float, grab.target))]
    shader = gpu.shader.from_builtin("UNIFORM_COLOR")
    batch = batch_for_shader(shader, "LINES", {"pos": points})
    gpu.state.line_width_set(2.0)
    gpu.state.depth_test_set("NONE")
    shader.uniform_float("color", PULL_COLOR)
    batch.draw(shader)
    point_batch = batch_for_shader(shader, "POINTS", {"pos": points})
    gpu.state.point_size_set(8.0)
    point_batch.draw(shader)
    gpu.state.line_width_set(1.0)
    gpu.state.point_size_set(1.0)


def _redraw_views(context):
    screen = getattr(context, "screen", None)
    for area in (screen.areas if screen is not None else ()):
        if area.type == "VIEW_3D":
            area.tag_redraw()


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
    forget_kept_robots()
    _unregister_classes()
