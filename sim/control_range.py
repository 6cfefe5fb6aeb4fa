"""An actuator's control held inside its range, as MuJoCo clamps ``ctrl`` (no Newton or Warp import)."""

from __future__ import annotations

from ..core.model import Actuator


def clamp_control(actuator: Actuator, value: float) -> float:
    """``value`` inside the actuator's control range, as MuJoCo clamps ``ctrl``."""
    if actuator.ctrl_range is None:
        return value
    low, high = actuator.ctrl_range
    return min(max(value, low), high)
