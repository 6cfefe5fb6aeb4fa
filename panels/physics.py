"""Properties editor > Physics tab: scene, simulation, body, joint (with its DOFs, their actuators and a
mimic), tendons, collider, collision, material.

Panels only draw properties and call operators. A joint shows only what its type uses:
revolute/prismatic their axis and single DOF, spherical its cone limits and per-axis drives,
D6 a list of its six axes (free, limited or locked) and the active axis, fixed no DOF at all.
"""

import bpy

from ..core.model import DofAxis, JointType



class _PhysicsPanel:
    bl_space_type = "PROPERTIES"
    bl_region_type = "WINDOW"
    bl_context = "physics"


class _NonJointPanel(_PhysicsPanel):
    """Shown for any object except joints (bodies, colliders, plain objects)."""

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and not obj.articula.joint.enabled


def _switch_row(layout, props, switch: str, value: str, text: str = ""):
    """``[x] value``: a ``has_<x>`` checkbox and the value it enables."""
    row = layout.row(align=True)
    row.prop(props, switch, text=text)
    sub = row.row(align=True)
    sub.active = getattr(props, switch)
    sub.prop(props, value, text="")
    return row


def draw_list(layout, collection: str, props, item: str, rows: int) -> None:
    """A ``scene.articula`` list with its add and remove buttons (``articula.<item>_add/remove``)."""
    row = layout.row()
    row.template_list(f"ARTICULA_UL_{collection}", "", props, collection, props, f"active_{item}_index",
                      rows=rows)
    buttons = row.column(align=True)
    buttons.operator(f"articula.{item}_add", text="", icon="ADD")
    buttons.operator(f"articula.{item}_remove", text="", icon="REMOVE")


# --- lists -----------------------------------------------------------------------------------

class ARTICULA_UL_dofs(bpy.types.UIList):
    """A joint's DOFs: the axis and, for D6, its motion (free, limited, locked)."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index=0):
        label = item.bl_rna.properties["axis"].enum_items[item.axis].name
        row = layout.row(align=True)
        row.label(text=label, icon="DRIVER_ROTATIONAL_DIFFERENCE" if DofAxis(item.axis).is_angular
                  else "EMPTY_SINGLE_ARROW")
        if data.type == JointType.D6.value:
            row.prop(item, "motion", text="")
        if item.drive_enabled:
            row.label(text="", icon="AUTO")


class ARTICULA_UL_actuators(bpy.types.UIList):
    """A DOF's or tendon's actuators: name, kind and the control (animatable)."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index=0):
        row = layout.row(align=True)
        row.prop(item, "name", text="", emboss=False, icon="DRIVER")
        row.label(text=item.bl_rna.properties["kind"].enum_items[item.kind].name)
        row.prop(item, item.view("control"), text="")


class ARTICULA_UL_tendons(bpy.types.UIList):
    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index=0):
        row = layout.row(align=True)
        row.prop(item, "name", text="", emboss=False, icon="LINKED")
        row.label(text=f"{len(item.joints)} joints, {len(item.actuators)} actuators")


class ARTICULA_UL_tendon_joints(bpy.types.UIList):
    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index=0):
        row = layout.row(align=True)
        row.prop(item, "joint", text="")
        row.prop(item, "coef", text="")


class ARTICULA_UL_materials(bpy.types.UIList):
    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index=0):
        row = layout.row(align=True)
        row.prop(item, "name", text="", emboss=False, icon="PHYSICS")
        row.label(text=f"{item.static_friction:.2g} / {item.dynamic_friction:.2g}")


class ARTICULA_UL_filtered_pairs(bpy.types.UIList):
    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index=0):
        row = layout.row(align=True)
        row.label(text=item.body_a.name if item.body_a else "(none)")
        row.label(text=item.body_b.name if item.body_b else "(none)", icon="FORWARD")


class ARTICULA_UL_problems(bpy.types.UIList):
    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index=0):
        row = layout.row(align=True)
        row.label(text=item.message, icon="ERROR" if item.severity == "ERROR" else "INFO")
        if item.object_name:
            row.label(text=item.object_name, icon="OBJECT_DATA")


