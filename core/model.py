"""The physics description: plain Python types shared by Blender, USD and the simulation.

Everything here is in SI units and Z-up world space:
meters, kilograms, seconds, radians; drive gains in N*m/rad (angular) or N/m (linear).
Scale never appears on a body: bodies are rigid frames (position + orientation). Scale lives
on shapes (baked into primitive sizes) and on mesh shapes and visuals (``scale``).

Quaternions are (w, x, y, z) tuples. Names are unique keys: a body, joint, shape, visual or
material is referenced by its name.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Optional

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]  # (w, x, y, z)

IDENTITY_QUAT: Quat = (1.0, 0.0, 0.0, 0.0)
ZERO3: Vec3 = (0.0, 0.0, 0.0)
INF = math.inf


@dataclass
class Pose:
    """A rigid transform: rotate by ``rot`` then translate by ``pos``."""

    pos: Vec3 = ZERO3
    rot: Quat = IDENTITY_QUAT


class JointType(str, Enum):
    FIXED = "FIXED"
    REVOLUTE = "REVOLUTE"
    PRISMATIC = "PRISMATIC"
    SPHERICAL = "SPHERICAL"
    D6 = "D6"


class DofAxis(str, Enum):
    """The six axes of a joint frame; the names match UsdPhysics LimitAPI instances."""

    TRANS_X = "transX"
    TRANS_Y = "transY"
    TRANS_Z = "transZ"
    ROT_X = "rotX"
    ROT_Y = "rotY"
    ROT_Z = "rotZ"

    @property
    def is_angular(self) -> bool:
        return self.value.startswith("rot")

    @property
    def letter(self) -> str:
        return self.value[-1]


class DofMotion(str, Enum):
    FREE = "FREE"  # no limit
    LIMITED = "LIMITED"  # lower..upper
    LOCKED = "LOCKED"  # D6 only: the axis is removed from the joint


class DriveType(str, Enum):
    FORCE = "FORCE"  # gains produce a force/torque
    ACCELERATION = "ACCELERATION"  # gains produce an acceleration (mass-independent)


#: MuJoCo's defaults for the solver reference and impedance of a contact or a limit.
DEFAULT_SOLREF: tuple[float, ...] = (0.02, 1.0)
DEFAULT_SOLIMP: tuple[float, ...] = (0.9, 0.95, 0.001, 0.5, 2.0)


@dataclass
class Dof:
    """One degree of freedom of a joint and everything a robot sets per axis.

    Angular DOFs use radians and N*m; linear DOFs use meters and N.
    """

    axis: DofAxis
    motion: DofMotion = DofMotion.FREE
    lower: float = -INF
    upper: float = INF
    limit_stiffness: float = 0.0  # 0 = hard limit
    limit_damping: float = 0.0
    # Distance from a limit at which the limit starts acting (MuJoCo joint ``margin``): rad or m.
    limit_margin: float = 0.0
    # How MuJoCo's limit constraint resolves (joint ``solreflimit``: time constant s and damping ratio, or
    # negative stiffness and damping; ``solimplimit``: its impedance). Only MuJoCo reads them.
    limit_solref: tuple[float, ...] = DEFAULT_SOLREF
    limit_solimp: tuple[float, ...] = DEFAULT_SOLIMP
    drive_enabled: bool = False
    drive_type: DriveType = DriveType.FORCE
    drive_stiffness: float = 0.0  # N*m/rad or N/m
    drive_damping: float = 0.0  # N*m*s/rad or N*s/m
    target_position: float = 0.0  # rad or m
    target_velocity: float = 0.0  # rad/s or m/s
    max_effort: float = INF  # N*m or N
    armature: float = 0.0  # kg*m^2 or kg
    static_friction: float = 0.0  # effort needed to start moving (N*m or N)
    dynamic_friction: float = 0.0  # Coulomb effort while moving, <= static_friction
    viscous_damping: float = 0.0  # N*m*s/rad or N*s/m
    velocity_limit: float = INF  # rad/s or m/s
    # Passive spring toward ``spring_reference`` (MuJoCo joint ``stiffness``, Newton ``joint_stiffness``),
    # always on, drive or not: N*m/rad or N/m.
    spring_stiffness: float = 0.0
    # The spring's rest position in the joint's coordinate (MuJoCo ``springref``): rad or m.
    spring_reference: float = 0.0
    # The state a file starts from (UsdPhysics JointStateAPI), not the joint's zero: 0 at rest.
    initial_position: float = 0.0  # rad or m
    initial_velocity: float = 0.0  # rad/s or m/s
    # Motors on this DOF (MuJoCo actuators; their UsdPhysics counterpart is the drive above).
    actuators: list[Actuator] = field(default_factory=list)
    # The file's name for this DOF's own joint where a file gives each DOF a joint of its own (a MuJoCo
    # body's stacked hinges ``head_yaw``/``head_pitch``); None: the writer names it ``<joint>_<axis>``.
    name: Optional[str] = None
    # The joint coordinate at the authored pose (MuJoCo joint ``ref``): rad or m. Limits, targets,
    # initial positions and keyframes are in this coordinate (the file's); the joint frames stay at
    # the authored pose, so UsdPhysics and Newton, whose zero is the authored pose, read q - reference.
    reference: float = 0.0
    # MuJoCo's joint ``group`` (which joints its viewer shows): only MuJoCo reads it.
    group: int = 0

    @property
    def has_soft_mujoco_limit(self) -> bool:
        """A limit MuJoCo resolves otherwise than its default stop (its own solreflimit/solimplimit)."""
        return self.motion == DofMotion.LIMITED and (tuple(self.limit_solref) != DEFAULT_SOLREF
                                                     or tuple(self.limit_solimp) != DEFAULT_SOLIMP)


class ActuatorKind(str, Enum):
    """The MuJoCo shortcut an actuator's gain and bias amount to (see :class:`Actuator`)."""

    POSITION = "POSITION"  # servo toward ctrl: force = kp * (ctrl - q) - kv * qdot
    VELOCITY = "VELOCITY"  # servo toward ctrl as a velocity: force = kv * (ctrl - qdot)
    MOTOR = "MOTOR"  # open loop: force = ctrl
    GENERAL = "GENERAL"  # any other gain/bias/dynamics, kept as the file wrote it


