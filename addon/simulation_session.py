"""A live simulation of the scene's bodies, moving their Blender objects frame by frame.

:class:`BlenderSimulation` ties the bpy-free :class:`sim.Simulation` (stepping, pose math) to
Blender: the description read from the scene, the animation that feeds it each frame
(``adapters.animation_to_simulation``), the poses written back onto the body objects
(``adapters.poses_to_blender``) and, with ``scene.articula.replicas`` > 1, replicas 1..N-1 shown
by instancing (``addon.replicas``). The simulate operators and the bake drive it.
"""

from __future__ import annotations

import time
from typing import Optional

import numpy as np

from .adapters.animation_to_simulation import AnimationInputs
from .adapters.errors import SimulationSetupError
from .adapters.poses_to_blender import BodyWriter
from .reports import problem_text
from .replicas import ReplicaDisplay, replica_visuals
from .sensor_readings import SessionReadings


def forget_kept_robots() -> None:
    """Free the robots ``sim.model_cache`` keeps for the next bake (Newton models, MuJoCo solvers):
    the add-on is being disabled, and nothing will take them."""
    from ..sim import model_cache

    model_cache.clear()


def simulation_device(context) -> str:
    """The device of the Simulation Device preference: "auto", "cpu" or "cuda"."""
    from .preferences import preferences

    prefs = preferences(context)
    return prefs.device.lower() if prefs else "auto"


class BlenderSimulation:
    """The scene's bodies simulated from the current frame, moving their Blender objects.

    ``dt`` is the physics step (default: the scene's steps per second); kinematic bodies follow
    their animation and animated drive targets and actuator controls are applied, frame by frame.
    """

    def __init__(self, context, solver: Optional[str] = None, dt: Optional[float] = None, on_status=None,
                 show_replicas: bool = True):
        from ..core.validation import first_error, validate
        from ..sim.launch import start_simulation
        from .adapters.blender_to_description import (WorldFrames, away_from_rest, blender_problems,
                                                      capture_rest, scene_from_blender, world_pose)

        scene = self.scene = context.scene
        frames = WorldFrames().read_all(scene.objects)  # the world matrices, read once for all three
        capture_rest(scene.objects, frames)  # the rest stays stored while the bodies show states
        self.description = scene_from_blender(scene, frames=frames, visual_meshes=False)  # at rest
        if not self.description.bodies:
            raise SimulationSetupError("nothing to simulate: no object is a physics body")
        problem = first_error(validate(self.description) + blender_problems(scene, frames=frames))
        if problem is not None:
            raise SimulationSetupError(problem_text(problem))
        self.frame_start = scene.frame_current
        self.frame = scene.frame_current
        self.frame_dt = scene.render.fps_base / scene.render.fps
        self.sim = start_simulation(self.description, device=simulation_device(context),
                                    solver=None if solver in (None, "SCENE") else solver, dt=dt,
                                    on_status=on_status)
        names = [name for name, replica in self.sim.body_keys if replica == 0]
        self.row_of = {name: i for i, name in enumerate(names)}
        self.objects = [scene.objects[name] for name in names]
        if any(away_from_rest(o) for o in self.objects):  # start from the state shown, not the rest
            self.sim.set_start_poses({o.name: world_pose(o) for o in self.objects})
        self.animation = AnimationInputs(scene, self.description, self.objects)
        self.follows_animation = bool(self.animation.kinematic or self.animation.targets
                                      or self.animation.controls)
        poses = self.sim.body_poses()
        kinematic = {o.name for o in self.animation.kinematic}
        dynamic = [self.row_of[o.name] for o in self.objects if o.name not in kinematic]
        # Before the writer, which indexes bpy.data.objects (the display adds objects).
        self.replicas = self._show_replicas(poses) if show_replicas else None
        self.writer = BodyWriter(self.objects, poses, dynamic, self.row_of)
        self.readings = SessionReadings(scene, self.description, self.sim)  # the sensors' (read each frame)
        self.readings.show()
        self.wall = 0.0
        self.steps_per_second = 0.0

    def replica_visuals(self) -> list:
        """The visuals shown for replicas 1..N-1 (none with one replica)."""
        if self.sim.replicas <= 1:
            return []
        return replica_visuals(self.scene, self.description.visuals, self.sim.body_keys)

    def _show_replicas(self, poses: np.ndarray):
        visuals = self.replica_visuals()
        if not visuals:
            return None
        display = ReplicaDisplay(self.scene, visuals)
        display.write(poses)
        return display

    def _follow_frame(self, frame: int):
        """Move the scene to ``frame`` and hand kinematic poses and drive targets to the simulation."""
        self.scene.frame_set(frame)
        self.animation.feed(self.sim)
        self.writer.refresh()

    def advance_frame(self, write: bool = True):
        """One frame: follow the animation, step, write the poses back. Raises SimulationDiverged."""
        for _ in self.frame_steps(write):
            pass

    def frame_steps(self, write: bool = True):
        """:meth:`advance_frame` one physics step at a time: yields (steps done, steps in the
        frame) after each step (a long bake shows progress and can stop between steps)."""
        started = self.begin_frame()
        steps = 0
        for steps, count in self.physics_steps():
            if steps < count:
                yield steps, count
        self.end_frame(started, steps, write)
        yield steps, steps

    def begin_frame(self) -> float:
        """The Blender side of a frame's start (the animation followed); returns the start time."""
        started = time.perf_counter()
        if self.follows_animation:
            self._follow_frame(self.frame + 1)
        return started

    def physics_steps(self):
        """The frame's physics steps (bpy-free: may run in a worker thread), yielding
        (steps done, steps in the frame); raises SimulationDiverged at the end of the frame."""
        return self.sim.advance_steps(self.frame_dt)

    def end_frame(self, started: float, steps: int, write: bool = True):
        """The Blender side of a frame's end: count it, write the poses back (``write``)."""
        self.frame += 1
        self.readings.update()
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

    def close(self, release: bool = True):
        """Remove the replica display (the bodies keep their poses) and end the simulation: its
        built robot is kept for the next bake or run of the same robot (``sim.model_cache``) unless
        ``release`` is False (a worker thread may still be in a step on it)."""
        if self.replicas is not None:
            self.replicas.remove()
            self.replicas = None
        self.readings.hide()
        if release:
            self.sim.close()

    def keep(self):
        """Stop, keeping the simulated poses as a state of the robot: its rest does not move."""
        self.close()
        for obj in self.writer.objects:
            obj.articula.body.posed = True

    def restore(self, release: bool = True):
        """Back to the poses and frame of the start, without the replica display (``release``: see
        :meth:`close`)."""
        self.close(release)
        self.writer.restore()
        if self.scene.frame_current != self.frame_start:
            self.scene.frame_set(self.frame_start)

    def status(self, paused: bool = False) -> str:
        state = "paused" if paused else f"{self.steps_per_second:,.0f} steps/s"
        return f"Articula {self.sim.solver_kind.value}: t = {self.sim.time:.2f} s, {state}"
