"""Authoring operators: bodies, joints, colliders, mass, collision groups, the material list, actuators
and fixed tendons.

Every operator checks its whole input before changing anything, so a refused call reports why
and leaves the scene as it was.
"""

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty
from mathutils import Matrix, Quaternion, Vector

from ..addon.adapters import mesh_to_convex_colliders as convex_adapter
from ..addon.adapters import mesh_to_height_field as height_field_adapter
from ..addon.adapters.blender_to_description import (capture_rest, is_body, is_collider, is_joint,
                                                     owner_body, scene_from_blender, world_pose)
from ..addon.adapters.description_to_blender import fill_primitive_mesh, place
from ..addon.properties.common import AXIS_ITEMS, enum_items
from ..addon.properties.joint_props import sync_dofs
from ..core.convex import DEFAULT_MAX_VERTICES, PHYSX_MAX_VERTICES, DecompositionCancelled, DecompositionSettings
from ..core.model import ActuatorKind, JointType, Pose

FIT_SHAPES = [
    ("BOX", "Box", "The mesh's bounding box"),
    ("SPHERE", "Sphere", "A sphere around the bounding box's largest half extent"),
    ("CAPSULE", "Capsule", "A capsule along the bounding box's longest axis"),
    ("CYLINDER", "Cylinder", "A cylinder along the bounding box's longest axis"),
    ("CONVEX_HULL", "Convex Hull", "The convex hull of the mesh, at most Max Vertices vertices"),
    ("CONVEX_DECOMPOSITION", "Convex Decomposition", ("Convex parts that follow the mesh's cavities, handles "
                                                      "and slots (CoACD): one child convex-hull collider per part")),
    ("MESH", "Triangle Mesh", "The mesh itself (static or kinematic bodies; PhysX refuses it on moving ones)"),
    ("HEIGHT_FIELD", "Height Field", "Terrain: the mesh's surface (modifiers applied) as an elevation grid, "
     "rows and columns from its own grid; static"),
]


class _ObjectModeOperator:
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        if context.mode != "OBJECT":
            cls.poll_message_set("Switch to Object Mode first")
            return False
        return True

    def fail(self, message: str) -> set:
        self.report({"ERROR"}, message)
        return {"CANCELLED"}


def _selected(context) -> list:
    return list(context.selected_objects)


class ARTICULA_OT_make_body(_ObjectModeOperator, bpy.types.Operator):
    """Make the selected objects rigid bodies (their parenting becomes the kinematic tree)"""

    bl_idname = "articula.make_body"
    bl_label = "Make Rigid Body"

    kinematic: BoolProperty(name="Kinematic", description="Moved by animation, not by forces")

    def execute(self, context):
        selected = _selected(context)
        if not selected:
            return self.fail("Select the objects to make rigid bodies")
        joints = [o.name for o in selected if is_joint(o)]
        if joints:
            return self.fail(f"Joints cannot be bodies: {', '.join(joints)}")
        for obj in selected:
            obj.articula.body.enabled = True
            obj.articula.body.kinematic = self.kinematic
        self.report({"INFO"}, f"{len(selected)} rigid bod{'y' if len(selected) == 1 else 'ies'}: "
                    + ", ".join(o.name for o in selected))
        return {"FINISHED"}