#: MuJoCo's parameter vectors are 10 long; these helpers pad and trim them so equal actuators compare equal.
MJC_PRM_SIZE = 10


def _trim(values) -> tuple[float, ...]:
    values = [float(v) for v in values][:MJC_PRM_SIZE]
    while values and values[-1] == 0.0:
        values.pop()
    return tuple(values)


@dataclass
class Actuator:
    """A motor on one DOF (``Dof.actuators``) or on a fixed tendon (``FixedTendon.actuators``).

    Stored in MuJoCo's general form, of which the position, velocity and motor shortcuts are cases,
    so an actuator leaves a file exactly as it came in::

        force = gear * (gain[0] * ctrl + bias[0] + bias[1] * length + bias[2] * velocity)

    with ``length = gear * q`` (``q`` the DOF's position or the tendon's length); a muscle (``gain_type``
    and ``bias_type`` "muscle") takes its force from ``gain``/``bias`` as MuJoCo's muscle model, over
    ``length_range``. SI units: a position
    servo's ctrl is the DOF's position (rad or m), a velocity servo's its velocity, a motor's an effort
    before ``gear`` (N*m or N). ``ctrl_range``/``force_range`` ``None`` means unlimited. ``control`` is
    the ctrl the robot starts with (MuJoCo's ``ctrl = 0`` unless a file or an animation says otherwise).
    """

    name: str
    gain: tuple[float, ...] = (1.0,)  # MuJoCo gainprm (trailing zeros trimmed)
    bias: tuple[float, ...] = ()  # MuJoCo biasprm (trailing zeros trimmed)
    gear: float = 1.0
    ctrl_range: Optional[tuple[float, float]] = None
    force_range: Optional[tuple[float, float]] = None
    gravity_compensation: bool = False  # the actuator also carries its subtree's gravity (actgravcomp)
    control: float = 0.0
    # Beyond fixed gain / affine bias (MuJoCo's names): kept verbatim, simulated on MuJoCo only.
    dyn_type: str = "none"
    gain_type: str = "fixed"
    dyn_params: tuple[float, ...] = (1.0,)
    # Where an actuator is not on a DOF or a fixed tendon (``PhysicsScene.frame_actuators``): MuJoCo's
    # transmission keyword ("site", "body", "joint" for a ball joint, "tendon" for a spatial tendon,
    # "slidercrank"), the object's name, the site a site actuator measures from, and the 6-vector gear
    # of site and ball transmissions (empty: ``gear`` alone).
    target_kind: Optional[str] = None
    target: Optional[str] = None
    reference_site: Optional[str] = None
    gear_vector: tuple[float, ...] = ()
    # MuJoCo's bias type where it is not affine ("muscle": ``bias`` holds the muscle's parameters, as
    # ``gain`` does; "user"). "affine" with an empty ``bias`` is MuJoCo's "none".
    bias_type: str = "affine"
    # The range of the transmission's length a muscle works over (MuJoCo ``lengthrange``, m or rad);
    # None: MuJoCo's compiler finds it.
    length_range: Optional[tuple[float, float]] = None
    # A slider-crank (``target_kind`` "slidercrank", ``target`` the crank's site): the site the slider
    # moves along (its z axis) and the connecting rod's length (m, MuJoCo ``cranklength``).
    slider_site: Optional[str] = None
    crank_length: float = 0.0

    def __post_init__(self):
        self.gain, self.bias, self.dyn_params = _trim(self.gain), _trim(self.bias), _trim(self.dyn_params)

    @classmethod
    def position(cls, name: str, kp: float, kv: float = 0.0, **kwargs) -> "Actuator":
        return cls(name, gain=(kp,), bias=(0.0, -kp, -kv), **kwargs)

    @classmethod
    def velocity(cls, name: str, kv: float, **kwargs) -> "Actuator":
        return cls(name, gain=(kv,), bias=(0.0, 0.0, -kv), **kwargs)

    @classmethod
    def motor(cls, name: str, **kwargs) -> "Actuator":
        return cls(name, gain=(1.0,), bias=(), **kwargs)

    @property
    def kind(self) -> ActuatorKind:
        if self.dyn_type != "none" or self.gain_type != "fixed" or len(self.gain) > 1 or len(self.bias) > 3:
            return ActuatorKind.GENERAL
        gain = self.gain[0] if self.gain else 0.0
        bias = self.bias + (0.0,) * (3 - len(self.bias))
        if bias == (0.0, 0.0, 0.0) and gain == 1.0:
            return ActuatorKind.MOTOR
        if bias[0] == 0.0 and bias[1] == -gain and gain != 0.0 and bias[2] <= 0.0:
            return ActuatorKind.POSITION
        if bias[0] == 0.0 and bias[1] == 0.0 and bias[2] == -gain and gain != 0.0:
            return ActuatorKind.VELOCITY
        return ActuatorKind.GENERAL

    @property
    def kp(self) -> float:
        """Position gain (N*m/rad or N/m) of a POSITION servo, else 0."""
        return self.gain[0] if self.kind == ActuatorKind.POSITION else 0.0

    @property
    def kv(self) -> float:
        """Velocity gain (N*m*s/rad or N*s/m) of a POSITION or VELOCITY servo, else 0."""
        kind = self.kind
        if kind == ActuatorKind.POSITION:
            return -self.bias[2] if len(self.bias) > 2 else 0.0
        return self.gain[0] if kind == ActuatorKind.VELOCITY else 0.0


