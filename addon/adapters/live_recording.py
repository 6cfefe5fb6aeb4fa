"""The live simulation -> keyframes as it runs (Simulate with Record on), a transaction like the bake.

:class:`LiveRecording` is a :class:`BakeJob` whose frames come from the live session instead of a
fixed range: it sets the earlier bake aside and snapshots the scene the same way, records the
starting frame and every simulated frame, and :meth:`finish` (Stop & Keep) writes them as the bake
from the frame the simulation started at, replacing the earlier bake only then; :meth:`cancel`
(Esc, Cancel, a blow-up) leaves every key, action, pose and the frame as they were.
"""

from __future__ import annotations

import threading

import numpy as np

from ..simulation_session import BlenderSimulation
from .simulation_to_keyframes import PREBAKE, BakeJob, SceneSnapshot, _pose_values, _unbake


class LiveRecording(BakeJob):
    """Record the frames of a live :class:`BlenderSimulation` (the session it builds)."""

    def __init__(self, context, solver=None, on_status=None):
        scene = self.scene = context.scene
        self.snapshot = SceneSnapshot(scene)
        self.session = None
        self.done = False
        self._stop = threading.Event()
        self._worker = None
        try:
            for obj in scene.objects:  # the earlier bake set aside, as a bake does
                saved = obj.get(PREBAKE)
                if saved is not None:
                    _unbake(obj, saved)
            scene.frame_set(self.snapshot.frame[0])
            self._pose_values = {obj: _pose_values(obj) for obj in scene.objects if obj.articula.body.enabled}
            self.frame_start = scene.frame_current
            self.session = BlenderSimulation(context, solver, on_status=on_status)
            self.visuals = self.session.replica_visuals()
            self.rows = np.concatenate([v.rows for v in self.visuals]) if self.visuals else None
            self._locations, self._rotations, self._points = [], [], []
            self.record()
        except BaseException:
            self.cancel()
            raise

    def record(self):
        """Keep the session's current frame (call after each simulated frame)."""
        location, rotation = self.session.local_poses()
        self._locations.append(location)
        self._rotations.append(rotation)
        self.session.readings.record()
        if self.rows is not None:
            self._points.append(self.session.sim.body_poses()[self.rows].astype(np.float32))

    @property
    def frames(self) -> int:
        return len(self._locations)

    def finish(self):
        """Write the recorded frames as the bake (the earlier bake replaced only now)."""
        self.count = self.frames
        self.locations = np.array(self._locations)
        self.rotations = np.array(self._rotations)
        self.points = np.array(self._points) if self.rows is not None else None
        return super().finish()