class ARTICULA_OT_add_joint(_ObjectModeOperator, bpy.types.Operator):
    """Add a joint between the two selected bodies (the active one is the child, body 1), or from the world to the one selected body"""

    bl_idname = "articula.add_joint"
    bl_label = "Add Joint"

    type: EnumProperty(name="Type", items=enum_items(JointType, {"D6": "D6"}), default="REVOLUTE")
    axis: EnumProperty(name="Axis", items=AXIS_ITEMS, default="Z")
    location: EnumProperty(name="Frame", default="ACTIVE", items=[
        ("ACTIVE", "Active Origin", "The joint frame is the active (child) body's origin and rotation"),
        ("CURSOR", "3D Cursor", "The joint frame is the 3D cursor's location and rotation"),
    ])

    def execute(self, context):
        child = context.active_object
        selected = _selected(context)
        others = [o for o in selected if o != child]
        if child is None or child not in selected or len(others) > 1:
            return self.fail("Select one body (a joint to the world) or two bodies, the child (body 1) "
                             "last so it is active")
        parent = others[0] if others else None  # one body: joined to the world
        not_bodies = [o.name for o in (parent, child) if o is not None and not is_body(o)]
        if not_bodies:
            return self.fail(f"Not rigid bodies: {', '.join(not_bodies)}; use Make Rigid Body first")
        frame = world_pose(child) if self.location == "ACTIVE" else _cursor_pose(context)
        joint = bpy.data.objects.new(f"{child.name}_joint", None)
        joint.empty_display_type = "ARROWS"
        joint.empty_display_size = 0.1
        for collection in child.users_collection:
            collection.objects.link(joint)
        place(joint, child, frame)
        props = joint.articula.joint
        props.enabled, props.body0, props.body1 = True, parent, child
        props.type, props.axis = self.type, self.axis
        sync_dofs(props)
        for obj in selected:
            obj.select_set(False)
        joint.select_set(True)
        context.view_layer.objects.active = joint
        self.report({"INFO"}, f"{self.type.title()} joint '{joint.name}': "
                    f"{parent.name if parent else 'the world'} -> {child.name}")
        return {"FINISHED"}


def _cursor_pose(context) -> Pose:
    cursor = context.scene.cursor
    q = cursor.matrix.to_quaternion()
    return Pose(pos=tuple(cursor.location), rot=(q.w, q.x, q.y, q.z))


def _mesh_bounds(obj):
    """(center, half extents) of the object's mesh in object space, or None without vertices."""
    if obj.type != "MESH" or not obj.data.vertices:
        return None
    corners = [v.co for v in obj.data.vertices]
    low = Vector([min(c[i] for c in corners) for i in range(3)])
    high = Vector([max(c[i] for c in corners) for i in range(3)])
    return (low + high) / 2.0, (high - low) / 2.0


def fit_primitive(props, shape: str, half, axis: str) -> None:
    """Fit a primitive collider's sizes to half extents ``half`` (object units)."""
    along = "XYZ".index(axis)
    across = max(h for i, h in enumerate(half) if i != along)
    props.shape, props.axis = shape, axis
    if shape == "BOX":
        props.half_extents = tuple(half)
    elif shape == "SPHERE":
        props.radius = max(half)
    elif shape == "CAPSULE":
        props.radius, props.half_height = across, max(half[along] - across, 0.0)
    else:
        props.radius, props.half_height = across, half[along]


