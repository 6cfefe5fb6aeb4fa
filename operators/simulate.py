"""Simulate the scene's robots live: a modal operator stepping :class:`sim.Simulation`.

Keys while it runs: Space pauses/resumes, Right Arrow steps one frame (paused), Enter stops and
keeps the poses, Esc stops and restores the starting poses. With ``scene.articula.replicas`` > 1,
replica 0 moves the objects and the other replicas are drawn by instancing (``addon.replicas``)
while the simulation runs; any stop removes that display. ``articula.simulate_control`` does
the same from buttons. The stepping and pose math are bpy-free (``sim``); this module only moves
data between Blender objects and them.
"""

from __future__ import annotations

import time
from typing import Optional

import bpy
import numpy as np
from bpy.props import EnumProperty, IntProperty
from mathutils import Matrix, Quaternion, Vector

SOLVER_ITEMS = (
    ("SCENE", "Scene Setting", "The solver chosen in the scene's physics settings"),
    ("FEATHERSTONE", "Featherstone", "Reduced-coordinate articulated bodies"),
    ("MUJOCO", "MuJoCo", "MuJoCo (Warp on CUDA, MuJoCo's C library on the CPU)"),
    ("XPBD", "XPBD", "Extended position-based dynamics"),
)
#: The running modal instance, so buttons can pause, step or stop it.
_RUNNING: Optional["ARTICULA_OT_simulate"] = None


class SimulationSetupError(RuntimeError):
    """The scene cannot be simulated (the message says why and names the object)."""


def _device(context) -> str:
    from ..addon.preferences import preferences

    prefs = preferences(context)
    return prefs.device.lower() if prefs else "auto"


def _similarity(matrix: Matrix, subject: str) -> tuple[np.ndarray, np.ndarray, float]:
    """(translation, rotation w-x-y-z, scale) of a matrix that must be a uniform-scale transform."""
    location, rotation, scale = matrix.decompose()
    if max(scale) - min(scale) > 1e-4 * max(abs(max(scale)), 1e-9):
        raise SimulationSetupError(f"{subject}: non-uniform scale {tuple(round(s, 4) for s in scale)} "
                                   "on a body's parent frame; apply the scale to its colliders")
    return np.array(location), np.array(rotation), float(scale[0])


class BodyWriter:
    """Writes simulated world poses onto body objects (batched ``foreach_set``), and restores them."""

    def __init__(self, objects: list, poses: np.ndarray, rows: list[int], row_of: dict):
        from ..sim.poses import Frames, LocalPoses

        self.objects = [objects[r] for r in rows]
        self.rows = np.asarray(rows, dtype=np.int64)
        self.saved = [(o.rotation_mode, o.matrix_basis.copy()) for o in self.objects]
        for obj in self.objects:
            obj.rotation_mode = "QUATERNION"  # converts the current rotation
        n = len(objects)
        parent = np.full(n, -1)
        t, q, s = np.zeros((n, 3)), np.tile([1.0, 0.0, 0.0, 0.0], (n, 1)), np.ones(n)
        for i, obj in enumerate(objects):
            if obj.parent is None:
                continue
            frame = obj.parent.matrix_world @ obj.matrix_parent_inverse
            if obj.parent.name in row_of:  # offset from the parent body's pose: fixed while simulating
                parent[i] = row_of[obj.parent.name]
                pose = poses[parent[i]]
                parent_pose = Matrix.LocRotScale(Vector(pose[:3]), Quaternion(pose[3:]), None)
                frame = parent_pose.inverted() @ frame
            t[i], q[i], s[i] = _similarity(frame, obj.name)
        self.frames = Frames(parent, t, q, s)
        self.local = LocalPoses(self.frames, self.rows)
        self._index()

    def _index(self):
        data = bpy.data.objects
        self.count = len(data)
        index = {obj.name: i for i, obj in enumerate(data)}
        self.slots = np.array([index[o.name] for o in self.objects], dtype=np.int64)
        self.location = np.empty(self.count * 3, dtype=np.float32)
        self.rotation = np.empty(self.count * 4, dtype=np.float32)
        self.refresh()

    def refresh(self):
        """Re-read every object's location/rotation (after the frame changed other objects)."""
        if len(bpy.data.objects) != self.count:
            self._index()
            return
        bpy.data.objects.foreach_get("location", self.location)
        bpy.data.objects.foreach_get("rotation_quaternion", self.rotation)

    def write(self, poses: np.ndarray):
        if not len(self.rows):
            return
        location, rotation = self.local(poses)
        self.location.reshape(-1, 3)[self.slots] = location
        self.rotation.reshape(-1, 4)[self.slots] = rotation
        bpy.data.objects.foreach_set("location", self.location)
        bpy.data.objects.foreach_set("rotation_quaternion", self.rotation)
        for obj in self.objects:
            obj.update_tag(refresh={"OBJECT"})

    def restore(self):
        for obj, (mode, basis) in zip(self.objects, self.saved):
            obj.rotation_mode = mode
            obj.matrix_basis = basis


