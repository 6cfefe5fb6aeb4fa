"""Triangle meshes for primitive shapes (visuals need a mesh; MuJoCo draws every geom).

Plain Python, in the shape's own frame with MuJoCo's conventions: the axis of capsules and
cylinders is +Z, sizes are half sizes.
"""

from __future__ import annotations

import math

from ..model import HeightField, MeshData

SEGMENTS = 16
RINGS = 8


def box(half_extents) -> MeshData:
    hx, hy, hz = half_extents
    vertices = [(sx * hx, sy * hy, sz * hz) for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    triangles = [t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))]
    return MeshData(vertices=vertices, triangles=triangles)


def _revolved(profile: list[tuple[float, float]], scale=(1.0, 1.0, 1.0)) -> MeshData:
    """Revolve (radius, z) points about +Z; the first and last have radius 0 (the poles)."""
    sx, sy, sz = scale
    vertices = [(0.0, 0.0, profile[0][1] * sz)]
    for r, z in profile[1:-1]:
        for k in range(SEGMENTS):
            a = 2.0 * math.pi * k / SEGMENTS
            vertices.append((r * math.cos(a) * sx, r * math.sin(a) * sy, z * sz))
    vertices.append((0.0, 0.0, profile[-1][1] * sz))
    rings = len(profile) - 2
    top = len(vertices) - 1
    triangles = []
    for k in range(SEGMENTS):
        n = (k + 1) % SEGMENTS
        triangles.append((0, 1 + n, 1 + k))
        for ring in range(rings - 1):
            a, b = 1 + ring * SEGMENTS, 1 + (ring + 1) * SEGMENTS
            triangles += [(a + k, a + n, b + n), (a + k, b + n, b + k)]
        last = 1 + (rings - 1) * SEGMENTS
        triangles.append((top, last + k, last + n))
    return MeshData(vertices=vertices, triangles=triangles)


def ellipsoid(radii) -> MeshData:
    profile = [(math.sin(math.pi * i / RINGS), -math.cos(math.pi * i / RINGS)) for i in range(RINGS + 1)]
    profile[0], profile[-1] = (0.0, -1.0), (0.0, 1.0)
    return _revolved(profile, tuple(radii))


def sphere(radius: float) -> MeshData:
    return ellipsoid((radius, radius, radius))


def capsule(radius: float, half_height: float) -> MeshData:
    half = RINGS // 2
    profile = [(0.0, -half_height - radius)]
    profile += [(radius * math.sin(math.pi / 2 * i / half), -half_height - radius * math.cos(math.pi / 2 * i / half))
                for i in range(1, half + 1)]
    profile += [(radius * math.cos(math.pi / 2 * i / half), half_height + radius * math.sin(math.pi / 2 * i / half))
                for i in range(0, half)]
    profile.append((0.0, half_height + radius))
    return _revolved(profile)


def cylinder(radius: float, half_height: float) -> MeshData:
    return _revolved([(0.0, -half_height), (radius, -half_height), (radius, half_height), (0.0, half_height)])


def plane(half_x: float, half_y: float) -> MeshData:
    return MeshData(
        vertices=[(-half_x, -half_y, 0.0), (half_x, -half_y, 0.0), (half_x, half_y, 0.0), (-half_x, half_y, 0.0)],
        triangles=[(0, 1, 2), (0, 2, 3)])


def height_field(field: HeightField) -> MeshData:
    """The surface of a height field: one vertex per sample (row-major, as ``field.heights``), two
    triangles per grid cell, facing +Z."""
    vertices = [(*field.sample_xy(r, c), field.height_at(r, c))
                for r in range(field.nrow) for c in range(field.ncol)]
    triangles = []
    for r in range(field.nrow - 1):
        for c in range(field.ncol - 1):
            a = r * field.ncol + c
            b, d = a + 1, a + field.ncol
            triangles += [(a, b, d + 1), (a, d + 1, d)]
    return MeshData(vertices=vertices, triangles=triangles)
