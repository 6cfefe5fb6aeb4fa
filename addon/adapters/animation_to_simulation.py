"""Blender animation -> the simulation, frame by frame: what the scene's animation feeds it.

Kinematic bodies follow their animation (their world poses at the current frame), and drive
targets that are keyframed or driven (``articula.joint.dofs[i].target_position``) are read at the
current frame, as are actuator controls handed to ``Simulation.set_controls``: on a joint
(``articula.joint.dofs[i].actuators[k].control``, keyed in degrees through ``control_angle`` alike) and on
the scene, whatever their transmission: fixed tendons (``articula.tendons[t]...``), spatial tendons
(``articula.spatial_tendons[t]...``) and sites, bodies and ball joints (``articula.frame_actuators[k]``).
An unkeyed control is the description's ``Actuator.control``, which the simulation starts from. A keyed
control of an actuator the simulation does not simulate (Newton's solvers have no site, body, ball
joint or spatial tendon transmission) is left out: :meth:`AnimationInputs.not_simulated` names them.
The caller moves the scene to the frame; :meth:`AnimationInputs.feed` reads it.
"""

from __future__ import annotations

from ...core.model import Pose


class AnimationInputs:
    """The kinematic body objects among ``objects`` and the animated drive targets of the scene."""

    def __init__(self, scene, description, objects: list):
        kinematic = {b.name for b in description.bodies if b.kinematic}
        self.kinematic = [o for o in objects if o.name in kinematic]
        by_name = {obj.name: obj for obj in scene.objects}  # scene.objects.get is a linear search
        self.targets = animated_targets(scene, description.joints, by_name)
        self.controls = animated_controls(scene, description, by_name)
        self.left_out: list[str] = []  # keyed controls of actuators the simulation does not simulate
        self._checked = False

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
        if self.controls:
            if not self._checked:
                self._keep_simulated(sim)
            sim.set_controls({name: actuator.control for actuator, name in self.controls})

    def not_simulated(self, sim) -> list[str]:
        """The actuators whose keyed control ``sim`` cannot apply (:meth:`feed` leaves them out): what
        the operators name in a warning before the first frame."""
        simulated = sim.actuator_controls
        return [name for _, name in self.controls if name not in simulated]

    def _keep_simulated(self, sim):
        self.left_out = self.not_simulated(sim)
        self.controls = [(actuator, name) for actuator, name in self.controls if name not in self.left_out]
        self._checked = True


def animated_targets(scene, joints, by_name: dict | None = None) -> list[tuple]:
    """(joint object, dof index, (joint, axis)) of drive targets that are animated or driven."""
    targets = []
    for joint in joints:
        obj = by_name.get(joint.name) if by_name is not None else scene.objects.get(joint.name)
        anim = obj.animation_data if obj else None
        if anim is None:
            continue
        paths = {fc.data_path for fc in _fcurves(anim)} | {d.data_path for d in anim.drivers}
        for index, dof in enumerate(obj.articula.joint.dofs):
            path = f"articula.joint.dofs[{index}].target_position"
            if path in paths and dof.drive_enabled:
                targets.append((obj, index, (joint.name, dof.axis)))
    return targets


def _animated_paths(anim) -> set:
    """Data paths an ID's animation or drivers set; a unit view's path counts as its raw property's."""
    if anim is None:
        return set()
    paths = {fc.data_path for fc in _fcurves(anim)} | {d.data_path for d in anim.drivers}
    return {p[:-len("_angle")] if p.endswith("control_angle") else p for p in paths}


def animated_controls(scene, description, by_name: dict | None = None) -> list[tuple]:
    """(actuator props, actuator name) of the description's actuators whose control is animated or driven."""
    controls = []
    for joint in description.joints:
        obj = by_name.get(joint.name) if by_name is not None else scene.objects.get(joint.name)
        paths = _animated_paths(obj.animation_data) if obj else set()
        if not paths:
            continue
        for i, dof in enumerate(obj.articula.joint.dofs):
            for k, actuator in enumerate(dof.actuators):
                if f"articula.joint.dofs[{i}].actuators[{k}].control" in paths:
                    controls.append((actuator, actuator.name))
    return controls + _animated_scene_controls(scene, description)


def _animated_scene_controls(scene, description) -> list[tuple]:
    """The animated controls of the actuators the scene holds: on fixed and spatial tendons, and
    frame actuators (on sites, bodies, ball joints), where the description has them."""
    paths = _animated_paths(scene.animation_data)
    if not paths:
        return []
    props, controls = scene.articula, []
    for owners, described in (("tendons", description.tendons),
                               ("spatial_tendons", description.spatial_tendons)):
        in_description = {t.name for t in described}
        for t, tendon in enumerate(getattr(props, owners)):
            if tendon.name not in in_description:
                continue
            for k, actuator in enumerate(tendon.actuators):
                if f"articula.{owners}[{t}].actuators[{k}].control" in paths:
                    controls.append((actuator, actuator.name))
    in_description = {a.name for a in description.frame_actuators}
    for k, actuator in enumerate(props.frame_actuators):
        if actuator.name in in_description and f"articula.frame_actuators[{k}].control" in paths:
            controls.append((actuator, actuator.name))
    return controls


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