# --- scene -----------------------------------------------------------------------------------

class _ScenePanel(_PhysicsPanel):
    """Scene-wide: shown whatever object is active."""

    @classmethod
    def poll(cls, context):
        return context.scene is not None


class ARTICULA_PT_scene(_ScenePanel, bpy.types.Panel):
    bl_label = "Articula Scene"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        props = context.scene.articula
        col = layout.column()
        col.prop(props, "world_name")
        col.prop(props, "robot_type")
        col.prop(props, "gravity")
        col.prop(props, "steps_per_second")
        col.prop(props, "solver")
        col.prop(props, "solver_iterations")
        col.prop(props, "collision_filter_parent")
        col.prop(props, "ground_plane")
        col.prop(props, "replicas")
        sub = col.column()
        sub.active = props.replicas > 1
        sub.prop(props, "replica_spacing")
        draw_problems(layout, props)


def draw_problems(layout, props):
    row = layout.row(align=True)
    row.operator("articula.validate", icon="CHECKMARK")
    if props.problems:
        layout.template_list("ARTICULA_UL_problems", "", props, "problems", props, "active_problem_index", rows=3)
        layout.operator("articula.select_problem_object", icon="RESTRICT_SELECT_OFF")
        index = props.active_problem_index
        fix = props.problems[index].fix if 0 <= index < len(props.problems) else None
        if fix is not None:
            layout.operator("articula.fix_problem", text=f"Fix: {fix[2]}", icon="MODIFIER").index = index


# --- simulation ------------------------------------------------------------------------------

#: (action, button text, icon) of ``articula.simulate_control`` while a simulation runs.
SIMULATION_CONTROLS = (("PAUSE", "Pause / Resume", "PAUSE"), ("STEP", "Step", "FRAME_NEXT"),
                       ("KEEP", "Stop & Keep", "CHECKMARK"), ("CANCEL", "Cancel", "CANCEL"))


def simulation_running() -> bool:
    """A live simulation runs (its control operator polls true only then)."""
    return bpy.ops.articula.simulate_control.poll()


def draw_simulation(layout, context) -> None:
    """Simulate (or, while running, its controls), the settings it uses, and Bake / Clear Bake."""
    scene = context.scene
    props = scene.articula
    if simulation_running():
        grid = layout.grid_flow(columns=2, align=True)
        for action, text, icon in SIMULATION_CONTROLS:
            grid.operator("articula.simulate_control", text=text, icon=icon).action = action
    else:
        layout.operator("articula.simulate", icon="PLAY")
    posed = sum(o.articula.body.posed for o in scene.objects if o.articula.body.enabled)
    if posed:  # a state kept from a simulation: say so, and offer the two ways out
        box = layout.box().column(align=True)
        box.label(text=f"{posed} bodies show a simulated state (the rest is kept)", icon="POSE_HLT")
        row = box.row(align=True)
        row.operator("articula.reset_to_rest", icon="LOOP_BACK")
        row.operator("articula.apply_pose_as_rest", icon="ARMATURE_DATA")
    col = layout.column()
    col.use_property_split = True
    col.prop(props, "solver")
    col.prop(props, "steps_per_second")
    col.prop(props, "replicas")
    sub = col.column()
    sub.active = props.replicas > 1
    sub.prop(props, "replica_spacing")
    draw_play(layout, props)
    box = layout.box().column()
    box.use_property_split = True
    row = box.row(align=True)
    row.prop(scene, "frame_start", text="Bake Frames")
    row.prop(scene, "frame_end", text="")
    fps = scene.render.fps / scene.render.fps_base
    box.label(text=f"{max(1, round(props.steps_per_second / fps))} substeps per frame", icon="TIME")
    row = box.row(align=True)
    row.operator("articula.bake", icon="REC")
    row.operator("articula.clear_bake", icon="TRASH")
    if props.replicas > 1:
        box.label(text="Keyframes for replica 0; other replicas as instances", icon="INFO")


