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

from .sensor_reader import (CHANNELS, POSITIVE_KINDS, UNCLAMPED_KINDS, SensorReader, apply_cutoff,
                            channel_names, on_mujoco_c)

__all__ = ["CHANNELS", "POSITIVE_KINDS", "UNCLAMPED_KINDS", "MuJoCoSensorReader", "NewtonSensorReader",
           "SensorReader", "apply_cutoff", "channel_names"]


def _load_reader(sim) -> None:
    """Import the module of ``sim``'s reader (its class adds itself to ``SensorReader.kinds``)."""
    if on_mujoco_c(sim):
        from . import sensors_mujoco  # noqa: F401
    else:
        from . import sensors_newton  # noqa: F401


SensorReader.loaders.append(_load_reader)


def __getattr__(name):  # the readers' names, importing their modules when asked for
    if name == "MuJoCoSensorReader":
        from .sensors_mujoco import MuJoCoSensorReader
        return MuJoCoSensorReader
    if name == "NewtonSensorReader":
        from .sensors_newton import NewtonSensorReader
        return NewtonSensorReader
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
