"""Complete sample scenes shared by the tests and the demo of every layer.

Each function returns a fresh :class:`PhysicsScene` that passes :func:`core.validation.validate`
without errors: world-space body poses, joint frames whose two local poses agree at the authored
pose, colliders, box visuals and physics materials.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from .model import (
    Body,
    DofMotion,
    Joint,
    JointType,
    MeshData,
    PhysicsMaterial,
    PhysicsScene,
    Pose,
    SceneSettings,
    Shape,
    ShapeKind,
    Vec3,
    Visual,
    make_joint,
)
from .transforms import pose_mul, pose_relative, quat_from_axis_angle, quat_normalize

# Box corners (sign per axis) and outward-facing triangles over them.
_BOX_CORNERS = [(sx, sy, sz) for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
_BOX_TRIANGLES = [
    (0, 1, 3), (0, 3, 2),  # -X
    (4, 6, 7), (4, 7, 5),  # +X
    (0, 4, 5), (0, 5, 1),  # -Y
    (2, 3, 7), (2, 7, 6),  # +Y
    (0, 2, 6), (0, 6, 4),  # -Z
    (1, 5, 7), (1, 7, 3),  # +Z
]


def box_mesh(half_extents: Vec3) -> MeshData:
    """A closed, outward-facing triangle box centred on the origin."""
    hx, hy, hz = half_extents
    return MeshData(
        vertices=[(sx * hx, sy * hy, sz * hz) for sx, sy, sz in _BOX_CORNERS],
        triangles=list(_BOX_TRIANGLES),
    )


def shape_bounds(shape: Shape) -> Vec3:
    """Half extents of the shape's box in its own frame (used for visuals)."""
    if shape.kind == ShapeKind.BOX:
        return shape.half_extents
    if shape.kind == ShapeKind.SPHERE:
        return (shape.radius,) * 3
    if shape.kind in (ShapeKind.CAPSULE, ShapeKind.CYLINDER):
        along = shape.half_height + (shape.radius if shape.kind == ShapeKind.CAPSULE else 0.0)
        return tuple(along if a == shape.axis else shape.radius for a in "XYZ")
    raise ValueError(f"no box bounds for {shape.kind.value} shape {shape.name!r}")


class SceneBuilder:
    """Adds bodies, joints (frames given in world space), colliders and their box visuals."""

    def __init__(self, name: str, settings: SceneSettings | None = None):
        self.scene = PhysicsScene(name=name, settings=settings or SceneSettings())

    def material(self, name: str, **kwargs) -> str:
        self.scene.materials.append(PhysicsMaterial(name=name, **kwargs))
        return name

    def body(self, name: str, pose: Pose, parent: str | None = None, **kwargs) -> Body:
        body = Body(name=name, pose=pose, parent=parent, **kwargs)
        self.scene.bodies.append(body)
        return body

    def shape(self, name: str, kind: ShapeKind, body: str | None, pose: Pose = None,
              color=(0.7, 0.7, 0.75, 1.0), visual: bool = True, **kwargs) -> Shape:
        shape = Shape(name=name, kind=kind, body=body, pose=pose or Pose(), **kwargs)
        self.scene.shapes.append(shape)
        if visual and kind != ShapeKind.PLANE:
            self.scene.visuals.append(Visual(
                name=f"{name}_visual", body=body, mesh=box_mesh(shape_bounds(shape)),
                pose=shape.pose, color=color))
        return shape

    def joint(self, name: str, joint_type: JointType, body0: str | None, body1: str,
              frame: Pose, axis: str = "X", dofs: dict | None = None, **kwargs) -> Joint:
        """A joint whose frame is ``frame`` (world space); ``dofs`` maps an axis to Dof fields."""
        joint = make_joint(name, joint_type, body0, body1, axis=axis, **kwargs)
        parent_pose = self.scene.body(body0).pose if body0 else Pose()
        joint.local_pose0 = pose_relative(parent_pose, frame)
        joint.local_pose1 = pose_relative(self.scene.body(body1).pose, frame)
        for axis_name, settings in (dofs or {}).items():
            dof = joint.dof(axis_name)
            if dof is None:
                raise ValueError(f"joint {name!r} has no {axis_name} DOF")
            for key, value in settings.items():
                setattr(dof, key, value)
        self.scene.joints.append(joint)
        return joint

    def fix_to_world(self, body: str) -> Joint:
        return self.joint(f"{body}_to_world", JointType.FIXED, None, body, self.scene.body(body).pose)