class ARTICULA_OT_set_collider(_ObjectModeOperator, bpy.types.Operator):
    """Give the selected meshes a collider fitted to their bounds, their convex hull, convex parts, mesh or
    surface (a height field: terrain).

    A body (or an object under no body) takes the collider itself when its bounds are centred
    on its origin; otherwise a wireframe child collider is added so the mesh stays a visual.
    A convex decomposition runs on a worker thread (Esc cancels, leaving nothing) and adds one
    child convex-hull collider per part.
    """

    bl_idname = "articula.set_collider"
    bl_label = "Set Collider"

    shape: EnumProperty(name="Shape", items=FIT_SHAPES, default="BOX")
    axis: EnumProperty(name="Axis", default="AUTO", items=[("AUTO", "Longest", "The longest bounds axis"),
                                                          *AXIS_ITEMS])
    max_vertices: IntProperty(name="Max Vertices", default=DEFAULT_MAX_VERTICES, min=4, max=PHYSX_MAX_VERTICES,
                              description="Most vertices per convex hull (PhysX takes at most 255; Isaac's "
                              "tools default to 64)")
    concavity: FloatProperty(name="Concavity Threshold", default=0.05, min=0.005, max=1.0, step=1, precision=3,
                             description="How much concavity each convex part may keep, relative to the mesh's "
                             "size: lower gives more, finer parts")
    max_hulls: IntProperty(name="Max Hulls", default=-1, min=-1, max=1024,
                           description="Most convex parts per mesh; -1: as many as the threshold needs")

    def draw(self, context):
        layout = self.layout
        layout.prop(self, "shape")
        if self.shape in ("BOX", "SPHERE", "CAPSULE", "CYLINDER"):
            layout.prop(self, "axis")
        if self.shape in ("CONVEX_HULL", "CONVEX_DECOMPOSITION"):
            column = layout.column()
            reason = convex_adapter.decomposition_unavailable_reason() if self.shape == "CONVEX_DECOMPOSITION" else None
            column.enabled = reason is None
            if self.shape == "CONVEX_DECOMPOSITION":
                column.prop(self, "concavity")
                column.prop(self, "max_hulls")
            column.prop(self, "max_vertices")
            if reason:
                layout.label(text=reason, icon="ERROR")

    def settings(self) -> DecompositionSettings:
        return DecompositionSettings(threshold=self.concavity, max_hulls=self.max_hulls,
                                     max_vertices=self.max_vertices)

    def execute(self, context):
        selected = _selected(context)
        bounds = {o: _mesh_bounds(o) for o in selected}
        meshes = [o for o in selected if bounds[o] is not None and not is_joint(o)]
        if not meshes:
            return self.fail("Select mesh objects (with vertices) to fit colliders to")
        if self.shape == "CONVEX_DECOMPOSITION":
            job = self._decomposition_job(meshes)
            return self._finish(job) if job is not None else {"CANCELLED"}
        faceless = [o.name for o in meshes
                    if self.shape == "HEIGHT_FIELD" and not height_field_adapter.has_faces(o)]
        if faceless:
            return self.fail(f"No height field on {', '.join(faceless)}: a height field is a surface, and "
                             "the mesh has no faces; use a Grid (Add > Mesh > Grid) or another mesh with faces")
        self._hulls = {}
        if self.shape == "CONVEX_HULL":
            for obj in (o for o in meshes if len(o.data.vertices) > self.max_vertices):
                try:
                    self._hulls[obj] = convex_adapter.simplified_hull(obj, self.max_vertices)
                except ValueError as error:
                    return self.fail(f"No convex hull for {obj.name}: {error}")
        bodies = {o for o in context.scene.objects if is_body(o)}
        made = [self.apply(context, obj, *bounds[obj], bodies) for obj in meshes]
        skipped = len(selected) - len(meshes)
        note = f" ({skipped} non-mesh object{'s' if skipped != 1 else ''} skipped)" if skipped else ""
        self.report({"INFO"}, f"{self.shape.replace('_', ' ').title()} collider on {', '.join(made)}{note}")
        return {"FINISHED"}

    # convex decomposition: a worker thread, modal when invoked from the interface ----------------

    def invoke(self, context, event):
        if self.shape != "CONVEX_DECOMPOSITION":
            return self.execute(context)
        meshes = [o for o in _selected(context) if _mesh_bounds(o) is not None and not is_joint(o)]
        if not meshes:
            return self.fail("Select mesh objects (with vertices) to fit colliders to")
        self._job = self._decomposition_job(meshes)
        if self._job is None:
            return {"CANCELLED"}
        wm = context.window_manager
        self._timer = wm.event_timer_add(0.1, window=context.window)
        wm.modal_handler_add(self)
        wm.progress_begin(0, 100)
        return {"RUNNING_MODAL"}

    def modal(self, context, event):
        wm = context.window_manager
        if event.type == "ESC":
            self._job.cancel()
            self._end_modal(context)
            self.report({"INFO"}, "Convex decomposition cancelled; nothing was changed")
            return {"CANCELLED"}
        if event.type != "TIMER":
            return {"PASS_THROUGH"}
        wm.progress_update(int(100 * self._job.progress))
        if context.area:
            context.area.header_text_set(f"Convex decomposition: {100 * self._job.progress:.0f}% (Esc cancels)")
        if not self._job.done:
            return {"RUNNING_MODAL"}
        self._end_modal(context)
        return self._finish(self._job)

    def _end_modal(self, context) -> None:
        wm = context.window_manager
        wm.event_timer_remove(self._timer)
        wm.progress_end()
        if context.area:
            context.area.header_text_set(None)

    def _decomposition_job(self, meshes):
        reason = convex_adapter.decomposition_unavailable_reason()
        if reason:
            self.fail(reason)
            return None
        return convex_adapter.DecompositionJob(meshes, self.settings()).start()

    def _finish(self, job) -> set:
        try:
            made = job.finish()
        except DecompositionCancelled:
            return {"CANCELLED"}
        except (ValueError, RuntimeError) as error:
            return self.fail(f"Convex decomposition failed: {error}")
        counts = ", ".join(f"{name}: {len(children)}" for name, children in made.items())
        self.report({"INFO"}, f"Convex decomposition (hull colliders per mesh): {counts}")
        return {"FINISHED"}

    def apply(self, context, obj, center, half, bodies) -> str:
        axis = "XYZ"[max(range(3), key=lambda i: half[i])] if self.axis == "AUTO" else self.axis
        mesh_shape = self.shape in ("CONVEX_HULL", "MESH", "HEIGHT_FIELD")
        own_object = obj in bodies or owner_body(obj, bodies) is None
        if obj in self._hulls:
            return self._simplified_hull(obj, self._hulls[obj])
        target = obj
        if not own_object or (not mesh_shape and center.length > 1e-6 * max(1.0, half.length)):
            target = self._child_collider(context, obj, center, mesh_shape)
        props = target.articula.collider
        props.enabled = True
        if self.shape == "HEIGHT_FIELD":
            props.shape = self.shape
            props.hfield_rows, props.hfield_columns = height_field_adapter.default_resolution(obj)
            props.collider_only = True  # terrain is drawn by its collider, as MuJoCo draws an hfield
        elif mesh_shape:
            props.shape = self.shape
        else:
            fit_primitive(props, self.shape, half, axis)
            if target is not obj:
                fill_primitive_mesh(target.data, props)
        return target.name

    @staticmethod
    def _simplified_hull(obj, hull) -> str:
        """A child holding the hull's own mesh (capped at Max Vertices); the object's own collider
        (if any) gives way to it."""
        for old in (c for c in obj.children if c.name.startswith(f"{obj.name}_collider") and is_collider(c)
                    and c.articula.collider.collider_only and c.articula.collider.shape == "CONVEX_HULL"):
            bpy.data.objects.remove(old)
        if obj.articula.collider.enabled and not obj.articula.collider.collider_only:
            obj.articula.collider.enabled = False
        return convex_adapter.add_hull_child(obj, hull).name

    @staticmethod
    def _child_collider(context, obj, center, shares_mesh: bool):
        data = obj.data if shares_mesh else bpy.data.meshes.new(f"{obj.name}_collider")
        child = bpy.data.objects.new(f"{obj.name}_collider", data)
        for collection in obj.users_collection:
            collection.objects.link(child)
        child.parent = obj
        child.location = center if not shares_mesh else (0.0, 0.0, 0.0)
        child.display_type = "WIRE"
        child.hide_render = True
        child.articula.collider.collider_only = True
        return child


