"""Sensor readings on MuJoCo's C library: MuJoCo's own ``sensordata``, sliced by sensor name.

The model is the one :class:`sim.mujoco_spec.MuJoCoSimulation` steps (the robot's MJCF export, whose
sensors carry the description's names); each replica has its own ``MjData``. MuJoCo fills
``sensordata`` during ``mj_step`` (from the state the step started at, as running the file does);
before the first step a scratch copy of the data is brought forward to give the start state's.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from ..core.model import Sensor
from .sensor_reader import SensorReader, channel_names, on_mujoco_c

#: World-frame positions: a replica's are kept in replica 0's frame, its grid offset is added back.
_WORLD_POSITIONS = frozenset({"framepos", "subtreecom"})


class MuJoCoSensorReader(SensorReader):
    """Readings of a :class:`sim.mujoco_spec.MuJoCoSimulation`; see the module."""

    @classmethod
    def reads(cls, sim) -> bool:
        return on_mujoco_c(sim)

    def __init__(self, sim):
        import mujoco

        super().__init__(sim, sim.scene)
        self._mujoco = mujoco
        self.model = sim.mj_model
        self._slices: dict[str, slice] = {}
        self._dims: dict[str, int] = {}
        for name, sensor in self.sensors.items():
            index = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_SENSOR, name)
            if index < 0:
                self.unavailable[name] = "the export left it out of the robot's MuJoCo model"
                continue
            start, dim = int(self.model.sensor_adr[index]), int(self.model.sensor_dim[index])
            self._slices[name], self._dims[name] = slice(start, start + dim), dim
        self._scratch = None

    def channel_names(self, name: str) -> tuple[str, ...]:
        return channel_names(self.sensors[name], self._dims.get(name))

    def sensordata(self, replica: int = 0) -> np.ndarray:
        """The replica's whole ``sensordata`` now (MuJoCo's order)."""
        data = self.sim.datas[replica]
        if self.sim.steps == 0:
            return self._forward(self.sim.models[replica], data).sensordata.copy()
        return data.sensordata.copy()

    def _forward(self, model, data):
        """The readings of ``data``'s state on its replica's ``model`` without touching it: a scratch
        copy brought forward."""
        mujoco = self._mujoco
        if self._scratch is None:
            self._scratch = mujoco.MjData(self.model)
        mujoco.mj_copyData(self._scratch, model, data)
        mujoco.mj_forward(model, self._scratch)
        return self._scratch

    def read(self, replica: int = 0) -> dict[str, dict[str, float]]:
        self._now = self.sensordata(replica)
        return super().read(replica)

    def _values(self, sensor: Sensor, replica: int) -> Optional[np.ndarray]:
        values = self._now[self._slices[sensor.name]]
        if replica and sensor.kind in _WORLD_POSITIONS and not sensor.reference:
            values = values + self.sim.offsets[replica]
        return values
