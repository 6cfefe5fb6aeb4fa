"""Simulation of the physics description on Warp with Newton; bpy-free.

``from articula.sim import Simulation`` (loaded on first use: importing this package does not
import Warp or Newton).
"""

_EXPORTS = {
    "Simulation": "simulation",
    "SimulationDiverged": "simulation",
    "KERNELS_BUILDING": "simulation",
    "kernels_cached": "simulation",
    "resolve_device": "simulation",
    "KernelBuild": "kernel_build",
    "build_model": "builder",
    "BuiltModel": "builder",
    "SimulationBuildError": "builder",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name not in _EXPORTS:
        raise AttributeError(name)
    import importlib

    return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