def draw_play(layout, props) -> None:
    """Recording the live simulation, and the grab's (Ctrl+drag) and push's (Shift+click) strength."""
    box = layout.box().column()
    box.use_property_split = True
    box.prop(props, "record_simulation", icon="RECORD_ON" if props.record_simulation else "RECORD_OFF")
    box.prop(props, "grab_stiffness")
    box.prop(props, "grab_max_acceleration")
    box.prop(props, "push_speed")
    box.label(text="Ctrl+drag grabs a body, Shift+click pushes it", icon="MOUSE_LMB_DRAG")


class ARTICULA_PT_simulation(_ScenePanel, bpy.types.Panel):
    bl_label = "Articula Simulation"

    def draw(self, context):
        draw_simulation(self.layout, context)


# --- body ------------------------------------------------------------------------------------

def world_joint_of(scene, body):
    """The joint Empty that joins ``body`` to the world (an empty Body 0), if any."""
    return next((o for o in scene.objects if o.articula.joint.enabled and o.articula.joint.body0 is None
                 and o.articula.joint.body1 == body), None)


class ARTICULA_PT_body(_NonJointPanel, bpy.types.Panel):
    bl_label = "Articula Rigid Body"

    def draw_header(self, context):
        self.layout.prop(context.object.articula.body, "enabled", text="")

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        props = context.object.articula.body
        layout.active = props.enabled
        col = layout.column()
        col.prop(props, "kinematic")
        col.prop(props, "fixed_base")
        anchor = world_joint_of(context.scene, context.object)
        if anchor is not None:
            col.label(text=f"Held by the world through joint '{anchor.name}'", icon="PINNED")
        elif context.object.parent is None:
            col.prop(props, "free_joint_name")
            free = col.column(heading="Free Joint", align=True)
            for what in ("damping", "armature", "friction", "stiffness"):
                free.prop(props, f"free_joint_{what}")
        col.prop(props, "self_collision")
        col.prop(props, "mass_mode", expand=True)
        if props.mass_mode == "MANUAL":
            col.prop(props, "mass")
            col.prop(props, "center_of_mass")
            col.prop(props, "diagonal_inertia")
            col.prop(props, "principal_axes")
        col.operator("articula.compute_mass", icon="PHYSICS")
        col.separator()
        col.prop(props, "linear_velocity")
        col.prop(props, "angular_velocity")


# --- joint -----------------------------------------------------------------------------------

def draw_dof(layout, dof, joint_type: str) -> None:
    """The fields of one DOF that its joint type uses."""
    col = layout.column()
    spherical = joint_type == JointType.SPHERICAL.value
    if joint_type == JointType.D6.value:
        col.row().prop(dof, "motion", expand=True)
        if dof.motion == "LOCKED":
            col.label(text="Locked: this axis does not move", icon="LOCKED")
            return
        col.prop(dof, "name", text="Own Joint Name")
    elif not spherical:
        row = col.row(align=True)
        row.prop_enum(dof, "motion", "FREE")
        row.prop_enum(dof, "motion", "LIMITED")
    if dof.motion == "LIMITED" and not spherical:
        box = col.box().column()
        _switch_row(box, dof, "has_lower_limit", dof.view("lower"))
        _switch_row(box, dof, "has_upper_limit", dof.view("upper"))
        box.prop(dof, "limit_stiffness")
        box.prop(dof, "limit_damping")
        box.prop(dof, dof.view("limit_margin"))
        box.prop(dof, "limit_solref")
        box.prop(dof, "limit_solimp")
    if not spherical:
        col.prop(dof, dof.view("reference"))
    box = col.box().column()
    box.prop(dof, "drive_enabled")
    drive = box.column()
    drive.active = dof.drive_enabled
    drive.prop(dof, "drive_type")
    drive.prop(dof, "drive_stiffness")
    drive.prop(dof, "drive_damping")
    drive.prop(dof, dof.view("target_position"))
    drive.prop(dof, dof.view("target_velocity"))
    _switch_row(drive, dof, "has_max_effort", "max_effort")
    draw_actuators(col.box().column(), dof, dof.actuators, dof.drive_enabled)
    box = col.box().column()
    box.prop(dof, "armature")
    box.prop(dof, "static_friction")
    box.prop(dof, "dynamic_friction")
    box.prop(dof, "viscous_damping")
    box.prop(dof, "spring_stiffness")
    box.prop(dof, dof.view("spring_reference"))
    _switch_row(box, dof, "has_velocity_limit", dof.view("velocity_limit"))
    col.prop(dof, "group")


