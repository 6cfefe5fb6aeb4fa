"""A robot's state as initial joint positions: the authored robot stays at rest, the file starts posed.

The description is the robot at rest: body poses and joint frames define the joint zeros. A state
(Simulate's Stop & Keep, a baked frame, a hand-posed robot) is written by moving the bodies to
where they are now and giving each DOF the coordinate that takes its joint from the rest to there,
plus its ``reference`` (the coordinate at rest; UsdPhysics JointStateAPI,
``state:<instance>:physics:position``, which Newton and Isaac Sim read, is that minus the reference).
The joint frames are never recomputed, so the robot itself does not change.
"""

from __future__ import annotations

import copy
import math
from collections import Counter
from typing import Mapping, Optional

from .model import DofMotion, Joint, JointType, PhysicsScene, Pose
from .transforms import pose_inverse, pose_mul

_AXIS_VECTORS = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}


def with_state(scene: PhysicsScene, world_poses: Mapping[str, Pose]) -> tuple[PhysicsScene, list[str]]:
    """A copy of ``scene`` whose bodies stand at ``world_poses`` (bodies not given keep their rest)
    and whose DOFs carry the matching initial positions; ``scene`` is left as it is.

    Returns the copy and notes naming the joints whose state cannot be written as coordinates
    (spherical joints, several free rotation axes, joints stacked on one body pair): Newton and
    Isaac Sim then place those bodies from their written poses alone.
    """
    posed = copy.deepcopy(scene)
    for body in posed.bodies:
        if body.name in world_poses:
            body.pose = world_poses[body.name]
    stacked = _stacked_pairs(posed.joints)
    notes = []
    for joint in posed.joints:
        if not joint.enabled or joint.type == JointType.FIXED:
            continue
        if (joint.body0, joint.body1) in stacked:
            notes.append(f"{joint.name}: several joints join the same two bodies; their state is not "
                         "written as joint positions")
            continue
        relative = _joint_relative(posed, joint)
        if relative is None:
            continue
        if not _set_positions(joint, relative):
            notes.append(f"{joint.name}: a {joint.type.value.lower()} joint with several free rotations; "
                         "its state is not written as joint positions")
    return posed, notes


def _stacked_pairs(joints: list[Joint]) -> set:
    counts = Counter((j.body0, j.body1) for j in joints if j.enabled and not j.exclude_from_articulation)
    return {pair for pair, count in counts.items() if count > 1}


def _joint_relative(scene: PhysicsScene, joint: Joint) -> Optional[Pose]:
    """Joint frame 1 seen from joint frame 0, with the bodies where they stand."""
    child = scene.body(joint.body1)
    if child is None:
        return None
    parent = scene.body(joint.body0)
    frame0 = pose_mul(parent.pose, joint.local_pose0) if parent is not None else joint.local_pose0
    frame1 = pose_mul(child.pose, joint.local_pose1)
    return pose_mul(pose_inverse(frame0), frame1)


def _set_positions(joint: Joint, relative: Pose) -> bool:
    """Set each DOF's ``initial_position`` from ``relative``; False when rotations cannot be split."""
    if joint.type == JointType.SPHERICAL:
        return False
    if joint.type in (JointType.REVOLUTE, JointType.PRISMATIC):
        dof = joint.dofs[0] if joint.dofs else None
        if dof is not None:
            dof.initial_position = dof.reference + _coordinate(relative, joint.type == JointType.REVOLUTE,
                                                               joint.axis)
        return True
    moving = [d for d in joint.dofs if d.motion != DofMotion.LOCKED]
    rotations = [d for d in moving if d.axis.is_angular]
    if len(rotations) > 1:
        return False
    for dof in moving:
        dof.initial_position = dof.reference + _coordinate(relative, dof.axis.is_angular, dof.axis.letter)
    return True


def _coordinate(relative: Pose, angular: bool, axis: str) -> float:
    """The angle (twist about ``axis``, in (-pi, pi]) or the displacement along it."""
    a = _AXIS_VECTORS[axis]
    if not angular:
        return sum(p * c for p, c in zip(relative.pos, a))
    w, x, y, z = relative.rot
    twist = x * a[0] + y * a[1] + z * a[2]
    angle = 2.0 * math.atan2(twist, w)
    if angle > math.pi:
        angle -= 2.0 * math.pi
    elif angle <= -math.pi:
        angle += 2.0 * math.pi
    return angle
