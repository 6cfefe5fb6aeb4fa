"""A simulation started without importing Newton and Warp where MuJoCo's C library does all the stepping.

Importing Newton (and Warp with it) takes seconds, at a process's first simulation: a MuJoCo bake in
Blender, ``articula simulate``. :func:`start_simulation` gives what ``Simulation(...)`` gives, and imports
:mod:`sim.simulation` (Newton's solvers) only when Newton steps the robot.
"""

from __future__ import annotations

from ..core.model import PhysicsScene, Solver
from .mujoco_spec import MuJoCoSimulation, on_mujoco_c


def start_simulation(scene: PhysicsScene, device: str = "auto", solver: Solver | str | None = None,
                     **options):
    """``Simulation(scene, device, solver, **options)`` (:class:`sim.simulation.Simulation`): a
    :class:`sim.mujoco_spec.MuJoCoSimulation` on MuJoCo's C library, else Newton's."""
    if on_mujoco_c(scene, device, solver, options.get("mujoco_direct", True)):
        return MuJoCoSimulation(scene, "cpu", solver, **options)
    from .simulation import Simulation

    return Simulation(scene, device, solver, **options)