def actuation_note(dof_actuators, drive_enabled: bool) -> str:
    """One line on how a DOF's actuators and its drive relate (export and simulation)."""
    if not dof_actuators:
        return "MuJoCo actuators: none (the drive above is exported and simulated)"
    if drive_enabled:
        return "Exported as MjcActuator; PhysX consumers get the drive; MuJoCo simulates the actuator"
    servo = any(a.kind in ("POSITION", "VELOCITY") for a in dof_actuators)
    return ("Exported as MjcActuator; PhysX consumers get a drive made from the servo" if servo
            else "Exported as MjcActuator; PhysX consumers get no drive for it")


def draw_actuators(layout, owner, actuators, drive_enabled: bool = False, tendon_index: int = -1,
                   dof_index: int = -1) -> None:
    """An actuator list with add/remove and the active actuator's fields."""
    if tendon_index < 0:
        layout.label(text=actuation_note(actuators, drive_enabled), icon="INFO")
    row = layout.row()
    row.template_list("ARTICULA_UL_actuators", "", owner, "actuators", owner, "active_actuator_index", rows=2)
    buttons = row.column(align=True)
    for name, icon in (("articula.actuator_add", "ADD"), ("articula.actuator_remove", "REMOVE")):
        op = buttons.operator(name, text="", icon=icon)
        op.tendon_index, op.dof_index = tendon_index, dof_index
    if not 0 <= owner.active_actuator_index < len(actuators):
        return
    actuator = actuators[owner.active_actuator_index]
    col = layout.column()
    col.use_property_split = True
    col.prop(actuator, "kind")
    if actuator.kind == "POSITION":
        col.prop(actuator, "kp")
    if actuator.kind in ("POSITION", "VELOCITY"):
        col.prop(actuator, "kv")
    if actuator.kind == "GENERAL":
        col.label(text=f"MuJoCo general actuator (dynamics {actuator.dyn_type}, gain {actuator.gain_type}, "
                  f"bias {actuator.bias_type}): kept as the file wrote it", icon="INFO")
        row = _switch_row(col, actuator, "has_length_range", "length_min")
        row.prop(actuator, "length_max", text="")
    col.prop(actuator, "gear")
    col.prop(actuator, actuator.view("control"))
    row = _switch_row(col, actuator, "has_ctrl_range", actuator.view("ctrl_min"))
    row.prop(actuator, actuator.view("ctrl_max"), text="")
    row = _switch_row(col, actuator, "has_force_range", "force_min")
    row.prop(actuator, "force_max", text="")
    col.prop(actuator, "gravity_compensation")


class ARTICULA_PT_joint(_PhysicsPanel, bpy.types.Panel):
    bl_label = "Articula Joint"

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and (obj.type == "EMPTY" or obj.articula.joint.enabled) \
            and not obj.articula.body.enabled and not obj.articula.site.enabled \
            and not obj.articula.sensor.enabled

    def draw_header(self, context):
        self.layout.prop(context.object.articula.joint, "enabled", text="")

    def draw(self, context):
        layout = self.layout
        props = context.object.articula.joint
        layout.active = props.enabled
        col = layout.column()
        col.use_property_split = True
        col.prop(props, "type")
        col.prop(props, "body0")
        col.prop(props, "body1")
        if props.type != JointType.FIXED.value and props.type != JointType.D6.value:
            col.prop(props, "axis", expand=True)
        col.prop(props, "active")
        names = context.object.articula
        if names.file_name and names.file_name_for == context.object.name:
            col.label(text=f"Exported as {names.file_name} (its file's name)", icon="FILE_TEXT")
        col.prop(props, "collide_bodies")
        col.prop(props, "exclude_from_articulation")
        if props.type == JointType.SPHERICAL.value:
            box = col.box().column()
            _switch_row(box, props, "has_cone_limit0", "cone_limit0")
            _switch_row(box, props, "has_cone_limit1", "cone_limit1")
        if props.type in (JointType.REVOLUTE.value, JointType.PRISMATIC.value):
            draw_mimic(col.box().column(), props)
        draw_joint_dofs(layout, props)


