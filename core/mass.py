"""Mass properties of bodies from their own colliders (the proposal's Mass Computation rule).

An explicit ``Body.mass`` wins. Otherwise only the body's OWN shapes count: shapes of descendant
bodies belong to those bodies (traversal is pruned at every nested body). Each shape's density is
its own, else its material's, else :data:`DEFAULT_DENSITY`. Volumes and inertia tensors are exact
for boxes, spheres, capsules and cylinders; meshes and convex hulls use the divergence theorem
over their (closed) triangles, so a CONVEX_HULL shape must carry the hull's triangles.
Planes have no volume and never add mass.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from .mesh_files import triangle_arrays
from .model import DEFAULT_DENSITY, MassProperties, PhysicsScene, Shape, ShapeKind
from .transforms import quat_from_matrix, quat_to_matrix, transform_point

_AXIS_INDEX = {"X": 0, "Y": 1, "Z": 2}


class MassError(ValueError):
    """A body whose mass cannot be computed (no shapes and no explicit mass, zero volume...)."""

    def __init__(self, body: str, message: str):
        super().__init__(f"{body}: {message}")
        self.body = body
        self.reason = message


@dataclass
class ShapeVolume:
    """A shape's volume, centroid and inertia per unit density, in the shape's frame."""

    volume: float
    centroid: np.ndarray  # (3,)
    inertia: np.ndarray  # (3, 3) about the centroid, for density 1


def _axis_symmetric(volume: float, axial: float, perpendicular: float, axis: str) -> ShapeVolume:
    diagonal = [perpendicular] * 3
    diagonal[_AXIS_INDEX[axis]] = axial
    return ShapeVolume(volume, np.zeros(3), np.diag(diagonal))


def _open_edge_count(triangles: np.ndarray) -> int:
    """Edges used an odd number of times: zero for a closed (watertight) triangle mesh."""
    edges = np.concatenate([triangles[:, [0, 1]], triangles[:, [1, 2]], triangles[:, [2, 0]]])
    _, counts = np.unique(np.sort(edges, axis=1), axis=0, return_counts=True)
    return int((counts % 2 == 1).sum())


def _mesh_volume(shape: Shape) -> ShapeVolume:
    mesh = shape.mesh
    if mesh is None or not mesh.triangles:
        raise ValueError(f"{shape.kind.value} shape {shape.name!r} has no triangles")
    points, tris = triangle_arrays(mesh)
    points = points * np.asarray(shape.scale, dtype=float)
    open_edges = _open_edge_count(tris)
    if open_edges:
        raise ValueError(f"mesh shape {shape.name!r} is not closed ({open_edges} open edges), "
                         "so it encloses no definite volume")
    a, b, c = points[tris[:, 0]], points[tris[:, 1]], points[tris[:, 2]]
    # Signed tetrahedra from the origin to each triangle (divergence theorem).
    six_v = np.einsum("ij,ij->i", a, np.cross(b, c))
    volume = six_v.sum() / 6.0
    if abs(volume) < 1e-15:
        raise ValueError(f"mesh shape {shape.name!r} encloses no volume (open or flat mesh)")
    sums = a + b + c
    centroid = (six_v[:, None] * sums).sum(axis=0) / (24.0 * volume)
    # Second moment  integral(x x^T) = sum det/120 * (a a^T + b b^T + c c^T + s s^T).
    outer = (np.einsum("ni,nj->nij", a, a) + np.einsum("ni,nj->nij", b, b)
             + np.einsum("ni,nj->nij", c, c) + np.einsum("ni,nj->nij", sums, sums))
    second = (six_v[:, None, None] * outer).sum(axis=0) / 120.0
    if volume < 0.0:  # inward-facing triangles (or a mirroring scale): flip every sign
        volume, second = -volume, -second
    second -= volume * np.outer(centroid, centroid)
    return ShapeVolume(volume, centroid, np.trace(second) * np.eye(3) - second)


def shape_volume(shape: Shape) -> ShapeVolume:
    """Exact volume, centroid and unit-density inertia of one shape in its own frame."""
    kind, r, h = shape.kind, shape.radius, shape.half_height
    if kind == ShapeKind.BOX:
        hx, hy, hz = shape.half_extents
        volume = 8.0 * hx * hy * hz
        return ShapeVolume(volume, np.zeros(3),
                           np.diag([hy * hy + hz * hz, hx * hx + hz * hz, hx * hx + hy * hy]) * volume / 3.0)
    if kind == ShapeKind.SPHERE:
        volume = 4.0 / 3.0 * math.pi * r ** 3
        return ShapeVolume(volume, np.zeros(3), np.eye(3) * 0.4 * volume * r * r)
    if kind == ShapeKind.CYLINDER:
        volume = math.pi * r * r * 2.0 * h
        return _axis_symmetric(volume, volume * r * r / 2.0, volume * (3.0 * r * r + 4.0 * h * h) / 12.0,
                               shape.axis)
    if kind == ShapeKind.CAPSULE:
        length = 2.0 * h
        cylinder = math.pi * r * r * length
        caps = 4.0 / 3.0 * math.pi * r ** 3  # both hemispheres
        axial = cylinder * r * r / 2.0 + caps * 0.4 * r * r
        perpendicular = (cylinder * (length * length / 12.0 + r * r / 4.0)
                         + caps * (0.4 * r * r + length * length / 4.0 + 3.0 * length * r / 8.0))
        return _axis_symmetric(cylinder + caps, axial, perpendicular, shape.axis)
    if kind in (ShapeKind.MESH, ShapeKind.CONVEX_HULL):
        return _mesh_volume(shape)
    raise ValueError(f"{kind.value} shape {shape.name!r} has no volume")


MASSLESS_KINDS = (ShapeKind.PLANE, ShapeKind.HEIGHT_FIELD)  # surfaces without a volume of their own


def shape_density(scene: PhysicsScene, shape: Shape) -> float:
    if shape.density is not None:
        return shape.density
    material = scene.material(shape.material)
    if material is not None and material.density is not None:
        return material.density
    return DEFAULT_DENSITY


def mass_shapes(scene: PhysicsScene, body_name: str) -> list[Shape]:
    """The shapes that give a body its mass: its own, never a nested body's, never planes or terrain."""
    return [s for s in scene.shapes_of(body_name) if s.kind not in MASSLESS_KINDS]


