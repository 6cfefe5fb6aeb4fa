"""Forward kinematics: where a robot's bodies stand for given joint positions.

MuJoCo's ``mj_kinematics`` along the description's joint frames: each body starts at its rest pose
relative to its parent (as posed), and each joint moving it (its tree joint, then the joints stacked
on the same edge, in scene order) turns or slides it about that joint's frame on the body
(``local_pose1``), by the joint's position away from the rest, where it is ``Dof.reference`` (positions
are the file's coordinate, MuJoCo's qpos). A floating root stands where ``root_poses`` puts it (a free
joint's position is the body's world pose). What is not given stays at rest. Bodies in no articulation
(on a parent cycle) keep their rest pose.
"""

from __future__ import annotations

from typing import Mapping, Optional

from .articulation import find_articulations
from .model import Dof, DofMotion, Joint, JointType, Keyframe, PhysicsScene, Pose, Quat
from .transforms import pose_inverse, pose_mul, pose_relative, quat_from_axis_angle, quat_normalize

_AXIS_VECTORS = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}


def posed_bodies(scene: PhysicsScene, joint_positions: Mapping[tuple[str, str], float] = {},
                 ball_rotations: Mapping[str, Quat] = {}, root_poses: Mapping[str, Pose] = {}
                 ) -> dict[str, Pose]:
    """Body name -> world pose with the joints at ``joint_positions`` ((joint, DOF axis value) ->
    rad or m), ball joints at ``ball_rotations`` and floating roots at ``root_poses``."""
    poses: dict[str, Pose] = {}
    for articulation in find_articulations(scene):
        for name in articulation.bodies:  # parents first
            rest = scene.body(name).pose
            parent = articulation.parents.get(name)
            if name in root_poses:
                poses[name] = root_poses[name]
                continue
            if parent is None:
                pose = rest
            else:
                pose = pose_mul(poses[parent], pose_relative(scene.body(parent).pose, rest))
            for joint in articulation.edge_joints(name):
                pose = pose_mul(pose, joint_motion(joint, joint_positions, ball_rotations.get(joint.name)))
            poses[name] = pose
    for body in scene.bodies:
        poses.setdefault(body.name, body.pose)
    return poses


def keyframe_bodies(scene: PhysicsScene, keyframe: Keyframe) -> dict[str, Pose]:
    """:func:`posed_bodies` for a keyframe's positions, ball rotations and root poses."""
    return posed_bodies(scene, keyframe.joint_positions, keyframe.ball_rotations, keyframe.root_poses)


def joint_motion(joint: Joint, positions: Mapping[tuple[str, str], float],
                 ball: Optional[Quat] = None) -> Pose:
    """How ``joint`` moves its body1, in body1's frame: its motion about its own frame on body1."""
    if not joint.enabled or joint.type == JointType.FIXED:
        return Pose()
    if joint.type == JointType.SPHERICAL:
        motion = Pose(rot=quat_normalize(ball)) if ball is not None else Pose()
    else:
        motion = Pose()
        moving = [d for d in joint.dofs if d.motion != DofMotion.LOCKED]
        for dof in sorted(moving, key=lambda d: d.axis.is_angular):  # translations, then rotations
            # The file's coordinate; the body's rest (the authored pose) is at the DOF's reference.
            value = positions.get((joint.name, dof.axis.value), dof.reference) - dof.reference
            if value:
                motion = pose_mul(motion, _dof_motion(dof, value))
    if motion == Pose():
        return motion
    frame = joint.local_pose1
    return pose_mul(pose_mul(frame, motion), pose_inverse(frame))


def _dof_motion(dof: Dof, value: float) -> Pose:
    axis = _AXIS_VECTORS[dof.axis.letter]
    if dof.axis.is_angular:
        return Pose(rot=quat_from_axis_angle(axis, value))
    return Pose(pos=tuple(value * c for c in axis))


# --- the other way: joint positions from where the bodies stand ---------------------------------

def joint_positions_of(scene: PhysicsScene, world_poses: Mapping[str, Pose], tolerance: float = 1e-10,
                       iterations: int = 50
                       ) -> tuple[dict[tuple[str, str], float], dict[str, Pose], list[str]]:
    """(joint positions, floating roots' world poses, notes) that put ``scene``'s bodies at
    ``world_poses`` (:func:`posed_bodies` the other way). Each body's joints (a tree joint and those
    stacked on its edge, several hinges of a MuJoCo body) are solved together by Gauss-Newton from
    zero; ball joints and bodies whose pose their joints cannot reach are named in the notes."""
    positions: dict[tuple[str, str], float] = {}
    roots: dict[str, Pose] = {}
    notes: list[str] = []
    for articulation in find_articulations(scene):
        for name in articulation.bodies:
            target = world_poses.get(name, scene.body(name).pose)
            parent = articulation.parents.get(name)
            joints = [j for j in articulation.edge_joints(name) if j.enabled and j.type != JointType.FIXED]
            if parent is None and articulation.base_joint is None:
                roots[name] = target
                continue
            start = scene.body(name).pose if parent is None else pose_mul(
                world_poses.get(parent, scene.body(parent).pose),
                pose_relative(scene.body(parent).pose, scene.body(name).pose))
            wanted = pose_mul(pose_inverse(start), target)  # the joints' motion, in the body's frame
            if any(j.type == JointType.SPHERICAL for j in joints):
                notes.append(f"{name}: a ball joint's orientation is not kept as joint positions")
                continue
            keys = [(j.name, d.axis.value) for j in joints for d in j.dofs if d.motion != DofMotion.LOCKED]
            if not keys:
                continue
            solved, error = _solve(joints, keys, wanted, tolerance, iterations)
            references = {(j.name, d.axis.value): d.reference for j in joints for d in j.dofs}
            positions.update({key: value + references[key] for key, value in solved.items()})
            if error > 1e-6:
                notes.append(f"{name}: its joints reach its pose only within {error:.2g}")
    return positions, roots, notes


def _solve(joints: list[Joint], keys: list, wanted: Pose, tolerance: float, iterations: int):
    """Gauss-Newton on the joints' motion against ``wanted``: (positions, remaining error)."""
    import numpy as np

    q = np.zeros(len(keys))  # away from the rest
    references = {(j.name, d.axis.value): d.reference for j in joints for d in j.dofs}

    def residual(values) -> np.ndarray:
        positions = {key: value + references[key] for key, value in zip(keys, values.tolist())}
        motion = Pose()
        for joint in joints:
            motion = pose_mul(motion, joint_motion(joint, positions))
        error = pose_mul(pose_inverse(motion), wanted)
        w, x, y, z = error.rot if error.rot[0] >= 0.0 else tuple(-c for c in error.rot)
        return np.array([*error.pos, 2.0 * x, 2.0 * y, 2.0 * z])

    r = residual(q)
    for _ in range(iterations):
        if float(r @ r) < tolerance * tolerance:
            break
        step = 1e-7
        jacobian = np.stack([(residual(q + step * e) - r) / step for e in np.eye(len(q))], axis=1)
        q = q - np.linalg.lstsq(jacobian, r, rcond=None)[0]
        r = residual(q)
    return dict(zip(keys, q.tolist())), float(np.sqrt(r @ r))
