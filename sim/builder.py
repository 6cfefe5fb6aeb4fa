"""The physics description -> a finalized ``newton.Model`` (built directly, never through USD).

Layout of the Newton model:

- world -1 (global, built once): the ground plane, static shapes of world -1 and bodies of world -1;
- then ``replicas`` copies of each scene world ``w >= 0``, laid out on a grid: Newton world
  ``replica * world_count + w``.

Articulations follow :func:`core.articulation.find_articulations`. Newton only allows a
kinematic *root*, so the kinematic top part of a tree (root down to the first dynamic body, the
nested-bodies rule) is cut into one kinematic root per kinematic body; the dynamic bodies hang
from them by their own joints. Loop-closing joints are added outside every articulation (MuJoCo
turns them into equality constraints, XPBD solves them; Featherstone ignores them: a note says so).

Body-pair collision filters are core.collision's (one rule for simulation and USD).

Joint friction (static/dynamic Coulomb) is not given to Newton: :mod:`sim.friction` applies it
through ``control.joint_f``. Viscous damping is Newton's passive ``joint_damping`` where the
solver honours it (Featherstone, MuJoCo) and the kernel's otherwise (XPBD).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
import warp as wp

import newton

from ..core.articulation import Articulation, find_articulations
from ..core.collision import filtered_body_pairs
from ..core.ground import floor_as_ground
from ..core.mass import MassError, balance_inertia, bodies_welded_to_world, mass_properties
from ..core.mjcf.primitives import height_field as height_field_surface
from ..core.model import (
    Body,
    Dof,
    DofMotion,
    DriveType,
    Joint,
    JointType,
    MassProperties,
    PhysicsScene,
    Pose,
    DEFAULT_SOLIMP,
    Shape,
    ShapeKind,
    Solver,
)
from .actuators import (
    ActuatorSlot,
    MUJOCO_ACTUATOR_ROWS,
    add_mimics,
    add_mujoco_actuation,
    has_actuation,
    route_actuators,
    simulated_dof,
)
from .errors import SimulationBuildError  # noqa: F401 (raised here, and imported from here by callers)
from .replica_grid import replica_offsets
from ..core.transforms import (
    AXIS_VECTORS,
    pose_mul,
    quat_conjugate,
    quat_mul,
    quat_rotate,
    pose_relative,
    quat_from_axis_angle,
    quat_normalize,
    quat_to_matrix,
)

#: Newton's defaults for a hard limit (what ``add_usd`` uses when no limit gains are authored).
HARD_LIMIT_KE = 1.0e4
HARD_LIMIT_KD = 1.0e1
#: Newton's "unbounded" value for effort and velocity limits.
UNBOUNDED = 1.0e6
#: Mass given to a body that has neither shapes nor authored mass, so solvers stay finite.
FALLBACK_MASS = 1.0e-3
FALLBACK_INERTIA = 1.0e-6  # kg*m^2, with FALLBACK_MASS


def to_wp_transform(pose: Pose) -> wp.transform:
    w, x, y, z = pose.rot
    return wp.transform(wp.vec3(*pose.pos), wp.quat(x, y, z, w))


@dataclass
class DofInfo:
    """Where one description DOF lives in Newton's arrays, and its per-DOF extras."""

    joint: str
    axis: str
    q_index: int  # into joint_q / joint_target_q
    qd_index: int  # into joint_qd / joint_f / joint_target_qd
    dof: Dof
    # The description's coordinate at Newton's zero: the DOF's reference, unless XPBD's zero was moved to
    # the middle of its limits (see zero_shift). Newton's coordinate = the description's - zero.
    zero: float


@dataclass
class WorldTemplate:
    """A scene world (or the global part) built once into its own ModelBuilder."""

    builder: newton.ModelBuilder
    bodies: list[str] = field(default_factory=list)  # local body index -> name
    dofs: list[tuple[str, str, int, int, Dof]] = field(default_factory=list)  # local indices
    zero_shifts: dict[tuple[str, str], float] = field(default_factory=dict)  # (joint, axis) -> zero_shift
    kinematic_joints: dict[str, int] = field(default_factory=dict)  # body -> local free joint
    joint_index: dict[str, int] = field(default_factory=dict)  # description joint -> local Newton joint
    actuator_rows: list[str] = field(default_factory=list)  # MuJoCo actuator rows (names), in order


@dataclass
class BuiltModel:
    """A finalized model and the maps from description names to Newton indices."""

    model: newton.Model
    body_keys: list[tuple[str, int]]  # (body name, replica), the output order of body poses
    body_index: np.ndarray  # Newton body index for each key
    dofs: dict[tuple[str, str, int], DofInfo]  # (joint, axis, replica) -> DofInfo
    kinematic: dict[tuple[str, int], tuple[int, int, int]]  # key -> (body, q_start, qd_start)
    replica_offsets: list[tuple[float, float, float]]
    notes: list[str]  # properties a solver cannot honour, said plainly
    actuators: list[ActuatorSlot] = field(default_factory=list)  # every actuator of every replica
    actuator_forces: list = field(default_factory=list)  # kernel rows for sim.actuators.ActuatorForces
    left_out_joints: frozenset = frozenset()  # described joints not in the model (Featherstone's loop joints)

    def key_index(self, name: str, replica: int = 0) -> int:
        return self.body_keys.index((name, replica))


# ---------------------------------------------------------------------------------------------
# mass and shapes


def _is_welded(articulation: Articulation, name: str) -> bool:
    """True when ``name`` cannot move against its parent body (a fixed joint or no joint), or against
    the world for the root."""
    joint = articulation.parent_joint(name)
    if articulation.parents.get(name) is None:
        return (joint is not None and joint.type == JointType.FIXED
                and not articulation.stacked_joints.get(name))
    return joint is None or (joint.type == JointType.FIXED and not articulation.stacked_joints.get(name))


def _mass_properties(scene: PhysicsScene, body: Body, notes: list[str], welded: bool = False,
                     carried: list[str] | None = None) -> MassProperties:
    """The core mass rule (explicit mass, else the body's own colliders).

    A massless body (no colliders and no mass, or mass 0 as an import of one reads) is what
    Newton's add_usd gives it, mass 0, when it is ``welded`` (to its parent, an end-effector frame,
    a mount: its parent carries it, as MuJoCo and Newton merge such bodies; or to the world); one
    that moves gets a tiny mass instead, so the solver's mass matrix stays invertible. ``carried``
    (XPBD, where a massless body is immovable and would pin its chain) collects the massless bodies
    welded to a moving parent that get the tiny mass too."""
    try:
        props = mass_properties(scene, body.name)
    except MassError as error:
        if welded and not scene.shapes_of(body.name):
            return MassProperties(mass=0.0)
        if carried is not None and not scene.shapes_of(body.name) and not body.kinematic:
            carried.append(body.name)
        else:
            notes.append(f"body {body.name!r}: {error.reason}; simulated with {FALLBACK_MASS} kg")
        return MassProperties(mass=FALLBACK_MASS, diagonal_inertia=(FALLBACK_INERTIA,) * 3)
    if props.mass <= 0.0 and not welded and not body.kinematic:
        if carried is not None:
            carried.append(body.name)
        else:
            notes.append(f"body {body.name!r}: mass {props.mass:g} on a moving joint; simulated with "
                         f"{FALLBACK_MASS} kg")
        return MassProperties(mass=FALLBACK_MASS, center_of_mass=props.center_of_mass,
                              diagonal_inertia=(FALLBACK_INERTIA,) * 3)
    return props


def _inertia_matrix(mass: MassProperties) -> wp.mat33:
    r = np.array(quat_to_matrix(mass.principal_axes))
    inertia = r @ np.diag(mass.diagonal_inertia) @ r.T
    return wp.mat33(*inertia.flatten().tolist())