def mass_shapes_by_body(scene: PhysicsScene) -> dict[str, list[Shape]]:
    """:func:`mass_shapes` of every body at once (one pass over the shapes)."""
    by_body: dict[str, list[Shape]] = {}
    for shape in scene.shapes:
        if shape.body is not None and shape.kind not in MASSLESS_KINDS:
            by_body.setdefault(shape.body, []).append(shape)
    return by_body


def principal_axes(inertia: np.ndarray) -> tuple[tuple[float, float, float], tuple]:
    """Diagonal inertia and the (w, x, y, z) rotation from principal axes to the body frame.

    Axes are matched to the nearest body axes, so a tensor that is already diagonal keeps its
    order and an identity rotation.
    """
    inertia = (inertia + inertia.T) / 2.0
    scale = max(float(np.abs(inertia).max()), 1e-300)
    off_diagonal = inertia - np.diag(np.diag(inertia))
    if float(np.abs(off_diagonal).max()) <= 1e-12 * scale:
        return tuple(float(v) for v in np.diag(inertia)), (1.0, 0.0, 0.0, 0.0)
    values, vectors = np.linalg.eigh(inertia)
    order: list[int] = []
    for body_axis in range(3):  # greedily give each body axis its best-aligned eigenvector
        candidates = [i for i in range(3) if i not in order]
        order.append(max(candidates, key=lambda i: abs(vectors[body_axis, i])))
    values, vectors = values[order], vectors[:, order]
    vectors = vectors * np.sign(np.where(np.diag(vectors) == 0.0, 1.0, np.diag(vectors)))
    if np.linalg.det(vectors) < 0.0:
        vectors[:, 2] = -vectors[:, 2]
    return tuple(float(v) for v in values), quat_from_matrix(vectors.tolist())


def combine(parts: list[tuple[float, np.ndarray, np.ndarray]]) -> MassProperties:
    """Sum (mass, center of mass, inertia about that center) parts given in one frame."""
    total = sum(mass for mass, _, _ in parts)
    if not total > 0.0:
        raise ValueError(f"total mass {total} is not positive")
    if len(parts) == 1:  # nothing to shift: the part's own center and inertia
        com, inertia = parts[0][1], parts[0][2]
    else:
        com = sum(mass * centre for mass, centre, _ in parts) / total
        inertia = np.zeros((3, 3))
        for mass, centre, part_inertia in parts:
            d = centre - com
            inertia += part_inertia + mass * (np.dot(d, d) * np.eye(3) - np.outer(d, d))
    if not (np.all(np.isfinite(com)) and np.all(np.isfinite(inertia))):
        raise ValueError("center of mass or inertia is not finite")
    diagonal, axes = principal_axes(inertia)
    return MassProperties(mass=float(total), center_of_mass=tuple(float(v) for v in com),
                          diagonal_inertia=diagonal, principal_axes=axes)


