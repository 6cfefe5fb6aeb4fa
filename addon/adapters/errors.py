"""Errors the Blender adapters raise, below every module that raises or catches them."""


class SimulationSetupError(RuntimeError):
    """The scene cannot be simulated (the message says why and names the object)."""
