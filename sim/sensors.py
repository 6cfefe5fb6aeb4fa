"""Sensor readings of a running simulation, by sensor name, in MuJoCo's terms (bpy-free).

    reader = SensorReader.of(sim)            # after building the Simulation
    sim.advance(1 / 24)
    readings = reader.read()                 # {sensor name: {channel: value}}
    reader.unavailable                       # {sensor name: why this solver gives no reading}
    reader.notes                             # {sensor name: how its reading differs from MuJoCo's}

Each sensor of ``scene.sensors`` (:class:`core.model.Sensor`) reads as MuJoCo defines it: the same
kind, frame, units and sign. On MuJoCo's C library (:class:`sim.mujoco_spec.MuJoCoSimulation`) the
readings are MuJoCo's own ``sensordata`` (:mod:`sim.sensors_mujoco`); on Newton's solvers they are
computed from Newton's state (:mod:`sim.sensors_newton`). A sensor a solver cannot give is never a
reading of zero: it is absent from :meth:`SensorReader.read` and :attr:`SensorReader.unavailable`
says why. No noise is added (MuJoCo's ``noise`` is metadata); ``cutoff`` clamps as MuJoCo does.

The two readers' modules load when first used (``SensorReader.of``, or their names from here): a
simulation on one solver never imports the other's reader.
"""

from __future__ import annotations

from importlib import import_module

from .sensor_reader import (CHANNELS, POSITIVE_KINDS, UNCLAMPED_KINDS, SensorReader, apply_cutoff,
                            channel_names)

_READERS = {"MuJoCoSensorReader": ".sensors_mujoco", "NewtonSensorReader": ".sensors_newton"}

__all__ = ["CHANNELS", "POSITIVE_KINDS", "UNCLAMPED_KINDS", "MuJoCoSensorReader", "NewtonSensorReader",
           "SensorReader", "apply_cutoff", "channel_names"]


def __getattr__(name):
    if name not in _READERS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_READERS[name], __package__), name)