class ARTICULA_OT_compute_mass(_ObjectModeOperator, bpy.types.Operator):
    """Set the selected bodies' mass, center of mass and inertia from their own colliders' densities"""

    bl_idname = "articula.compute_mass"
    bl_label = "Compute Mass"

    def execute(self, context):
        from ..core.mass import MassError, mass_properties

        bodies = [o for o in _selected(context) if is_body(o)]
        if not bodies:
            return self.fail("Select rigid bodies to compute their mass")
        desc = scene_from_blender(context.scene)
        computed = {}
        for obj in bodies:
            desc.body(obj.name).mass = None  # from the colliders, not the current manual values
            try:
                computed[obj] = mass_properties(desc, obj.name)
            except MassError as error:
                return self.fail(f"{obj.name}: {error.reason}; add a collider or set the mass by hand")
        switched = [o.name for o in computed if o.articula.body.mass_mode != "MANUAL"]
        for obj, mass in computed.items():
            props = obj.articula.body
            props.mass_mode, props.mass = "MANUAL", mass.mass
            props.center_of_mass, props.diagonal_inertia = mass.center_of_mass, mass.diagonal_inertia
            props.principal_axes = mass.principal_axes
        note = (f"; switched {', '.join(switched)} from Auto to Manual mass (the values now stay as "
                "computed; set Mass back to Auto to follow the colliders)") if switched else ""
        self.report({"INFO"}, "; ".join(f"{o.name}: {m.mass:.4g} kg" for o, m in computed.items()) + note)
        return {"FINISHED"}


