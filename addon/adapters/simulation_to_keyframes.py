"""The simulation over a frame range -> keyframes (location + rotation_quaternion): the bake.

Keys are written with the fast path (``keyframe_points.add`` + ``foreach_set("co")``) into one
layered action (Blender 4.4+ slots/layers/strips/channelbags) holding a slot per baked body.
A bake is a transaction (:class:`BakeJob`): it validates and simulates with the earlier bake set
aside, writes a new action, and only then replaces the earlier bake; a bake that fails or is
cancelled leaves every key, action, pose and the current frame as they were. :func:`clear_bake`
removes the bake and puts every body back where it was before baking (its location, rotation,
rotation mode and any action it had; its scale and other later edits stay).

Replicas: only replica 0 (the real objects) is baked to keyframes; keys for every replica would
need an object per replica and body. Replicas 1..N-1 are baked into the instancing display of
``addon.replicas`` (every frame's poses as points with a frame attribute, played back by the
node group at the scene frame), which clear_bake and re-baking remove with the rest.
"""

from __future__ import annotations

import threading
import time
from typing import Optional

import bpy
import numpy as np
from mathutils import Matrix

from ..replicas import ReplicaDisplay, remove_replicas
from ..simulation_session import BlenderSimulation
from .blender_to_description import BAKE_MARK, is_bake_animated
from .readings_to_keyframes import clear_readings, write_readings

BAKE_ACTION = "Articula Bake"
PREBAKE = "articula_prebake"  # on each baked object: what clear_bake restores
LINEAR = 1  # Keyframe.interpolation enum index: CONSTANT, LINEAR, BEZIER
CHANNELS = [("location", i) for i in range(3)] + [("rotation_quaternion", i) for i in range(4)]
def bake_action() -> Optional[bpy.types.Action]:
    return next((a for a in bpy.data.actions if a.get(BAKE_MARK)), None)


#: The rotation property that holds an object's rotation in each rotation mode (Euler modes: the rest).
_ROTATION_OF_MODE = {"QUATERNION": "rotation_quaternion", "AXIS_ANGLE": "rotation_axis_angle"}


def _pose_values(obj) -> dict:
    """``obj``'s location and rotation as stored (its rotation mode's property), for a record that puts
    them back exactly: a matrix's decomposition moves them by float noise at each bake, so the robot
    crept and a re-bake never found its built model in ``sim.model_cache``."""
    rotation = getattr(obj, _ROTATION_OF_MODE.get(obj.rotation_mode, "rotation_euler"))
    return {"location": list(obj.location), "rotation": list(rotation)}


def _put_back(obj, saved) -> None:
    """The pre-bake location, rotation and rotation mode of ``obj`` (what a bake animates); its
    scale and everything else stay as they are now, so edits made after the bake survive."""
    obj.rotation_mode = saved["mode"]
    if saved.get("location") is not None:  # the values themselves (records of earlier versions: the basis)
        obj.location = saved["location"]
        setattr(obj, _ROTATION_OF_MODE.get(obj.rotation_mode, "rotation_euler"), saved["rotation"])
        return
    location, rotation, _ = Matrix(np.reshape(saved["basis"], (4, 4)).tolist()).decompose()
    obj.location = location
    if obj.rotation_mode == "QUATERNION":
        obj.rotation_quaternion = rotation
    elif obj.rotation_mode == "AXIS_ANGLE":
        axis, angle = rotation.to_axis_angle()
        obj.rotation_axis_angle = (angle, *axis)
    else:
        obj.rotation_euler = rotation.to_euler(obj.rotation_mode, obj.rotation_euler)


def _unbake(obj, saved) -> None:
    """``obj`` off the bake: its own earlier action back, its pre-bake pose."""
    anim = obj.animation_data
    if anim is not None and is_bake_animated(obj):
        anim.action = bpy.data.actions.get(saved.get("action", "")) or None
    _put_back(obj, saved)


def clear_bake(scene) -> int:
    """Remove the bake (and its replica display); restore each baked body's pre-bake pose and
    action (later edits to what the bake does not animate, such as scale, stay). Returns bodies
    restored."""
    remove_replicas()
    clear_readings(scene)
    action = bake_action()
    restored = 0
    for obj in scene.objects:
        saved = obj.get(PREBAKE)
        if saved is None:
            continue
        _unbake(obj, saved)
        del obj[PREBAKE]
        restored += 1
    if action is not None:
        bpy.data.actions.remove(action)
    return restored


