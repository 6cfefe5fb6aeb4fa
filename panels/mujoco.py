"""Properties editor > Physics tab: what MuJoCo adds to a robot. On objects: a site, a sensor, a robot
camera or light. On the scene: keyframes (with Apply), welds and connects, tendon equalities, contact pairs,
spatial tendons and frame actuators, MuJoCo's options."""

import bpy

from .physics import _PhysicsPanel, _ScenePanel, _switch_row


def _object_panel(role: str, types: tuple):
    class _Panel(_PhysicsPanel):
        @classmethod
        def poll(cls, context):
            obj = context.object
            return obj is not None and obj.type in types and not obj.articula.joint.enabled \
                and not obj.articula.body.enabled

        def draw_header(self, context):
            self.layout.prop(getattr(context.object.articula, role), "enabled", text="")

    return _Panel


def _file_name(layout, obj) -> None:
    props = obj.articula
    if props.file_name and props.file_name_for == obj.name:
        layout.label(text=f"In its file: {props.file_name}", icon="FILE_TEXT")


class ARTICULA_PT_site(_object_panel("site", ("EMPTY",)), bpy.types.Panel):
    bl_label = "Articula Site"

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        props = context.object.articula.site
        layout.active = props.enabled
        for name in ("kind", "size", "color", "group"):
            layout.prop(props, name)
        _file_name(layout, context.object)


class ARTICULA_PT_sensor(_object_panel("sensor", ("EMPTY",)), bpy.types.Panel):
    bl_label = "Articula Sensor"

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        props = context.object.articula.sensor
        layout.active = props.enabled
        layout.prop(props, "kind")
        layout.prop(props, "target_kind")
        layout.prop(props, "target")
        if props.target is None:
            layout.prop(props, "target_name")
        layout.prop(props, "reference_kind")
        layout.prop(props, "reference")
        for name in ("noise", "cutoff", "update_rate", "settings"):
            layout.prop(props, name)
        _file_name(layout, context.object)


def draw_add_sensing(layout, obj) -> None:
    """Add Sensor (a menu of kinds), Add Site and Add Robot Camera for the active body, site or joint."""
    col = layout.column(align=True)
    col.operator_menu_enum("articula.add_sensor", "kind", text="Add Sensor", icon="OUTLINER_OB_EMPTY")
    if obj is not None and obj.articula.body.enabled:
        row = col.row(align=True)
        row.operator("articula.add_site", icon="EMPTY_AXIS")
        row.operator("articula.add_robot_camera", text="Add Camera", icon="OUTLINER_OB_CAMERA")


def _sensors_on(obj) -> list:
    """The sensors that read ``obj`` (and, on a body, its sites)."""
    holders = {obj, *(c for c in obj.children if c.articula.site.enabled)}
    return [c for h in holders for c in h.children
            if c.articula.sensor.enabled and c.articula.sensor.target == h]


class ARTICULA_PT_sensing(_PhysicsPanel, bpy.types.Panel):
    """The sensors, sites and cameras a body, site or joint carries, and buttons to add them."""

    bl_label = "Articula Sensors"
    bl_options = {"DEFAULT_CLOSED"}

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and (obj.articula.body.enabled or obj.articula.joint.enabled
                                    or obj.type == "EMPTY" and obj.articula.site.enabled)

    def draw(self, context):
        layout, obj = self.layout, context.object
        for sensor in sorted(_sensors_on(obj), key=lambda o: o.name):
            layout.label(text=f"{sensor.name}: {sensor.articula.sensor.kind}", icon="OUTLINER_OB_EMPTY")
        draw_add_sensing(layout, obj)


class ARTICULA_PT_camera(_object_panel("camera", ("CAMERA",)), bpy.types.Panel):
    bl_label = "Articula Robot Camera"

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        obj = context.object
        props = obj.articula.camera
        layout.active = props.enabled
        layout.prop(obj.data, "angle_y", text="Vertical Field of View")
        layout.prop(props, "mode")
        if props.mode in ("TARGETBODY", "TARGETBODYCOM"):
            layout.prop(props, "target")
        layout.prop(props, "resolution")
        layout.prop(props, "update_rate")
        layout.prop(props, "ros_link")
        layout.prop(props, "ros_optical_frame")
        layout.operator("articula.look_through_robot_camera", icon="RESTRICT_RENDER_OFF")
        _file_name(layout, obj)