#: Relative room kept above the triangle inequality by :func:`balance_inertia`: far wider than the
#: float32 rounding of an inertia tensor (Newton's, USD's), so MuJoCo's own check passes on it.
BALANCE_MARGIN = 1e-5


def balance_inertia(mass: MassProperties) -> MassProperties | None:
    """``mass`` with principal moments that satisfy the triangle inequality (A + B >= C, MuJoCo's
    "use 'balanceinertia'") with :data:`BALANCE_MARGIN` to spare, or None when they already do.

    As Newton's finalize balances (newton.geometry.inertia.verify_and_correct_inertia), one amount
    is added to every moment, the principal axes kept: here the least that gives A + B >= C (1 + margin),
    so a tensor on the limit (a rod, a plate) moves by a hundred-thousandth of its largest moment."""
    if mass.mass <= 0.0:
        return None
    a, b, c = sorted(mass.diagonal_inertia)
    if a + b >= c * (1.0 + BALANCE_MARGIN):
        return None
    shift = (c * (1.0 + BALANCE_MARGIN) - a - b) / (1.0 - BALANCE_MARGIN)
    return replace(mass, diagonal_inertia=tuple(float(m + shift) for m in mass.diagonal_inertia))


def shape_mass_part(scene: PhysicsScene, shape: Shape) -> tuple[float, np.ndarray, np.ndarray]:
    """(mass, center of mass, inertia at that center) of one shape in its body's frame."""
    unit = shape_volume(shape)
    density = shape_density(scene, shape)
    rotation = np.asarray(quat_to_matrix(shape.pose.rot))
    centre = np.asarray(transform_point(shape.pose, tuple(unit.centroid)))
    return density * unit.volume, centre, density * rotation @ unit.inertia @ rotation.T


def mass_properties(scene: PhysicsScene, body_name: str, shapes: list[Shape] | None = None) -> MassProperties:
    """The body's mass, center of mass, principal inertia and principal axes (body frame).

    ``shapes``: the body's :func:`mass_shapes` when the caller has them already (see
    :func:`mass_shapes_by_body`). Raises :class:`MassError` for an unknown body, a body without
    shapes or explicit mass, or shapes whose mass is not positive.
    """
    body = scene.body(body_name)
    if body is None:
        raise MassError(body_name, "no such body")
    if body.mass is not None:
        return replace(body.mass)
    shapes = mass_shapes(scene, body_name) if shapes is None else shapes
    if not shapes:
        raise MassError(body_name, "has no colliders to compute its mass from and no explicit mass")
    try:
        with np.errstate(invalid="ignore", over="ignore"):  # bad poses end in the finite check
            return combine([shape_mass_part(scene, shape) for shape in shapes])
    except ValueError as error:
        raise MassError(body_name, str(error)) from error


def scene_mass_properties(scene: PhysicsScene) -> dict[str, MassProperties]:
    """Mass properties of every body whose mass can be computed (others are left out)."""
    result = {}
    for body in scene.bodies:
        try:
            result[body.name] = mass_properties(scene, body.name)
        except MassError:
            pass
    return result


def bodies_welded_to_world(scene: PhysicsScene) -> set[str]:
    """The bodies a chain of fixed joints (or a nesting without a joint) holds to the world: they never
    move, so they need no mass."""
    from .model import JointType

    into: dict[str, list] = {}
    for joint in scene.joints:
        into.setdefault(joint.body1, []).append(joint)
    parents = {body.name: body.parent for body in scene.bodies}
    welded: dict[str, bool] = {}

    def held(name: str, seen: frozenset) -> bool:
        if name in welded:
            return welded[name]
        if name in seen:  # a loop of welds that reaches no world joint
            return False
        seen = seen | {name}
        joints = into.get(name)
        if joints:
            answer = any(j.type == JointType.FIXED and (j.body0 is None or held(j.body0, seen))
                         for j in joints)
        else:
            answer = parents.get(name) is not None and held(parents[name], seen)
        welded[name] = answer
        return answer

    return {body.name for body in scene.bodies if held(body.name, frozenset())}
