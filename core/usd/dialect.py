"""The one table of USD names and unit conversions, shared by the writer and the reader.

Everything that knows a USD attribute, API schema, token or unit lives here. The description
(core/model.py) is SI and radians; USD physics is degrees for angles and per-degree for angular
gains. Each per-DOF property can arrive in several dialects; :data:`DOF_PROPERTIES` lists them
all, and the reader takes the first dialect authored in :data:`DOF_DIALECT_ORDER`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from ..model import DofAxis, DriveType, JointType, ShapeKind

# ---------------------------------------------------------------------------------------- stage
UP_AXIS = "Z"
METERS_PER_UNIT = 1.0
KILOGRAMS_PER_UNIT = 1.0
PHYSICS_SCENE_NAME = "PhysicsScene"
LOOKS_SCOPE = "Looks"  # render materials
PHYSICS_MATERIALS_SCOPE = "PhysicsMaterials"
COLLISION_GROUPS_SCOPE = "CollisionGroups"
STATIC_SCOPE = "Static"  # colliders and visuals that follow no body
FLAT_JOINTS_SCOPE = "Joints"  # FLAT layout: joints as siblings, as the legacy files do
FIXED_BASE_SUFFIX = "_articulation"  # the Xform above a fixed-base robot's root body

PURPOSE_COLLIDER = "guide"
PURPOSE_VISUAL = "render"

# ---------------------------------------------------------------------------------------- units
DEG_PER_RAD = 180.0 / math.pi
RAD_PER_DEG = math.pi / 180.0


class Unit:
    """How one quantity converts from SI (description) to USD for an angular DOF.

    Linear DOFs are SI in both worlds, so every conversion is the identity for them.
    """

    PLAIN = "plain"  # kg*m^2, N*m: no angle in the unit
    ANGLE = "angle"  # rad -> deg, rad/s -> deg/s
    PER_ANGLE = "per_angle"  # N*m/rad -> N*m/deg, N*m*s/rad -> N*m*s/deg


def to_usd(value: float, unit: str, angular: bool) -> float:
    if not angular or unit == Unit.PLAIN:
        return value
    return value * (DEG_PER_RAD if unit == Unit.ANGLE else RAD_PER_DEG)


def from_usd(value: float, unit: str, angular: bool) -> float:
    if not angular or unit == Unit.PLAIN:
        return value
    return value * (RAD_PER_DEG if unit == Unit.ANGLE else DEG_PER_RAD)


def angle_to_usd(radians: float) -> float:
    return to_usd(radians, Unit.ANGLE, True)


def angle_from_usd(degrees: float) -> float:
    return from_usd(degrees, Unit.ANGLE, True)


# --------------------------------------------------------------------------------------- bodies
# UsdPhysics RigidBodyAPI / MassAPI attribute names (the schema classes give the rest).
VELOCITY = "physics:velocity"  # m/s
ANGULAR_VELOCITY = "physics:angularVelocity"  # deg/s
KINEMATIC = "physics:kinematicEnabled"
MASS = "physics:mass"
CENTER_OF_MASS = "physics:centerOfMass"
DIAGONAL_INERTIA = "physics:diagonalInertia"
PRINCIPAL_AXES = "physics:principalAxes"
DENSITY = "physics:density"

# Custom ints (newton:collision_group, newton:world): Newton 1.8 ignores them, so PhysicsCollisionGroup
# prims carry the same rules for every UsdPhysics consumer.
MJC_FORCE_RANGE_MIN = "mjc:actuatorfrcrange:min"  # MuJoCo joint effort limit (N or N*m), as Newton reads it
MJC_FORCE_RANGE_MAX = "mjc:actuatorfrcrange:max"
MJC_FORCE_LIMITED = "mjc:actuatorfrclimited"  # "true", "false" or "auto" (limited when min < max)
MJC_REF = "mjc:ref"  # MuJoCo joint reference position (read: the limits are shifted by it)
COLLISION_GROUP_ATTR = "newton:collision_group"
WORLD_ATTR = "newton:world"
SELF_COLLISION_ATTR = "newton:selfCollisionEnabled"  # NewtonArticulationRootAPI
PHYSX_SELF_COLLISION_ATTR = "physxArticulation:enabledSelfCollisions"
NEWTON_ARTICULATION_ROOT_API = "NewtonArticulationRootAPI"

# --------------------------------------------------------------------------------------- joints
JOINT_PRIM_TYPES: dict[JointType, str] = {
    JointType.FIXED: "PhysicsFixedJoint",
    JointType.REVOLUTE: "PhysicsRevoluteJoint",
    JointType.PRISMATIC: "PhysicsPrismaticJoint",
    JointType.SPHERICAL: "PhysicsSphericalJoint",
    JointType.D6: "PhysicsJoint",  # a plain joint: every axis constrained by LimitAPI
}
JOINT_TYPES_BY_PRIM = {prim_type: joint_type for joint_type, prim_type in JOINT_PRIM_TYPES.items()}

BODY0 = "physics:body0"
BODY1 = "physics:body1"
LOCAL_POS0, LOCAL_ROT0 = "physics:localPos0", "physics:localRot0"
LOCAL_POS1, LOCAL_ROT1 = "physics:localPos1", "physics:localRot1"
JOINT_ENABLED = "physics:jointEnabled"
COLLISION_ENABLED = "physics:collisionEnabled"
EXCLUDE_FROM_ARTICULATION = "physics:excludeFromArticulation"
JOINT_AXIS = "physics:axis"
LOWER_LIMIT = "physics:lowerLimit"  # revolute (deg) / prismatic (m)
UPPER_LIMIT = "physics:upperLimit"
CONE_ANGLE0 = "physics:coneAngle0Limit"  # spherical, deg; < 0 = no limit
CONE_ANGLE1 = "physics:coneAngle1Limit"

#: D6 locked axis: a LimitAPI instance with low > high (UsdPhysics; Newton 1.8 agrees).
LOCKED_LOW, LOCKED_HIGH = 1.0, -1.0


def limit_attr(instance: str, name: str) -> str:
    """``limit:<instance>:physics:low|high`` of a LimitAPI instance."""
    return f"limit:{instance}:physics:{name}"


def drive_attr(instance: str, name: str) -> str:
    """``drive:<instance>:physics:<name>`` of a DriveAPI instance."""
    return f"drive:{instance}:physics:{name}"


JOINT_STATE_API = "PhysicsJointStateAPI"  # the joint's initial position/velocity, per DOF instance


def state_attr(instance: str, name: str) -> str:
    """``state:<instance>:physics:<name>`` of a JointStateAPI instance (position, velocity)."""
    return f"state:{instance}:physics:{name}"


DRIVE_TYPE_TOKENS = {DriveType.FORCE: "force", DriveType.ACCELERATION: "acceleration"}
DRIVE_TYPES_BY_TOKEN = {token: kind for kind, token in DRIVE_TYPE_TOKENS.items()}


def dof_instance(joint_type: JointType, axis: DofAxis) -> str:
    """The multiple-apply instance name of a DOF: ``angular``/``linear`` on single-DOF joints."""
    if joint_type == JointType.REVOLUTE:
        return "angular"
    if joint_type == JointType.PRISMATIC:
        return "linear"
    return axis.value


@dataclass(frozen=True)
class DofProperty:
    """One per-DOF field of :class:`core.model.Dof` and its name in every dialect (None = absent).

    ``physx_axis``: ``PhysxJointAxisAPI:<inst>`` attribute suffix (per DOF, written and read).
    ``newton``: NewtonJointAPI scalar, broadcast to every DOF (written when all DOFs agree).
    ``dof_array``: a per-DOF NewtonJointAPI array, one value per DOF ``newton:dofs`` names.
    ``physx_limit``: ``physxLimit:<inst>:*`` suffix (PhysX soft limits, per DOF).
    ``physx_joint``: ``physxJoint:*`` scalar; ``mjc``: MuJoCo scalar (``mjc_unit`` its unit).
    ``also_sets``: other fields a single-valued dialect implies (one friction = static and dynamic).
    """

    field: str
    unit: str
    physx_axis: Optional[str] = None
    physx_limit: Optional[str] = None
    newton: Optional[str] = None
    dof_array: Optional[str] = None
    physx_joint: Optional[str] = None
    mjc: Optional[str] = None
    mjc_unit: str = Unit.PLAIN
    also_sets: tuple[str, ...] = ()


DOF_PROPERTIES: tuple[DofProperty, ...] = (
    DofProperty("armature", Unit.PLAIN, physx_axis="armature", newton="newton:armature",
                dof_array="newton:armature", physx_joint="physxJoint:armature", mjc="mjc:armature"),
    DofProperty("static_friction", Unit.PLAIN, physx_axis="staticFrictionEffort",
                dof_array="newton:staticFrictionEffort"),
    DofProperty("dynamic_friction", Unit.PLAIN, physx_axis="dynamicFrictionEffort",
                newton="newton:friction", dof_array="newton:dynamicFrictionEffort",
                mjc="mjc:frictionloss", also_sets=("static_friction",)),
    DofProperty("viscous_damping", Unit.PER_ANGLE, physx_axis="viscousFrictionCoefficient",
                newton="newton:damping", dof_array="newton:viscousDamping",
                mjc="mjc:damping", mjc_unit=Unit.PLAIN),  # MuJoCo damping is SI (per radian)
    DofProperty("velocity_limit", Unit.ANGLE, physx_axis="maxJointVelocity",
                newton="newton:velocityLimit", physx_joint="physxJoint:maxJointVelocity"),
    DofProperty("limit_stiffness", Unit.PER_ANGLE, physx_limit="stiffness", newton="newton:limitStiffness"),
    # MuJoCo's passive joint spring (SI, per radian), the only dialect Newton 1.8 reads it from.
    DofProperty("spring_stiffness", Unit.PLAIN, mjc="mjc:stiffness", mjc_unit=Unit.PLAIN),
    DofProperty("limit_damping", Unit.PER_ANGLE, physx_limit="damping", newton="newton:limitDamping"),
)
#: Stage units of each per-DOF field as powers of (kilograms, meters) per stage unit, for a linear
#: and an angular DOF (angles are not stage units). USD authors them in the stage's units; the
#: description is SI, so a value read from a stage scales by kg_per_unit**a * m_per_unit**b.
DOF_STAGE_DIMENSIONS: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {
    "lower": ((0, 1), (0, 0)), "upper": ((0, 1), (0, 0)),  # m | rad
    "target_position": ((0, 1), (0, 0)), "target_velocity": ((0, 1), (0, 0)),  # m, m/s | rad, rad/s
    "velocity_limit": ((0, 1), (0, 0)),
    "armature": ((1, 0), (1, 2)),  # kg | kg*m^2
    "static_friction": ((1, 1), (1, 2)), "dynamic_friction": ((1, 1), (1, 2)),  # N | N*m
    "max_effort": ((1, 1), (1, 2)),
    # N/m = kg/s^2 and N*s/m = kg/s | N*m/rad and N*m*s/rad
    "drive_stiffness": ((1, 0), (1, 2)), "drive_damping": ((1, 0), (1, 2)),
    "limit_stiffness": ((1, 0), (1, 2)), "limit_damping": ((1, 0), (1, 2)),
    "viscous_damping": ((1, 0), (1, 2)), "spring_stiffness": ((1, 0), (1, 2)),
    "initial_position": ((0, 1), (0, 0)), "initial_velocity": ((0, 1), (0, 0)),  # m, m/s | rad, rad/s
}


def dof_stage_to_si(field: str, value: float, angular: bool, meters_per_unit: float,
                    kilograms_per_unit: float) -> float:
    """``value`` of a per-DOF ``field`` in a stage's units (angles already in radians) to SI."""
    kg_power, m_power = DOF_STAGE_DIMENSIONS[field][1 if angular else 0]
    return value * kilograms_per_unit ** kg_power * meters_per_unit ** m_power