@dataclass
class TendonJoint:
    joint: str
    coef: float  # the tendon's length is sum(coef * q) over its joints
    axis: Optional[str] = None  # the DofAxis value on a multi-DOF joint; None = its only DOF


@dataclass
class FixedTendon:
    """A MuJoCo fixed tendon: a weighted sum of joint positions that actuators and limits act on
    (how MJCF grippers drive two fingers with one servo)."""

    name: str
    joints: list[TendonJoint] = field(default_factory=list)
    actuators: list[Actuator] = field(default_factory=list)
    lower: float = -INF  # length limits (m or rad); infinite = unlimited
    upper: float = INF
    stiffness: float = 0.0
    damping: float = 0.0
    frictionloss: float = 0.0  # dry friction along the tendon (N or N*m)
    # The spring's rest length (MuJoCo ``springlength``; two values bound a dead band); None: the length
    # at the start.
    spring_length: Optional[tuple[float, float]] = None
    # Inertia added along the tendon (MuJoCo tendon ``armature``): kg or kg*m^2. Only MuJoCo reads it.
    armature: float = 0.0


@dataclass
class Mimic:
    """A coupled joint: this joint's position = ``offset + gear * leader's position``
    (URDF ``<mimic>``, MuJoCo joint equality, ``NewtonMimicAPI``, ``PhysxMimicJointAPI``)."""

    leader: str  # the leader joint's name
    gear: float = 1.0  # multiplier
    offset: float = 0.0  # rad or m
    # MuJoCo's polynomial terms above the linear one (joint equality ``polycoef[2:]``): the position
    # also gets ``higher_terms[k] * leader ** (k + 2)``. Only MuJoCo simulates them.
    higher_terms: tuple[float, ...] = ()


#: The DOF axes each joint type has, in order. Revolute/prismatic use ``Joint.axis``.
def dof_axes_for(joint_type: JointType, axis: str = "X") -> list[DofAxis]:
    if joint_type == JointType.REVOLUTE:
        return [DofAxis("rot" + axis)]
    if joint_type == JointType.PRISMATIC:
        return [DofAxis("trans" + axis)]
    if joint_type == JointType.SPHERICAL:
        return [DofAxis.ROT_X, DofAxis.ROT_Y, DofAxis.ROT_Z]
    if joint_type == JointType.D6:
        return list(DofAxis)
    return []


@dataclass
class Joint:
    """A joint between ``body0`` (parent side, ``None`` = world) and ``body1`` (child side).

    ``local_pose0``/``local_pose1`` place the joint frame in each body's frame, as
    UsdPhysics ``localPos0/localRot0`` and ``localPos1/localRot1`` do.
    """

    name: str
    type: JointType
    body0: Optional[str]
    body1: str
    local_pose0: Pose = field(default_factory=Pose)
    local_pose1: Pose = field(default_factory=Pose)
    axis: str = "X"  # revolute/prismatic/spherical axis in the joint frame: "X", "Y" or "Z"
    dofs: list[Dof] = field(default_factory=list)
    cone_limit0: float = INF  # spherical only: cone half-angles (rad); INF = no limit
    cone_limit1: float = INF
    enabled: bool = True
    collide_bodies: bool = False  # True lets body0 and body1 collide with each other
    exclude_from_articulation: bool = False  # a loop-closing joint, solved as a constraint
    mimic: Optional[Mimic] = None  # this joint follows another one

    def dof(self, axis: DofAxis | str) -> Optional[Dof]:
        axis = DofAxis(axis)
        return next((d for d in self.dofs if d.axis == axis), None)

    def active_dofs(self) -> list[Dof]:
        """The DOFs that move (D6 LOCKED axes removed)."""
        return [d for d in self.dofs if d.motion != DofMotion.LOCKED]


