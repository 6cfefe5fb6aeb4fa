"""3D View sidebar (N panel), tab "Articula": the most used authoring actions in one place, and
the simulation (simulate and its controls, bake)."""

import bpy

from .mujoco import draw_add_sensing
from .physics import draw_problems, draw_simulation


def _role(obj) -> str:
    props = obj.articula
    roles = [name for name, on in (("Body", props.body.enabled), ("Joint", props.joint.enabled),
                                   ("Collider", props.collider.enabled), ("Site", props.site.enabled),
                                   ("Sensor", props.sensor.enabled), ("Robot Camera", props.camera.enabled),
                                   ("Robot Light", props.light.enabled)) if on]
    return " + ".join(roles) or "No physics"


class _SidebarPanel:
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Articula"


class ARTICULA_PT_sidebar(_SidebarPanel, bpy.types.Panel):
    bl_label = "Articula"

    def draw(self, context):
        layout = self.layout
        obj = context.active_object
        if obj is not None:
            layout.label(text=f"{obj.name}: {_role(obj)}", icon="OBJECT_DATA")
        col = layout.column(align=True)
        col.operator("articula.make_body", icon="RIGID_BODY")
        col.operator_menu_enum("articula.add_joint", "type", text="Add Joint", icon="CONSTRAINT_BONE")
        col.operator_menu_enum("articula.set_collider", "shape", text="Set Collider", icon="MESH_CUBE")
        col.operator("articula.compute_mass", icon="PHYSICS")
        col.operator("articula.assign_collision", icon="GROUP")
        draw_add_sensing(layout, obj)
        if obj is not None and obj.articula.joint.enabled:
            joint = obj.articula.joint
            box = layout.box().column()
            box.prop(joint, "type")
            box.prop(joint, "body0")
            box.prop(joint, "body1")
        draw_robot_state(layout, context.scene.articula)
        draw_problems(layout, context.scene.articula)


SHOWN_KEYFRAMES = 8


def draw_robot_state(layout, props) -> None:
    """The scene's keyframes to apply (the first few), keep the current pose as one, back to rest."""
    box = layout.box().column(align=True)
    box.label(text="Robot State", icon="ARMATURE_DATA")
    for keyframe in list(props.keyframes)[:SHOWN_KEYFRAMES]:
        box.operator("articula.apply_keyframe", text=keyframe.name, icon="POSE_HLT").name = keyframe.name
    row = box.row(align=True)
    row.operator("articula.keyframe_add", text="Keep Pose", icon="ADD")
    row.operator("articula.reset_to_rest", icon="LOOP_BACK")


class ARTICULA_PT_sidebar_simulation(_SidebarPanel, bpy.types.Panel):
    bl_label = "Simulation"

    def draw(self, context):
        draw_simulation(self.layout, context)


classes = (ARTICULA_PT_sidebar, ARTICULA_PT_sidebar_simulation)

register, unregister = bpy.utils.register_classes_factory(classes)