def _revolute_dof(lower: float, upper: float, stiffness: float, damping: float, target: float = 0.0,
                  **extra) -> dict:
    return dict(motion=DofMotion.LIMITED, lower=lower, upper=upper, drive_enabled=True,
                drive_stiffness=stiffness, drive_damping=damping, target_position=target, **extra)


def _mjcf_pose(pos: Vec3, quat=(1.0, 0.0, 0.0, 0.0)) -> Pose:
    return Pose(pos=pos, rot=quat_normalize(quat))


def _capsule_towards(offset: Vec3, radius: float) -> dict:
    """Capsule fields along the dominant axis of ``offset``, centred halfway to it."""
    index = max(range(3), key=lambda i: abs(offset[i]))
    half_height = max(abs(offset[index]) / 2.0 - radius, 0.002)
    centre = tuple(c / 2.0 for c in offset)
    return {"pose": Pose(pos=centre), "radius": radius, "half_height": half_height, "axis": "XYZ"[index]}


# A robotic finger written in MJCF: (body, parent, joint, pos, quat) relative to the parent.
_FINGER_CHAIN = [
    ("palm", None, None, (0.0, 0.0, 0.1), (0.0, 1.0, 0.0, 0.0)),
    ("index_finger_base", "palm", "metacarpophalangeal",
     (-0.007, 0.023, -0.0187), (0.500003, 0.5, 0.5, -0.499997)),
    ("proximal", "index_finger_base", "rotational",
     (-0.0122, 0.0381, 0.0145), (0.500003, -0.5, -0.499997, 0.5)),
    ("middle", "proximal", "proximal_interphalangeal",
     (0.015, 0.0143, -0.013), (0.500003, 0.5, -0.5, 0.499997)),
    ("distal", "middle", "distal_interphalangeal", (0.0, -0.0361, 0.0002), (1.0, 0.0, 0.0, 0.0)),
]
_FINGERTIP_OFFSET = (0.0, -0.025, 0.0)  # the distal link continues the middle->distal direction
_FINGER_LIMITS = {
    "metacarpophalangeal": (-0.35, 0.35),
    "rotational": (-0.2, 1.6),
    "proximal_interphalangeal": (-0.2, 1.8),
    "distal_interphalangeal": (-0.2, 1.7),
}


def robotic_finger() -> PhysicsScene:
    """A robotic finger: palm (fixed to the world) and four revolute links.

    MJCF joints default to a hinge about the child body's Z axis at the child's origin.
    """
    b = SceneBuilder("robotic_finger")
    skin = b.material("finger_skin", static_friction=1.0, dynamic_friction=0.8, restitution=0.0,
                      torsional_friction=0.005, rolling_friction=0.0001, density=1100.0)
    world_poses: dict[str, Pose] = {}
    for name, parent, _, pos, quat in _FINGER_CHAIN:
        local = _mjcf_pose(pos, quat)
        world_poses[name] = pose_mul(world_poses[parent], local) if parent else local
        b.body(name, world_poses[name], parent=parent)
    b.shape("palm_collider", ShapeKind.BOX, "palm", half_extents=(0.03, 0.04, 0.008), material=skin)
    b.fix_to_world("palm")
    children = {parent: (name, pos) for name, parent, _, pos, _ in _FINGER_CHAIN if parent}
    for name, parent, joint_name, _, _ in _FINGER_CHAIN[1:]:
        offset = children[name][1] if name in children else _FINGERTIP_OFFSET
        b.shape(f"{name}_collider", ShapeKind.CAPSULE, name, material=skin,
                **_capsule_towards(offset, radius=0.007))
        lower, upper = _FINGER_LIMITS[joint_name]
        b.joint(joint_name, JointType.REVOLUTE, parent, name, world_poses[name], axis="Z",
                dofs={"rotZ": _revolute_dof(lower, upper, stiffness=0.5, damping=0.01,
                                            armature=1e-4, max_effort=2.0, velocity_limit=10.0)})
    return b.scene