def _shape_config(scene: PhysicsScene, shape: Shape, mujoco: bool = False) -> newton.ModelBuilder.ShapeConfig:
    """Newton's shape settings; ``mujoco``: for Newton's MuJoCo conversion, which hands margin and gap to
    MuJoCo as the geom's own (MuJoCo's gap 0 unless authored: Newton's 0.1 m detection gap there put a box
    3 mm deeper into a terrain, MuJoCo's resting depth with that gap)."""
    material = scene.material(shape.material)
    cfg = newton.ModelBuilder.ShapeConfig(
        density=0.0,
        collision_group=shape.collision_group,
        margin=shape.contact_margin,
        # 0 = Newton's default detection gap for Newton's own contacts
        gap=shape.contact_gap if mujoco else shape.contact_gap or None,
    )
    if material is not None:
        cfg.mu = material.dynamic_friction
        cfg.restitution = material.restitution
        cfg.mu_torsional = material.torsional_friction
        cfg.mu_rolling = material.rolling_friction
    return cfg


# Newton's capsules and cylinders run along their local Z; turn Z onto the authored axis.
_Z_TO_AXIS = {
    "X": quat_from_axis_angle((0.0, 1.0, 0.0), math.pi / 2.0),
    "Y": quat_from_axis_angle((1.0, 0.0, 0.0), -math.pi / 2.0),
    "Z": (1.0, 0.0, 0.0, 0.0),
}


def _mujoco_contact_attributes(builder: newton.ModelBuilder, shape: Shape) -> dict:
    """The collider's own MuJoCo contact model (condim, priority, solref, solimp, solmix) as the custom
    attributes Newton's MuJoCo conversion gives each geom (else it derives solref from Newton's ke/kd)."""
    contact = shape.contact
    if contact is None:
        return {}
    newton.solvers.SolverMuJoCo.register_custom_attributes(builder)
    solimp = (tuple(contact.solimp) + DEFAULT_SOLIMP[len(contact.solimp):])[:5]
    return {"mujoco:condim": contact.condim, "mujoco:geom_priority": contact.priority,
            "mujoco:geom_solimp": solimp, "mujoco:geom_solmix": contact.solmix,
            "mujoco:solref": tuple(contact.solref[:2]), "mujoco:solref_mode": SOLREF_AS_MUJOCO_READS_IT}


def add_shape(builder: newton.ModelBuilder, scene: PhysicsScene, shape: Shape, body: int,
              notes: list[str] | None = None, mujoco: bool = False) -> int:
    """Add one collider to ``body`` (-1: static) and return its Newton shape index; what a solver
    cannot simulate as authored is said in ``notes``. ``mujoco``: for Newton's MuJoCo conversion, with
    the collider's own MuJoCo contact settings.

    Mass comes from :mod:`core.mass` (the body is added with locked inertia), not from Newton.
    """
    cfg = _shape_config(scene, shape, mujoco)
    xform = to_wp_transform(shape.pose)
    common = dict(xform=xform, cfg=cfg, label=shape.name)
    if mujoco and shape.contact is not None:
        common["custom_attributes"] = _mujoco_contact_attributes(builder, shape)
    kind = shape.kind
    if kind == ShapeKind.BOX:
        return builder.add_shape_box(body, hx=shape.half_extents[0], hy=shape.half_extents[1],
                                     hz=shape.half_extents[2], **common)
    if kind == ShapeKind.SPHERE:
        return builder.add_shape_sphere(body, radius=shape.radius, **common)
    if kind in (ShapeKind.CAPSULE, ShapeKind.CYLINDER):
        common["xform"] = to_wp_transform(pose_mul(shape.pose, Pose(rot=_Z_TO_AXIS[shape.axis])))
        add = builder.add_shape_capsule if kind == ShapeKind.CAPSULE else builder.add_shape_cylinder
        return add(body, radius=shape.radius, half_height=shape.half_height, **common)
    if kind in (ShapeKind.MESH, ShapeKind.CONVEX_HULL):
        if shape.mesh is None or not shape.mesh.triangles:
            raise SimulationBuildError(f"shape {shape.name!r} is a {kind.value} without triangles")
        mesh = newton.Mesh(np.asarray(shape.mesh.vertices, dtype=np.float32),
                           np.asarray(shape.mesh.triangles, dtype=np.int32).flatten())
        add = builder.add_shape_mesh if kind == ShapeKind.MESH else builder.add_shape_convex_hull
        return add(body, mesh=mesh, scale=shape.scale, **common)
    if kind == ShapeKind.PLANE:
        return builder.add_shape_plane(xform=xform, width=0.0, length=0.0, body=body, cfg=cfg,
                                       label=shape.name, custom_attributes=common.get("custom_attributes"))
    if kind == ShapeKind.HEIGHT_FIELD:
        return _add_height_field(builder, shape, body, common, notes)
    raise SimulationBuildError(f"shape {shape.name!r}: unknown kind {kind!r}")


def _add_height_field(builder: newton.ModelBuilder, shape: Shape, body: int, common: dict,
                      notes: list[str] | None) -> int:
    """A static height field as Newton's (MuJoCo's hfield on the MuJoCo solver, its base kept); on a
    moving body, where Newton keeps none, its surface as a triangle mesh."""
    field = shape.height_field
    if field is None or min(field.nrow, field.ncol) < 2 or len(field.heights) != field.nrow * field.ncol:
        raise SimulationBuildError(f"shape {shape.name!r} is a height field without a grid of at least "
                                   f"2 x 2 samples (nrow * ncol heights)")
    if body >= 0:
        if notes is not None:
            notes.append(f"height field {shape.name!r} is on a moving body, where Newton keeps no height "
                         f"field: it collides as a triangle mesh of its surface (on MuJoCo Warp that mesh's "
                         f"convex hull), without its solid base")
        surface = height_field_surface(field)
        mesh = newton.Mesh(np.asarray(surface.vertices, dtype=np.float32),
                           np.asarray(surface.triangles, dtype=np.int32).flatten())
        return builder.add_shape_mesh(body, mesh=mesh, **common)
    heights = np.asarray(field.heights, dtype=np.float32).reshape(field.nrow, field.ncol)
    # Newton renormalizes the samples to [0, 1] between min_z and max_z: give it their own range, so a
    # grid that does not span [0, 1] keeps its heights (row 0 at -y, as the description's).
    low, high = float(heights.min()) * field.elevation, float(heights.max()) * field.elevation
    grid = newton.Heightfield(data=heights, nrow=field.nrow, ncol=field.ncol, hx=field.half_x,
                              hy=field.half_y, min_z=low, max_z=high)
    newton.solvers.SolverMuJoCo.register_custom_attributes(builder)  # the base, read by MuJoCo's solver
    common["custom_attributes"] = {**common.get("custom_attributes", {}), "mujoco:hfield_base": field.base}
    return builder.add_shape_heightfield(heightfield=grid, **common)


# ---------------------------------------------------------------------------------------------
# joints