def draw_mimic(layout, props) -> None:
    layout.prop(props, "has_mimic")
    sub = layout.column()
    sub.active = props.has_mimic
    sub.prop(props, "mimic_leader")
    sub.prop(props, "mimic_gear")
    sub.prop(props, "mimic_offset_angle" if props.type == JointType.REVOLUTE.value else "mimic_offset")
    sub.prop(props, "mimic_higher_terms")


def draw_joint_dofs(layout, props) -> None:
    """The DOFs of a joint: none (fixed), the one DOF, or a list and the active DOF."""
    if props.type == JointType.FIXED.value or not props.dofs:
        layout.label(text="A fixed joint has no degrees of freedom" if props.type == JointType.FIXED.value
                     else "No degrees of freedom: change the type or axis to create them", icon="INFO")
        return
    if len(props.dofs) == 1:
        draw_dof(layout.column(), props.dofs[0], props.type)
        return
    layout.template_list("ARTICULA_UL_dofs", "", props, "dofs", props, "active_dof_index",
                         rows=len(props.dofs))
    index = min(props.active_dof_index, len(props.dofs) - 1)
    draw_dof(layout.column(), props.dofs[index], props.type)


class ARTICULA_PT_tendons(_ScenePanel, bpy.types.Panel):
    """Fixed tendons: joint couplings that actuators and limits act on (MJCF grippers)."""

    bl_label = "Articula Tendons"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        layout = self.layout
        props = context.scene.articula
        draw_list(layout, "tendons", props, "tendon", rows=2)
        if not 0 <= props.active_tendon_index < len(props.tendons):
            layout.label(text="Select joints and add a tendon to couple them", icon="INFO")
            return
        tendon = props.tendons[props.active_tendon_index]
        layout.label(text="Length = sum of coefficient * joint position:")
        layout.template_list("ARTICULA_UL_tendon_joints", "", tendon, "joints", tendon, "active_joint_index",
                             rows=2)
        col = layout.column()
        col.use_property_split = True
        _switch_row(col, tendon, "has_lower", "lower")
        _switch_row(col, tendon, "has_upper", "upper")
        col.prop(tendon, "stiffness")
        col.prop(tendon, "damping")
        col.prop(tendon, "frictionloss")
        col.prop(tendon, "armature")
        col.prop(tendon, "spring_length")
        layout.label(text="Actuators on the tendon (MjcActuator; MuJoCo simulates them):")
        draw_actuators(layout, tendon, tendon.actuators, tendon_index=props.active_tendon_index)


class ARTICULA_PT_joint_frame(_PhysicsPanel, bpy.types.Panel):
    bl_label = "Body 0 Frame Offset"
    bl_parent_id = "ARTICULA_PT_joint"
    bl_options = {"DEFAULT_CLOSED"}

    @classmethod
    def poll(cls, context):
        return context.object is not None and context.object.articula.joint.enabled

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        props = context.object.articula.joint
        layout.prop(props, "body0_frame_offset_location", text="Location")
        layout.prop(props, "body0_frame_offset_rotation", text="Rotation")


# --- collider, collision, material -----------------------------------------------------------

_SIZES = {
    "BOX": ("half_extents",),
    "SPHERE": ("radius",),
    "CAPSULE": ("radius", "half_height", "axis"),
    "CYLINDER": ("radius", "half_height", "axis"),
}