def _bodies(context) -> list:
    return [o for o in context.scene.objects if is_body(o)]


def _refuse_while_baked(op) -> set | None:
    from ..addon.adapters.simulation_to_keyframes import bake_action

    if bake_action() is not None:
        return op.fail("The bodies are animated by a bake: Clear Bake first (a baked frame is a state, "
                       "not the robot's rest)")
    return None


class ARTICULA_OT_apply_pose_as_rest(_ObjectModeOperator, bpy.types.Operator):
    """Make the bodies' current pose (e.g. a state kept from Simulate) the robot's rest pose: the pose export, validation and the joint zeros use"""

    bl_idname = "articula.apply_pose_as_rest"
    bl_label = "Apply Pose as Rest"

    def execute(self, context):
        refused = _refuse_while_baked(self)
        if refused:
            return refused
        bodies = _bodies(context)
        if not bodies:
            return self.fail("No rigid bodies in the scene")
        posed = [o for o in bodies if o.articula.body.posed]
        for obj in bodies:
            obj.articula.body.posed = False
        capture_rest(bodies)
        self.report({"INFO"}, f"The current pose is the rest pose of {len(bodies)} bodies"
                    + (f" ({len(posed)} were posed by a simulation)" if posed else ""))
        return {"FINISHED"}


class ARTICULA_OT_reset_to_rest(_ObjectModeOperator, bpy.types.Operator):
    """Put the bodies posed by a simulation (Stop & Keep) back at their rest pose"""

    bl_idname = "articula.reset_to_rest"
    bl_label = "Reset to Rest"

    def execute(self, context):
        refused = _refuse_while_baked(self)
        if refused:
            return refused
        posed = [o for o in _bodies(context) if o.articula.body.posed]
        if not posed:
            self.report({"INFO"}, "Every body is at its rest pose")
            return {"FINISHED"}
        targets = {}

        def target(obj):  # the world matrix ``obj`` gets (parents first, scale kept)
            if obj in targets:
                return targets[obj]
            _, _, scale = obj.matrix_world.decompose()
            if obj.articula.body.posed:
                props = obj.articula.body
                targets[obj] = Matrix.LocRotScale(Vector(props.rest_location), Quaternion(props.rest_rotation), scale)
            elif obj.parent is not None:
                targets[obj] = target(obj.parent) @ obj.matrix_parent_inverse @ obj.matrix_basis
            else:
                targets[obj] = obj.matrix_world.copy()
            return targets[obj]

        order = sorted(posed, key=_depth)
        for obj in order:
            world = target(obj)
            parent = target(obj.parent) if obj.parent is not None else Matrix.Identity(4)
            obj.matrix_basis = (parent @ obj.matrix_parent_inverse).inverted() @ world
            obj.articula.body.posed = False
        self.report({"INFO"}, f"{len(posed)} bodies back at their rest pose")
        return {"FINISHED"}