def six_dof_arm() -> PhysicsScene:
    """A fixed-base arm: six revolute joints with drives, targets and per-DOF friction."""
    b = SceneBuilder("six_dof_arm")
    metal = b.material("aluminium", static_friction=0.6, dynamic_friction=0.45, restitution=0.1,
                       density=2700.0)
    b.body("arm_base", Pose(pos=(0.0, 0.0, 0.05)))
    b.shape("arm_base_collider", ShapeKind.BOX, "arm_base", half_extents=(0.1, 0.1, 0.05),
            material=metal)
    b.fix_to_world("arm_base")
    # (link, joint axis, link origin height, link length along Z, limits, target, effort)
    links = [
        ("shoulder_pan_link", "Z", 0.10, 0.10, (-math.pi, math.pi), 0.3, 80.0),
        ("shoulder_lift_link", "Y", 0.20, 0.30, (-2.0, 2.0), -0.4, 80.0),
        ("elbow_link", "Y", 0.50, 0.30, (-2.5, 2.5), 0.8, 40.0),
        ("wrist_1_link", "Z", 0.80, 0.10, (-math.pi, math.pi), 0.0, 12.0),
        ("wrist_2_link", "Y", 0.90, 0.10, (-2.0, 2.0), 0.5, 12.0),
        ("wrist_3_link", "Z", 1.00, 0.06, (-math.pi, math.pi), -0.2, 12.0),
    ]
    parent = "arm_base"
    for i, (name, axis, height, length, (lower, upper), target, effort) in enumerate(links, start=1):
        pose = Pose(pos=(0.0, 0.0, height))
        b.body(name, pose, parent=parent)
        b.shape(f"{name}_collider", ShapeKind.CAPSULE, name, material=metal,
                pose=Pose(pos=(0.0, 0.0, length / 2.0)), radius=0.035,
                half_height=max(length / 2.0 - 0.035, 0.005), axis="Z")
        scale = effort / 80.0
        b.joint(f"joint_{i}", JointType.REVOLUTE, parent, name, pose, axis=axis, dofs={
            "rot" + axis: _revolute_dof(
                lower, upper, stiffness=400.0 * scale, damping=40.0 * scale, target=target,
                max_effort=effort, armature=0.1 * scale, static_friction=0.2 * scale,
                dynamic_friction=0.1 * scale, viscous_damping=0.05 * scale,
                velocity_limit=3.0 if effort > 20 else 6.0)})
        parent = name
    return b.scene


def quadruped() -> PhysicsScene:
    """A free-floating torso with four two-joint legs, dropped from above the ground plane."""
    b = SceneBuilder("quadruped", SceneSettings(ground_plane=True))
    rubber = b.material("rubber", static_friction=1.0, dynamic_friction=0.9, restitution=0.0,
                        torsional_friction=0.01, density=1100.0)
    plastic = b.material("plastic", static_friction=0.5, dynamic_friction=0.4, density=900.0)
    torso_z, segment, radius = 0.7, 0.25, 0.04
    b.body("torso", Pose(pos=(0.0, 0.0, torso_z)))
    b.shape("torso_collider", ShapeKind.BOX, "torso", half_extents=(0.3, 0.15, 0.06), material=plastic)
    for leg, (x, y) in {"front_left": (0.25, 0.12), "front_right": (0.25, -0.12),
                        "rear_left": (-0.25, 0.12), "rear_right": (-0.25, -0.12)}.items():
        hip = Pose(pos=(x, y, torso_z - 0.06))
        knee = Pose(pos=(x, y, hip.pos[2] - segment))
        for link, parent, frame, joint, limits in (
            (f"{leg}_thigh", "torso", hip, f"{leg}_hip", (-1.0, 1.0)),
            (f"{leg}_shin", f"{leg}_thigh", knee, f"{leg}_knee", (-2.2, 0.0)),
        ):
            b.body(link, frame, parent=parent)
            b.shape(f"{link}_collider", ShapeKind.CAPSULE, link,
                    material=rubber if link.endswith("shin") else plastic,
                    pose=Pose(pos=(0.0, 0.0, -segment / 2.0)), radius=radius,
                    half_height=segment / 2.0 - radius, axis="Z")
            b.joint(joint, JointType.REVOLUTE, parent, link, frame, axis="Y", dofs={
                "rotY": _revolute_dof(*limits, stiffness=60.0, damping=2.0, target=0.0,
                                      armature=0.01, max_effort=40.0)})
    return b.scene


