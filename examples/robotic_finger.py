"""The seed proposal's robotic finger, built the way you would in Blender: meshes, then operators.

    palm (fixed to the world) -> index_finger_base -> proximal -> middle -> distal

Every step is an Articula operator (``bpy.ops.articula.*``, the buttons of the Physics panel) or a
field of ``obj.articula`` (the panel's fields). Run it on its own with
``.venv/bin/python examples/robotic_finger.py``; ``make demo`` runs it as part of the full pipeline.
"""

import math
import sys
from pathlib import Path

import bpy  # first: it makes bmesh and mathutils importable
import bmesh
from mathutils import Matrix

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _support  # noqa: E402

NAME = "robotic_finger"
FRAME_END = 72  # frames the demo bakes (24 fps)

# The MJCF finger of the proposal: (body, parent, joint, position, quaternion w x y z) relative to
# the parent body. A hinge turns about the child's own Z axis, at the child's origin.
CHAIN = [
    ("palm", None, None, (0.0, 0.0, 0.1), (0.0, 1.0, 0.0, 0.0)),
    ("index_finger_base", "palm", "metacarpophalangeal", (-0.007, 0.023, -0.0187), (0.500003, 0.5, 0.5, -0.499997)),
    ("proximal", "index_finger_base", "rotational", (-0.0122, 0.0381, 0.0145), (0.500003, -0.5, -0.499997, 0.5)),
    ("middle", "proximal", "proximal_interphalangeal", (0.015, 0.0143, -0.013), (0.500003, 0.5, -0.5, 0.499997)),
    ("distal", "middle", "distal_interphalangeal", (0.0, -0.0361, 0.0002), (1.0, 0.0, 0.0, 0.0)),
]
FINGERTIP = (0.0, -0.025, 0.0)  # the distal link's end, continuing the middle -> distal direction
LINK_RADIUS = 0.007  # m
# Joint limits (rad) and the curled pose the drives pull towards (rad).
LIMITS = {"metacarpophalangeal": (-0.35, 0.35), "rotational": (-0.2, 1.6),
          "proximal_interphalangeal": (-0.2, 1.8), "distal_interphalangeal": (-0.2, 1.7)}
CURLED = {"metacarpophalangeal": 0.2, "rotational": 1.2, "proximal_interphalangeal": 1.4,
          "distal_interphalangeal": 1.0}


def render_material(name, color):
    material = bpy.data.materials.get(name) or bpy.data.materials.new(name)
    if material.node_tree is None:  # Blender 4.x; 5.x materials always have nodes
        material.use_nodes = True
    material.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = color
    material.diffuse_color = color
    return material


def mesh_object(name, mesh, material, parent=None, location=(0.0, 0.0, 0.0), rotation=(1.0, 0.0, 0.0, 0.0)):
    """A mesh object placed relative to its parent, as MJCF gives it (no parent inverse)."""
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    obj.data.materials.append(material)
    obj.parent = parent
    obj.location = location
    obj.rotation_mode = "QUATERNION"
    obj.rotation_quaternion = rotation
    return obj


def box_mesh(name, half_extents):
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=2.0, matrix=Matrix.Diagonal((*half_extents, 1.0)))
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    return mesh


def link_mesh(name, towards):
    """A capsule of ``LINK_RADIUS`` from the origin towards ``towards`` (along its dominant axis)."""
    axis = max(range(3), key=lambda i: abs(towards[i]))
    half_height = max(abs(towards[axis]) / 2.0 - LINK_RADIUS, 0.002)
    bm = bmesh.new()
    bmesh.ops.create_uvsphere(bm, u_segments=16, v_segments=8, radius=LINK_RADIUS)
    for vert in bm.verts:  # stretch the sphere into a capsule along Z
        if abs(vert.co.z) > 1e-9:
            vert.co.z += math.copysign(half_height, vert.co.z)
    to_axis = {0: Matrix.Rotation(math.pi / 2, 4, "Y"), 1: Matrix.Rotation(-math.pi / 2, 4, "X"),
               2: Matrix.Identity(4)}[axis]
    bmesh.ops.transform(bm, matrix=Matrix.Translation([c / 2.0 for c in towards]) @ to_axis, verts=bm.verts)
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    return mesh


