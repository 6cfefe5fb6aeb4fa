"""Forces on bodies applied every physics step: a world-frame force and torque at a body's centre of
mass, constant or recomputed from the body's state before each step (a spring pulling a grabbed
point, a one-step push). Bpy-free.

The same wrench reaches every path: Newton's ``State.body_f`` after the state's forces are cleared
(Featherstone, XPBD, MuJoCo through Newton) and MuJoCo's ``xfrc_applied`` on the MuJoCo path
(:mod:`sim.mujoco_spec`), where each step is split (``mj_step1``, the wrench from the fresh kinematics,
``mj_step2``); there the sources are keyed by the body's row, on Newton's by its Newton body.
"""

from __future__ import annotations

from typing import Callable, Optional

import numpy as np


class BodyMotion:  # not a dataclass: generating one takes a millisecond at a first Bake
    """A body's state when a wrench is computed, world frame."""

    __slots__ = ("position", "rotation", "com", "velocity", "angular")

    def __init__(self, position: np.ndarray, rotation: np.ndarray, com: np.ndarray, velocity: np.ndarray,
                 angular: np.ndarray):
        self.position = position  # body origin (m)
        self.rotation = rotation  # 3x3, body to world
        self.com = com  # centre of mass (m)
        self.velocity = velocity  # of the centre of mass (m/s)
        self.angular = angular  # (rad/s)

    def point_velocity(self, point: np.ndarray) -> np.ndarray:
        return self.velocity + np.cross(self.angular, point - self.com)


#: Gives (force, torque) for a body's motion, or None when it is done (the wrench is then removed).
WrenchSource = Callable[[BodyMotion], Optional[tuple[np.ndarray, np.ndarray]]]


def _quat_xyzw_matrix(q) -> np.ndarray:
    x, y, z, w = (float(v) for v in q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


class AppliedWrenches:
    """The wrenches of a :class:`sim.simulation.Simulation`, by Newton body index."""

    def __init__(self, model):
        self.model = model
        self.sources: dict[int, WrenchSource] = {}
        self._written_mujoco: set[int] = set()
        self._com = None

    def __bool__(self) -> bool:
        return bool(self.sources)

    def set(self, body: int, source: Optional[WrenchSource]):
        if source is None:
            self.sources.pop(body, None)
        else:
            self.sources[body] = source

    def clear(self):
        self.sources.clear()

    def _evaluate(self, body: int, motion: BodyMotion):
        wrench = self.sources[body](motion)
        if wrench is None:
            del self.sources[body]
            return None
        force, torque = wrench
        return np.asarray(force, dtype=np.float64), np.asarray(torque, dtype=np.float64)

    # Newton's state ------------------------------------------------------------------------

    def apply_newton(self, state):
        """Add the wrenches to ``state.body_f`` (after ``state.clear_forces()``)."""
        if not self.sources or state.body_f is None:
            return
        if self._com is None:
            self._com = self.model.body_com.numpy().astype(np.float64)
        body_q, body_qd = state.body_q.numpy(), state.body_qd.numpy()
        forces = state.body_f.numpy()
        for body in list(self.sources):
            q, qd = body_q[body].astype(np.float64), body_qd[body].astype(np.float64)
            rotation = _quat_xyzw_matrix(q[3:7])
            motion = BodyMotion(q[:3], rotation, q[:3] + rotation @ self._com[body], qd[:3], qd[3:6])
            wrench = self._evaluate(body, motion)
            if wrench is not None:
                forces[body, :3] += wrench[0]
                forces[body, 3:6] += wrench[1]
        if state.body_f.device.is_cpu:  # numpy() is a view of a CPU array
            return
        state.body_f.assign(forces)

    # MuJoCo's C library --------------------------------------------------------------------

    def step_mujoco(self, direct, count: int, to_mujoco: dict[int, int]):
        """``count`` steps of ``direct`` (a :class:`sim.mujoco_spec.MuJoCoSimulation`), each with the
        wrenches computed from its own kinematics into ``xfrc_applied``."""
        import mujoco

        velocity = np.zeros(6)

        def apply(m, d):
            written = set()
            for body in list(self.sources):
                mj = to_mujoco[body]
                mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_BODY, mj, velocity, 0)  # at the COM
                motion = BodyMotion(d.xpos[mj].copy(), d.xmat[mj].reshape(3, 3).copy(), d.xipos[mj].copy(),
                                    velocity[3:].copy(), velocity[:3].copy())
                wrench = self._evaluate(body, motion)
                if wrench is not None:
                    d.xfrc_applied[mj, :3], d.xfrc_applied[mj, 3:] = wrench
                    written.add(mj)
            self.zero_mujoco(d, self._written_mujoco - written)
            self._written_mujoco = written

        direct.step_with_forces(count, apply)

    def release_mujoco(self, direct):
        """No wrench of ours left in ``xfrc_applied``."""
        self.zero_mujoco(direct.d, self._written_mujoco)
        self._written_mujoco = set()

    @staticmethod
    def zero_mujoco(d, bodies):
        for mj in bodies:
            d.xfrc_applied[mj] = 0.0