DOF_DIALECT_ORDER = ("physx_axis", "physx_limit", "dof_array", "newton", "physx_joint", "mjc")

NEWTON_JOINT_API = "NewtonJointAPI"
PHYSX_JOINT_AXIS_API = "PhysxJointAxisAPI"
DOF_TOKENS_ATTR = "newton:dofs"  # token[] naming the DOFs the per-DOF NewtonJointAPI arrays index
# The DOF tokens of single-DOF joints (the others are LimitAPI instance names).
SINGLE_DOF_TOKENS = {"angle": JointType.REVOLUTE, "distance": JointType.PRISMATIC}


def physx_axis_attr(instance: str, suffix: str) -> str:
    return f"physxJointAxis:{instance}:{suffix}"


def physx_limit_attr(instance: str, name: str) -> str:
    """``physxLimit:<inst>:stiffness|damping``: PhysX soft limits, per degree on angular DOFs."""
    return f"physxLimit:{instance}:{name}"


#: Newton's "not set" sentinel for limit gains; the description default (0) stands for it.
NEWTON_UNSET = -math.inf

# ------------------------------------------------------------------------------------- colliders
SHAPE_PRIM_TYPES: dict[ShapeKind, str] = {
    ShapeKind.BOX: "Cube",
    ShapeKind.SPHERE: "Sphere",
    ShapeKind.CAPSULE: "Capsule",
    ShapeKind.CYLINDER: "Cylinder",
    ShapeKind.CONVEX_HULL: "Mesh",
    ShapeKind.MESH: "Mesh",
    ShapeKind.PLANE: "Plane",
    ShapeKind.HEIGHT_FIELD: "Mesh",  # its surface, a static triangle mesh to every consumer
}
APPROXIMATION = "physics:approximation"
#: MeshCollisionAPI approximation tokens: what we write per mesh kind, and how we read each.
APPROXIMATION_TOKENS = {ShapeKind.MESH: "none", ShapeKind.CONVEX_HULL: "convexHull",
                        ShapeKind.HEIGHT_FIELD: "none"}