def _dof_config(dof: Dof, axis: tuple[float, float, float], native_damping: bool,
                kernel_drives: bool, own_hard_limits: bool,
                zero: float) -> newton.ModelBuilder.JointDofConfig:
    """``zero``: the description's coordinate at Newton's zero (DofInfo.zero)."""
    limited = dof.motion == DofMotion.LIMITED
    hard = dof.limit_stiffness <= 0.0
    hard_ke, hard_kd = (0.0, 0.0) if own_hard_limits else (HARD_LIMIT_KE, HARD_LIMIT_KD)
    drive = dof.drive_enabled and (dof.drive_stiffness != 0.0 or dof.drive_damping != 0.0)
    # An effort limit the solver cannot clamp is applied by sim.friction's drive kernel instead.
    kernel_drive = drive and kernel_drives and math.isfinite(dof.max_effort)
    return newton.ModelBuilder.JointDofConfig(
        axis=axis,
        limit_lower=dof.lower - zero if limited and math.isfinite(dof.lower) else -newton.MAXVAL,
        limit_upper=dof.upper - zero if limited and math.isfinite(dof.upper) else newton.MAXVAL,
        limit_ke=hard_ke if hard else dof.limit_stiffness,
        limit_kd=hard_kd if hard else dof.limit_damping,
        target_q=dof.target_position - zero if drive else 0.0,
        target_qd=dof.target_velocity if drive else 0.0,
        target_ke=dof.drive_stiffness if drive and not kernel_drive else 0.0,
        target_kd=dof.drive_damping if drive and not kernel_drive else 0.0,
        actuator_mode=None if drive and not kernel_drive else newton.JointTargetMode.NONE,
        damping=dof.viscous_damping if native_damping else 0.0,
        stiffness=dof.spring_stiffness,  # passive spring to its rest, Newton's zero being the authored pose
        rest_q=dof.spring_reference - zero if dof.spring_reference != zero else None,
        armature=dof.armature,
        effort_limit=dof.max_effort if math.isfinite(dof.max_effort) else UNBOUNDED,
        velocity_limit=dof.velocity_limit if math.isfinite(dof.velocity_limit) else UNBOUNDED,
        friction=0.0,
    )


#: Newton's ``SOLREF_MODE_RAW`` (not public in Newton 1.8): a DOF's ``mujoco:solreflimit`` is MuJoCo's own.
SOLREF_AS_MUJOCO_READS_IT = 1


def _soft_limits(scene: PhysicsScene) -> bool:
    return any(d.has_soft_mujoco_limit for j in scene.joints for d in j.dofs)


def _add_mujoco_limit_softness(builder: newton.ModelBuilder, dofs) -> None:
    """Each softened DOF's solreflimit (raw, as MuJoCo reads it) and solimplimit into the custom attributes
    Newton's MuJoCo solver converts (``dofs``: the template's (joint, axis, q, qd, dof) rows)."""
    softened = [(qd, dof) for _, _, _, qd, dof in dofs if qd >= 0 and dof.has_soft_mujoco_limit]
    if not softened:
        return
    newton.solvers.SolverMuJoCo.register_custom_attributes(builder)
    for key, value_of in (("mujoco:solreflimit", lambda d: tuple(d.limit_solref)),
                          ("mujoco:solreflimit_mode", lambda d: SOLREF_AS_MUJOCO_READS_IT),
                          ("mujoco:solimplimit", lambda d: tuple(d.limit_solimp))):
        attribute = builder.custom_attributes[key]
        if attribute.values is None:
            attribute.values = {}
        for qd, dof in softened:
            attribute.values[qd] = value_of(dof)


def _x_onto(axis) -> tuple[float, float, float, float]:
    """The rotation taking +X onto the unit vector ``axis``."""
    x, y, z = axis
    if x < -1.0 + 1e-9:
        return (0.0, 0.0, 0.0, 1.0)  # a half turn about Z
    return quat_normalize((1.0 + x, 0.0, -z, y))  # halfway between X and axis: (1 + X.a, X x a)


def angle_as_twist(frames: tuple[Pose, Pose], axes: list) -> tuple[tuple[Pose, Pose], list]:
    """XPBD: a joint's two frames turned alike so that its one angular axis (the last of ``axes``) is
    their X, the linear axes turned into them; the joint and its coordinates are the same.

    XPBD measures a joint's rotation by its swing-twist decomposition about the frame's X: an angle about
    X is measured exactly up to a half turn; one about Y or Z is a swing, where the locked twist is singular
    at a half turn (its gradient grows as 1 / cos(angle / 2)). pybullet's A1 folds its knees (about Y) to
    their -2.70 rad limit lying on the ground: the knees were pushed 0.1 rad past the limit and a calf
    was flung at 500 rad/s within 0.6 s at a 1 ms solver step; turned to X it rests, as on MuJoCo.
    Either way XPBD reads an angle within a half turn: limits past it get their zero moved (zero_shift,
    about the axis as turned here). Done on floating robots only (they fold onto their limits lying on
    the ground): on a fixed arm (tests/sim/test_grab_effective_mass.py) a 50 g hand
    pulled on a 5 kg arm swung +-1 rad with its hinges (about Z) turned, and came to the target without."""
    turn = _x_onto(axes[-1])
    if turn == (1.0, 0.0, 0.0, 0.0):
        return frames, axes
    back = quat_conjugate(turn)
    turned = tuple(Pose(pos=f.pos, rot=quat_mul(f.rot, turn)) for f in frames)
    return turned, [quat_rotate(back, a) for a in axes[:-1]] + [(1.0, 0.0, 0.0)]


#: How near a half turn (rad) a limit may lie before XPBD's zero moves (zero_shift). XPBD reads a one-angle
#: joint's angle within -pi..pi of Newton's zero: a limit there is met on the wrong side once the joint
#: overshoots it past the half turn. A joint overshoots a limit by about what it turns in a solver step (a
#: pendulum reaching its limit at 5.5 rad/s, 600 Hz: 2.8 mrad); centred limits keep at least half this
#: margin, 0.25 rad, a joint turning 150 rad/s at 600 Hz. It also keeps a swing (an axis other than X)
#: off XPBD's singular read at the half turn (its gradient grows as 1 / cos(angle / 2): 4x at the margin).
HALF_TURN_MARGIN = 0.5


def zero_shift(dof: Dof) -> float:
    """XPBD: how far (rad) Newton's zero of a one-angle DOF moves from the authored pose to the middle of
    its limits, 0.0 where it stays. XPBD reads an angle only within a half turn either way of its zero
    (from the two joint frames' relative rotation), so a limit past that (pybullet's A1 thighs: -1.05..4.19
    rad) is met on the wrong side and the joint pushed the long way round. Moved where a limit lies within
    HALF_TURN_MARGIN of the half turn or past it and the two limits span less than a turn less the margin:
    centred, each lies within a half turn less half the margin."""
    if dof.motion != DofMotion.LIMITED or not (math.isfinite(dof.lower) and math.isfinite(dof.upper)):
        return 0.0
    lower, upper = dof.lower - dof.reference, dof.upper - dof.reference
    near_half_turn = max(-lower, upper) > math.pi - HALF_TURN_MARGIN
    within_a_turn = upper - lower < 2.0 * math.pi - HALF_TURN_MARGIN
    return 0.5 * (lower + upper) if near_half_turn and within_a_turn else 0.0


def shifted_zero(frames: tuple[Pose, Pose], axis, shift: float) -> tuple[Pose, Pose]:
    """The joint's parent frame turned by ``shift`` about its angle ``axis`` (expressed in that frame, so
    left in place by the turn): Newton's coordinate q then places the bodies where q + shift did before."""
    parent, child = frames
    return Pose(pos=parent.pos, rot=quat_mul(parent.rot, quat_from_axis_angle(axis, shift))), child


def _floats(scene: PhysicsScene, articulation: Articulation) -> bool:
    """A floating robot: a free root (not kinematic) with bodies jointed to it."""
    return (articulation.base_joint is None and not articulation.fixed_base and len(articulation.bodies) > 1
            and not scene.body(articulation.root).kinematic)


def _split_dofs(joint: Joint) -> tuple[list[Dof], list[Dof]]:
    """Active DOFs of a joint, linear then angular, each in X, Y, Z order (Newton's layout)."""
    active = joint.active_dofs()
    linear = sorted((d for d in active if not d.axis.is_angular), key=lambda d: d.axis.letter)
    angular = sorted((d for d in active if d.axis.is_angular), key=lambda d: d.axis.letter)
    return linear, angular