class ShapeKind(str, Enum):
    BOX = "BOX"
    SPHERE = "SPHERE"
    CAPSULE = "CAPSULE"
    CYLINDER = "CYLINDER"
    CONVEX_HULL = "CONVEX_HULL"
    MESH = "MESH"  # triangle mesh
    PLANE = "PLANE"  # infinite plane, normal along the shape frame's +Z
    HEIGHT_FIELD = "HEIGHT_FIELD"  # terrain: an elevation grid (``Shape.height_field``), static


@dataclass
class MeshData:
    """Triangle soup in the mesh's own frame (before ``scale``)."""

    vertices: list[Vec3] = field(default_factory=list)
    triangles: list[tuple[int, int, int]] = field(default_factory=list)


@dataclass
class HeightField:
    """An elevation grid, MuJoCo's ``hfield``, in the shape's frame.

    ``heights[r * ncol + c]`` in [0, 1] is the surface at ``x = (2c / (ncol - 1) - 1) * half_x``,
    ``y = (2r / (nrow - 1) - 1) * half_y`` (row 0 at -y), ``z = heights * elevation``; a solid base
    fills ``base`` metres below z = 0. ``name`` is the asset's, which several shapes may share.
    """

    name: str
    nrow: int
    ncol: int
    half_x: float  # m
    half_y: float  # m
    elevation: float  # m, the height of a sample of 1
    base: float  # m, the depth of the solid below z = 0
    heights: list[float] = field(default_factory=list)  # nrow * ncol, row-major, normalized

    def height_at(self, row: int, col: int) -> float:
        """The surface's z (m) at the sample in ``row``, ``col``."""
        return self.heights[row * self.ncol + col] * self.elevation

    def sample_xy(self, row: int, col: int) -> tuple[float, float]:
        """The sample's x, y (m) in the shape's frame."""
        return ((2.0 * col / (self.ncol - 1) - 1.0) * self.half_x,
                (2.0 * row / (self.nrow - 1) - 1.0) * self.half_y)


@dataclass
class Shape:
    """A collider. ``pose`` is relative to its body (or world when ``body`` is None = static).

    Sizes are final, scale already applied: ``half_extents`` (box), ``radius`` (sphere,
    capsule, cylinder), ``half_height`` (capsule/cylinder, the straight part's half length
    along ``axis``). Mesh shapes keep ``mesh`` in their own frame plus ``scale``; height fields
    keep ``height_field``.
    """

    name: str
    kind: ShapeKind
    body: Optional[str] = None
    pose: Pose = field(default_factory=Pose)
    half_extents: Vec3 = (0.5, 0.5, 0.5)
    radius: float = 0.5
    half_height: float = 0.5
    axis: str = "Z"
    mesh: Optional[MeshData] = None
    scale: Vec3 = (1.0, 1.0, 1.0)  # MESH/CONVEX_HULL only
    height_field: Optional[HeightField] = None  # HEIGHT_FIELD only
    material: Optional[str] = None
    density: Optional[float] = None  # kg/m^3; None = material's, else DEFAULT_DENSITY
    collision_group: int = 1  # 0 none, >0 own group + negatives, <0 all but same negative
    world: int = 0  # static shapes (body None) are usually -1: global, every world
    contact_margin: float = 0.0  # m, broad phase expansion
    contact_gap: float = 0.0  # m, contact generated below this separation
    contact: Optional[ContactParams] = None  # MuJoCo's per-geom contact model; None = MuJoCo's defaults


@dataclass
class ContactParams:
    """How MuJoCo resolves a collider's contacts (``condim``, ``priority``, ``solref``, ``solimp``,
    ``solmix``). Friction stays on the collider's material (sliding, torsional, rolling)."""

    condim: int = 3  # 1 frictionless, 3 sliding, 4 + torsional, 6 + rolling
    priority: int = 0  # the higher priority geom's parameters win in a contact
    solref: tuple[float, ...] = DEFAULT_SOLREF
    solimp: tuple[float, ...] = DEFAULT_SOLIMP
    solmix: float = 1.0