def build_meshes():
    """Plain Blender objects: a palm box and four capsule links, parented along the chain."""
    skin = render_material("finger_skin", (0.85, 0.62, 0.5, 1.0))
    palm_color = render_material("palm_plastic", (0.25, 0.3, 0.38, 1.0))
    next_offset = {parent: position for _, parent, _, position, _ in CHAIN if parent}
    objects = {}
    for name, parent, _, position, rotation in CHAIN:
        if parent is None:
            mesh, material = box_mesh(name, (0.03, 0.04, 0.008)), palm_color
        else:
            mesh, material = link_mesh(name, next_offset.get(name, FINGERTIP)), skin
        objects[name] = mesh_object(name, mesh, material, objects.get(parent), position, rotation)
    bpy.context.view_layer.update()
    return objects


def add_skin_material(scene):
    """A physics material in the scene's list (Physics Materials panel, +)."""
    bpy.ops.articula.material_add()
    skin = scene.articula.materials[scene.articula.active_material_index]
    skin.name = "finger_skin"
    skin.static_friction, skin.dynamic_friction, skin.restitution = 1.0, 0.8, 0.0
    skin.torsional_friction, skin.rolling_friction = 0.005, 0.0001
    skin.has_density, skin.density = True, 1100.0  # kg/m^3
    return skin.name


def add_hinge(parent, child, name, lower, upper, target):
    """Select the parent, then the child (active): Add Joint. Then its one DOF, rotZ."""
    _support.select_only(parent, child)
    bpy.ops.articula.add_joint(type="REVOLUTE", axis="Z", location="ACTIVE")
    joint = bpy.context.active_object
    joint.name = name
    dof = joint.articula.joint.dofs[0]  # rotZ: radians, N*m/rad, N*m, kg*m^2, rad/s
    dof.motion = "LIMITED"
    dof.has_lower_limit, dof.lower = True, lower
    dof.has_upper_limit, dof.upper = True, upper
    dof.drive_enabled = True
    dof.drive_stiffness, dof.drive_damping = 0.5, 0.01
    dof.target_position = target
    dof.has_max_effort, dof.max_effort = True, 2.0
    dof.armature = 1e-4
    dof.has_velocity_limit, dof.velocity_limit = True, 10.0
    return joint


def fix_to_world(body):
    """A fixed joint with no body 0 holds the body in the world: an Empty with joint fields set."""
    joint = bpy.data.objects.new(f"{body.name}_to_world", None)
    joint.empty_display_type = "ARROWS"
    joint.empty_display_size = 0.02
    bpy.context.scene.collection.objects.link(joint)
    joint.parent = body
    props = joint.articula.joint
    props.enabled, props.type, props.body1 = True, "FIXED", body
    return joint


def build(context) -> dict:
    """The finger in ``context.scene``; returns its objects by name."""
    scene = context.scene
    objects = build_meshes()
    links = [objects[name] for name, parent, *_ in CHAIN if parent]

    _support.select_only(*objects.values())
    bpy.ops.articula.make_body()

    skin = add_skin_material(scene)
    _support.select_only(objects["palm"])
    bpy.ops.articula.set_collider(shape="BOX")  # centred mesh: the palm itself collides
    _support.select_only(*links)
    bpy.ops.articula.set_collider(shape="CAPSULE")  # off-centre meshes: a child collider each
    for obj in scene.objects:
        if obj.articula.collider.enabled:
            obj.articula.collider.material = skin

    fix_to_world(objects["palm"])
    for name, parent, joint, _, _ in CHAIN[1:]:
        objects[joint] = add_hinge(objects[parent], objects[name], joint, *LIMITS[joint], CURLED[joint])

    scene.articula.world_name = NAME
    context.view_layer.update()
    return objects


def animate(objects) -> None:
    """No animation: the drives hold the curled pose from the first frame."""


if __name__ == "__main__":
    _support.articula()
    _support.main(sys.modules[__name__])