class ARTICULA_PT_collider(_NonJointPanel, bpy.types.Panel):
    bl_label = "Articula Collider"

    def draw_header(self, context):
        self.layout.prop(context.object.articula.collider, "enabled", text="")

    def draw(self, context):
        layout = self.layout
        props = context.object.articula.collider
        col = layout.column()
        col.use_property_split = True
        col.active = props.enabled
        col.prop(props, "shape")
        for name in _SIZES.get(props.shape, ()):
            col.prop(props, name, expand=name == "axis")
        if props.shape in ("CONVEX_HULL", "MESH", "HEIGHT_FIELD") and context.object.type != "MESH":
            col.label(text="Needs a mesh object", icon="ERROR")
        if props.shape == "HEIGHT_FIELD":
            draw_height_field(col, context.object, props)
        col.prop(props, "collider_only")
        col.prop(props, "contact_margin")
        col.prop(props, "contact_gap")
        draw_mujoco_contact(layout.box().column(), props)
        row = layout.row(align=True)
        row.operator_menu_enum("articula.set_collider", "shape", text="Fit Collider", icon="MESH_CUBE")


def draw_height_field(layout, obj, props) -> None:
    """Rows, columns and base (editable) and the sizes the mesh gives (its evaluated bounds, scaled)."""
    layout.prop(props, "hfield_rows")
    layout.prop(props, "hfield_columns")
    layout.prop(props, "hfield_base")
    x, y, z = obj.dimensions
    layout.label(text=f"Half size {x / 2:.4g} x {y / 2:.4g} m, elevation {z:.4g} m", icon="MESH_GRID")
    if props.hfield_name:
        layout.label(text=f"Asset: {props.hfield_name}")


def draw_mujoco_contact(layout, props) -> None:
    layout.use_property_split = True
    layout.prop(props, "has_contact")
    sub = layout.column()
    sub.active = props.has_contact
    for name in ("condim", "priority", "solref", "solimp", "solmix"):
        sub.prop(props, name)


class ARTICULA_PT_collision(_PhysicsPanel, bpy.types.Panel):
    bl_label = "Articula Collision"
    bl_options = {"DEFAULT_CLOSED"}

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and (obj.articula.collider.enabled or obj.articula.body.enabled)

    def draw(self, context):
        layout = self.layout
        obj = context.object
        col = layout.column()
        col.use_property_split = True
        if obj.articula.collider.enabled:
            col.prop(obj.articula.collider, "collision_group")
            col.prop(obj.articula.collider, "world", text="Collider World")
        if obj.articula.body.enabled:
            col.prop(obj.articula.body, "world", text="Body World")
        col.operator("articula.assign_collision", text="Assign to Selection", icon="GROUP")
        layout.label(text="Pairs that never collide:")
        draw_list(layout, "filtered_pairs", context.scene.articula, "filtered_pair", rows=2)


class ARTICULA_PT_material(_NonJointPanel, bpy.types.Panel):
    bl_label = "Articula Physics Material"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        layout = self.layout
        scene_props = context.scene.articula
        collider = context.object.articula.collider
        if collider.enabled:
            col = layout.column()
            col.use_property_split = True
            col.prop_search(collider, "material", scene_props, "materials", icon="PHYSICS")
            _switch_row(col, collider, "has_density", "density", text="Own Density")
            layout.separator()
        draw_list(layout, "materials", scene_props, "material", rows=3)
        if 0 <= scene_props.active_material_index < len(scene_props.materials):
            material = scene_props.materials[scene_props.active_material_index]
            col = layout.column()
            col.use_property_split = True
            for name in ("static_friction", "dynamic_friction", "restitution", "torsional_friction",
                         "rolling_friction"):
                col.prop(material, name)
            _switch_row(col, material, "has_density", "density")


classes = (
    ARTICULA_UL_dofs,
    ARTICULA_UL_actuators,
    ARTICULA_UL_tendons,
    ARTICULA_UL_tendon_joints,
    ARTICULA_UL_materials,
    ARTICULA_UL_filtered_pairs,
    ARTICULA_UL_problems,
    ARTICULA_PT_scene,
    ARTICULA_PT_simulation,
    ARTICULA_PT_body,
    ARTICULA_PT_joint,
    ARTICULA_PT_joint_frame,
    ARTICULA_PT_tendons,
    ARTICULA_PT_collider,
    ARTICULA_PT_collision,
    ARTICULA_PT_material,
)

register, unregister = bpy.utils.register_classes_factory(classes)