class SceneSnapshot:
    """What a bake may change, taken before it starts, so that a bake that fails or is cancelled
    leaves the scene exactly as it was: the frame, and per body (or earlier-baked object) its
    transform, rotation mode, action and slot, pre-bake record and rest."""

    def __init__(self, scene):
        self.scene = scene
        self.frame = (scene.frame_current, scene.frame_subframe)
        self.objects = []
        for obj in scene.objects:
            if not (obj.articula.body.enabled or obj.get(PREBAKE) is not None):
                continue
            anim = obj.animation_data
            saved = obj.get(PREBAKE)
            body = obj.articula.body
            self.objects.append((
                obj, obj.rotation_mode, obj.matrix_basis.copy(), anim is not None,
                anim.action if anim is not None else None,
                anim.action_slot if anim is not None and anim.action is not None else None,
                saved.to_dict() if saved is not None else None,
                (body.posed, tuple(body.rest_location), tuple(body.rest_rotation))))

    def restore(self):
        for obj, mode, basis, had_anim, action, slot, saved, rest in self.objects:
            anim = obj.animation_data
            if not had_anim:
                if anim is not None:
                    obj.animation_data_clear()
            else:
                anim.action = action
                if action is not None and slot is not None:
                    anim.action_slot = slot
            obj.rotation_mode = mode
            obj.matrix_basis = basis
            if saved is None:
                obj.pop(PREBAKE, None)
            else:
                obj[PREBAKE] = saved
            body = obj.articula.body
            body.posed, body.rest_location, body.rest_rotation = rest
        self.scene.frame_set(self.frame[0], subframe=self.frame[1])


def continuous_quaternions(rotation: np.ndarray) -> np.ndarray:
    """Flip signs along the frames (axis 0) so neighbouring keys interpolate the short way."""
    flips = np.ones(rotation.shape[:2])
    dots = np.einsum("fbi,fbi->fb", rotation[1:], rotation[:-1])
    flips[1:] = np.where(dots < 0.0, -1.0, 1.0)
    return rotation * np.cumprod(flips, axis=0)[..., None]


def write_keys(objects: list, first_frame: int, locations: np.ndarray, rotations: np.ndarray) -> bpy.types.Action:
    """One layered action, one slot per object, seven F-curves each, every frame keyed."""
    count = locations.shape[0]
    action = bpy.data.actions.new(BAKE_ACTION)
    action[BAKE_MARK] = True
    strip = action.layers.new("Articula").strips.new(type="KEYFRAME")
    co = np.empty(2 * count, dtype=np.float32)
    co[0::2] = np.arange(first_frame, first_frame + count)
    interpolation = np.full(count, LINEAR, dtype=np.int32)
    values = np.concatenate([locations, rotations], axis=2)  # (frames, bodies, 7)
    for b, obj in enumerate(objects):
        anim = obj.animation_data or obj.animation_data_create()
        slot = action.slots.new(id_type="OBJECT", name=obj.name)
        anim.action = action
        anim.action_slot = slot
        bag = strip.channelbag(slot, ensure=True)
        for c, (path, index) in enumerate(CHANNELS):
            curve = bag.fcurves.new(path, index=index)  # (4.5 has no group_name here)
            curve.keyframe_points.add(count)
            co[1::2] = values[:, b, c]
            curve.keyframe_points.foreach_set("co", co)
            curve.keyframe_points.foreach_set("interpolation", interpolation)
            curve.update()
    return action