@dataclass
class Visual:
    """A render mesh that follows a body (or the world when ``body`` is None)."""

    name: str
    body: Optional[str]
    mesh: MeshData
    pose: Pose = field(default_factory=Pose)
    scale: Vec3 = (1.0, 1.0, 1.0)
    color: tuple[float, float, float, float] = (0.8, 0.8, 0.8, 1.0)
    material_name: Optional[str] = None  # the render material's name


@dataclass
class PhysicsMaterial:
    name: str
    static_friction: float = 0.5
    dynamic_friction: float = 0.5
    restitution: float = 0.0
    torsional_friction: float = 0.0
    rolling_friction: float = 0.0
    density: Optional[float] = None  # kg/m^3


DEFAULT_DENSITY = 1000.0  # kg/m^3, water, the UsdPhysics default


@dataclass
class MassProperties:
    """Explicit mass properties of a body, in the body frame."""

    mass: float
    center_of_mass: Vec3 = ZERO3
    diagonal_inertia: Vec3 = (0.0, 0.0, 0.0)  # kg*m^2 about the principal axes at the COM
    principal_axes: Quat = IDENTITY_QUAT


@dataclass
class Body:
    """A rigid body. ``parent`` is its parent body in the kinematic tree (the Blender parent)."""

    name: str
    pose: Pose = field(default_factory=Pose)  # world space
    parent: Optional[str] = None
    kinematic: bool = False
    mass: Optional[MassProperties] = None  # None = computed from its own shapes' densities
    world: int = 0  # -1 = global: collides with every world
    self_collision: bool = True  # on an articulation root: links of it may collide
    linear_velocity: Vec3 = ZERO3
    angular_velocity: Vec3 = ZERO3
    # True when the Blender parent chain passes through a non-body object before reaching
    # another body: the body then roots a separate articulation (reported as a warning).
    hierarchy_gap: bool = False
    # The name a file gives a floating root's free joint (``floating_base_joint``); None = unnamed.
    free_joint_name: Optional[str] = None
    # A floating root's free joint as MuJoCo gives it, the same on its 6 DOFs (translation in SI per
    # metre, rotation per radian): passive damping, armature, dry friction (frictionloss) and a spring
    # (stiffness) holding the body to its start pose.
    free_joint_damping: float = 0.0
    free_joint_armature: float = 0.0
    free_joint_friction: float = 0.0
    free_joint_stiffness: float = 0.0

    @property
    def free_joint_dynamics(self) -> tuple[float, float, float, float]:
        """(damping, armature, friction, stiffness) of the free joint; all 0 unless a file set them."""
        return (self.free_joint_damping, self.free_joint_armature, self.free_joint_friction,
                self.free_joint_stiffness)


# ------------------------------------------------------------------ frames, sensors and MuJoCo's model
class SiteKind(str, Enum):
    SPHERE = "SPHERE"
    CAPSULE = "CAPSULE"
    ELLIPSOID = "ELLIPSOID"
    CYLINDER = "CYLINDER"
    BOX = "BOX"


@dataclass
class Site:
    """A named frame on a body (MuJoCo ``<site>``, USD ``MjcSiteAPI``): where sensors read, tendons pass
    and end effectors sit. It never collides and has no mass. ``pose`` is in the body's frame (world
    when ``body`` is None); ``size`` is MuJoCo's for its kind: radius; radius and half-length;
    half-extents."""

    name: str
    body: Optional[str]
    pose: Pose = field(default_factory=Pose)
    kind: SiteKind = SiteKind.SPHERE
    size: Vec3 = (0.005, 0.005, 0.005)
    color: tuple[float, float, float, float] = (0.5, 0.5, 0.5, 1.0)
    group: int = 0  # MuJoCo's visibility group


class CameraMode(str, Enum):
    """How a MuJoCo camera follows its body (``mode``)."""

    FIXED = "FIXED"
    TRACK = "TRACK"
    TRACKCOM = "TRACKCOM"
    TARGETBODY = "TARGETBODY"
    TARGETBODYCOM = "TARGETBODYCOM"


@dataclass
class Camera:
    """A camera on a body. It looks down its frame's -Z with +Y up, as MuJoCo's and Blender's cameras
    do. ``resolution`` (1, 1) is MuJoCo's default: not set."""

    name: str
    body: Optional[str]
    pose: Pose = field(default_factory=Pose)
    fovy: float = math.radians(45.0)  # vertical field of view (rad)
    mode: CameraMode = CameraMode.FIXED
    target: Optional[str] = None  # the body a TARGETBODY camera looks at
    resolution: tuple[int, int] = (1, 1)
    clip_start: float = 0.01  # m: what Blender and Isaac Sim clip to (MuJoCo's is the model's znear)
    clip_end: float = 100.0
    update_rate: float = 0.0  # Hz a ROS/Gazebo camera publishes at (URDF's Gazebo tag); 0 = every step
    # A URDF camera's links (ROS's body-convention link, its optical frame) where a file named them;
    # empty: ``<name>`` and ``<name>_optical_frame``.
    ros_frames: tuple[str, ...] = ()


