"""Where the description's names live in the MJCF export's compiled ``MjModel`` (bpy-free, no Newton).

The MJCF writer (:func:`core.mjcf.writer.build_spec`) keeps MuJoCo's body and actuator names equal to
the description's and maps each description joint to its MuJoCo joints (``BuiltSpec.dof_joints``).
:class:`SpecLayout` turns those names into ``qpos``/``qvel``/``ctrl`` addresses once, and
:func:`joint_coordinates` finds the joint coordinates that put the bodies at given world poses
(the inverse of MuJoCo's forward kinematics, body by body down each tree).
"""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np

from ..core.model import PhysicsScene, Pose


# Plain classes, not dataclasses: generating a dataclass's methods takes about a millisecond at import,
# on the path of a first Bake.
class DofSlot:
    """One description DOF in MuJoCo: its joint, coordinate and velocity addresses (a ball joint's
    DOF: ``component`` of the joint's three velocities, no coordinate of its own)."""

    __slots__ = ("joint", "qpos", "dof", "ball")

    def __init__(self, joint: int, qpos: int, dof: int, ball: bool):
        self.joint = joint
        self.qpos = qpos  # -1 for a ball joint's DOF
        self.dof = dof
        self.ball = ball


class DriveSlot:
    """A DOF's drive, written by the MJCF writer as a position or velocity servo named after it."""

    __slots__ = ("actuator", "position")

    def __init__(self, actuator: int, position: bool):
        self.actuator = actuator
        self.position = position  # a position servo's ctrl is the target position, else the target velocity


def _mj():
    import mujoco

    return mujoco


def _id(model, kind, name: str) -> int:
    return _mj().mj_name2id(model, kind, name)


class SpecLayout:
    """Addresses of the description's bodies, DOFs, actuators, drives and kinematic roots in ``model``."""

    def __init__(self, scene: PhysicsScene, built):
        mujoco = _mj()
        m = self.model = built.model
        obj = mujoco.mjtObj
        body_ids = [(b, _id(m, obj.mjOBJ_BODY, b.name)) for b in scene.bodies]
        body_ids = [(b, i) for b, i in body_ids if i >= 0]
        self.body_names = [b.name for b, _ in body_ids]
        self.body_ids = np.array([i for _, i in body_ids], dtype=np.int64)
        self.dofs: dict[tuple[str, str], DofSlot] = {}
        ball_type = int(mujoco.mjtJoint.mjJNT_BALL)
        types, qpos_at, dofs_at = m.jnt_type.tolist(), m.jnt_qposadr.tolist(), m.jnt_dofadr.tolist()
        for joint_name, rows in built.dof_joints.items():
            for component, (mj_name, dof) in enumerate(rows):
                j = _id(m, obj.mjOBJ_JOINT, mj_name)
                if j < 0:
                    continue
                ball = types[j] == ball_type
                qpos = -1 if ball else qpos_at[j]
                dof_address = dofs_at[j] + (component if ball else 0)
                self.dofs[(joint_name, dof.axis.value)] = DofSlot(j, qpos, dof_address, ball)
        every = [a for a, *_ in scene.actuators()] + list(scene.frame_actuators) \
            + [a for tendon in scene.spatial_tendons for a in tendon.actuators]  # sites, bodies, balls too
        self.actuators = {a.name: i for a in every if (i := _id(m, obj.mjOBJ_ACTUATOR, a.name)) >= 0}
        self.actuator_of = {a.name: a for a in every}
        self.drives: dict[tuple[str, str], DriveSlot] = {}
        for joint in scene.joints:
            for dof in joint.active_dofs():
                name = built.drive_actuators.get((joint.name, dof.axis.value))
                a = _id(m, obj.mjOBJ_ACTUATOR, name) if dof.drive_enabled and name else -1
                if a >= 0:
                    self.drives[(joint.name, dof.axis.value)] = DriveSlot(a, dof.drive_stiffness > 0.0)
        mocap_ids = m.body_mocapid.tolist()
        self.mocap = {b.name: mocap_ids[i] for b, i in body_ids if mocap_ids[i] >= 0}
        self.kinematic = [name for name in self.mocap if scene.body(name).kinematic]
        #: Description kinematic bodies MuJoCo cannot move (inside a tree: only top-level mocap bodies move).
        self.kinematic_fixed = [b.name for b in scene.bodies if b.kinematic and b.name not in self.mocap]
        limited = [(slot, dof.velocity_limit) for joint in scene.joints for dof in joint.active_dofs()
                   if math.isfinite(dof.velocity_limit) and dof.velocity_limit >= 0.0
                   and (slot := self.dofs.get((joint.name, dof.axis.value))) is not None and not slot.ball]
        self.limit_dof = np.array([s.dof for s, _ in limited], dtype=np.int64)
        self.limit = np.array([v for _, v in limited], dtype=np.float64)
        self._lookup: dict = {}

    def dofs_for(self, key) -> list[tuple[tuple[str, str], DofSlot]]:
        """The DOFs of ``key``: (joint, axis), or a joint name (its only DOF's axis, or all of a ball)."""
        if key not in self._lookup:
            self._lookup[key] = self._find(key)
        return self._lookup[key]

    def _find(self, key):
        if isinstance(key, tuple):
            found = [(key, self.dofs[key])] if key in self.dofs else []
        else:
            found = [(k, s) for k, s in self.dofs.items() if k[0] == key]
            if len({s.joint for _, s in found}) > 1:
                raise KeyError(f"joint {key!r} has several DOFs: give (joint, axis)")
        if not found:
            raise KeyError(f"no simulated DOF {key!r}")
        return found

    def drive_for(self, key) -> list[tuple[tuple[str, str], DriveSlot]]:
        return [(k, self.drives[k]) for k, _ in self.dofs_for(key) if k in self.drives]