@dataclass
class SolverCaps:
    """Which per-DOF properties a solver honours natively (the rest go to sim.friction)."""

    damping: bool  # passive joint damping
    effort_limit: bool  # drives clamp to max effort
    reduced: bool  # joint_q/joint_qd are the solver's state (else recovered with eval_ik)
    armature: bool  # joint armature adds inertia
    kernel_drives: bool  # explicit drives are safe to replace by sim.friction's clamped ones
    # A hard limit is the solver's own limit constraint, asked for with limit gains 0: on MuJoCo the
    # one every MJCF without a solreflimit compiles to (0.02 s, damping ratio 1). Newton would turn
    # its default gains (1e4, 10) into a solref scaled by the DOF's inverse inertia instead: a spring
    # of seconds with 1% damping on a heavy joint (the gymnasium ant bounced 2 m high off its leg
    # limits), an explosive one on light legs at a long step (Newton's ant at 62 Hz blew up in 0.08 s)
    # where MuJoCo on the same file holds.
    own_hard_limits: bool = False
    # XPBD applies joint_f (sim.friction's damper) as an explicit torque on the two bodies alone: a
    # damper past the explicit bound on them (damping * dt / inertia > 2) blows up there (20 N*m*s on
    # a 0.3 kg arm at 600 Hz). Such a damper becomes XPBD's velocity drive (target_kd, no target_ke),
    # an implicit constraint; the rest stay the kernel's, which follows the viscous law exactly.
    damping_as_velocity_drive: bool = False

    @classmethod
    def of(cls, solver: Solver) -> "SolverCaps":
        return {
            # Featherstone's own drive (joint_target_ke/kd) is explicit too, and unclamped: Newton
            # ignores joint_effort_limit there. A drive with a finite max effort is applied by the
            # kernel instead (same PD law, clamped); one without stays the solver's own, exactly
            # as add_usd builds it (tests/assets/revolute_articulation.usda).
            Solver.FEATHERSTONE: cls(damping=True, effort_limit=False, reduced=True, armature=True,
                                     kernel_drives=True),
            Solver.MUJOCO: cls(damping=True, effort_limit=True, reduced=True, armature=True,
                               kernel_drives=False, own_hard_limits=True),
            # XPBD's drives are implicit constraints: an explicit replacement would go unstable.
            Solver.XPBD: cls(damping=False, effort_limit=False, reduced=False, armature=False,
                             kernel_drives=False, damping_as_velocity_drive=True),
        }[Solver(solver)]