class ARTICULA_OT_delete_body(_ObjectModeOperator, bpy.types.Operator):
    """Delete the selected rigid bodies with the joints that name them and their own colliders; other children keep their place under the body's parent"""

    bl_idname = "articula.delete_body"
    bl_label = "Delete Bodies and Their Joints"

    def execute(self, context):
        bodies = [o for o in _selected(context) if is_body(o)]
        if not bodies:
            return self.fail("Select the rigid bodies to delete")
        doomed = set(bodies)
        joints = [o for o in bpy.data.objects if is_joint(o) and o not in doomed
                  and (o.articula.joint.body0 in doomed or o.articula.joint.body1 in doomed)]
        colliders = [c for b in bodies for c in b.children_recursive
                     if is_collider(c) and not is_body(c) and c.articula.collider.collider_only
                     and owner_body(c, {o for o in bpy.data.objects if is_body(o)}) in doomed]
        doomed |= set(joints) | set(colliders)
        kept_children = [c for b in bodies for c in b.children if c not in doomed]
        for child in kept_children:  # up to the nearest surviving ancestor, where it is now
            world = child.matrix_world.copy()
            parent = child.parent
            while parent is not None and parent in doomed:
                parent = parent.parent
            child.parent = parent
            child.matrix_parent_inverse = parent.matrix_world.inverted() if parent is not None else Matrix()
            child.matrix_world = world
        pairs = context.scene.articula.filtered_pairs
        for i in reversed(range(len(pairs))):
            if pairs[i].body_a in doomed or pairs[i].body_b in doomed:
                pairs.remove(i)
        names = [o.name for o in bodies]
        joint_names, collider_names = [o.name for o in joints], [o.name for o in colliders]
        for obj in doomed:
            bpy.data.objects.remove(obj)  # gone from the file, not only from the scene
        parts = [f"Deleted {', '.join(names)}"]
        if joint_names:
            parts.append(f"the joints that used {'it' if len(names) == 1 else 'them'}: {', '.join(joint_names)}")
        if collider_names:
            parts.append(f"colliders: {', '.join(collider_names)}")
        if kept_children:
            parts.append(f"kept {len(kept_children)} child object(s) in place")
        self.report({"INFO"}, "; ".join(parts))
        return {"FINISHED"}


def _depth(obj) -> int:
    depth = 0
    while obj.parent is not None:
        obj, depth = obj.parent, depth + 1
    return depth


class ARTICULA_OT_assign_collision(_ObjectModeOperator, bpy.types.Operator):
    """Set the collision group and/or world of the selected colliders and bodies (with their colliders)"""

    bl_idname = "articula.assign_collision"
    bl_label = "Assign Collision"

    set_group: BoolProperty(name="Set Group", default=True)
    group: IntProperty(name="Group", default=1, description="0: none; positive: same group and negatives; "
                       "negative: all but the same negative")
    set_world: BoolProperty(name="Set World", default=False)
    world: IntProperty(name="World", default=0, description="-1: global, collides with every world")

    def execute(self, context):
        if not (self.set_group or self.set_world):
            return self.fail("Choose a group and/or a world to assign")
        selected = _selected(context)
        bodies = {o for o in context.scene.objects if is_body(o)}
        picked_bodies = [o for o in selected if o in bodies]
        colliders = {o for o in selected if is_collider(o)}
        colliders |= {o for o in context.scene.objects if is_collider(o) and owner_body(o, bodies) in picked_bodies}
        if not colliders and not picked_bodies:
            return self.fail("Select colliders or rigid bodies")
        for obj in colliders:
            if self.set_group:
                obj.articula.collider.collision_group = self.group
            if self.set_world:
                obj.articula.collider.world = self.world
        if self.set_world:
            for obj in picked_bodies:
                obj.articula.body.world = self.world
        what = " and ".join(f"{k} {v}" for k, v, on in (("group", self.group, self.set_group),
                                                       ("world", self.world, self.set_world)) if on)
        self.report({"INFO"}, f"{what.capitalize()}: {len(colliders)} collider(s), {len(picked_bodies)} body(ies)")
        return {"FINISHED"}


