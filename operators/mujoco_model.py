"""The scene's MuJoCo lists (keyframes, welds/connects, tendon equalities, contact pairs, frame actuators)
and the robot's cameras: add, remove, record the current pose as a keyframe, look through a robot camera."""

import bpy
from bpy.props import StringProperty

from .authoring import _ObjectModeOperator, _RemoveActiveItem, _free_name, _selected


def _append(props, collection: str, index_name: str, base: str):
    items = getattr(props, collection)
    item = items.add()
    item.name = _free_name(base, {i.name for i in items if i != item})
    setattr(props, index_name, len(items) - 1)
    return item


class ARTICULA_OT_keyframe_add(_ObjectModeOperator, bpy.types.Operator):
    """Keep the robot's current pose (its joint positions and floating roots) and controls as a keyframe"""

    bl_idname = "articula.keyframe_add"
    bl_label = "Add Keyframe"

    name: StringProperty(name="Name", default="key", description="The keyframe's name (made unique)")

    def execute(self, context):
        from ..addon.adapters.blender_to_export import keyframe_of_current_pose

        scene = context.scene
        if not any(o.articula.body.enabled for o in scene.objects):
            return self.fail("No rigid bodies in the scene")
        keyframe, notes = keyframe_of_current_pose(scene)
        item = _append(scene.articula, "keyframes", "active_keyframe_index", self.name or "key")
        from ..addon.adapters.fields import write_keyframe

        keyframe.name = item.name
        write_keyframe(item, keyframe)
        for note in notes:
            self.report({"WARNING"}, note)
        self.report({"INFO"}, f"Keyframe {item.name}: {len(keyframe.joint_positions)} joint positions")
        return {"FINISHED"}


class ARTICULA_OT_keyframe_remove(_RemoveActiveItem, bpy.types.Operator):
    """Remove the active keyframe"""

    bl_idname = "articula.keyframe_remove"
    bl_label = "Remove Keyframe"
    collection, index_name = "keyframes", "active_keyframe_index"


class ARTICULA_OT_equality_add(_ObjectModeOperator, bpy.types.Operator):
    """Weld the two selected bodies (the active one is body 1) as they stand, or one selected body to the
    world"""

    bl_idname = "articula.equality_add"
    bl_label = "Add Weld"

    def execute(self, context):
        bodies = [o for o in _selected(context) if o.articula.body.enabled]
        if len(bodies) not in (1, 2):
            return self.fail("Select one rigid body (welded to the world) or two")
        active = context.active_object if context.active_object in bodies else bodies[-1]
        other = next((b for b in bodies if b != active), None)
        item = _append(context.scene.articula, "equalities", "active_equality_index", "weld")
        item.body0, item.body1 = other, active
        return {"FINISHED"}


class ARTICULA_OT_equality_remove(_RemoveActiveItem, bpy.types.Operator):
    """Remove the active weld or connect"""

    bl_idname = "articula.equality_remove"
    bl_label = "Remove Weld or Connect"
    collection, index_name = "equalities", "active_equality_index"


class ARTICULA_OT_tendon_equality_add(_ObjectModeOperator, bpy.types.Operator):
    """Hold the active fixed tendon at its length at the start (how grippers couple a finger's joints)"""

    bl_idname = "articula.tendon_equality_add"
    bl_label = "Add Tendon Equality"

    def execute(self, context):
        props = context.scene.articula
        if not 0 <= props.active_tendon_index < len(props.tendons):
            return self.fail("Select a fixed tendon in the Articula Tendons panel first")
        tendon = props.tendons[props.active_tendon_index].name
        item = _append(props, "tendon_equalities", "active_tendon_equality_index", f"{tendon}_equality")
        item.tendon0 = tendon
        return {"FINISHED"}


class ARTICULA_OT_tendon_equality_remove(_RemoveActiveItem, bpy.types.Operator):
    """Remove the active tendon equality"""

    bl_idname = "articula.tendon_equality_remove"
    bl_label = "Remove Tendon Equality"
    collection, index_name = "tendon_equalities", "active_tendon_equality_index"


class ARTICULA_OT_contact_pair_add(_ObjectModeOperator, bpy.types.Operator):
    """Make the two selected colliders always collide (a MuJoCo contact pair)"""

    bl_idname = "articula.contact_pair_add"
    bl_label = "Add Contact Pair"

    def execute(self, context):
        colliders = [o for o in _selected(context) if o.articula.collider.enabled]
        if len(colliders) != 2:
            return self.fail("Select exactly two colliders")
        item = _append(context.scene.articula, "contact_pairs", "active_contact_pair_index", "pair")
        item.shape0, item.shape1 = colliders
        return {"FINISHED"}


class ARTICULA_OT_contact_pair_remove(_RemoveActiveItem, bpy.types.Operator):
    """Remove the active contact pair"""

    bl_idname = "articula.contact_pair_remove"
    bl_label = "Remove Contact Pair"
    collection, index_name = "contact_pairs", "active_contact_pair_index"


class ARTICULA_OT_look_through_robot_camera(_ObjectModeOperator, bpy.types.Operator):
    """Render what the robot sees: the active robot camera becomes the scene's camera, at its resolution"""

    bl_idname = "articula.look_through_robot_camera"
    bl_label = "Look Through Robot Camera"

    @classmethod
    def poll(cls, context):
        obj = context.object
        return super().poll(context) and obj is not None and obj.type == "CAMERA"

    def execute(self, context):
        obj, render = context.object, context.scene.render
        context.scene.camera = obj
        width, height = obj.articula.camera.resolution
        if (width, height) != (1, 1):
            render.resolution_x, render.resolution_y = width, height
        return {"FINISHED"}


classes = (ARTICULA_OT_keyframe_add, ARTICULA_OT_keyframe_remove, ARTICULA_OT_equality_add,
           ARTICULA_OT_equality_remove, ARTICULA_OT_tendon_equality_add, ARTICULA_OT_tendon_equality_remove,
           ARTICULA_OT_contact_pair_add, ARTICULA_OT_contact_pair_remove,
           ARTICULA_OT_look_through_robot_camera)

register, unregister = bpy.utils.register_classes_factory(classes)