class ARTICULA_PT_light(_object_panel("light", ("LIGHT",)), bpy.types.Panel):
    bl_label = "Articula Robot Light"

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        obj = context.object
        props = obj.articula.light
        layout.active = props.enabled
        layout.prop(obj.data, "color")
        layout.prop(obj.data, "use_shadow", text="Cast Shadow")
        if obj.data.type == "SPOT":
            layout.prop(obj.data, "spot_size")
        for name in ("exponent", "attenuation", "active"):
            layout.prop(props, name)
        _file_name(layout, obj)


# --- scene lists -----------------------------------------------------------------------------------

class ARTICULA_UL_named(bpy.types.UIList):
    """Any named item (keyframes, welds, pairs, tendons, actuators)."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index=0):
        layout.prop(item, "name", text="", emboss=False, icon=getattr(self, "item_icon", "DOT"))


def _draw_list(layout, props, collection: str, item: str, rows: int = 3, buttons: bool = True):
    row = layout.row()
    row.template_list("ARTICULA_UL_named", collection, props, collection, props, f"active_{item}_index",
                      rows=rows)
    if buttons:
        col = row.column(align=True)
        col.operator(f"articula.{item}_add", text="", icon="ADD")
        col.operator(f"articula.{item}_remove", text="", icon="REMOVE")
    items, index = getattr(props, collection), getattr(props, f"active_{item}_index")
    return items[index] if 0 <= index < len(items) else None


class ARTICULA_PT_keyframes(_ScenePanel, bpy.types.Panel):
    """Named states of the robot: apply one to pose the robot (joint positions, floating roots, controls)."""

    bl_label = "Articula Keyframes"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        layout = self.layout
        props = context.scene.articula
        keyframe = _draw_list(layout, props, "keyframes", "keyframe")
        row = layout.row(align=True)
        row.operator("articula.apply_keyframe", icon="ARMATURE_DATA").name = keyframe.name if keyframe else ""
        row.operator("articula.reset_to_rest", icon="LOOP_BACK")
        if keyframe is None:
            return
        layout.use_property_split = True
        layout.prop(keyframe, "time")
        if keyframe.values:
            layout.template_list("ARTICULA_UL_keyframe_values", "", keyframe, "values", keyframe,
                                 "active_value_index", rows=3)


class ARTICULA_UL_keyframe_values(bpy.types.UIList):
    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index=0):
        row = layout.row(align=True)
        row.label(text=f"{item.target} {item.axis}".strip())
        row.prop(item, "values", index=0, text="")


class ARTICULA_PT_equalities(_ScenePanel, bpy.types.Panel):
    """Welds and connects between two bodies outside the kinematic tree."""

    bl_label = "Articula Welds and Connects"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        layout = self.layout
        equality = _draw_list(layout, context.scene.articula, "equalities", "equality")
        if equality is None:
            layout.label(text="Select two bodies and add a weld", icon="INFO")
            return
        layout.use_property_split = True
        for name in ("kind", "active", "body0", "body1", "site0", "site1", "anchor"):
            layout.prop(equality, name)
        if equality.kind == "WELD":
            layout.prop(equality, "has_relative_pose")
            sub = layout.column()
            sub.active = equality.has_relative_pose
            sub.prop(equality, "relative_location")
            sub.prop(equality, "relative_rotation")
            layout.prop(equality, "torque_scale")
        layout.prop(equality, "solref")
        layout.prop(equality, "solimp")


class ARTICULA_PT_tendon_equalities(_ScenePanel, bpy.types.Panel):
    """A tendon's length held at its start (a gripper's finger coupling) or to another tendon's."""

    bl_label = "Articula Tendon Equalities"
    bl_options = {"DEFAULT_CLOSED"}

    @classmethod
    def poll(cls, context):
        props = context.scene.articula
        return len(props.tendons) or len(props.spatial_tendons) or len(props.tendon_equalities)

    def draw(self, context):
        layout = self.layout
        props = context.scene.articula
        equality = _draw_list(layout, props, "tendon_equalities", "tendon_equality")
        if equality is None:
            layout.label(text="Select a fixed tendon and add one to hold it", icon="INFO")
            return
        layout.use_property_split = True
        layout.prop(equality, "active")
        for name in ("tendon0", "tendon1"):
            row = layout.row(align=True)
            row.prop_search(equality, name, props, "tendons")
            row.prop_search(equality, name, props, "spatial_tendons", text="")
        for name in ("polycoef", "solref", "solimp"):
            layout.prop(equality, name)