def collision_showcase() -> PhysicsScene:
    """Free boxes that show every collision-group rule and two worlds, over a global ground.

    World 0, column at x=0: ``box_group1_low`` (1) under ``box_group1_high`` (1) stack;
    column at x=1: ``box_group2`` (2) falls through ``box_group1_floor`` (1) onto the ground;
    column at x=2: ``box_group_neg1`` (-1) lands on ``box_group1_target`` (1);
    ``box_group0`` (0) collides with nothing and falls through the ground.
    ``robot_world0`` (world 0) and ``robot_world1`` (world 1) overlap but never touch.
    The ground is a static plane in world -1, group -2: it collides with groups 1, 2 and -1.
    """
    b = SceneBuilder("collision_showcase")
    wood = b.material("wood", static_friction=0.6, dynamic_friction=0.5, restitution=0.05,
                      density=600.0)
    b.shape("ground", ShapeKind.PLANE, None, material=wood, collision_group=-2, world=-1)
    colors = {1: (0.2, 0.5, 0.9, 1.0), 2: (0.9, 0.5, 0.2, 1.0), -1: (0.3, 0.8, 0.3, 1.0),
              0: (0.6, 0.6, 0.6, 1.0)}
    half = 0.1
    boxes = [  # (name, x, y, z, group, world)
        ("box_group1_low", 0.0, 0.0, 0.1, 1, 0),
        ("box_group1_high", 0.0, 0.0, 0.5, 1, 0),
        ("box_group1_floor", 1.0, 0.0, 0.1, 1, 0),
        ("box_group2", 1.0, 0.0, 0.5, 2, 0),
        ("box_group1_target", 2.0, 0.0, 0.1, 1, 0),
        ("box_group_neg1", 2.0, 0.0, 0.5, -1, 0),
        ("box_group0", 3.0, 0.0, 0.5, 0, 0),
        ("robot_world0", 0.0, 1.0, 0.3, 1, 0),
        ("robot_world1", 0.0, 1.05, 0.35, 1, 1),
    ]
    for name, x, y, z, group, world in boxes:
        b.body(name, Pose(pos=(x, y, z)), world=world)
        b.shape(f"{name}_collider", ShapeKind.BOX, name, half_extents=(half, half, half),
                material=wood, collision_group=group, world=world, color=colors[group])
    return b.scene


def pendulum() -> PhysicsScene:
    """One link on a revolute joint about world Y at (0, 0, 1), starting horizontal; no contacts.

    The body origin sits on the pivot; its sphere bob (radius 0.05) is 0.5 m along +X.
    """
    b = SceneBuilder("pendulum")
    steel = b.material("steel", static_friction=0.7, dynamic_friction=0.6, density=7800.0)
    pivot = Pose(pos=(0.0, 0.0, 1.0))
    b.body("pendulum_link", pivot)
    b.shape("pendulum_bob", ShapeKind.SPHERE, "pendulum_link", pose=Pose(pos=(0.5, 0.0, 0.0)),
            radius=0.05, material=steel, collision_group=0)
    b.joint("pendulum_hinge", JointType.REVOLUTE, None, "pendulum_link", pivot, axis="Y")
    return b.scene


def d6_sampler() -> PhysicsScene:
    """A fixed base, a D6 joint (locked, limited and free axes), a spherical and a prismatic joint."""
    b = SceneBuilder("d6_sampler")
    metal = b.material("steel", static_friction=0.7, dynamic_friction=0.6, density=7800.0)
    b.body("d6_base", Pose(pos=(0.0, 0.0, 0.5)))
    b.shape("d6_base_collider", ShapeKind.BOX, "d6_base", half_extents=(0.1, 0.1, 0.1), material=metal)
    b.fix_to_world("d6_base")
    tilted = quat_from_axis_angle((0.0, 0.0, 1.0), math.pi / 6.0)
    b.body("d6_link", Pose(pos=(0.0, 0.0, 0.8), rot=tilted), parent="d6_base")
    b.shape("d6_link_collider", ShapeKind.CYLINDER, "d6_link", radius=0.05, half_height=0.1,
            material=metal)
    locked = {"motion": DofMotion.LOCKED}
    b.joint("d6_joint", JointType.D6, "d6_base", "d6_link", Pose(pos=(0.0, 0.0, 0.65), rot=tilted),
            dofs={
                "transX": {"motion": DofMotion.LIMITED, "lower": -0.05, "upper": 0.05},
                "transY": locked,
                "transZ": locked,
                "rotX": {"motion": DofMotion.FREE, "armature": 0.01, "viscous_damping": 0.1},
                "rotY": {"motion": DofMotion.LIMITED, "lower": -0.5, "upper": 0.5, "limit_stiffness": 100.0,
                             "limit_damping": 1.0, "drive_enabled": True, "drive_stiffness": 20.0,
                             "drive_damping": 1.0, "target_position": 0.2},
                "rotZ": locked,
            })
    b.body("ball_link", Pose(pos=(0.0, 0.0, 1.1)), parent="d6_link")
    b.shape("ball_link_collider", ShapeKind.SPHERE, "ball_link", radius=0.06, material=metal)
    b.joint("ball_joint", JointType.SPHERICAL, "d6_link", "ball_link", Pose(pos=(0.0, 0.0, 0.95)),
            cone_limit0=0.6, cone_limit1=0.4)
    b.body("slider_link", Pose(pos=(0.0, 0.0, 1.3)), parent="ball_link")
    b.shape("slider_link_collider", ShapeKind.BOX, "slider_link", half_extents=(0.04, 0.04, 0.08),
            material=metal)
    b.joint("slider_joint", JointType.PRISMATIC, "ball_link", "slider_link", Pose(pos=(0.0, 0.0, 1.3)),
            axis="Z", dofs={"transZ": {
                "motion": DofMotion.LIMITED, "lower": -0.1, "upper": 0.1, "drive_enabled": True,
                "drive_stiffness": 500.0, "drive_damping": 20.0, "target_position": 0.05, "max_effort": 100.0,
                "static_friction": 2.0, "dynamic_friction": 1.0, "velocity_limit": 0.5}})
    return b.scene