class LightKind(str, Enum):
    SPOT = "SPOT"
    DIRECTIONAL = "DIRECTIONAL"
    POINT = "POINT"


@dataclass
class Light:
    """A light on a body (MuJoCo ``<light>``), shining down its frame's -Z as Blender's lights do."""

    name: str
    body: Optional[str]
    pose: Pose = field(default_factory=Pose)
    kind: LightKind = LightKind.SPOT
    color: Vec3 = (0.7, 0.7, 0.7)  # MuJoCo's diffuse
    cutoff: float = math.radians(45.0)  # spot half-angle (rad)
    exponent: float = 10.0  # spot fall-off
    attenuation: Vec3 = (1.0, 0.0, 0.0)  # constant, linear, quadratic
    cast_shadow: bool = True
    active: bool = True


@dataclass
class Sensor:
    """A sensor in MuJoCo's terms, the form every solver's readings are given in.

    ``kind`` is MuJoCo's sensor keyword (``accelerometer``, ``gyro``, ``velocimeter``, ``force``,
    ``torque``, ``touch``, ``jointpos``, ``jointvel``, ``actuatorfrc``, ``framepos``, ``framequat``,
    ``framelinvel``, ``frameangvel``, ``subtreecom``, ``contact``...). ``target`` is the object it reads,
    of ``target_kind`` (``site``, ``joint``, ``body``, ``xbody``, ``geom``, ``camera``, ``tendon``,
    ``actuator``); a frame sensor measures in ``reference`` (of ``reference_kind``), None = the world.
    ``noise`` is the standard deviation MuJoCo reports; ``cutoff`` clamps the reading (0 = none).
    ``settings`` keeps the rest of what a file said, by MJCF attribute (a contact sensor's ``data``,
    ``reduce``, ``num``; a user sensor's ``dim``)."""

    name: str
    kind: str
    target: Optional[str] = None
    target_kind: Optional[str] = None
    reference: Optional[str] = None
    reference_kind: Optional[str] = None
    noise: float = 0.0
    cutoff: float = 0.0
    settings: dict[str, str] = field(default_factory=dict)
    update_rate: float = 0.0  # Hz a ROS/Gazebo sensor publishes at (URDF's Gazebo tag); 0 = every step


@dataclass
class Keyframe:
    """A named state of the robot (MuJoCo ``<key>``, USD ``MjcKeyframe``).

    Joint positions and velocities are keyed like the simulation's (joint name, DOF axis value);
    a ball joint's orientation is a quaternion by joint name; a floating root's world pose and
    (linear, angular) velocity by body name; controls by actuator name. What a key leaves out stays
    at rest (zero, or the body's authored pose)."""

    name: str
    time: float = 0.0
    joint_positions: dict[tuple[str, str], float] = field(default_factory=dict)
    joint_velocities: dict[tuple[str, str], float] = field(default_factory=dict)
    ball_rotations: dict[str, Quat] = field(default_factory=dict)
    root_poses: dict[str, Pose] = field(default_factory=dict)
    root_velocities: dict[str, tuple[Vec3, Vec3]] = field(default_factory=dict)
    controls: dict[str, float] = field(default_factory=dict)


class EqualityKind(str, Enum):
    CONNECT = "CONNECT"  # a point of body1 held on a point of body0 (a ball joint outside the tree)
    WELD = "WELD"  # body1 held at a pose relative to body0


@dataclass
class Equality:
    """A constraint between two bodies outside the kinematic tree (MuJoCo weld and connect,
    ``MjcEqualityWeldAPI``/``MjcEqualityConnectAPI``). A body None is the world.

    CONNECT holds ``anchor`` (in body0's frame) at the same world point on body1. WELD holds body1 at
    ``relative_pose`` in body0's frame (None: as they stand at rest), about ``anchor`` on body1.
    ``site0``/``site1``, where set, name the sites that stand for the bodies instead (MuJoCo's
    site-based form)."""

    name: str
    kind: EqualityKind
    body0: Optional[str]
    body1: Optional[str]
    anchor: Vec3 = ZERO3
    relative_pose: Optional[Pose] = None
    site0: Optional[str] = None
    site1: Optional[str] = None
    torque_scale: float = 1.0
    active: bool = True
    solref: tuple[float, ...] = DEFAULT_SOLREF
    solimp: tuple[float, ...] = DEFAULT_SOLIMP


class WrapKind(str, Enum):
    SITE = "SITE"  # the tendon passes through a site
    GEOM = "GEOM"  # it wraps around a sphere or cylinder collider (on the side of ``side_site``)
    PULLEY = "PULLEY"  # a new branch starts, its length divided by ``divisor``


@dataclass
class TendonWrap:
    kind: WrapKind
    target: Optional[str] = None  # the site's or the collider's name
    side_site: Optional[str] = None
    divisor: float = 1.0