class ARTICULA_PT_contact_pairs(_ScenePanel, bpy.types.Panel):
    """Colliders that always collide, with their own contact parameters."""

    bl_label = "Articula Contact Pairs"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        layout = self.layout
        pair = _draw_list(layout, context.scene.articula, "contact_pairs", "contact_pair")
        if pair is None:
            return
        layout.use_property_split = True
        for name in ("shape0", "shape1", "condim", "friction", "margin", "gap", "solref", "solimp"):
            layout.prop(pair, name)


class ARTICULA_PT_spatial_tendons(_ScenePanel, bpy.types.Panel):
    """Spatial tendons and actuators on sites, bodies and ball joints, kept from the file."""

    bl_label = "Articula Spatial Tendons and Frame Actuators"
    bl_options = {"DEFAULT_CLOSED"}

    @classmethod
    def poll(cls, context):
        props = context.scene.articula
        return len(props.spatial_tendons) or len(props.frame_actuators)

    def draw(self, context):
        layout = self.layout
        props = context.scene.articula
        tendon = _draw_list(layout, props, "spatial_tendons", "spatial_tendon", rows=2, buttons=False)
        if tendon is not None:
            col = layout.column()
            col.use_property_split = True
            for wrap in tendon.path:
                col.prop(wrap, "target", text=wrap.kind.title())
            _switch_row(col, tendon, "has_lower", "lower")
            _switch_row(col, tendon, "has_upper", "upper")
            for name in ("stiffness", "damping", "frictionloss", "armature", "spring_length", "width"):
                col.prop(tendon, name)
        actuator = _draw_list(layout, props, "frame_actuators", "frame_actuator", rows=2, buttons=False)
        if actuator is not None:
            col = layout.column()
            col.use_property_split = True
            for name in ("target_kind", "target", "reference_site", "gear", "gear_vector", "control"):
                col.prop(actuator, name)
            if actuator.target_kind == "slidercrank":
                col.prop(actuator, "slider_site")
                col.prop(actuator, "crank_length")
            if actuator.kind == "GENERAL":
                row = _switch_row(col, actuator, "has_length_range", "length_min")
                row.prop(actuator, "length_max", text="")


class ARTICULA_PT_mujoco_options(_ScenePanel, bpy.types.Panel):
    """MuJoCo's solver options: read by MuJoCo only."""

    bl_label = "MuJoCo Options"
    bl_parent_id = "ARTICULA_PT_scene"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        props = context.scene.articula.mujoco
        for name in ("integrator", "cone", "impratio", "solver", "iterations", "tolerance", "ls_iterations",
                     "ls_tolerance", "noslip_iterations", "noslip_tolerance", "jacobian", "density",
                     "viscosity", "wind", "magnetic", "disabled", "enabled"):
            layout.prop(props, name)
        col = layout.column(heading="Override")
        for name in ("override_margin", "override_solref", "override_solimp", "override_friction"):
            col.prop(props, name)


classes = (
    ARTICULA_PT_site,
    ARTICULA_PT_sensor,
    ARTICULA_PT_camera,
    ARTICULA_PT_light,
    ARTICULA_PT_sensing,
    ARTICULA_UL_named,
    ARTICULA_UL_keyframe_values,
    ARTICULA_PT_keyframes,
    ARTICULA_PT_equalities,
    ARTICULA_PT_tendon_equalities,
    ARTICULA_PT_contact_pairs,
    ARTICULA_PT_spatial_tendons,
    ARTICULA_PT_mujoco_options,
)

register, unregister = bpy.utils.register_classes_factory(classes)