class _TemplateBuilder:
    """Fills one WorldTemplate with articulations, static shapes and filters."""

    def __init__(self, scene: PhysicsScene, caps: SolverCaps, notes: list[str],
                 filtered: set[frozenset[str]], solver: Solver, balanced: list[str],
                 massless: list[str], light: dict[str, float] | None = None):
        self.scene = scene
        self.balanced = balanced  # bodies whose inertia was balanced (one note for all)
        self.massless = massless  # massless moving bodies given FALLBACK_MASS on XPBD (one note for all)
        self.light = {} if light is None else light  # {body: its mass} made FALLBACK_MASS on XPBD
        self.welded_to_world = bodies_welded_to_world(scene)
        self.filtered = filtered
        self.caps = caps
        self.notes = notes
        self.solver = solver
        self._angles_as_twist = False  # XPBD, a floating robot's joints: see angle_as_twist

    def build(self, articulations: list[Articulation], static_shapes: list[Shape],
              loop_joints: list[Joint]) -> WorldTemplate:
        builder = newton.ModelBuilder(up_axis=newton.Axis.Z, gravity=self.scene.settings.gravity)
        template = WorldTemplate(builder)
        index: dict[str, int] = {}
        shapes_of: dict[str, list[int]] = {}
        for shape in static_shapes:
            add_shape(builder, self.scene, shape, -1, mujoco=self.solver == Solver.MUJOCO)
        for articulation in articulations:
            self._add_bodies(template, articulation, index, shapes_of)
        for articulation in articulations:
            self._add_articulation(template, articulation, index)
        for joint in loop_joints:
            self._add_loop_joint(template, joint, index)
        self._filter(template, index, shapes_of)
        self._add_actuation(template)
        return template

    def _add_actuation(self, template: WorldTemplate):
        """Coupled joints (every solver) and, on MuJoCo, the actuators and fixed tendons as MuJoCo rows."""
        add_mimics(template.builder, self.scene, template.joint_index, self.notes,
                   {joint: shift for (joint, _), shift in template.zero_shifts.items()})
        if self.solver == Solver.MUJOCO and has_actuation(self.scene):
            dof_index = {(joint, axis): qd for joint, axis, _, qd, _ in template.dofs}
            template.actuator_rows = add_mujoco_actuation(template.builder, self.scene, template.joint_index,
                                                          dof_index, self.notes).rows
        if self.solver == Solver.MUJOCO:
            _add_mujoco_limit_softness(template.builder, template.dofs)

    def _sim_dof(self, joint: Joint, dof: Dof) -> Dof:
        return simulated_dof(joint, dof, self.solver, self.notes)

    # bodies -------------------------------------------------------------------------------

    def _add_bodies(self, template, articulation, index, shapes_of):
        for name in articulation.bodies:
            body = self.scene.body(name)
            if self.solver == Solver.XPBD:  # only a body the world holds may stay massless
                mass = _mass_properties(self.scene, body, self.notes, name in self.welded_to_world,
                                        self.massless)
                # A root of 1 g or more keeps its fixed joint to the world: made static, mjlab's yam
                # diverged when its limp arm folded onto its base (0.96 s), and held with the joint.
                held_root = articulation.parents.get(name) is None and mass.mass >= FALLBACK_MASS
                if name in self.welded_to_world and not body.kinematic and not held_root:
                    # Static, as the world holds it: XPBD's fixed joint from a massless mount to a body
                    # with mass went NaN in the first step (robosuite's inspire, fourier and jaco hands).
                    mass = MassProperties(mass=0.0)
                else:
                    mass = self._at_least_fallback_mass(name, mass)
            else:
                mass = _mass_properties(self.scene, body, self.notes, _is_welded(articulation, name))
            balanced = balance_inertia(mass)
            if balanced is not None:  # else MuJoCo refuses the model ("use 'balanceinertia'")
                mass = balanced
                self.balanced.append(name)
            kwargs = dict(xform=to_wp_transform(body.pose), label=name, is_kinematic=body.kinematic,
                          mass=mass.mass, com=mass.center_of_mass, inertia=_inertia_matrix(mass),
                          lock_inertia=True)
            index[name] = template.builder.add_link(**kwargs)
            template.bodies.append(name)
            shapes_of[name] = [self._add_body_shape(template.builder, body, s, index[name])
                               for s in self.scene.shapes_of(name)]

    def _add_body_shape(self, builder: newton.ModelBuilder, body: Body, shape: Shape, index: int) -> int:
        """A body's collider; a height field on a body the world holds stays a (static) height field,
        placed where the body is."""
        if shape.kind == ShapeKind.HEIGHT_FIELD and body.name in self.welded_to_world and not body.kinematic:
            return add_shape(builder, self.scene, replace(shape, pose=pose_mul(body.pose, shape.pose)), -1,
                             mujoco=self.solver == Solver.MUJOCO)
        return add_shape(builder, self.scene, shape, index, self.notes, mujoco=self.solver == Solver.MUJOCO)

    def _at_least_fallback_mass(self, name: str, mass: MassProperties) -> MassProperties:
        """XPBD: a moving body lighter than FALLBACK_MASS made that heavy, its inertia scaled alike, with a
        note. robosuite's spot_arm welds a 1e-6 kg link between 0.26 and 0.73 kg links: XPBD's fixed joint
        across that mass ratio diverged at 0.36 s at every substep count up to 8; at 1 g with its inertia
        scaled alike it holds (with the inertia left at most 1e-6 kg*m^2 it diverged at 0.52 s)."""
        if not 0.0 < mass.mass < FALLBACK_MASS:
            return mass
        scale = FALLBACK_MASS / mass.mass
        self.light[name] = mass.mass
        return MassProperties(mass=FALLBACK_MASS, center_of_mass=mass.center_of_mass,
                              diagonal_inertia=tuple(i * scale for i in mass.diagonal_inertia),
                              principal_axes=mass.principal_axes)

    # joints -------------------------------------------------------------------------------

    def _add_articulation(self, template, articulation: Articulation, index: dict[str, int]):
        """Add the tree, cut at every kinematic body (each becomes a kinematic root).

        Each kinematic body roots one Newton articulation holding the dynamic bodies whose
        nearest kinematic ancestor it is; a dynamic root keeps the bodies above any kinematic one.
        """
        kinematic = set(articulation.kinematic_bodies)
        self._check_kinematic_top(articulation, kinematic)
        self._angles_as_twist = self.solver == Solver.XPBD and _floats(self.scene, articulation)
        groups: dict[str, list[str]] = {}
        owner: dict[str, str] = {}
        for name in articulation.bodies:
            parent = articulation.parents.get(name)
            owner[name] = name if name in kinematic or parent is None else owner[parent]
            groups.setdefault(owner[name], []).append(name)
        for root, names in groups.items():
            joints = [self._add_body_joint(template, articulation, name, index, name in kinematic)
                      for name in names]
            template.builder.add_articulation(joints, label=root)
        self._angles_as_twist = False  # loop joints keep their frames

    def _add_body_joint(self, template, articulation: Articulation, name: str, index: dict[str, int],
                        is_kinematic: bool) -> int:
        """The joint that places ``name``: free (kinematic or floating root), weld or its tree joint."""
        b = template.builder
        parent = articulation.parents.get(name)
        joint = articulation.parent_joint(name)
        if is_kinematic:
            template.kinematic_joints[name] = b.add_joint_free(index[name], label=f"{name}_kinematic")
            return template.kinematic_joints[name]
        if parent is None and joint is None:
            free = b.add_joint_free(index[name], label=f"{name}_free_joint")
            self._set_root_velocity(template, self.scene.body(name), free)
            self._set_free_joint_dynamics(template, self.scene.body(name), free)
            return free
        if joint is None:  # parent -> child with no joint: welded (MJCF semantics)
            return self._add_weld(template, parent, name, index)
        stacked = articulation.edge_joints(name)
        if len(stacked) > 1:
            return self._add_stacked_joints(template, stacked, index,
                                            in_file_order=len(articulation.bodies) == 1)
        return self._add_joint(template, joint, index)

    def _check_kinematic_top(self, articulation: Articulation, kinematic: set[str]):
        for name in articulation.bodies:
            parent = articulation.parents.get(name)
            if name in kinematic and parent is not None and parent not in kinematic:
                raise SimulationBuildError(
                    f"kinematic body {name!r} hangs from dynamic body {parent!r}: only the top part of "
                    f"an articulation (from its root down) may be kinematic")

    def _set_root_velocity(self, template, body: Body, joint: int):
        if body.linear_velocity == (0.0, 0.0, 0.0) and body.angular_velocity == (0.0, 0.0, 0.0):
            return
        b = template.builder
        com = np.array(b.body_com[index_of_body(b, body.name)], dtype=float)
        r = np.array(quat_to_matrix(body.pose.rot)) @ com
        v = np.array(body.linear_velocity) + np.cross(body.angular_velocity, r)
        start = b.joint_qd_start[joint]
        b.joint_qd[start:start + 6] = [*v.tolist(), *body.angular_velocity]

    def _set_free_joint_dynamics(self, template, body: Body, joint: int) -> None:
        """A floating root's free-joint armature and damping on MuJoCo Warp (Newton's MuJoCo solver), whose
        free-joint DOFs are MuJoCo's; Featherstone's are a spatial twist, where armature would couple
        turning with sliding, and XPBD has no joint space: there, and for its friction and spring, a note."""
        damping, armature, friction, stiffness = body.free_joint_dynamics
        kept = []
        if self.solver == Solver.MUJOCO:
            b, start = template.builder, template.builder.joint_qd_start[joint]
            dofs = slice(start, start + 6)
            b.joint_armature[dofs], b.joint_damping[dofs] = [armature] * 6, [damping] * 6
            kept = ["damping", "armature"]
        lost = [what for what, value in (("damping", damping), ("armature", armature), ("friction", friction),
                                         ("spring", stiffness)) if value and what not in kept]
        note = (f"floating robot {body.name!r}: its free joint's {', '.join(lost)} "
                f"{'is' if len(lost) == 1 else 'are'} simulated on MuJoCo only")
        if lost and note not in self.notes:
            self.notes.append(note)

    def _add_weld(self, template, parent: str, child: str, index: dict[str, int]) -> int:
        relative = pose_relative(self.scene.body(parent).pose, self.scene.body(child).pose)
        return template.builder.add_joint_fixed(
            index[parent], index[child], parent_xform=to_wp_transform(relative),
            label=f"{parent}_to_{child}_weld", collision_filter_parent=False)

    def _add_joint(self, template, joint: Joint, index: dict[str, int], loop: bool = False) -> int:
        b = template.builder
        parent = index[joint.body0] if joint.body0 else -1
        child = index[joint.body1]
        common = dict(parent_xform=to_wp_transform(joint.local_pose0),
                      child_xform=to_wp_transform(joint.local_pose1), label=joint.name,
                      collision_filter_parent=False)  # _filter applies core's body-pair rule
        linear, angular = _split_dofs(joint)
        if joint.type == JointType.FIXED or (joint.type == JointType.D6 and not linear and not angular):
            template.joint_index[joint.name] = b.add_joint_fixed(parent, child, **common)
            return template.joint_index[joint.name]
        if joint.type == JointType.SPHERICAL:
            template.joint_index[joint.name] = self._add_ball(template, joint, parent, child, common)
            return template.joint_index[joint.name]
        kind = {JointType.REVOLUTE: newton.JointType.REVOLUTE, JointType.PRISMATIC: newton.JointType.PRISMATIC,
                JointType.D6: newton.JointType.D6}[joint.type]
        linear = [self._sim_dof(joint, d) for d in linear]
        angular = [self._sim_dof(joint, d) for d in angular]
        frames = (joint.local_pose0, joint.local_pose1)
        axes = [AXIS_VECTORS[d.axis.letter] for d in linear + angular]
        if self._angles_as_twist and len(angular) == 1:
            frames, axes = angle_as_twist(frames, axes)
        frames, zeros = self._zero_at_mid_limits(template, joint.name, linear, angular, frames, axes)
        common.update(parent_xform=to_wp_transform(frames[0]), child_xform=to_wp_transform(frames[1]))
        configs = [_dof_config(d, a, self.caps.damping, self.caps.kernel_drives, self.caps.own_hard_limits, z)
                   for d, a, z in zip(linear + angular, axes, zeros)]
        new = b.add_joint(kind, parent, child, linear_axes=configs[:len(linear)],
                          angular_axes=configs[len(linear):], **common)
        template.joint_index[joint.name] = new
        q0, qd0 = b.joint_q_start[new], b.joint_qd_start[new]
        for i, (dof, zero) in enumerate(zip(linear + angular, zeros)):
            template.dofs.append((joint.name, dof.axis.value, q0 + i, qd0 + i, dof))
            _set_initial_state(b, q0 + i, qd0 + i, dof, zero)
        return new

    def _zero_at_mid_limits(self, template, angle_joint: str, linear: list[Dof], angular: list[Dof],
                            frames: tuple[Pose, Pose], axes: list) -> tuple[tuple[Pose, Pose], list[float]]:
        """XPBD: a lone angle DOF whose limits reach near a half turn gets Newton's zero at their middle
        (zero_shift): the parent frame turned about its axis (after angle_as_twist's turn, about the axis
        as it left it). Returns the frames and each DOF's zero (DofInfo.zero, in linear + angular order);
        ``angle_joint`` is the description joint of the angle DOF.
        Joints with slides or several angles keep theirs (a turned frame would turn their other axes)."""
        zeros = [d.reference for d in linear + angular]
        if self.solver != Solver.XPBD or linear or len(angular) != 1:
            return frames, zeros
        shift = zero_shift(angular[0])
        if not shift:
            return frames, zeros
        template.zero_shifts[(angle_joint, angular[0].axis.value)] = shift
        return shifted_zero(frames, axes[-1], shift), zeros[:-1] + [angular[0].reference + shift]

    def _add_stacked_joints(self, template, joints: list[Joint], index: dict[str, int],
                            in_file_order: bool = False) -> int:
        """Single-DOF joints stacked on one edge (core.articulation) -> one Newton D6, as Newton's
        ``add_usd`` merges them (``parse_merged_joints``): the first joint's two frames place the
        D6; each joint's axis is turned into that frame by the rotation between the first joint's
        body0-side frame and its own; DOFs linear first, then angular. "First" and the order are
        Newton's inside an articulation, where UsdPhysics lists joints by prim path, which for
        sibling joint prims (what the converter writes) is name order. A lone body's joints
        (``in_file_order``: Newton keeps no one-body articulation) come in file order, the
        description's. Other anchors than the first's are not honoured (Newton warns and does
        the same)."""
        if not in_file_order:
            joints = sorted(joints, key=lambda j: j.name)
        first = joints[0]
        b = template.builder
        parent = index[first.body0] if first.body0 else -1
        to_first = quat_conjugate(first.local_pose0.rot)
        linear, angular = [], []
        for joint in joints:
            dof = self._sim_dof(joint, joint.active_dofs()[0])
            relative = quat_mul(to_first, joint.local_pose0.rot)
            axis = quat_rotate(relative, AXIS_VECTORS[dof.axis.letter])
            (angular if dof.axis.is_angular else linear).append((joint, dof, axis))
        frames = (first.local_pose0, first.local_pose1)
        axes = [a for _, _, a in linear + angular]
        if self._angles_as_twist and len(angular) == 1:
            frames, axes = angle_as_twist(frames, axes)
        frames, zeros = self._zero_at_mid_limits(template, angular[0][0].name if angular else "",
                                                 [d for _, d, _ in linear], [d for _, d, _ in angular],
                                                 frames, axes)
        configs = [_dof_config(d, a, self.caps.damping, self.caps.kernel_drives, self.caps.own_hard_limits, z)
                   for (_, d, _), a, z in zip(linear + angular, axes, zeros)]
        new = b.add_joint_d6(parent, index[first.body1],
                             linear_axes=configs[:len(linear)] or None,
                             angular_axes=configs[len(linear):] or None,
                             parent_xform=to_wp_transform(frames[0]),
                             child_xform=to_wp_transform(frames[1]), label=first.name,
                             collision_filter_parent=False)
        template.joint_index.update((joint.name, new) for joint in joints)
        q0, qd0 = b.joint_q_start[new], b.joint_qd_start[new]
        for i, ((joint, dof, _), zero) in enumerate(zip(linear + angular, zeros)):
            template.dofs.append((joint.name, dof.axis.value, q0 + i, qd0 + i, dof))
            _set_initial_state(b, q0 + i, qd0 + i, dof, zero)
        return new

    def _add_ball(self, template, joint: Joint, parent: int, child: int, common: dict) -> int:
        dofs = joint.active_dofs() or joint.dofs
        first = dofs[0] if dofs else Dof(axis="rotX")
        if any((d.armature, d.viscous_damping) != (first.armature, first.viscous_damping) for d in dofs):
            self.notes.append(f"spherical joint {joint.name!r}: Newton uses one armature and damping "
                              f"for all three axes (the first axis's)")
        if math.isfinite(joint.cone_limit0) or math.isfinite(joint.cone_limit1):
            self.notes.append(f"spherical joint {joint.name!r}: cone limits are not simulated "
                              f"(Newton 1.8 ball joints have no limits)")
        if any(d.drive_enabled for d in dofs):
            self.notes.append(f"spherical joint {joint.name!r}: drives on ball joints are not simulated")
        new = template.builder.add_joint_ball(
            parent, child, armature=first.armature,
            damping=first.viscous_damping if self.caps.damping else 0.0, **common)
        qd0 = template.builder.joint_qd_start[new]
        for i, dof in enumerate(dofs[:3]):  # friction acts on the angular velocity components
            template.dofs.append((joint.name, dof.axis.value, -1, qd0 + i, dof))
        return new

    def _add_loop_joint(self, template, joint: Joint, index: dict[str, int]):
        if joint.body0 is not None and joint.body0 not in index or joint.body1 not in index:
            raise SimulationBuildError(f"loop-closing joint {joint.name!r} joins bodies of different worlds")
        if self.solver == Solver.FEATHERSTONE:
            # Featherstone ignores it, and with one in a world Newton 1.8's Featherstone steps every later
            # world to NaN (the four-bar sample's second replica in its first step): left out.
            return
        self._add_joint(template, joint, index, loop=True)

    # collision filters ---------------------------------------------------------------------

    def _filter(self, template, index, shapes_of):
        """Every body pair :func:`core.collision.filtered_body_pairs` keeps apart (joined bodies,
        parent/child, self-collision off, explicit pairs), so simulation and USD filter alike."""
        b = template.builder

        def filter_bodies(a: str, c: str):
            for s0 in shapes_of.get(a, ()):
                for s1 in shapes_of.get(c, ()):
                    b.add_shape_collision_filter_pair(s0, s1)

        for pair in self.filtered:
            if pair <= index.keys():
                filter_bodies(*pair)