class BlenderSimulation:
    """The scene's bodies simulated from the current frame, moving their Blender objects.

    ``dt`` is the physics step (default: the scene's steps per second); kinematic bodies follow
    their animation and animated drive targets are applied, frame by frame.
    """

    def __init__(self, context, solver: Optional[str] = None, dt: Optional[float] = None, on_status=None,
                 show_replicas: bool = True):
        from ..addon.adapters.blender_to_description import blender_problems, scene_from_blender
        from ..core.validation import first_error, validate
        from ..sim.simulation import Simulation

        scene = self.scene = context.scene
        self.description = scene_from_blender(scene)
        if not self.description.bodies:
            raise SimulationSetupError("nothing to simulate: no object is a physics body")
        problem = first_error(validate(self.description) + blender_problems(scene))
        if problem is not None:
            raise SimulationSetupError(str(problem))
        self.frame_start = scene.frame_current
        self.frame = scene.frame_current
        self.frame_dt = scene.render.fps_base / scene.render.fps
        self.sim = Simulation(self.description, device=_device(context),
                              solver=None if solver in (None, "SCENE") else solver, dt=dt, on_status=on_status)
        names = [name for name, replica in self.sim.body_keys if replica == 0]
        self.row_of = {name: i for i, name in enumerate(names)}
        self.objects = [scene.objects[name] for name in names]
        kinematic = {b.name for b in self.description.bodies if b.kinematic}
        self.kinematic = [o for o in self.objects if o.name in kinematic]
        self.targets = self._animated_targets()
        self.follows_animation = bool(self.kinematic or self.targets)
        poses = self.sim.body_poses()
        dynamic = [self.row_of[o.name] for o in self.objects if o.name not in kinematic]
        # Before the writer, which indexes bpy.data.objects (the display adds objects).
        self.replicas = self._show_replicas(poses) if show_replicas else None
        self.writer = BodyWriter(self.objects, poses, dynamic, self.row_of)
        self.wall = 0.0
        self.steps_per_second = 0.0

    def replica_visuals(self) -> list:
        """The visuals shown for replicas 1..N-1 (none with one replica)."""
        from ..addon.replicas import replica_visuals

        if self.sim.replicas <= 1:
            return []
        return replica_visuals(self.scene, self.description.visuals, self.sim.body_keys)

    def _show_replicas(self, poses: np.ndarray):
        from ..addon.replicas import ReplicaDisplay

        visuals = self.replica_visuals()
        if not visuals:
            return None
        display = ReplicaDisplay(self.scene, visuals)
        display.write(poses)
        return display

    def _animated_targets(self) -> list[tuple]:
        """(joint object, dof index, (joint, axis)) of drive targets that are animated or driven."""
        targets = []
        for joint in self.description.joints:
            obj = self.scene.objects.get(joint.name)
            anim = obj.animation_data if obj else None
            if anim is None:
                continue
            paths = {fc.data_path for fc in _fcurves(anim)} | {d.data_path for d in anim.drivers}
            for index, dof in enumerate(obj.articula.joint.dofs):
                path = f"articula.joint.dofs[{index}].target_position"
                if path in paths and dof.drive_enabled:
                    targets.append((obj, index, (joint.name, dof.axis)))
        return targets

    def _follow_frame(self, frame: int):
        """Move the scene to ``frame`` and hand kinematic poses and drive targets to the simulation."""
        from ..core.model import Pose

        self.scene.frame_set(frame)
        if self.kinematic:
            poses = {}
            for obj in self.kinematic:
                location, rotation, _ = obj.matrix_world.decompose()
                poses[obj.name] = Pose(tuple(location), tuple(rotation))
            self.sim.set_kinematic_poses(poses)
        if self.targets:
            self.sim.set_drive_targets({key: obj.articula.joint.dofs[i].target_position
                                        for obj, i, key in self.targets})
        self.writer.refresh()

    def advance_frame(self, write: bool = True):
        """One frame: follow the animation, step, write the poses back. Raises SimulationDiverged."""
        started = time.perf_counter()
        if self.follows_animation:
            self._follow_frame(self.frame + 1)
        steps = self.sim.advance(self.frame_dt)
        self.frame += 1
        if write:
            poses = self.sim.body_poses()
            self.writer.write(poses)
            if self.replicas is not None:
                self.replicas.write(poses)
        elapsed = time.perf_counter() - started
        self.wall += elapsed
        self.steps_per_second = steps / elapsed if elapsed > 0 else 0.0

    def local_poses(self) -> tuple[np.ndarray, np.ndarray]:
        """Location and rotation of the written (dynamic) bodies in their parents' frames (copies)."""
        location, rotation = self.writer.local(self.sim.body_poses())
        return location.copy(), rotation.copy()

    def close(self):
        """Remove the replica display (the bodies keep their poses)."""
        if self.replicas is not None:
            self.replicas.remove()
            self.replicas = None

    def restore(self):
        """Back to the poses and frame of the start, without the replica display."""
        self.close()
        self.writer.restore()
        if self.scene.frame_current != self.frame_start:
            self.scene.frame_set(self.frame_start)

    def status(self, paused: bool = False) -> str:
        state = "paused" if paused else f"{self.steps_per_second:,.0f} steps/s"
        return (f"Articula {self.sim.solver_kind.value}: t = {self.sim.time:.2f} s, {state}  |  "
                "Space pause, \u2192 step, Enter keep, Esc cancel")


def _fcurves(anim_data) -> list:
    """F-curves of an object's action on 4.4+ layered actions and older flat ones alike."""
    action = anim_data.action
    if action is None:
        return []
    slot = getattr(anim_data, "action_slot", None)
    if hasattr(action, "layers") and slot is not None:
        curves = []
        for layer in action.layers:
            for strip in layer.strips:
                bag = strip.channelbag(slot) if hasattr(strip, "channelbag") else None
                if bag is not None:
                    curves.extend(bag.fcurves)
        return curves
    return list(getattr(action, "fcurves", []))


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
            self.session.close()
            return "FINISHED"
        elif request == "CANCEL" or event_type == "ESC":
            self.session.restore()
            return "CANCELLED"
        else:
            return "PASS_THROUGH"  # viewport navigation keeps working
        return "RUNNING"

    def status(self) -> str:
        return self.session.status(self.paused)


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
            self.report({"ERROR"}, f"Cannot simulate: {error}")
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
        loop.session.close()
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

register, unregister = bpy.utils.register_classes_factory(classes)