class ARTICULA_OT_material_add(bpy.types.Operator):
    """Add a physics material to the scene's list"""

    bl_idname = "articula.material_add"
    bl_label = "Add Physics Material"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        props = context.scene.articula
        names = {m.name for m in props.materials}
        material = props.materials.add()
        material.name = next(n for n in (f"Material.{i:03d}" if i else "Material" for i in range(len(names) + 1))
                             if n not in names)
        props.active_material_index = len(props.materials) - 1
        return {"FINISHED"}


class _RemoveActiveItem:
    """Removes the active item of a ``scene.articula`` collection."""

    bl_options = {"REGISTER", "UNDO"}
    collection = index_name = ""

    @classmethod
    def poll(cls, context):
        props = context.scene.articula
        return 0 <= getattr(props, cls.index_name) < len(getattr(props, cls.collection))

    def execute(self, context):
        props = context.scene.articula
        items, index = getattr(props, self.collection), getattr(props, self.index_name)
        items.remove(index)
        setattr(props, self.index_name, max(0, min(index, len(items) - 1)))
        return {"FINISHED"}


class ARTICULA_OT_material_remove(_RemoveActiveItem, bpy.types.Operator):
    """Remove the active physics material (colliders naming it fall back to the default)"""

    bl_idname = "articula.material_remove"
    bl_label = "Remove Physics Material"
    collection, index_name = "materials", "active_material_index"


class ARTICULA_OT_filtered_pair_add(_ObjectModeOperator, bpy.types.Operator):
    """Keep the two selected bodies from colliding with each other"""

    bl_idname = "articula.filtered_pair_add"
    bl_label = "Filter Collision Pair"

    def execute(self, context):
        bodies = [o for o in _selected(context) if is_body(o)]
        if len(bodies) != 2:
            return self.fail("Select exactly two rigid bodies")
        props = context.scene.articula
        pair = props.filtered_pairs.add()
        pair.body_a, pair.body_b = bodies
        props.active_filtered_pair_index = len(props.filtered_pairs) - 1
        self.report({"INFO"}, f"{bodies[0].name} and {bodies[1].name} never collide")
        return {"FINISHED"}


class ARTICULA_OT_filtered_pair_remove(_RemoveActiveItem, bpy.types.Operator):
    """Let the active filtered pair collide again"""

    bl_idname = "articula.filtered_pair_remove"
    bl_label = "Remove Filtered Pair"
    collection, index_name = "filtered_pairs", "active_filtered_pair_index"


# --- actuators and tendons -------------------------------------------------------------------

def _actuator_owner(context, tendon_index: int, dof_index: int):
    """The DOF (of the active joint) or the scene tendon an actuator operator acts on, or None."""
    if tendon_index >= 0:
        tendons = context.scene.articula.tendons
        return tendons[tendon_index] if tendon_index < len(tendons) else None
    obj = context.object
    if obj is None or not obj.articula.joint.enabled:
        return None
    dofs = obj.articula.joint.dofs
    index = obj.articula.joint.active_dof_index if dof_index < 0 else dof_index
    return dofs[index] if 0 <= index < len(dofs) else None


def _actuator_names(scene) -> set:
    names = {a.name for t in scene.articula.tendons for a in t.actuators}
    for obj in scene.objects:
        if obj.articula.joint.enabled:
            names.update(a.name for d in obj.articula.joint.dofs for a in d.actuators)
    return names


def _free_name(base: str, taken: set) -> str:
    return next(n for n in (f"{base}.{i:03d}" if i else base for i in range(len(taken) + 1)) if n not in taken)


class _ActuatorTarget:
    tendon_index: IntProperty(name="Tendon", description="The scene tendon (-1: a DOF of the active joint)",
                              default=-1, options={"SKIP_SAVE"})
    dof_index: IntProperty(name="DOF", description="The DOF of the active joint (-1: its active DOF)",
                           default=-1, options={"SKIP_SAVE"})