def index_of_body(builder: newton.ModelBuilder, name: str) -> int:
    return builder.body_label.index(name)


# ---------------------------------------------------------------------------------------------
# the whole scene


def _world_of_articulation(scene: PhysicsScene, articulation: Articulation) -> int:
    return scene.body(articulation.root).world


def build_model(scene: PhysicsScene, solver: Solver | str | None = None, device=None) -> BuiltModel:
    """Build and finalize the Newton model of ``scene`` for ``solver`` on ``device``."""
    solver = Solver(solver or scene.settings.solver)
    caps = SolverCaps.of(solver)
    notes: list[str] = []
    balanced: list[str] = []
    massless: list[str] = []
    light: dict[str, float] = {}
    articulations = find_articulations(scene)
    filtered = filtered_body_pairs(scene)
    loop_joints = [j for a in articulations for j in a.loop_joints]
    if loop_joints and solver == Solver.FEATHERSTONE:
        notes.append("FEATHERSTONE ignores loop-closing joints: "
                     + ", ".join(repr(j.name) for j in loop_joints) + " (use MUJOCO or XPBD)")

    worlds = sorted({_world_of_articulation(scene, a) for a in articulations if
                     _world_of_articulation(scene, a) >= 0}
                    | {s.world for s in scene.shapes if s.body is None and s.world >= 0})
    body_world = {name: _world_of_articulation(scene, a) for a in articulations for name in a.bodies}

    def part(world: int) -> WorldTemplate:
        arts = [a for a in articulations if _world_of_articulation(scene, a) == world]
        statics = [s for s in scene.shapes if s.body is None and s.world == world]
        loops = [j for j in loop_joints if body_world.get(j.body1) == world]
        template = _TemplateBuilder(scene, caps, notes, filtered, solver, balanced, massless, light)
        return template.build(arts, statics, loops)

    main = newton.ModelBuilder(up_axis=newton.Axis.Z, gravity=scene.settings.gravity)
    if solver == Solver.MUJOCO and (has_actuation(scene) or _soft_limits(scene)
                                    or any(shape.contact is not None for shape in scene.shapes)):
        newton.solvers.SolverMuJoCo.register_custom_attributes(main)
    if solver == Solver.MUJOCO:
        main.rigid_gap = 0.0  # the ground's MuJoCo gap, as the MJCF export's
    floor = floor_as_ground(scene)
    if floor:  # Featherstone's penalty contacts, doubled, throw a resting robot into the air
        notes.append(f"the ground plane coincides with static plane {floor!r}: simulated once, as {floor!r}")
    elif scene.settings.ground_plane:
        main.add_ground_plane()
    global_part = part(-1)
    templates = [part(w) for w in worlds]
    if solver != Solver.MUJOCO and scene.tendon_equalities:
        notes.append(f"tendon equalities are simulated on MuJoCo only: "
                     f"{', '.join(repr(e.name) for e in scene.tendon_equalities)} not simulated")
    if massless:
        notes.append(f"XPBD holds a massless body immovable, pinning the chain it is on: massless moving "
                     f"bodies simulated with {FALLBACK_MASS} kg and {FALLBACK_INERTIA} kg*m^2 "
                     f"(as MuJoCo's balanceinertia repairs inertias): {', '.join(sorted(set(massless)))}")
    if light:
        notes.append(f"XPBD's joints diverge between a link this light and its neighbours: bodies "
                     f"lighter than {FALLBACK_MASS} kg simulated with {FALLBACK_MASS} kg, their inertia "
                     f"scaled alike: "
                     + ", ".join(f"{name!r} ({mass:.2g} kg)" for name, mass in sorted(light.items())))
    if balanced:
        notes.append("inertias on or past the triangle inequality (A + B >= C), which MuJoCo refuses, are "
                     "simulated balanced (one amount added to each principal moment, as Newton balances them): "
                     + ", ".join(repr(n) for n in balanced))
    offsets = replica_offsets(max(1, scene.settings.replicas), scene.settings.replica_spacing)

    body_slots: dict[tuple[str, int], int] = {}
    dof_slots: dict[tuple[str, str, int], DofInfo] = {}
    kinematic: dict[tuple[str, int], int] = {}
    mujoco_rows: dict[tuple[str, int], int] = {}  # (actuator, replica) -> row of control.mujoco.ctrl

    def record(template: WorldTemplate, replica: int):
        body0, joint0 = main.body_count, main.joint_count
        q0, qd0 = main.joint_coord_count, main.joint_dof_count
        row0 = main._custom_frequency_counts.get(MUJOCO_ACTUATOR_ROWS, 0)
        mujoco_rows.update(((name, replica), row0 + i) for i, name in enumerate(template.actuator_rows))
        return lambda: _record(template, replica, body0, joint0, q0, qd0)

    def _record(template, replica, body0, joint0, q0, qd0):
        for i, name in enumerate(template.bodies):
            body_slots[(name, replica)] = body0 + i
        for joint, axis, q, qd, dof in template.dofs:
            zero = dof.reference + template.zero_shifts.get((joint, axis), 0.0)
            dof_slots[(joint, axis, replica)] = DofInfo(joint, axis, q + q0 if q >= 0 else -1, qd + qd0, dof,
                                                        zero)
        for name, joint in template.kinematic_joints.items():
            kinematic[(name, replica)] = joint + joint0

    finish = record(global_part, 0)
    main.add_builder(global_part.builder)
    finish()
    for replica, offset in enumerate(offsets):
        for template in templates:
            finish = record(template, replica)
            main.add_world(template.builder, xform=wp.transform(wp.vec3(*offset), wp.quat_identity()))
            finish()

    model = main.finalize(device=device)
    # Global (world -1) bodies were recorded once, as replica 0.
    body_keys = [(b.name, r) for r in range(len(offsets)) for b in scene.bodies if (b.name, r) in body_slots]
    q_start = model.joint_q_start.numpy()
    qd_start = model.joint_qd_start.numpy()
    joint_child = model.joint_child.numpy()
    kinematic_slots = {key: (int(joint_child[j]), int(q_start[j]), int(qd_start[j]))
                       for key, j in kinematic.items()}
    _apply_acceleration_drives(model, dof_slots, notes)
    actuators, actuator_forces = route_actuators(scene, solver, dof_slots, len(offsets), mujoco_rows, notes)
    if caps.damping_as_velocity_drive:
        dof_slots = _damping_as_velocity_drives(model, dof_slots, 1.0 / scene.settings.steps_per_second)
    _start_inside_limits(model, dof_slots, solver, notes)
    return BuiltModel(
        model=model,
        body_keys=body_keys,
        body_index=np.array([body_slots[k] for k in body_keys], dtype=np.int64),
        dofs=dof_slots,
        kinematic=kinematic_slots,
        replica_offsets=offsets,
        notes=notes,
        actuators=actuators,
        actuator_forces=actuator_forces,
        left_out_joints=frozenset(j.name for j in loop_joints if solver == Solver.FEATHERSTONE),
    )