APPROXIMATION_KINDS = {
    "none": ShapeKind.MESH,
    "meshSimplification": ShapeKind.MESH,
    "sdf": ShapeKind.MESH,
    "convexHull": ShapeKind.CONVEX_HULL,
    "convexDecomposition": ShapeKind.CONVEX_HULL,
    "boundingCube": ShapeKind.BOX,
    "boundingSphere": ShapeKind.SPHERE,
}
NEWTON_COLLISION_API = "NewtonCollisionAPI"
CONTACT_MARGIN = "newton:contactMargin"
CONTACT_GAP = "newton:contactGap"

# ------------------------------------------------------------------------------------ materials
PHYSICS_BINDING_PURPOSE = "physics"  # material:binding:physics
STATIC_FRICTION = "physics:staticFriction"
DYNAMIC_FRICTION = "physics:dynamicFriction"
RESTITUTION = "physics:restitution"
NEWTON_MATERIAL_API = "NewtonMaterialAPI"
TORSIONAL_FRICTION = "newton:torsionalFriction"
ROLLING_FRICTION = "newton:rollingFriction"
PREVIEW_SURFACE_ID = "UsdPreviewSurface"
GENERATED_MATERIAL_KEY = "articula:generated"  # customData: a render material made up for a color

# ---------------------------------------------------------------------------------------- scene
# NewtonSceneAPI, plus Articula's own scene settings that no schema has yet.
NEWTON_SCENE_API = "NewtonSceneAPI"
TIME_STEPS_PER_SECOND = "newton:timeStepsPerSecond"
MAX_SOLVER_ITERATIONS = "newton:maxSolverIterations"
SCENE_SETTINGS = {  # description field -> custom attribute (type name in Sdf.ValueTypeNames)
    "solver": ("articula:solver", "Token"),
    "collision_filter_parent": ("articula:collisionFilterParent", "Bool"),
    "replicas": ("articula:replicas", "Int"),
    "replica_spacing": ("articula:replicaSpacing", "Double"),
    "ground_plane": ("articula:groundPlane", "Bool"),
}
