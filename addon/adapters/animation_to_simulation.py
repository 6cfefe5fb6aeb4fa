"""Blender animation -> the simulation, frame by frame: what the scene's animation feeds it.

Kinematic bodies follow their animation (their world poses at the current frame), and drive
targets that are keyframed or driven (``articula.joint.dofs[i].target_position``) are read at the
current frame. The caller moves the scene to the frame; :meth:`AnimationInputs.feed` reads it.
"""

from __future__ import annotations

from ...core.model import Pose


class AnimationInputs:
    """The kinematic body objects among ``objects`` and the animated drive targets of the scene."""

    def __init__(self, scene, description, objects: list):
        kinematic = {b.name for b in description.bodies if b.kinematic}
        self.kinematic = [o for o in objects if o.name in kinematic]
        self.targets = animated_targets(scene, description.joints)

    def feed(self, sim):
        """Hand the current frame's kinematic poses and drive targets to ``sim`` (a ``sim.Simulation``)."""
        if self.kinematic:
            poses = {}
            for obj in self.kinematic:
                location, rotation, _ = obj.matrix_world.decompose()
                poses[obj.name] = Pose(tuple(location), tuple(rotation))
            sim.set_kinematic_poses(poses)
        if self.targets:
            sim.set_drive_targets({key: obj.articula.joint.dofs[i].target_position
                                   for obj, i, key in self.targets})


def animated_targets(scene, joints) -> list[tuple]:
    """(joint object, dof index, (joint, axis)) of drive targets that are animated or driven."""
    targets = []
    for joint in joints:
        obj = scene.objects.get(joint.name)
        anim = obj.animation_data if obj else None
        if anim is None:
            continue
        paths = {fc.data_path for fc in _fcurves(anim)} | {d.data_path for d in anim.drivers}
        for index, dof in enumerate(obj.articula.joint.dofs):
            path = f"articula.joint.dofs[{index}].target_position"
            if path in paths and dof.drive_enabled:
                targets.append((obj, index, (joint.name, dof.axis)))
    return targets


def _fcurves(anim_data) -> list:
    """F-curves of an object's action on 4.4+ layered actions and older flat ones alike."""
    action = anim_data.action
    if action is None:
        return []
    slot = getattr(anim_data, "action_slot", None)
    if hasattr(action, "layers") and slot is not None:
        curves = []
        for layer in action.layers:
            for strip in layer.strips:
                bag = strip.channelbag(slot) if hasattr(strip, "channelbag") else None
                if bag is not None:
                    curves.extend(bag.fcurves)
        return curves
    return list(getattr(action, "fcurves", []))