# ---------------------------------------------------------------------------------------------
# joint coordinates from world poses


def _qmul(a, b) -> np.ndarray:
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw])


def _qconj(q) -> np.ndarray:
    return np.array([q[0], -q[1], -q[2], -q[3]])


def _qrot(q, v) -> np.ndarray:
    u, w = np.asarray(q[1:]), q[0]
    t = 2.0 * np.cross(u, v)
    return np.asarray(v) + w * t + np.cross(u, t)


def _axis_angle(axis, angle: float) -> np.ndarray:
    half = 0.5 * angle
    return np.concatenate([[math.cos(half)], math.sin(half) * np.asarray(axis)])


def _twist(q, axis) -> float:
    """The angle of ``q``'s rotation about unit ``axis`` (swing-twist decomposition)."""
    return 2.0 * math.atan2(float(np.dot(q[1:], axis)), float(q[0]))


def joint_coordinates(model, data, poses: Mapping[str, Pose]) -> None:
    """Set ``data.qpos`` so the bodies named in ``poses`` (world poses) sit there, the others keeping
    their world pose at the current ``qpos``. Free joints and balls take the pose as it is, a hinge
    its rotation's twist about its axis, a slide the offset along its axis (exact for one hinge or
    slide per body; several on one body are solved in their order)."""
    mujoco = _mj()
    mujoco.mj_kinematics(model, data)
    world_pos, world_quat = data.xpos.copy(), data.xquat.copy()
    for name, pose in poses.items():
        b = _id(model, mujoco.mjtObj.mjOBJ_BODY, name)
        if b > 0:
            world_pos[b], world_quat[b] = pose.pos, np.asarray(pose.rot) / np.linalg.norm(pose.rot)
    for b in range(1, model.nbody):
        count = int(model.body_jntnum[b])
        if not count:
            continue
        parent = int(model.body_parentid[b])
        inverse = _qconj(world_quat[parent])
        rel_pos = _qrot(inverse, world_pos[b] - world_pos[parent])
        rel_quat = _qmul(inverse, world_quat[b])
        _body_joints(model, data, b, count, rel_pos, rel_quat, world_pos[b], world_quat[b])


def _body_joints(model, data, b, count, rel_pos, rel_quat, pos, quat) -> None:
    mujoco = _mj()
    kinds = mujoco.mjtJoint
    first = int(model.body_jntadr[b])
    rest = _qmul(_qconj(model.body_quat[b]), rel_quat)  # rotation left for the joints, body frame
    frame = np.array(model.body_quat[b])  # the body's frame as the joints turn it, in the parent
    for j in range(first, first + count):
        kind, a = int(model.jnt_type[j]), int(model.jnt_qposadr[j])
        axis = np.array(model.jnt_axis[j])
        if kind == kinds.mjJNT_FREE:
            data.qpos[a:a + 3], data.qpos[a + 3:a + 7] = pos, quat
        elif kind == kinds.mjJNT_BALL:
            data.qpos[a:a + 4] = rest / np.linalg.norm(rest)
            frame, rest = _qmul(frame, rest), np.array([1.0, 0.0, 0.0, 0.0])
        elif kind == kinds.mjJNT_HINGE:
            angle = _twist(rest, axis)
            data.qpos[a] = model.qpos0[a] + angle
            turn = _axis_angle(axis, angle)
            frame, rest = _qmul(frame, turn), _qmul(_qconj(turn), rest)
    offset = rel_pos - _hinged_origin(model, b, first, count, frame)
    for j in range(first, first + count):
        if int(model.jnt_type[j]) == kinds.mjJNT_SLIDE:
            a = int(model.jnt_qposadr[j])
            data.qpos[a] = model.qpos0[a] + float(np.dot(offset, _qrot(frame, model.jnt_axis[j])))


def _hinged_origin(model, b, first, count, frame) -> np.ndarray:
    """The body origin in its parent with the rotations set and every slide at zero: each hinge and
    ball turns about its anchor (MuJoCo's forward kinematics; here with the final turn, exact for
    one rotating joint)."""
    mujoco = _mj()
    pos = np.array(model.body_pos[b])
    base = np.array(model.body_quat[b])
    for j in range(first, first + count):
        if int(model.jnt_type[j]) in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_BALL):
            anchor = pos + _qrot(base, model.jnt_pos[j])
            return anchor - _qrot(frame, model.jnt_pos[j])
    return pos
