"""What every sensor reader shares, below the readers of each solver: the channels of MuJoCo's sensor
kinds, MuJoCo's cutoff, and :class:`SensorReader`, their base. :mod:`sim.sensors` (above the readers)
is where they are used from; see it.
"""

from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from ..core.model import PhysicsScene, Sensor

__all__ = ["CHANNELS", "POSITIVE_KINDS", "UNCLAMPED_KINDS", "SensorReader", "apply_cutoff", "channel_names",
           "on_mujoco_c"]

XYZ = ("x", "y", "z")
WXYZ = ("w", "x", "y", "z")
VALUE = ("value",)

#: Channels of each MuJoCo sensor kind with a fixed size (joint sensors: one per DOF, see channel_names).
CHANNELS: dict[str, tuple[str, ...]] = {
    **{kind: XYZ for kind in ("accelerometer", "velocimeter", "gyro", "force", "torque", "magnetometer",
                              "framepos", "framexaxis", "frameyaxis", "framezaxis", "framelinvel",
                              "frameangvel", "framelinacc", "frameangacc", "subtreecom", "subtreelinvel",
                              "subtreeangmom")},
    **{kind: VALUE for kind in ("touch", "rangefinder", "actuatorpos", "actuatorvel", "actuatorfrc",
                                "jointactuatorfrc", "tendonpos", "tendonvel", "tendonactfrc", "jointlimitpos",
                                "jointlimitvel", "jointlimitfrc", "tendonlimitpos", "tendonlimitvel",
                                "tendonlimitfrc", "clock", "e_potential", "e_kinetic", "jointpos",
                                "jointvel")},
    "framequat": WXYZ,
    "ballquat": WXYZ,
    "ballangvel": XYZ,
    "camprojection": ("u", "v"),
}

#: Kinds whose reading is never negative: MuJoCo's cutoff clamps only from above.
POSITIVE_KINDS = frozenset({"touch", "rangefinder"})
#: Kinds MuJoCo applies no cutoff to (unit quaternions and axes).
UNCLAMPED_KINDS = frozenset({"framequat", "ballquat", "framexaxis", "frameyaxis", "framezaxis"})

#: A MuJoCo contact sensor's fields in its ``data`` order, with their sizes.
_CONTACT_FIELDS = (("found", 1), ("force", 3), ("torque", 3), ("dist", 1), ("pos", 3), ("normal", 3),
                   ("tangent", 3))


def channel_names(sensor: Sensor, dim: Optional[int] = None) -> tuple[str, ...]:
    """The names of ``sensor``'s values in reading order (``accelerometer``: x, y, z; ``framequat``: w, x,
    y, z; ``touch``: value). ``dim``, when a compiled model knows it, sizes the kinds whose size the
    file sets (``user``, ``contact``, ``tactile``...): their values are then named by index or field."""
    kind = sensor.kind
    if kind == "contact":
        return _contact_channels(sensor, dim)
    names = CHANNELS.get(kind)
    if names is not None and (dim is None or dim == len(names)):
        return names
    size = dim if dim is not None else int(sensor.settings.get("dim", 1))
    return tuple(str(i) for i in range(size))


def _contact_channels(sensor: Sensor, dim: Optional[int]) -> tuple[str, ...]:
    fields = sensor.settings.get("data", "found").split()
    one = [f"{name}_{axis}" if size == 3 else name
           for name, size in _CONTACT_FIELDS if name in fields for axis in (XYZ if size == 3 else ("",))]
    per_contact = len(one) or 1
    count = int(sensor.settings.get("num", 1)) if dim is None else max(1, dim // per_contact)
    names = tuple(f"{i}_{name}" if count > 1 else name for i in range(count) for name in one)
    if dim is not None and len(names) != dim:
        return tuple(str(i) for i in range(dim))
    return names


def apply_cutoff(sensor: Sensor, values: np.ndarray) -> np.ndarray:
    """``values`` clamped as MuJoCo clamps ``sensor``'s data by its ``cutoff`` (0: none)."""
    if sensor.cutoff <= 0 or sensor.kind in UNCLAMPED_KINDS:
        return values
    low = 0.0 if sensor.kind in POSITIVE_KINDS else -sensor.cutoff
    return np.clip(values, low, sensor.cutoff)


def on_mujoco_c(sim) -> bool:
    """True for a simulation on MuJoCo's C library (:class:`sim.mujoco_spec.MuJoCoSimulation`)."""
    return getattr(sim, "mj_model", None) is not None and hasattr(sim, "datas")


class SensorReader:
    """Every sensor of a simulation's scene read from its current state; see the module.

    Subclasses fill :meth:`_values` (one sensor's values, or None when it has none now) and the
    reasons in :attr:`unavailable`."""

    #: The readers for each kind of simulation, in the order they were defined (see :meth:`reads`).
    kinds: list[type["SensorReader"]] = []
    #: Loaders that import the module of a simulation's reader where none defined yet reads it (given by
    #: :mod:`sim.sensors`: each solver's reader is imported only when first used).
    loaders: list[Callable[[object], None]] = []

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        SensorReader.kinds.append(cls)

    def __init__(self, sim, scene: PhysicsScene):
        self.sim = sim
        self.scene = scene
        self.sensors: dict[str, Sensor] = {s.name: s for s in scene.sensors}
        self.unavailable: dict[str, str] = {}
        self.notes: dict[str, str] = {}  # where a reading means less than MuJoCo's (a flag for a force)

    @classmethod
    def reads(cls, sim) -> bool:
        """True when this reader reads ``sim``'s kind of simulation."""
        raise NotImplementedError

    @staticmethod
    def of(sim) -> "SensorReader":
        """The reader for ``sim``'s solver: MuJoCo's ``sensordata`` on MuJoCo's C library, Newton's state
        otherwise (the readers are :mod:`sim.sensors_mujoco` and :mod:`sim.sensors_newton`, which
        :mod:`sim.sensors` loads on first use)."""
        for load in SensorReader.loaders:
            load(sim)
        for kind in SensorReader.kinds:
            if kind.reads(sim):
                return kind(sim)
        raise TypeError(f"no sensor reader reads a {type(sim).__name__}: import articula.sim.sensors")

    def channel_names(self, name: str) -> tuple[str, ...]:
        return channel_names(self.sensors[name])

    def read(self, replica: int = 0) -> dict[str, dict[str, float]]:
        """Each sensor's reading now, {sensor name: {channel: value}}. Left out: the sensors this solver
        cannot read (:attr:`unavailable` says why) and, on Newton, accelerations and joint wrenches until
        a step has given them."""
        readings = {}
        for name, sensor in self.sensors.items():
            if name in self.unavailable:
                continue
            values = self._values(sensor, replica)
            if values is None:
                continue
            values = apply_cutoff(sensor, np.asarray(values, dtype=float))
            readings[name] = dict(zip(self.channel_names(name), (float(v) for v in values)))
        return readings

    def _values(self, sensor: Sensor, replica: int) -> Optional[np.ndarray]:
        raise NotImplementedError
