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
"""

from __future__ import annotations

from .sensor_reader import (CHANNELS, POSITIVE_KINDS, UNCLAMPED_KINDS, SensorReader, apply_cutoff,
                            channel_names)
from .sensors_mujoco import MuJoCoSensorReader
from .sensors_newton import NewtonSensorReader

__all__ = ["CHANNELS", "POSITIVE_KINDS", "UNCLAMPED_KINDS", "MuJoCoSensorReader", "NewtonSensorReader",
           "SensorReader", "apply_cutoff", "channel_names"]
