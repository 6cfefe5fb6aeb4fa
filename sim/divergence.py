"""What the Newton simulation and MuJoCo's C library simulation (:mod:`sim.mujoco_spec`) share, below
both: when a state has blown up, and the checks and log routing each run before MuJoCo."""

from __future__ import annotations

import logging

from ..core.articulation import find_articulations
from ..core.model import PhysicsScene
from .errors import SimulationBuildError

#: MuJoCo's warnings are logged as the simulation's, where they have always been.
log = logging.getLogger(__name__.rsplit(".", 1)[0] + ".simulation")

#: A body further than this from the origin (m), or with a non-finite pose or speed, has blown up.
BLOW_UP_DISTANCE = 1.0e4

#: MuJoCo 3.17's compiler fails on the 1,024th body of a chain ("depth limit exceeded in signature
#: computation"), after minutes of conversion: told before building instead.
MUJOCO_DEEPEST_CHAIN = 1023


class SimulationDiverged(RuntimeError):
    """The state went NaN or blew up; ``body`` names the first body that did."""

    def __init__(self, body: str, replica: int = 0):
        self.body = body
        self.replica = replica
        where = f" (replica {replica})" if replica else ""
        super().__init__(f"simulation diverged at body {body!r}{where}")


def route_mujoco_warnings() -> None:
    """MuJoCo's warnings go to the simulation's log instead of a MUJOCO_LOG.TXT that MuJoCo's default
    handler writes into whatever folder Blender runs in. Instabilities are reported by the
    simulation itself (``SimulationDiverged``). A handler someone else installed is left alone."""
    import mujoco

    if mujoco.get_mju_user_warning() is None:
        mujoco.set_mju_user_warning(lambda message: log.warning("MuJoCo: %s", message))


def deepest_chain(scene: PhysicsScene) -> int:
    """Bodies on the longest root-to-leaf path of the scene's kinematic trees."""
    deepest = 0
    for articulation in find_articulations(scene):
        depth: dict = {}
        for body in articulation.bodies:  # parents before children
            depth[body] = depth.get(articulation.parents.get(body), 0) + 1
        deepest = max([deepest, *depth.values()])
    return deepest


def check_depth_for_mujoco(scene: PhysicsScene) -> None:
    """Raises :class:`SimulationBuildError` for a chain deeper than MuJoCo compiles."""
    depth = deepest_chain(scene)
    if depth > MUJOCO_DEEPEST_CHAIN:
        raise SimulationBuildError(
            f"a chain of {depth} bodies is deeper than MuJoCo compiles ({MUJOCO_DEEPEST_CHAIN}): simulate it "
            "with the XPBD solver")