class BakeJob:
    """One bake as a transaction, stepped a little at a time (the modal operator) or at once
    (:func:`bake`).

    Construction validates and builds the simulation from ``frame_start`` with the earlier bake
    set aside (its keys stay; a cold Warp kernel build happens here, before any progress shows);
    :meth:`run` simulates on the calling thread for a time budget, :meth:`poll` (the modal bake)
    hands each frame's physics to a worker thread; both return whether every frame is done;
    :meth:`finish` writes the keys into a new action and only then replaces the
    earlier bake; :meth:`cancel` (also on any error) puts every key, action, pose and the current
    frame back as they were. Progress: :attr:`fraction`, :meth:`seconds_left`.
    """

    #: Steps timed before :meth:`seconds_left` gives an estimate (the first step is not timed).
    TIMED_STEPS = 2
    #: Each body's location and rotation values before the bake (:func:`_pose_values`), kept in its record.
    _pose_values: dict = {}

    def __init__(self, context, frame_start: int, frame_end: int, solver: Optional[str] = None,
                 substeps: int = 0, on_status=None):
        scene = self.scene = context.scene
        if frame_end <= frame_start:
            raise ValueError(f"the frame range {frame_start}..{frame_end} is empty")
        fps = scene.render.fps / scene.render.fps_base
        if substeps <= 0:  # (steps per second <= 0 is refused by validation, below)
            substeps = max(1, round(scene.articula.steps_per_second / fps))
        self.frame_start, self.frame_end = frame_start, frame_end
        self.count = frame_end - frame_start + 1
        self.snapshot = SceneSnapshot(scene)
        self.session: Optional[BlenderSimulation] = None
        self.done = False
        self._stop = threading.Event()
        self._worker: Optional[threading.Thread] = None
        self._error: Optional[BaseException] = None
        self._step_in_frame = 0
        self._step_times: list[float] = []
        try:
            for obj in scene.objects:  # the earlier bake set aside: simulate from the pre-bake poses
                saved = obj.get(PREBAKE)
                if saved is not None:
                    _unbake(obj, saved)
            scene.frame_set(frame_start)
            self._pose_values = {obj: _pose_values(obj) for obj in scene.objects if obj.articula.body.enabled}
            self.session = BlenderSimulation(context, solver, dt=1.0 / (fps * substeps), on_status=on_status,
                                             show_replicas=False)
            visuals = self.visuals = self.session.replica_visuals()
            self.rows = np.concatenate([v.rows for v in visuals]) if visuals else None
            location, rotation = self.session.local_poses()
            self.locations = np.empty((self.count,) + location.shape)
            self.rotations = np.empty((self.count,) + rotation.shape)
            self.points = np.empty((self.count, len(self.rows), 7), dtype=np.float32) if visuals else None
            self._record(0)
            self.frames_done = 1
            self.steps_per_frame = self.session.sim.steps_per_frame(self.session.frame_dt)
            self._steps = None  # the frame being stepped (run())
        except BaseException:
            self.cancel()
            raise

    def _record(self, i: int):
        self.locations[i], self.rotations[i] = self.session.local_poses()
        self.session.readings.record()
        if self.rows is not None:
            self.points[i] = self.session.sim.body_poses()[self.rows].astype(np.float32)

    @property
    def total_steps(self) -> int:
        return (self.count - 1) * self.steps_per_frame

    @property
    def steps_done(self) -> int:
        return (self.frames_done - 1) * self.steps_per_frame + self._step_in_frame

    @property
    def fraction(self) -> float:
        return self.steps_done / self.total_steps if self.total_steps else 1.0

    def seconds_left(self) -> Optional[float]:
        """Time left from the steps timed so far (None until enough were)."""
        times = self._step_times[1:]  # the first step pays for lazy set-up
        if len(times) < self.TIMED_STEPS:
            return None
        return sum(times) / len(times) * (self.total_steps - self.steps_done)

    def run(self, budget: Optional[float] = None) -> bool:
        """Simulate for about ``budget`` seconds (None: to the end); True when every frame is done.
        Raises SimulationDiverged (and anything else) after putting the scene back."""
        deadline = None if budget is None else time.perf_counter() + budget
        try:
            while self.frames_done < self.count:
                if self._steps is None:
                    self._steps = self.session.frame_steps(write=False)
                    self._step_in_frame = 0
                started = time.perf_counter()
                done, total = next(self._steps)
                self._step_times.append(time.perf_counter() - started)
                self._step_in_frame = done
                if done == total:  # the frame is complete
                    next(self._steps, None)
                    self._steps = None
                    self._record(self.frames_done)
                    self.frames_done += 1
                    self._step_in_frame = 0
                if deadline is not None and time.perf_counter() >= deadline:
                    break
        except BaseException:
            self.cancel()
            raise
        return self.frames_done >= self.count

    def poll(self) -> bool:
        """The modal bake's step, which never waits for the physics: each frame's physics steps run
        in a worker thread (bpy-free), so the UI and Esc stay responsive however long one step
        takes; Blender's side of each frame (following the animation, recording the poses) runs
        here. Returns True when every frame is done; on an error puts the scene back and raises it."""
        worker = self._worker
        if worker is not None:
            if worker.is_alive():
                return False
            worker.join()
            self._worker = None
            if self._error is not None:
                error, self._error = self._error, None
                self.cancel()
                raise error
            try:
                self.session.end_frame(self._frame_started, self._step_in_frame, write=False)
                self._record(self.frames_done)
            except BaseException:
                self.cancel()
                raise
            self.frames_done += 1
            self._step_in_frame = 0
        if self.frames_done >= self.count:
            return True
        try:
            self._frame_started = self.session.begin_frame()
        except BaseException:
            self.cancel()
            raise
        self._worker = threading.Thread(target=self._physics, name="articula-bake", daemon=True)
        self._worker.start()
        return False

    def _physics(self):
        """One frame's physics steps (the worker thread); stops between steps once cancelled."""
        import warp as wp

        try:
            with wp.ScopedDevice(self.session.sim.device):
                before = time.perf_counter()
                for done, _ in self.session.physics_steps():
                    now = time.perf_counter()
                    self._step_times.append(now - before)
                    before = now
                    self._step_in_frame = done
                    if self._stop.is_set():
                        return
        except BaseException as error:  # handed to poll() on the main thread
            self._error = error

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Wait for the worker thread (if any) to end; True when none runs any more."""
        worker = self._worker
        if worker is not None:
            worker.join(timeout)
            return not worker.is_alive()
        return True

    def cancel(self):
        """Everything back as it was before the bake (idempotent). A worker thread in the middle
        of a physics step is not waited for: it stops after that step, and its result is dropped."""
        self._stop.set()
        if self.done:
            return
        self.done = True
        if self.session is not None:  # a worker still in its step keeps the simulation to itself
            self.session.restore(release=self._worker is None or not self._worker.is_alive())
        self.snapshot.restore()

    def finish(self) -> bpy.types.Action:
        """Write the keys into a new action, then replace the earlier bake by it."""
        try:
            objects = self.session.writer.objects
            action = write_keys(objects, self.frame_start, self.locations,
                                continuous_quaternions(self.rotations))
            write_readings(self.scene, action, self.session.readings, self.frame_start)
        except BaseException:
            self.cancel()
            raise
        self.done = True
        baked = set(objects)
        for old in [a for a in bpy.data.actions if a.get(BAKE_MARK) and a != action]:
            bpy.data.actions.remove(old)
        for obj in self.scene.objects:  # baked before but not now: back to its pre-bake state
            saved = obj.get(PREBAKE)
            if saved is not None and obj not in baked:
                _unbake(obj, saved)
                del obj[PREBAKE]
        for obj, (mode, basis) in zip(objects, self.session.writer.saved):
            previous = self.snapshot_action(obj)
            obj[PREBAKE] = {"mode": mode, "basis": [v for row in basis for v in row], "action": previous,
                            **self._pose_values.get(obj, {})}
        remove_replicas()
        if self.visuals:
            display = ReplicaDisplay(self.scene, self.visuals, frames=self.count)
            display.write_frames(self.frame_start, self.points)
        frame, subframe = self.snapshot.frame
        self.scene.frame_set(frame, subframe=subframe)
        self.session.close()  # the simulation ends: its built robot is kept for the next bake
        return action

    def snapshot_action(self, obj) -> str:
        """The name of the object's own action (not a bake) from before this bake."""
        saved = obj.get(PREBAKE)
        if saved is not None:
            return saved.get("action", "")
        for entry in self.snapshot.objects:
            if entry[0] == obj:
                action = entry[4]
                return action.name if action is not None and not action.get(BAKE_MARK) else ""
        return ""


def bake(context, frame_start: int, frame_end: int, solver: Optional[str] = None, substeps: int = 0,
         on_status=None, progress=None) -> tuple[BlenderSimulation, bpy.types.Action]:
    """Simulate ``frame_start..frame_end`` and key it; step = 1 / (fps * substeps).

    ``substeps`` 0 picks the count closest to the scene's steps per second. A transaction: on
    any error the scene is left as it was (an earlier bake included)."""
    job = BakeJob(context, frame_start, frame_end, solver, substeps, on_status)
    while not job.run(budget=0.25):
        if progress:
            progress(job.fraction)
    return job.session, job.finish()