def _set_initial_state(builder: newton.ModelBuilder, q: int, qd: int, dof: Dof, zero: float) -> None:
    """The DOF's initial position/velocity (a file's JointStateAPI), as Newton's add_usd sets them
    (Newton's coordinate: 0 at ``zero``, the authored pose's ``reference`` unless moved: DofInfo.zero)."""
    if dof.initial_position != zero:
        builder.joint_q[q] = dof.initial_position - zero
    if dof.initial_velocity:
        builder.joint_qd[qd] = dof.initial_velocity


def mass_matrix_blocks(model: newton.Model):
    """(first DOF, last DOF + 1, the articulation's joint-space mass matrix) for each articulation, at
    the model's initial pose (armature included); nothing where Newton gives no mass matrix. Only the
    tree's DOFs: a loop-closing joint added after an articulation lies within its ``articulation_start``
    range but has no row in the mass matrix (``articulation_end`` ends the tree)."""
    state = model.state()
    newton.eval_fk(model, model.joint_q, model.joint_qd, state)
    H = newton.eval_mass_matrix(model, state)
    if H is None:
        return
    H = H.numpy()
    art_start, art_end = model.articulation_start.numpy(), model.articulation_end.numpy()
    qd_start = model.joint_qd_start.numpy()
    for a in range(model.articulation_count):
        first, last = qd_start[art_start[a]], qd_start[art_end[a]]
        yield first, last, H[a][: last - first, : last - first].astype(np.float64)


def dof_inertia(model: newton.Model) -> np.ndarray:
    """Each DOF's joint-space inertia at the model's initial pose (mass matrix diagonal + armature)."""
    inertia = np.ones(model.joint_dof_count)
    for first, last, block in mass_matrix_blocks(model):
        inertia[first:last] = np.diagonal(block)
    return np.maximum(inertia, 1e-9)


#: Largest damping * dt * (inverse inertia of the two bodies about the axis) applied explicitly.
EXPLICIT_DAMPING_BOUND = 2.0


def _explicit_inverse_inertia(model: newton.Model, qd_index: int, angular: bool) -> float:
    """The inverse inertia a torque (force) along DOF ``qd_index`` meets on its two bodies alone, at the
    start pose: what an explicit damper applied to them is stable against."""
    joint = int(np.searchsorted(model.joint_qd_start.numpy(), qd_index, side="right")) - 1
    bodies = [int(b) for b in (model.joint_child.numpy()[joint], model.joint_parent.numpy()[joint]) if b >= 0]
    if not angular:
        return float(sum(model.body_inv_mass.numpy()[b] for b in bodies))
    body_q, inv_inertia = model.body_q.numpy(), model.body_inv_inertia.numpy()
    parent = int(model.joint_parent.numpy()[joint])
    frame = wp.transform(*model.joint_X_p.numpy()[joint])
    if parent >= 0:
        frame = wp.transform_multiply(wp.transform(*body_q[parent]), frame)
    axis = wp.quat_rotate(wp.transform_get_rotation(frame), wp.vec3(*model.joint_axis.numpy()[qd_index]))
    total = 0.0
    for b in bodies:
        local = np.array(wp.quat_rotate_inv(wp.quat(*body_q[b][3:7]), axis))
        total += float(local @ inv_inertia[b] @ local)
    return total