@dataclass
class SpatialTendon:
    """A MuJoCo spatial tendon: a string through sites, wrapping around colliders."""

    name: str
    path: list[TendonWrap] = field(default_factory=list)
    actuators: list[Actuator] = field(default_factory=list)
    lower: float = -INF  # length limits (m); infinite = unlimited
    upper: float = INF
    stiffness: float = 0.0
    damping: float = 0.0
    frictionloss: float = 0.0  # dry friction along the tendon (N or N*m)
    # The spring's rest length (MuJoCo ``springlength``; two values bound a dead band); None: the length
    # at the start.
    spring_length: Optional[tuple[float, float]] = None
    # Inertia added along the tendon (MuJoCo tendon ``armature``): kg or kg*m^2. Only MuJoCo reads it.
    armature: float = 0.0
    width: float = 0.003  # m, as drawn
    color: tuple[float, float, float, float] = (0.5, 0.5, 0.5, 1.0)


@dataclass
class TendonEquality:
    """A tendon's length held to a polynomial of another's (MuJoCo's tendon equality):
    ``length0 - start0 = sum(polycoef[k] * (length1 - start1) ** k)``, lengths from their start; with
    ``tendon1`` None the tendon is held at ``start0 + polycoef[0]`` (how grippers couple their finger
    joints through a fixed tendon). Tendons by name, fixed or spatial."""

    name: str
    tendon0: str
    tendon1: Optional[str] = None
    polycoef: tuple[float, ...] = (0.0, 1.0, 0.0, 0.0, 0.0)
    active: bool = True
    solref: tuple[float, ...] = DEFAULT_SOLREF
    solimp: tuple[float, ...] = DEFAULT_SOLIMP


@dataclass
class ContactPair:
    """Two colliders that always collide with these parameters (MuJoCo ``<pair>``), whatever their
    groups. ``friction``: sliding (2), torsional, rolling (2), MuJoCo's five."""

    name: str
    shape0: str
    shape1: str
    condim: int = 3
    friction: tuple[float, ...] = (1.0, 1.0, 0.005, 0.0001, 0.0001)
    solref: tuple[float, ...] = DEFAULT_SOLREF
    solimp: tuple[float, ...] = DEFAULT_SOLIMP
    margin: float = 0.0
    gap: float = 0.0


@dataclass
class MuJoCoOptions:
    """MuJoCo's solver options (``<option>``, USD ``MjcSceneAPI``): MuJoCo's own, which other solvers
    do not read. The time step and gravity are the scene's (:class:`SceneSettings`). Flags are MuJoCo's
    names (``contact``, ``filterparent``, ``warmstart``...; ``override``, ``energy``, ``multiccd``...)."""

    # euler, rk4, implicit, implicitfast. MuJoCo's own default is euler (a file says so when it has no
    # integrator); a robot from no MuJoCo file gets implicitfast, which keeps stiff drives stable.
    integrator: str = "implicitfast"
    cone: str = "pyramidal"  # pyramidal, elliptic
    impratio: float = 1.0
    solver: str = "newton"  # pgs, cg, newton
    iterations: int = 100
    tolerance: float = 1e-8
    ls_iterations: int = 50
    ls_tolerance: float = 0.01
    noslip_iterations: int = 0
    noslip_tolerance: float = 1e-6
    jacobian: str = "auto"  # dense, sparse, auto
    density: float = 0.0  # of the medium, kg/m^3
    viscosity: float = 0.0
    wind: Vec3 = ZERO3
    magnetic: Vec3 = (0.0, -0.5, 0.0)
    override_margin: float = 0.0  # o_margin, o_solref, o_solimp, o_friction: used with the override flag
    override_solref: tuple[float, ...] = DEFAULT_SOLREF
    override_solimp: tuple[float, ...] = DEFAULT_SOLIMP
    override_friction: tuple[float, ...] = (1.0, 1.0, 0.005, 0.0001, 0.0001)
    disabled: tuple[str, ...] = ()
    enabled: tuple[str, ...] = ()


class Solver(str, Enum):
    FEATHERSTONE = "FEATHERSTONE"
    MUJOCO = "MUJOCO"
    XPBD = "XPBD"


@dataclass
class SceneSettings:
    gravity: Vec3 = (0.0, 0.0, -9.81)
    steps_per_second: float = 600.0  # the physics time step is 1 / steps_per_second
    solver: Solver = Solver.MUJOCO
    solver_iterations: int = 10
    collision_filter_parent: bool = True  # a body never collides with its parent body
    replicas: int = 1  # copies of the robot worlds laid out on a grid
    replica_spacing: float = 2.0  # m between grid cells
    ground_plane: bool = False  # add an infinite static ground at z = 0
    mujoco: MuJoCoOptions = field(default_factory=MuJoCoOptions)