class ARTICULA_OT_actuator_add(_ActuatorTarget, bpy.types.Operator):
    """Add a MuJoCo actuator (a motor) to the joint's DOF or to a tendon; a servo starts from the DOF's drive gains"""

    bl_idname = "articula.actuator_add"
    bl_label = "Add Actuator"
    bl_options = {"REGISTER", "UNDO"}

    kind: EnumProperty(name="Kind", items=enum_items(ActuatorKind), default=ActuatorKind.POSITION.value)

    def execute(self, context):
        owner = _actuator_owner(context, self.tendon_index, self.dof_index)
        if owner is None:
            self.report({"ERROR"}, "Select a joint (or pick a tendon) to add an actuator to")
            return {"CANCELLED"}
        base = owner.name if self.tendon_index >= 0 else context.object.name
        name = _free_name(base, _actuator_names(context.scene))
        actuator = owner.actuators.add()
        actuator.name = name
        actuator.kind = self.kind
        if self.tendon_index < 0 and owner.drive_enabled:  # the drive's gains: the same servo on MuJoCo
            actuator.kp, actuator.kv = owner.drive_stiffness, owner.drive_damping
        owner.active_actuator_index = len(owner.actuators) - 1
        return {"FINISHED"}


class ARTICULA_OT_actuator_remove(_ActuatorTarget, bpy.types.Operator):
    """Remove the active actuator of the joint's DOF or of a tendon"""

    bl_idname = "articula.actuator_remove"
    bl_label = "Remove Actuator"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        owner = _actuator_owner(context, self.tendon_index, self.dof_index)
        if owner is None or not 0 <= owner.active_actuator_index < len(owner.actuators):
            self.report({"ERROR"}, "No actuator to remove")
            return {"CANCELLED"}
        owner.actuators.remove(owner.active_actuator_index)
        owner.active_actuator_index = max(0, min(owner.active_actuator_index, len(owner.actuators) - 1))
        return {"FINISHED"}


class ARTICULA_OT_tendon_add(_ObjectModeOperator, bpy.types.Operator):
    """Add a fixed tendon over the selected joints (coefficient 1 each): actuators and limits on it act on
    the weighted sum of their positions, as grippers couple two fingers to one servo"""

    bl_idname = "articula.tendon_add"
    bl_label = "Add Fixed Tendon"

    def execute(self, context):
        joints = sorted((o for o in _selected(context) if is_joint(o)), key=lambda o: o.name)
        if not joints:
            return self.fail("Select the joints the tendon couples")
        props = context.scene.articula
        name = _free_name("tendon", {t.name for t in props.tendons})
        tendon = props.tendons.add()
        tendon.name = name
        for obj in joints:
            item = tendon.joints.add()
            item.joint, item.coef = obj, 1.0
        props.active_tendon_index = len(props.tendons) - 1
        return {"FINISHED"}


class ARTICULA_OT_tendon_remove(_RemoveActiveItem, bpy.types.Operator):
    """Remove the active fixed tendon with its actuators"""

    bl_idname = "articula.tendon_remove"
    bl_label = "Remove Fixed Tendon"
    collection, index_name = "tendons", "active_tendon_index"


classes = (
    ARTICULA_OT_make_body,
    ARTICULA_OT_add_joint,
    ARTICULA_OT_set_collider,
    ARTICULA_OT_compute_mass,
    ARTICULA_OT_apply_pose_as_rest,
    ARTICULA_OT_reset_to_rest,
    ARTICULA_OT_delete_body,
    ARTICULA_OT_assign_collision,
    ARTICULA_OT_material_add,
    ARTICULA_OT_material_remove,
    ARTICULA_OT_filtered_pair_add,
    ARTICULA_OT_filtered_pair_remove,
    ARTICULA_OT_actuator_add,
    ARTICULA_OT_actuator_remove,
    ARTICULA_OT_tendon_add,
    ARTICULA_OT_tendon_remove,
)

register, unregister = bpy.utils.register_classes_factory(classes)
