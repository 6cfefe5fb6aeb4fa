"""The simulation's errors that its light modules raise (bpy-free, no Newton or Warp import)."""


class SimulationBuildError(ValueError):
    """The description cannot be simulated as authored (the message names the culprit)."""
