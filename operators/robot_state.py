"""Put the robot in a state: apply one of the scene's keyframes, or any joint positions and controls
(from the panel or a script). One undo step each; the robot's rest pose is kept (Reset to Rest)."""

import bpy
from bpy.props import CollectionProperty, FloatProperty, StringProperty

from ..core.model import Keyframe
from .authoring import _ObjectModeOperator, _refuse_while_baked


class ArticulaNamedValue(bpy.types.PropertyGroup):
    """A value for a joint (``name``, or ``name:axis`` for one DOF of a multi-DOF joint: ``hip:rotY``)
    or an actuator, by name: a script passes ``[{"name": "knee", "value": 0.5}]``."""

    value: FloatProperty(name="Value", description="rad or m for a joint, the control for an actuator")


class _RobotStateOperator(_ObjectModeOperator):
    def pose(self, context, keyframe: Keyframe) -> set:
        from ..addon.adapters.joint_positions_to_blender import pose_robot

        refused = _refuse_while_baked(self)
        if refused:
            return refused
        if not any(o.articula.body.enabled for o in context.scene.objects):
            self.report({"ERROR"}, "No rigid bodies in the scene")
            return {"CANCELLED"}
        result = pose_robot(context.scene, keyframe)
        context.view_layer.update()
        if result.unknown:
            unknown = ", ".join(sorted(set(result.unknown)))
            self.report({"WARNING"}, f"Not in this robot (left out): {unknown}")
        self.report({"INFO"}, f"{keyframe.name or 'The pose'}: {result.moved} bodies moved, "
                    f"{result.controls} controls set")
        return {"FINISHED"}


class ARTICULA_OT_apply_keyframe(_RobotStateOperator, bpy.types.Operator):
    """Pose the robot as one of the scene's keyframes (its joint positions, ball rotations, floating roots
    and controls)"""

    bl_idname = "articula.apply_keyframe"
    bl_label = "Apply Keyframe"

    name: StringProperty(name="Keyframe", description="The keyframe's name; empty: the active keyframe")

    def execute(self, context):
        from ..addon.adapters.fields import read_keyframe

        keyframes = context.scene.articula.keyframes
        if self.name:
            item = keyframes.get(self.name)
        else:
            index = context.scene.articula.active_keyframe_index
            item = keyframes[index] if 0 <= index < len(keyframes) else None
        if item is None:
            known = ", ".join(k.name for k in keyframes) or "none"
            self.report({"ERROR"}, f"No keyframe {self.name!r} in this scene (keyframes: {known})")
            return {"CANCELLED"}
        return self.pose(context, read_keyframe(item))


class ARTICULA_OT_set_joint_positions(_RobotStateOperator, bpy.types.Operator):
    """Pose the robot with these joint positions (rad or m, by joint name) and set these actuator
    controls; joints not named stay at rest"""

    bl_idname = "articula.set_joint_positions"
    bl_label = "Set Joint Positions"

    positions: CollectionProperty(type=ArticulaNamedValue, name="Joint Positions",
                                  description="name: the joint (joint:axis for one DOF of several), value")
    controls: CollectionProperty(type=ArticulaNamedValue, name="Controls",
                                 description="name: the actuator, value: its control")

    def execute(self, context):
        keyframe = Keyframe("")
        for item in self.positions:
            joint, _, axis = item.name.partition(":")
            keyframe.joint_positions[(joint, axis or _only_axis(context.scene, joint))] = item.value
        keyframe.controls = {item.name: item.value for item in self.controls}
        return self.pose(context, keyframe)


def _only_axis(scene, joint_name: str) -> str:
    """The axis of a joint's only DOF (named as its file or its object names it); empty when not one."""
    from ..addon.adapters.blender_to_description import file_name

    for obj in scene.objects:
        props = obj.articula.joint
        if props.enabled and joint_name in (obj.name, file_name(obj)) and len(props.dofs) == 1:
            return props.dofs[0].axis
    return ""


classes = (ArticulaNamedValue, ARTICULA_OT_apply_keyframe, ARTICULA_OT_set_joint_positions)

register, unregister = bpy.utils.register_classes_factory(classes)
