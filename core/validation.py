"""Validation: every problem of a description, each tied to the object it concerns.

``validate(scene)`` never stops at the first problem and never raises on bad data; it returns a
list of :class:`Problem`. ERRORs make a scene unusable for export or simulation; WARNINGs describe
something that works but may surprise (a weld, a separate articulation, an ignored drive).

Severity policy: a scene that gives a valid UsdPhysics file is always exported
(:func:`core.usd.writer.write_usd` writes first and reports warnings after); ERROR is kept for what
cannot be written or loaded (a joint pointing at no body, a parent cycle, non-finite numbers, a
name clash) or cannot be simulated at all. Plausibility rules (dynamic friction above static, an
inertia off the triangle inequality, a non-positive mass, joint frames that disagree) are WARNINGs:
files from other tools routinely have them and every consumer loads them.
Blender-only matters (non-uniform scale on a body) are found by the adapter, which reports them
with the constructors below so every problem reads the same.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .articulation import find_articulations, is_stackable, joint_world_frames, parent_cycles
from .mass import MassError, bodies_welded_to_world, mass_properties, mass_shapes_by_body
from .model import (
    Dof,
    DofMotion,
    Joint,
    JointType,
    MassProperties,
    PhysicsScene,
    Pose,
    ShapeKind,
    dof_axes_for,
)

ERROR = "ERROR"
WARNING = "WARNING"
QUAT_TOLERANCE = 1e-5  # | |q| - 1 | above this is not a rotation
FRAME_TOLERANCE = 1e-5  # m (and 1 - |dot|) between a joint's two world frames
# Relative slack of the triangle inequality of principal moments: an inertia exactly on the limit
# (a thin rod, a flat plate) that went through float32 (USD's diagonalInertia) stays accepted.
INERTIA_TOLERANCE = 1e-5


@dataclass(frozen=True)
class Problem:
    severity: str  # ERROR or WARNING
    subject: str  # the name of the body, joint, shape, visual, material or object concerned
    message: str  # a sentence a user understands, naming what to change
    code: str = ""  # a stable identifier of the rule, for tests and filtering

    def __str__(self) -> str:
        return f"{self.severity}: {self.subject}: {self.message}"


def error(subject: str, message: str, code: str) -> Problem:
    return Problem(ERROR, subject, message, code)


def warning(subject: str, message: str, code: str) -> Problem:
    return Problem(WARNING, subject, message, code)


def non_uniform_scale(subject: str, scale: Iterable[float]) -> Problem:
    """For the Blender adapter: a body object scaled non-uniformly (bodies must be rigid frames)."""
    values = ", ".join(f"{v:g}" for v in scale)
    return error(subject, f"body has non-uniform scale ({values}); apply the scale (Ctrl+A) so "
                          "colliders keep their size and joints their frames", "non_uniform_scale")


#: ERROR codes that make a file unwritable or unloadable: :func:`core.usd.writer.write_usd` refuses
#: only these; every other problem (ERRORs included) is reported after the file is written.
WRITE_BLOCKING = frozenset({
    "duplicate_name", "unknown_body", "missing_body", "self_joint", "self_parent", "parent_cycle",
    "joint_cycle", "reversed_joint", "non_finite_pose", "non_unit_quaternion", "non_finite_value",
    "invalid_setting", "invalid_axis", "dof_mismatch", "invalid_limit", "invalid_drive", "invalid_mass",
    "invalid_inertia", "invalid_size", "plane_on_body",
})


def blocks_writing(problem: Problem) -> bool:
    """True when ``problem`` makes a USD file that cannot be written or loaded."""
    return problem.severity == ERROR and problem.code in WRITE_BLOCKING


def has_errors(problems: Iterable[Problem]) -> bool:
    return any(p.severity == ERROR for p in problems)


def _finite(values: Iterable[float]) -> bool:
    for v in values:  # a loop, not all() of a generator: a third of validation's time
        if not (isinstance(v, (int, float)) and math.isfinite(v)):
            return False
    return True


def _check_pose(subject: str, what: str, pose: Pose) -> Iterator[Problem]:
    if not _finite(pose.pos) or not _finite(pose.rot):
        yield error(subject, f"{what} contains NaN or infinite values", "non_finite_pose")
        return
    length = math.sqrt(sum(c * c for c in pose.rot))
    if abs(length - 1.0) > QUAT_TOLERANCE:
        yield error(subject, f"{what} rotation is not a unit quaternion (length {length:.6g})",
                    "non_unit_quaternion")


# ---------------------------------------------------------------- names and references

def _check_names(scene: PhysicsScene) -> Iterator[Problem]:
    for kind, items in (("body", scene.bodies), ("joint", scene.joints), ("shape", scene.shapes),
                        ("visual", scene.visuals), ("material", scene.materials)):
        for name, count in Counter(i.name for i in items).items():
            if count > 1:
                yield error(name, f"{count} {kind} entries share this name; names must be unique",
                            "duplicate_name")
    bodies = {b.name for b in scene.bodies}
    for joint in scene.joints:
        if joint.name in bodies:
            # USD names are unique per parent prim only (mujoco-usd-converter names a joint after
            # its body): the file is fine, a Blender object name may get a suffix.
            yield warning(joint.name, "a joint and a body share this name", "joint_named_like_body")


def _check_references(scene: PhysicsScene) -> Iterator[Problem]:
    bodies = {b.name for b in scene.bodies}
    for body in scene.bodies:
        if body.parent == body.name:
            yield error(body.name, "body is its own parent", "self_parent")
        elif body.parent is not None and body.parent not in bodies:
            yield error(body.name, f"parent body {body.parent!r} does not exist", "unknown_body")
    for joint in scene.joints:
        if not joint.body1:
            yield error(joint.name, "joint has no body1 (the child body); pick the body it moves",
                        "missing_body")
        elif joint.body1 not in bodies:
            yield error(joint.name, f"body1 {joint.body1!r} is not a body", "unknown_body")
        if joint.body0 is not None and joint.body0 not in bodies:
            yield error(joint.name, f"body0 {joint.body0!r} is not a body", "unknown_body")
        if joint.body1 and joint.body0 == joint.body1:
            yield error(joint.name, f"joint connects {joint.body1!r} to itself; body0 and body1 "
                                    "must differ", "self_joint")
    for item in (*scene.shapes, *scene.visuals):
        if item.body is not None and item.body not in bodies:
            yield error(item.name, f"attached to {item.body!r}, which is not a body", "unknown_body")
    materials = {m.name for m in scene.materials}
    for shape in scene.shapes:
        if shape.material is not None and shape.material not in materials:
            yield warning(shape.name, f"physics material {shape.material!r} does not exist; "
                                      "default friction is used", "unknown_material")
    for a, b in scene.filtered_pairs:
        for name in {a, b} - bodies:
            yield error(name, "a filtered collision pair names a body that does not exist",
                        "unknown_body")


def _check_poses(scene: PhysicsScene) -> Iterator[Problem]:
    for body in scene.bodies:
        yield from _check_pose(body.name, "body pose", body.pose)
        if not _finite((*body.linear_velocity, *body.angular_velocity)):
            yield error(body.name, "initial velocity contains NaN or infinite values", "non_finite_pose")
    for joint in scene.joints:
        yield from _check_pose(joint.name, "joint frame on body0", joint.local_pose0)
        yield from _check_pose(joint.name, "joint frame on body1", joint.local_pose1)
    for item in (*scene.shapes, *scene.visuals):
        yield from _check_pose(item.name, "pose", item.pose)


def _check_settings(scene: PhysicsScene) -> Iterator[Problem]:
    s = scene.settings
    if not _finite(s.gravity):
        yield error(scene.name, "gravity contains NaN or infinite values", "invalid_setting")
    if not (math.isfinite(s.steps_per_second) and s.steps_per_second > 0):
        yield error(scene.name, "steps per second must be positive", "invalid_setting")
    if s.solver_iterations < 1:
        yield error(scene.name, "solver iterations must be at least 1", "invalid_setting")
    if s.replicas < 1:
        yield error(scene.name, "replicas must be at least 1", "invalid_setting")
    if not (math.isfinite(s.replica_spacing) and s.replica_spacing >= 0):
        yield error(scene.name, "replica spacing must be zero or positive", "invalid_setting")


# ---------------------------------------------------------------- hierarchy and articulations

def _joint_cycles(joints: list[Joint]) -> list[list[Joint]]:
    """Directed cycles body0 -> body1 among the given joints (depth first, each found once)."""
    outgoing: dict[str, list[Joint]] = {}
    for joint in joints:
        if joint.body0 is not None:
            outgoing.setdefault(joint.body0, []).append(joint)
    cycles: list[list[Joint]] = []
    done: set[str] = set()
    for start in list(outgoing):
        if start in done:
            continue
        path: list[Joint] = []  # path[i] leaves on_path[i]
        on_path = [start]
        pending = [iter(outgoing.get(start, []))]
        while pending:
            joint = next(pending[-1], None)
            if joint is None:  # every joint out of on_path[-1] explored
                pending.pop()
                done.add(on_path.pop())
                if path:
                    path.pop()
                continue
            if joint.body1 in on_path:
                cycles.append(path[on_path.index(joint.body1):] + [joint])
            elif joint.body1 not in done:
                path.append(joint)
                on_path.append(joint.body1)
                pending.append(iter(outgoing.get(joint.body1, [])))
    return cycles


def _check_hierarchy(scene: PhysicsScene) -> Iterator[Problem]:
    bodies = {b.name for b in scene.bodies}
    for cycle in parent_cycles(scene):
        yield error(cycle[0], "body parents form a loop (" + " -> ".join(cycle + [cycle[0]]) +
                    "); unparent one of them", "parent_cycle")
    for body in scene.bodies:
        if body.hierarchy_gap:
            yield warning(body.name, "a non-body object sits between this body and its parent body, "
                                     "so it starts a separate articulation", "hierarchy_gap")

    articulations = find_articulations(scene)
    reported: set[str] = set()
    for articulation in articulations:
        for joint in articulation.reversed_joints:
            reported.add(joint.name)
            yield error(joint.name, f"joint goes from child {joint.body0!r} to its parent "
                                    f"{joint.body1!r}; swap body0 and body1", "reversed_joint")

    tree_candidates = [j for j in scene.joints if j.enabled and not j.exclude_from_articulation
                       and j.body1 in bodies and (j.body0 is None or j.body0 in bodies)
                       and j.body0 != j.body1]
    for cycle in _joint_cycles(tree_candidates):
        if reported.isdisjoint(j.name for j in cycle):
            reported.update(j.name for j in cycle)
            names = " -> ".join(j.name for j in cycle)
            yield error(cycle[0].name, f"joints form a cycle ({names}); mark one of them "
                                       "'exclude from articulation' to close the loop", "joint_cycle")
    incoming: dict[str, list[Joint]] = {}
    for joint in tree_candidates:
        incoming.setdefault(joint.body1, []).append(joint)
    for child, joints in incoming.items():
        if len(joints) > 1 and all(is_stackable(joints[0], j) for j in joints[1:]):
            continue  # stacked single-DOF joints on one edge: one compound joint (core.articulation)
        if len(joints) > 1 and reported.isdisjoint(j.name for j in joints):
            reported.update(j.name for j in joints)
            names = ", ".join(j.name for j in joints)
            yield error(child, f"body is the child (body1) of several joints ({names}); a body has "
                               "one parent joint: mark the loop-closing one 'exclude from "
                               "articulation'", "two_parents")

    for articulation in articulations:
        for joint in articulation.loop_joints:
            if joint.exclude_from_articulation or joint.name in reported:
                continue
            yield warning(joint.name, f"joint {joint.body0 or 'world'} -> {joint.body1} does not follow "
                                      "the body hierarchy; it is kept as a loop-closing constraint "
                                      "(parent the bodies to make it part of the tree)", "off_tree_joint")
        for parent, child in articulation.implicit_welds:
            yield warning(child, f"nested under body {parent!r} without a joint: it is welded to it",
                          "implicit_weld")
        yield from _check_kinematic_chain(scene, articulation.bodies, articulation.parents)
        yield from _check_articulation_worlds(scene, articulation.root, articulation.bodies)


def _check_kinematic_chain(scene: PhysicsScene, bodies: list[str], parents: dict) -> Iterator[Problem]:
    for name in bodies:
        parent = parents.get(name)
        if parent is not None and scene.body(name).kinematic and not scene.body(parent).kinematic:
            yield error(name, f"kinematic body below dynamic body {parent!r}: kinematic bodies must "
                              "start at the articulation root and stop at the first dynamic body",
                        "kinematic_interleaving")


def _check_articulation_worlds(scene: PhysicsScene, root: str, bodies: list[str]) -> Iterator[Problem]:
    world = scene.body(root).world
    for name in bodies[1:]:
        if scene.body(name).world != world:
            yield error(name, f"body is in world {scene.body(name).world} but its articulation root "
                              f"{root!r} is in world {world}", "world_mismatch")


# ---------------------------------------------------------------- joints

_NON_NEGATIVE_DOF_FIELDS = ("limit_stiffness", "limit_damping", "drive_stiffness", "drive_damping",
                            "max_effort", "armature", "static_friction", "dynamic_friction",
                            "viscous_damping", "spring_stiffness")


def _check_dof(joint: Joint, dof: Dof) -> Iterator[Problem]:
    axis = dof.axis.value
    if dof.motion == DofMotion.LOCKED and joint.type != JointType.D6:
        yield error(joint.name, f"{axis} is locked, but only D6 joints lock axes", "locked_non_d6")
    if dof.motion == DofMotion.LIMITED:
        if math.isnan(dof.lower) or math.isnan(dof.upper):
            yield error(joint.name, f"{axis} limit is NaN", "invalid_limit")
        elif dof.lower > dof.upper:
            yield error(joint.name, f"{axis} lower limit {dof.lower:g} is above upper limit "
                                    f"{dof.upper:g}", "lower_above_upper")
        elif dof.lower == dof.upper:
            yield warning(joint.name, f"{axis} lower and upper limits are equal; lock the axis "
                                      "instead", "equal_limits")
    for name in _NON_NEGATIVE_DOF_FIELDS:
        value = getattr(dof, name)
        if math.isnan(value):
            yield error(joint.name, f"{axis} {name.replace('_', ' ')} is NaN", "non_finite_value")
        elif value < 0:
            yield error(joint.name, f"{axis} {name.replace('_', ' ')} must be zero or positive "
                                    f"(is {value:g})", "negative_dof_value")
    if math.isnan(dof.velocity_limit) or dof.velocity_limit <= 0:
        yield error(joint.name, f"{axis} velocity limit must be positive", "negative_dof_value")
    if dof.dynamic_friction > dof.static_friction:
        yield warning(joint.name, f"{axis} dynamic friction {dof.dynamic_friction:g} exceeds static "
                                f"friction {dof.static_friction:g}", "dynamic_above_static")
    if not _finite((dof.target_position, dof.target_velocity)):
        yield error(joint.name, f"{axis} drive target is NaN or infinite", "invalid_drive")
    if dof.drive_enabled and dof.motion == DofMotion.LOCKED:
        yield warning(joint.name, f"{axis} has a drive but is locked; the drive is ignored",
                      "drive_on_locked")


def _check_joint(scene: PhysicsScene, joint: Joint) -> Iterator[Problem]:
    expected = dof_axes_for(joint.type, joint.axis) if joint.axis in ("X", "Y", "Z") else None
    if expected is None:
        yield error(joint.name, f"joint axis {joint.axis!r} must be X, Y or Z", "invalid_axis")
    elif sorted(d.axis.value for d in joint.dofs) != sorted(a.value for a in expected):
        have = ", ".join(d.axis.value for d in joint.dofs) or "none"
        want = ", ".join(a.value for a in expected) or "none"
        yield error(joint.name, f"a {joint.type.value.lower()} joint about {joint.axis} needs DOFs "
                                f"[{want}], it has [{have}]", "dof_mismatch")
    for dof in joint.dofs:
        yield from _check_dof(joint, dof)
    for cone in (joint.cone_limit0, joint.cone_limit1):
        if math.isnan(cone) or cone < 0:
            yield error(joint.name, "cone limit angles must be zero or positive", "invalid_limit")
    body0, body1 = scene.body(joint.body0) if joint.body0 else None, scene.body(joint.body1 or "")
    if body0 is not None and body1 is not None and -1 not in (body0.world, body1.world) \
            and body0.world != body1.world:
        yield error(joint.name, f"joint connects world {body0.world} to world {body1.world}",
                    "world_mismatch")
    if body1 is not None and (joint.body0 is None or body0 is not None):
        yield from _check_frames_agree(scene, joint)


def _check_frames_agree(scene: PhysicsScene, joint: Joint) -> Iterator[Problem]:
    frame0, frame1 = joint_world_frames(scene, joint)
    if not _finite((*frame0.pos, *frame1.pos, *frame0.rot, *frame1.rot)):
        return
    distance = math.dist(frame0.pos, frame1.pos)
    dot = abs(sum(a * b for a, b in zip(frame0.rot, frame1.rot)))
    if distance > FRAME_TOLERANCE or 1.0 - dot > FRAME_TOLERANCE:
        angle = math.degrees(2.0 * math.acos(min(dot, 1.0)))
        yield warning(joint.name, f"the joint frame seen from body0 and from body1 differ by "
                                  f"{distance:.4g} m and {angle:.3g} deg; the bodies will snap "
                                  "together when simulated", "frames_disagree")


# ---------------------------------------------------------------- shapes, materials, mass

def _check_shape_size(shape) -> Iterator[Problem]:
    kind = shape.kind
    sizes: dict[str, Iterable[float]] = {}
    if kind == ShapeKind.BOX:
        sizes["half extents"] = shape.half_extents
    elif kind == ShapeKind.SPHERE:
        sizes["radius"] = (shape.radius,)
    elif kind in (ShapeKind.CAPSULE, ShapeKind.CYLINDER):
        sizes["radius"] = (shape.radius,)
        if not (math.isfinite(shape.half_height) and shape.half_height >= 0):
            yield error(shape.name, "half height must be zero or positive", "invalid_size")
        if kind == ShapeKind.CYLINDER and shape.half_height == 0:
            yield error(shape.name, "cylinder has zero height", "invalid_size")
    elif kind in (ShapeKind.MESH, ShapeKind.CONVEX_HULL):
        sizes["scale"] = tuple(abs(v) for v in shape.scale)
        if shape.mesh is None or not shape.mesh.vertices or not shape.mesh.triangles:
            yield error(shape.name, f"{kind.value.lower()} collider has no triangles", "invalid_size")
    elif kind == ShapeKind.HEIGHT_FIELD:
        yield from _check_height_field(shape)
    for what, values in sizes.items():
        values = tuple(values)
        if not _finite(values) or min(values) <= 0:
            yield error(shape.name, f"{what} must be positive (is {values})", "invalid_size")


def _check_height_field(shape) -> Iterator[Problem]:
    field = shape.height_field
    if field is None:
        yield error(shape.name, "height field collider has no elevation grid", "invalid_size")
        return
    if field.nrow < 2 or field.ncol < 2 or len(field.heights) != field.nrow * field.ncol:
        yield error(shape.name, f"height field needs at least 2 x 2 samples, nrow x ncol of them "
                                f"({field.nrow} x {field.ncol}, {len(field.heights)} given)", "invalid_size")
    sizes = (field.half_x, field.half_y, field.elevation, field.base)
    if not _finite(sizes) or min(sizes) <= 0:
        yield error(shape.name, f"height field half sizes, elevation and base must be positive (are "
                                f"{tuple(round(v, 6) for v in sizes)})", "invalid_size")
    if not _finite(field.heights) or (field.heights and not 0.0 <= min(field.heights) <= max(field.heights) <= 1.0):
        yield error(shape.name, "height field samples must lie in [0, 1] (elevation scales them)",
                    "invalid_size")


def _check_shapes(scene: PhysicsScene) -> Iterator[Problem]:
    for shape in scene.shapes:
        yield from _check_shape_size(shape)
        body = scene.body(shape.body) if shape.body else None
        if shape.kind == ShapeKind.PLANE and shape.body is not None:
            yield error(shape.name, "plane colliders are infinite and must be static (no body)",
                        "plane_on_body")
        if shape.kind == ShapeKind.HEIGHT_FIELD and body is not None and not body.kinematic:
            yield warning(shape.name, f"height field on moving body {body.name!r}: MuJoCo moves it, Newton "
                          "keeps height fields in the world, so Featherstone and XPBD collide it as a "
                          "triangle mesh", "height_field_on_moving_body")
        if shape.kind == ShapeKind.MESH and body is not None and not body.kinematic:
            yield warning(shape.name, f"triangle-mesh collider on moving body {body.name!r}: PhysX and "
                          "Isaac Sim refuse it, Newton and MuJoCo collide its convex hull instead (cavities "
                          "fill); use Set Collider > Convex Decomposition (or Convex Hull)",
                          "triangle_mesh_on_moving_body")
        if not isinstance(shape.collision_group, int):
            yield error(shape.name, f"collision group {shape.collision_group!r} must be a whole number",
                        "invalid_group")
        if not isinstance(shape.world, int) or shape.world < -1:
            yield error(shape.name, f"world index {shape.world!r} is invalid: use -1 (global) or "
                                    "0, 1, 2...", "invalid_world")
        elif body is not None and shape.world != body.world:
            yield error(shape.name, f"collider is in world {shape.world} but its body is in world "
                                    f"{body.world}", "world_mismatch")
        if shape.density is not None and not (math.isfinite(shape.density) and shape.density > 0):
            yield error(shape.name, f"density must be positive (is {shape.density:g})", "invalid_density")
        if not _finite((shape.contact_margin, shape.contact_gap)) or \
                min(shape.contact_margin, shape.contact_gap) < 0:
            yield error(shape.name, "contact margin and gap must be zero or positive", "invalid_margin")
    for body in scene.bodies:
        if not isinstance(body.world, int) or body.world < -1:
            yield error(body.name, f"world index {body.world!r} is invalid: use -1 (global) or 0, 1, 2...",
                        "invalid_world")


def _check_materials(scene: PhysicsScene) -> Iterator[Problem]:
    for m in scene.materials:
        values = (m.static_friction, m.dynamic_friction, m.restitution, m.torsional_friction,
                  m.rolling_friction)
        if not _finite(values) or min(values) < 0:
            yield error(m.name, "friction and restitution values must be zero or positive",
                        "invalid_material")
        elif m.dynamic_friction > m.static_friction:
            yield warning(m.name, f"dynamic friction {m.dynamic_friction:g} exceeds static friction "
                                f"{m.static_friction:g}", "dynamic_above_static")
        if _finite((m.restitution,)) and m.restitution > 1:
            yield warning(m.name, f"restitution {m.restitution:g} above 1 adds energy on every bounce",
                          "restitution_above_one")
        if m.density is not None and not (math.isfinite(m.density) and m.density > 0):
            yield error(m.name, f"density must be positive (is {m.density:g})", "invalid_density")


def _check_explicit_mass(name: str, mass: MassProperties, dynamic: bool) -> Iterator[Problem]:
    # Non-finite numbers cannot be loaded (ERROR); a zero or negative mass or an implausible
    # inertia still gives a valid UsdPhysics file that consumers load (WARNING, see module doc).
    if not _finite((mass.mass,)):
        yield error(name, f"mass must be a finite number (is {mass.mass:g})", "invalid_mass")
    elif mass.mass <= 0:
        yield warning(name, f"mass must be positive (is {mass.mass:g})", "invalid_mass")
    inertia = tuple(mass.diagonal_inertia)
    if not _finite(inertia):
        yield error(name, f"inertia {inertia} contains NaN or infinite values", "invalid_inertia")
    elif min(inertia) < 0 or (dynamic and min(inertia) <= 0):
        yield warning(name, f"inertia {inertia} must be positive on every axis", "invalid_inertia")
    elif max(inertia) > sum(inertia) - max(inertia) + INERTIA_TOLERANCE * max(inertia):
        yield warning(name, f"inertia {inertia} is not physically possible: each principal moment "
                          "must not exceed the sum of the other two", "invalid_inertia")
    if not _finite(mass.center_of_mass):
        yield error(name, "center of mass contains NaN or infinite values", "invalid_mass")
    yield from _check_pose(name, "principal axes", Pose(rot=tuple(mass.principal_axes)))


def _massless(mass: MassProperties) -> bool:
    return mass.mass == 0 and not any(mass.diagonal_inertia)


def _frame_body(name: str) -> Problem:
    return warning(name, "body has no colliders and no mass: it is written with mass 0 (as Newton reads "
                         "it; MuJoCo welds such a frame to its parent); add a collider or set the mass if it "
                         "moves on its own joint", "no_mass_source")


def _check_mass(scene: PhysicsScene, computed: dict[str, MassProperties]) -> Iterator[Problem]:
    """Mass problems; the mass properties computed from colliders go into ``computed``."""
    shapes_by_body = mass_shapes_by_body(scene)
    welded = bodies_welded_to_world(scene)
    for body in scene.bodies:
        shapes = shapes_by_body.get(body.name, [])
        if body.name in welded and (body.mass.mass == 0 if body.mass is not None else not shapes):
            continue  # it never moves: no mass needed
        if body.mass is not None and not shapes and _massless(body.mass):
            yield _frame_body(body.name)  # a file's frame body (mass 0, no colliders), as MuJoCo has them
            continue
        if body.mass is not None:
            yield from _check_explicit_mass(body.name, body.mass, dynamic=not body.kinematic)
            continue
        if body.kinematic and not shapes:
            continue  # animated: needs no mass
        try:
            computed[body.name] = mass_properties(scene, body.name, shapes)
        except MassError as problem:
            if not shapes:  # a frame body (end effector, mount): Newton loads it with mass 0
                yield _frame_body(body.name)
            else:
                yield error(body.name, f"mass cannot be computed: {problem.reason}", "invalid_mass")


# ---------------------------------------------------------------- entry point

def validate(scene: PhysicsScene) -> list[Problem]:
    """Every problem of the scene, errors and warnings, in a stable order."""
    return validate_with_masses(scene)[0]


def validate_with_masses(scene: PhysicsScene) -> tuple[list[Problem], dict[str, MassProperties]]:
    """:func:`validate`, plus the mass properties it computed from colliders (body name ->
    properties), for a caller that needs them next (the writer) not to compute them twice."""
    problems: list[Problem] = []
    computed: dict[str, MassProperties] = {}
    for check in (_check_settings, _check_names, _check_references, _check_poses, _check_hierarchy,
                  _check_shapes, _check_materials):
        problems.extend(check(scene))
    problems.extend(_check_mass(scene, computed))
    for joint in scene.joints:
        problems.extend(_check_joint(scene, joint))
    return problems, computed


def problems_for(problems: Iterable[Problem], subject: str) -> list[Problem]:
    return [p for p in problems if p.subject == subject]


def first_error(problems: Iterable[Problem]) -> Problem | None:
    return next((p for p in problems if p.severity == ERROR), None)