@dataclass
class PhysicsScene:
    name: str = "World"
    settings: SceneSettings = field(default_factory=SceneSettings)
    bodies: list[Body] = field(default_factory=list)
    joints: list[Joint] = field(default_factory=list)
    shapes: list[Shape] = field(default_factory=list)
    visuals: list[Visual] = field(default_factory=list)
    materials: list[PhysicsMaterial] = field(default_factory=list)
    # Extra body pairs that never collide (UsdPhysics FilteredPairsAPI).
    filtered_pairs: list[tuple[str, str]] = field(default_factory=list)
    # MuJoCo fixed tendons (joint couplings that actuators drive, as grippers use).
    tendons: list[FixedTendon] = field(default_factory=list)
    # Isaac robot schema (core/usd/isaac.py): robot type (None: inferred on export) and the
    # kinematic order of links and joints a file gave (empty: computed on export).
    robot_type: Optional[str] = None
    robot_links: list[str] = field(default_factory=list)
    robot_joints: list[str] = field(default_factory=list)
    # USD prim name each body, joint, tendon or actuator came from, where it differs from its name
    # (a converter's ``tn__...`` encoding of ``arm/elbow``): the writer gives it back unchanged.
    prim_names: dict[str, str] = field(default_factory=dict)
    # The object that holds each site, camera, light or sensor in an authoring tool, where its name
    # differs from the item's, by ``"<kind>:<name>"`` (``"camera:head"`` -> Blender's ``head.001``
    # beside the body ``head``): the export finds the prim that tool wrote for it by this name.
    object_names: dict[str, str] = field(default_factory=dict)
    sites: list[Site] = field(default_factory=list)
    cameras: list[Camera] = field(default_factory=list)
    lights: list[Light] = field(default_factory=list)
    sensors: list[Sensor] = field(default_factory=list)
    keyframes: list[Keyframe] = field(default_factory=list)
    equalities: list[Equality] = field(default_factory=list)
    spatial_tendons: list[SpatialTendon] = field(default_factory=list)
    tendon_equalities: list[TendonEquality] = field(default_factory=list)
    contact_pairs: list[ContactPair] = field(default_factory=list)
    # Actuators on sites, bodies, ball joints and spatial tendons (``Actuator.target_kind``/``target``).
    frame_actuators: list[Actuator] = field(default_factory=list)

    def body(self, name: Optional[str]) -> Optional[Body]:
        return self._find(self.bodies, name)

    def joint(self, name: Optional[str]) -> Optional[Joint]:
        return self._find(self.joints, name)

    def material(self, name: Optional[str]) -> Optional[PhysicsMaterial]:
        return self._find(self.materials, name)

    def tendon(self, name: Optional[str]) -> Optional[FixedTendon]:
        return self._find(self.tendons, name)

    def site(self, name: Optional[str]) -> Optional[Site]:
        return self._find(self.sites, name)

    def camera(self, name: Optional[str]) -> Optional[Camera]:
        return self._find(self.cameras, name)

    def sensor(self, name: Optional[str]) -> Optional[Sensor]:
        return self._find(self.sensors, name)

    def keyframe(self, name: Optional[str]) -> Optional[Keyframe]:
        return self._find(self.keyframes, name)

    def actuators(self) -> list[tuple[Actuator, Optional[Joint], Optional[Dof], Optional[FixedTendon]]]:
        """Every actuator with what it drives, joints first (in joint and DOF order), then tendons."""
        rows = [(a, j, d, None) for j in self.joints for d in j.dofs for a in d.actuators]
        return rows + [(a, None, None, t) for t in self.tendons for a in t.actuators]

    def _find(self, items: list, name: Optional[str]):
        """The first item called ``name``: O(1) on repeated lookups, exact after any edit.

        The lists stay plain lists that callers append to, replace or rename in freely: a cached
        hit counts only while the item still sits at its position under that name; anything else
        rebuilds the index once. The index is not a dataclass field, so equality ignores it.
        """
        if name is None:
            return None
        indexes = self.__dict__.setdefault("_name_indexes", {})
        for rebuilt in (False, True):
            index = indexes.get(id(items))
            if rebuilt or index is None or index[0] is not items:
                by_name: dict = {}
                for pos, item in enumerate(items):
                    by_name.setdefault(item.name, pos)
                index = indexes[id(items)] = (items, by_name)
            pos = index[1].get(name)
            if pos is not None and pos < len(items) and items[pos].name == name:
                return items[pos]
        return None

    def shapes_of(self, body: Optional[str]) -> list[Shape]:
        return [s for s in self.shapes if s.body == body]

    def visuals_of(self, body: Optional[str]) -> list[Visual]:
        return [v for v in self.visuals if v.body == body]

    def children_of(self, body: Optional[str]) -> list[Body]:
        return [b for b in self.bodies if b.parent == body]


def make_joint(name: str, joint_type: JointType, body0: Optional[str], body1: str, axis: str = "X",
               **kwargs) -> Joint:
    """A joint with one default :class:`Dof` per axis its type has (D6 axes start FREE)."""
    dofs = [Dof(axis=a) for a in dof_axes_for(joint_type, axis)]
    return Joint(name=name, type=joint_type, body0=body0, body1=body1, axis=axis, dofs=dofs, **kwargs)
