"""Simulation of the physics description; bpy-free: MuJoCo's C library on the robot's MJCF export
(the MUJOCO solver on a CPU, :mod:`sim.mujoco_spec`), Newton on Warp for the rest.

``from articula.sim import Simulation`` (loaded on first use: importing this package does not
import Warp or Newton).
"""

_EXPORTS = {
    "Simulation": "simulation",
    "SimulationDiverged": "divergence",
    "KERNELS_BUILDING": "simulation",
    "kernels_cached": "simulation",
    "resolve_device": "simulation",
    "KernelBuild": "kernel_build",
    "build_model": "builder",
    "BuiltModel": "builder",
    "SimulationBuildError": "builder",
    "MuJoCoSimulation": "mujoco_spec",
    "start_simulation": "launch",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name not in _EXPORTS:
        raise AttributeError(name)
    import importlib

    return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