def _damping_as_velocity_drives(model: newton.Model, dofs: dict, dt: float) -> dict:
    """Each DOF damper past the explicit bound added to its drive's damping (a velocity drive to 0
    where it has none), the drive's target speed scaled so the sum pulls as drive and damper did;
    returns ``dofs`` with those DOFs' own damping 0 (the kernel's damper leaves them)."""
    moved = {}
    for key, info in dofs.items():
        viscous = info.dof.viscous_damping
        if viscous > 0.0 and viscous * dt * _explicit_inverse_inertia(
                model, info.qd_index, info.dof.axis.is_angular) > EXPLICIT_DAMPING_BOUND:
            moved[key] = info
    if not moved:
        return dofs
    kd, target = model.joint_target_kd.numpy(), model.joint_target_qd.numpy()
    for info in moved.values():
        i, viscous = info.qd_index, info.dof.viscous_damping
        target[i] *= kd[i] / (kd[i] + viscous)
        kd[i] += viscous
    model.joint_target_kd.assign(kd)
    model.joint_target_qd.assign(target)
    return {key: replace(info, dof=replace(info.dof, viscous_damping=0.0)) if key in moved else info
            for key, info in dofs.items()}


def _start_inside_limits(model: newton.Model, dofs: dict, solver: Solver, notes: list[str]):
    """DOFs that start outside their limits start at their nearest limit on Featherstone and XPBD, said
    before simulating. MuJoCo's soft limit eases such a joint in; Featherstone's limit spring or XPBD's
    projection throws it back in at once and blew up light links (go1's knees start at 0 against
    -2.82..-0.89: both diverged in the first frame, at up to 8 substeps on XPBD)."""
    outside = [(key, info) for key, info in dofs.items() if info.dof.motion == DofMotion.LIMITED
               and not info.dof.lower <= info.dof.initial_position <= info.dof.upper]
    if not outside or solver == Solver.MUJOCO:
        return
    joint_q = model.joint_q.numpy()
    for (joint, axis, replica), info in outside:
        dof = info.dof
        nearest = min(max(dof.initial_position, dof.lower), dof.upper)
        if info.q_index >= 0:
            joint_q[info.q_index] = nearest - info.zero  # Newton's coordinate
        if replica == 0:
            notes.append(f"joint {joint!r} ({axis}) starts at {dof.initial_position:g}, outside its limits "
                         f"{dof.lower:g}..{dof.upper:g}: {solver.value} starts it at its nearest limit, "
                         f"{nearest:g} (its limit would throw it back in at once); the authored start needs "
                         "MuJoCo")
    model.joint_q.assign(joint_q)


def _apply_acceleration_drives(model: newton.Model, dofs: dict, notes: list[str]):
    """ACCELERATION drives: scale gains by the DOF's inertia so they act as accelerations."""
    accel = [info for info in dofs.values() if info.dof.drive_enabled and info.dof.drive_type == DriveType.ACCELERATION]
    if not accel:
        return
    inertia = dof_inertia(model)
    ke, kd = model.joint_target_ke.numpy(), model.joint_target_kd.numpy()
    for info in accel:
        ke[info.qd_index] *= inertia[info.qd_index]
        kd[info.qd_index] *= inertia[info.qd_index]
    model.joint_target_ke.assign(ke)
    model.joint_target_kd.assign(kd)
    notes.append("ACCELERATION drives use the joint inertia at the start pose to scale their gains")


__all__ = [
    "BuiltModel",
    "DofInfo",
    "SimulationBuildError",
    "SolverCaps",
    "add_shape",
    "build_model",
    "dof_inertia",
    "replica_offsets",
    "to_wp_transform",
]


# ---------------------------------------------------------------------------------------------
# Featherstone's penalty contacts

#: Newton's default contact normal stiffness (N/m), damping (N*s/m) and friction slope (N*s/m): the
#: floors of what a body gets, so robots that held with them keep them where they are stable.
NEWTON_CONTACT_KE, NEWTON_CONTACT_KD = 2.5e3, 100.0
#: How deep (m) a body's weight rests on CARRYING_CONTACTS contacts (a box face's four corners).
CONTACT_REST_DEPTH = 1.0e-3
CARRYING_CONTACTS = 4
#: Explicit-step bounds per contact on a link of mass m at step dt: ke <= KE_DT2 * m / dt^2,
#: kd <= KD_DT * m / dt. Featherstone integrates contact forces explicitly, so a box's 4-16 contacts on a
#: triangle surface sum to at most 16 * 0.05 (stiffness, omega * dt < 1) and 16 * 0.1 (damping, < 2):
#: Newton's fixed ke/kd blew a 64 g box off. The friction slope kf <= KF_DT * M / dt of the carried mass
#: M: past it a free box's friction overshot each step and crept (1 cm/s on a mesh); a robot's light feet
#: keep their grip (bounded by mu times the normal force, an overshoot there only chatters).
KE_DT2, KD_DT, KF_DT = 0.05, 0.1, 0.1


def featherstone_contact_materials(model: newton.Model, dt: float) -> None:
    """Contact stiffness, damping and friction slope for Featherstone's explicit penalty contacts of
    bodies jointed to no other body (a box, a ball, a crate) at solver step ``dt``, from their mass.

    Newton gives every shape ke 2500 N/m, kd 100 N*s/m and kf 1000 N*s/m whatever it weighs, and averages
    the two shapes' values per contact: a 64 kg box sank 6 cm and shook, a 64 g box (and boxes on the many
    contacts of a triangle surface) blew off. Such a body's values hold its weight at CONTACT_REST_DEPTH,
    critically damped, within the explicit bounds of its mass; static shapes take the smallest such value
    s and each such body's shapes 2v - s, so its contact with the world (terrain, a mesh, the ground) gets
    exactly v. Robots keep Newton's defaults (stiffness for the whole robot's weight on every link made a
    limp humanoid diverge); beside such bodies their contacts with the world are the mean with s."""
    if model.shape_count == 0 or model.body_count == 0:
        return
    shape_body = model.shape_body.numpy()
    own = model.body_mass.numpy().astype(float)
    jointed = {int(b) for parent, child in zip(model.joint_parent.numpy(), model.joint_child.numpy())
               if parent >= 0 and child >= 0 for b in (parent, child)}
    lone = np.array([b >= 0 and own[b] > 0.0 and int(b) not in jointed for b in shape_body], dtype=bool)
    if not lone.any():
        return
    static = shape_body < 0
    m = own[shape_body[lone]]
    ke = np.minimum(np.maximum(NEWTON_CONTACT_KE, m * 9.81 / (CARRYING_CONTACTS * CONTACT_REST_DEPTH)),
                    KE_DT2 * m / dt ** 2)
    omega = np.sqrt(CARRYING_CONTACTS * ke / m)  # the body bouncing on its contacts
    kd = np.minimum(np.maximum(NEWTON_CONTACT_KD, m * omega / CARRYING_CONTACTS), KD_DT * m / dt)
    kf = np.minimum(model.shape_material_kf.numpy()[lone], KF_DT * m / dt)
    for name, values in (("shape_material_ke", ke), ("shape_material_kd", kd), ("shape_material_kf", kf)):
        array = getattr(model, name)
        full = array.numpy().astype(float)
        floor = values.min()
        full[static] = floor
        full[lone] = 2.0 * values - floor
        array.assign(full.astype(np.float32))
