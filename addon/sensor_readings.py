"""The readings of a running simulation's sensors, frame by frame, for the panel and the bake.

:class:`SessionReadings` is made with each :class:`addon.simulation_session.BlenderSimulation`: it reads
every sensor of the description (``sim.sensors``) at the start and once per simulated frame
(:meth:`update`; Newton's accelerations are means since the last reading, so never read twice a
frame), keeps the latest for the panel and, when a bake or recording asks (:meth:`record`), the
history that ``adapters.readings_to_keyframes`` keys. :func:`live_readings` is the one shown now.
"""

from __future__ import annotations

from typing import Optional

#: The readings of the simulation running now (the panel's), None when none runs.
_LIVE: Optional["SessionReadings"] = None


def live_readings() -> Optional["SessionReadings"]:
    return _LIVE


class SessionReadings:
    """A simulation's sensor readings: :attr:`latest` {sensor: {channel: value}}, :attr:`unavailable`
    {sensor: why the solver gives none}, :attr:`notes`, and :attr:`history` (one reading per recorded
    frame); :attr:`objects` maps each sensor's name to its Blender object."""

    def __init__(self, scene, description, sim):
        self.names = [sensor.name for sensor in description.sensors]
        self.objects = sensor_objects(scene, self.names) if self.names else {}
        self.reader = None
        self.unavailable: dict[str, str] = {}
        self.notes: dict[str, str] = {}
        self.latest: dict[str, dict[str, float]] = {}
        self.history: list[dict[str, dict[str, float]]] = []
        if self.names:
            from ..sim.sensors import SensorReader  # loaded only for a robot with sensors

            try:
                self.reader = SensorReader.of(sim)
            except Exception as error:  # the simulation runs on; its sensors say why they are not read
                self._fail(error)
                return
            self.notes = dict(self.reader.notes)
        self.update()

    def update(self) -> None:
        """Read every sensor now (once per simulated frame)."""
        if self.reader is None:
            return
        try:
            self.latest = self.reader.read()
        except Exception as error:
            self._fail(error)
            return
        self.unavailable = dict(self.reader.unavailable)

    def _fail(self, error: Exception) -> None:
        """No more readings: every sensor names the error instead."""
        self.reader, self.latest = None, {}
        self.unavailable = {name: f"the readings failed: {error}" for name in self.names}

    def record(self) -> None:
        """Keep the latest reading as the next frame's (a bake or recording)."""
        self.history.append(self.latest)

    def channel_names(self, name: str) -> tuple[str, ...]:
        return self.reader.channel_names(name) if self.reader is not None else ()

    def show(self) -> None:
        """Be the readings the panel lists."""
        global _LIVE
        _LIVE = self

    def hide(self) -> None:
        global _LIVE
        if _LIVE is self:
            _LIVE = None


def sensor_objects(scene, names: list[str]) -> dict:
    """Sensor name -> its Empty, named as the description names it (the file's name, or the
    object's where two sensors share one)."""
    from .adapters.blender_to_description import _frame_names

    empties = [o for o in scene.objects if o.type == "EMPTY" and o.articula.sensor.enabled]
    by_name = {name: obj for obj, name in _frame_names({"sensors": empties}).items()}
    return {name: by_name[name] for name in names if name in by_name}