def four_bar() -> PhysicsScene:
    """A planar four-bar linkage: a tree of three links plus one loop-closing revolute joint.

    ``crank`` -> ``coupler`` -> ``rocker`` is the tree (ground fixed to the world); the joint
    ``rocker_to_ground`` closes the loop and is authored with ``exclude_from_articulation``.
    """
    b = SceneBuilder("four_bar")
    metal = b.material("aluminium", static_friction=0.6, dynamic_friction=0.45, density=2700.0)
    b.body("ground_link", Pose(pos=(0.0, 0.0, 0.5)))
    b.shape("ground_link_collider", ShapeKind.BOX, "ground_link", half_extents=(0.3, 0.02, 0.02),
            material=metal, collision_group=0)
    b.fix_to_world("ground_link")
    # Pivots in the XZ plane; every hinge turns about Y.
    a, bb, c, d = (-0.2, 0.0, 0.5), (-0.2, 0.0, 0.8), (0.2, 0.0, 0.8), (0.2, 0.0, 0.5)
    for name, parent, start, end in (("crank", "ground_link", a, bb), ("coupler", "crank", bb, c),
                                     ("rocker", "coupler", c, d)):
        b.body(name, Pose(pos=start), parent=parent)
        offset = tuple(e - s for e, s in zip(end, start))
        b.shape(f"{name}_collider", ShapeKind.CAPSULE, name, material=metal, collision_group=0,
                **_capsule_towards(offset, radius=0.015))
        b.joint(f"{name}_hinge", JointType.REVOLUTE, parent, name, Pose(pos=start), axis="Y")
    b.joint("rocker_to_ground", JointType.REVOLUTE, "rocker", "ground_link", Pose(pos=d), axis="Y",
            exclude_from_articulation=True)
    return b.scene


def hanging_chain(links: int = 20, link_length: float = 0.05) -> PhysicsScene:
    """A cable: ``links`` capsule links on Y hinges, each the child of the one above, hanging
    straight down from a hinge to the world at (0, 0, 2). The long-chain case: its links nest
    ``links`` prims deep in USD and its tree is as deep (MuJoCo compiles at most 1,023)."""
    b = SceneBuilder(f"hanging_chain_{links}")
    rubber = b.material("rubber", static_friction=0.9, dynamic_friction=0.8, density=1100.0)
    parent = None
    for k in range(links):
        name = f"link_{k:04d}"
        pivot = Pose(pos=(0.0, 0.0, 2.0 - k * link_length))
        b.body(name, pivot, parent=parent)
        b.shape(f"{name}_capsule", ShapeKind.CAPSULE, name, visual=False, material=rubber,
                **_capsule_towards((0.0, 0.0, -link_length), radius=0.01))
        b.joint(f"{name}_hinge", JointType.REVOLUTE, parent, name, pivot, axis="Y")
        parent = name
    return b.scene


#: Every sample by name, for parametrized tests and the demo's menu.
SAMPLES: dict[str, Callable[[], PhysicsScene]] = {
    "robotic_finger": robotic_finger,
    "six_dof_arm": six_dof_arm,
    "quadruped": quadruped,
    "collision_showcase": collision_showcase,
    "pendulum": pendulum,
    "d6_sampler": d6_sampler,
    "four_bar": four_bar,
}

