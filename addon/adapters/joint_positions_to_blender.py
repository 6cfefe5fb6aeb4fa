"""Joint positions, ball rotations, floating-root poses and controls -> the robot in Blender.

The bodies move by forward kinematics along their joint frames (``core.posing``) from the robot's
rest; a body leaving its rest keeps it (``posed``, as Simulate's Stop & Keep does), so export,
validation and the joint zeros still see the authored robot and Reset to Rest brings it back.
Joints are named as their file names them (``bthigh``) or by their object's name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mathutils import Matrix, Quaternion, Vector

from ...core.model import Keyframe
from ...core.posing import keyframe_bodies
from ...core.transforms import poses_close
from .blender_to_description import (WorldFrames, capture_rest, file_name, parents_first, scene_from_blender,
                                     world_pose_and_scale)

POSE_TOLERANCE = 1e-7


@dataclass
class PoseResult:
    moved: int = 0  # bodies that left their rest (or moved on from another state)
    controls: int = 0  # actuator controls set
    unknown: list[str] = field(default_factory=list)  # names matching no joint, body or actuator


def pose_robot(scene, keyframe: Keyframe) -> PoseResult:
    """Move ``scene``'s robot to ``keyframe``'s joint positions, ball rotations and root poses, and set
    its controls. The joint velocities are a state of motion, not a pose: they are not applied."""
    result = PoseResult()
    desc = scene_from_blender(scene, frames=WorldFrames(), visual_meshes=False)  # the rest
    joint_names = {name: name for name in (j.name for j in desc.joints)}
    joint_names.update((file_name(obj), obj.name) for obj in scene.objects if obj.articula.joint.enabled)
    posed = Keyframe(keyframe.name)
    for (joint, axis), value in keyframe.joint_positions.items():
        _known(result, joint, joint_names)
        posed.joint_positions[(joint_names.get(joint, joint), axis)] = value
    for joint, quat in keyframe.ball_rotations.items():
        _known(result, joint, joint_names)
        posed.ball_rotations[joint_names.get(joint, joint)] = quat
    bodies = {b.name for b in desc.bodies}
    for body, pose in keyframe.root_poses.items():
        _known(result, body, bodies)
        posed.root_poses[body] = pose
    poses = keyframe_bodies(desc, posed)
    by_name = {obj.name: obj for obj in scene.objects}  # scene.objects[name] searches the scene
    objects = [by_name[b.name] for b in parents_first(desc.bodies)]
    capture_rest(objects)
    rests = {obj: desc.body(obj.name).pose for obj in objects}
    result.moved = _move(objects, {obj: poses[obj.name] for obj in objects}, rests)
    result.controls = _set_controls(scene, keyframe.controls, result)
    return result


def _known(result: PoseResult, name: str, names) -> None:
    if name not in names:
        result.unknown.append(name)


def _move(objects: list, poses: dict, rests: dict) -> int:
    """Give each body its world pose (scale kept), parents first, each in its parent's new frame;
    a body away from its rest pose (``rests``) is marked posed."""
    targets: dict = {}

    def target(obj) -> Matrix:  # the world matrix ``obj`` ends with
        if obj not in targets:
            if obj in poses:
                scale = world_pose_and_scale(obj)[1]
                pose = poses[obj]
                targets[obj] = Matrix.LocRotScale(Vector(pose.pos), Quaternion(pose.rot), Vector(scale))
            elif obj.parent is not None:
                targets[obj] = target(obj.parent) @ obj.matrix_parent_inverse @ obj.matrix_basis
            else:
                targets[obj] = obj.matrix_world.copy()
        return targets[obj]

    moved = 0
    for obj in objects:
        world = target(obj)
        parent = target(obj.parent) if obj.parent is not None else Matrix.Identity(4)
        at_rest = poses_close(poses[obj], rests[obj], POSE_TOLERANCE, POSE_TOLERANCE)
        obj.matrix_basis = (parent @ obj.matrix_parent_inverse).inverted() @ world
        if not at_rest:
            obj.articula.body.posed = True
            moved += 1
    return moved


def _set_controls(scene, controls: dict, result: PoseResult) -> int:
    actuators = {}
    for obj in scene.objects:
        if obj.articula.joint.enabled:
            for dof in obj.articula.joint.dofs:
                actuators.update((a.name, a) for a in dof.actuators)
    props = scene.articula
    for owner in (*props.tendons, *props.spatial_tendons):
        actuators.update((a.name, a) for a in owner.actuators)
    actuators.update((a.name, a) for a in props.frame_actuators)
    for name, value in controls.items():
        if name in actuators:
            actuators[name].control = value
        else:
            result.unknown.append(name)
    return sum(1 for name in controls if name in actuators)
