"""Closed concave test meshes (a bowl, a mug with a handle, a U-shaped slot) and the volume
measures that check colliders against them.

Meshes are ``(vertices (N, 3) float64, triangles (M, 3) int64)`` in metres, outward winding.
"""

from __future__ import annotations

import math

import numpy as np


def lathe(profile: list[tuple[float, float]], segments: int = 32) -> tuple[np.ndarray, np.ndarray]:
    """Revolve a closed (r, z) profile loop about Z. Points with r == 0 become one pole vertex.

    """
    angles = np.linspace(0.0, 2.0 * math.pi, segments, endpoint=False)
    vertices: list[tuple[float, float, float]] = []
    rings: list[list[int]] = []
    for r, z in profile:
        if r == 0.0:
            vertices.append((0.0, 0.0, z))
            rings.append([len(vertices) - 1] * segments)
        else:
            rings.append(list(range(len(vertices), len(vertices) + segments)))
            vertices.extend((r * math.cos(a), r * math.sin(a), z) for a in angles)
    triangles: list[tuple[int, int, int]] = []
    for k in range(len(profile)):
        a, b = rings[k], rings[(k + 1) % len(profile)]
        for i in range(segments):
            j = (i + 1) % segments
            quad = (a[i], a[j], b[j], b[i])  # counter-clockwise loop -> outward normals
            for tri in ((quad[0], quad[1], quad[2]), (quad[0], quad[2], quad[3])):
                if len(set(tri)) == 3:
                    triangles.append(tri)
    vertices, triangles = np.asarray(vertices, dtype=np.float64), np.asarray(triangles, dtype=np.int64)
    if signed_volume(vertices, triangles) < 0.0:  # a clockwise profile
        triangles = triangles[:, ::-1].copy()
    return vertices, triangles


def bowl(radius: float = 0.1, wall: float = 0.012, segments: int = 24, rings: int = 9):
    """A hemispherical shell, rim at z = 0, opening up."""
    outer = [(radius * math.cos(t), -radius * math.sin(t)) for t in np.linspace(0.0, math.pi / 2, rings)]
    inner_r = radius - wall
    inner = [(inner_r * math.cos(t), -inner_r * math.sin(t)) for t in np.linspace(math.pi / 2, 0.0, rings)]
    outer[-1] = (0.0, outer[-1][1])
    inner[0] = (0.0, inner[0][1])
    return lathe(outer + inner, segments)


def mug(radius: float = 0.04, height: float = 0.1, wall: float = 0.006, segments: int = 32):
    """A cup with a flat bottom and a ring handle on +X: two closed parts that overlap in the wall."""
    cup = lathe([(0.0, 0.0), (radius, 0.0), (radius, height), (radius - wall, height),
                 (radius - wall, wall), (0.0, wall)], segments)
    handle = _half_torus(center=(radius, 0.0, height / 2), major=0.3 * height, minor=0.008,
                         start=-math.pi / 2, sweep=math.pi, extend=wall)
    return merge(cup, handle)


def u_slot(width: float = 0.1, height: float = 0.08, depth: float = 0.05, prong: float = 0.025,
           base: float = 0.025):
    """A U-shaped block (a slot open at +Z), extruded along Y."""
    w, h, t, b = width / 2, height, prong, base
    outline = [(-w, 0.0), (w, 0.0), (w, h), (w - t, h), (w - t, b), (-w + t, b), (-w + t, h), (-w, h)]
    cap = [(1, 2, 3), (1, 3, 4), (0, 1, 4), (0, 4, 5), (0, 5, 6), (0, 6, 7)]  # counter-clockwise in (x, z)
    return extrude(outline, cap, depth)


def extrude(outline, cap, depth: float):
    """A prism: the counter-clockwise (x, z) outline swept from y = +depth/2 to -depth/2."""
    n = len(outline)
    front = [(x, depth / 2, z) for x, z in outline]
    back = [(x, -depth / 2, z) for x, z in outline]
    triangles = [(a, c, b) for a, b, c in cap] + [(a + n, b + n, c + n) for a, b, c in cap]
    for i in range(n):
        j = (i + 1) % n
        triangles += [(i, j, j + n), (i, j + n, i + n)]
    return np.asarray(front + back, dtype=np.float64), np.asarray(triangles, dtype=np.int64)


def _half_torus(center, major: float, minor: float, start: float, sweep: float, extend: float,
                segments: int = 16, sides: int = 12):
    """A capped tube bent on a circle in the XZ plane about ``center``; its two end rings are pushed
    ``extend`` in -X (into whatever the handle is attached to)."""
    center = np.asarray(center, dtype=np.float64)
    side = np.array([0.0, 1.0, 0.0])
    vertices = []
    for k in range(segments + 1):
        a = start + sweep * k / segments
        radial = np.array([math.cos(a), 0.0, math.sin(a)])
        middle = center + major * radial - (extend * np.array([1.0, 0.0, 0.0]) if k in (0, segments) else 0.0)
        vertices += [middle + minor * (math.cos(b) * radial + math.sin(b) * side)
                     for b in np.linspace(0.0, 2.0 * math.pi, sides, endpoint=False)]
    caps = len(vertices), len(vertices) + 1
    vertices += [np.mean(vertices[:sides], axis=0), np.mean(vertices[-sides:], axis=0)]
    triangles = []
    for k in range(segments):
        a0, a1 = k * sides, (k + 1) * sides
        for s in range(sides):
            t = (s + 1) % sides
            triangles += [(a0 + s, a1 + s, a1 + t), (a0 + s, a1 + t, a0 + t)]
    last = segments * sides
    for s in range(sides):
        t = (s + 1) % sides
        triangles += [(caps[0], s, t), (caps[1], last + t, last + s)]
    vertices, triangles = np.asarray(vertices), np.asarray(triangles, dtype=np.int64)
    if signed_volume(vertices, triangles) < 0.0:
        triangles = triangles[:, ::-1].copy()
    return vertices, triangles


def merge(*meshes):
    """One triangle soup of several meshes."""
    vertices, triangles, offset = [], [], 0
    for v, t in meshes:
        vertices.append(v)
        triangles.append(t + offset)
        offset += len(v)
    return np.concatenate(vertices), np.concatenate(triangles)


def signed_volume(vertices, triangles) -> float:
    v = np.asarray(vertices, dtype=np.float64)[np.asarray(triangles)]
    return float(np.einsum("ij,ij->i", v[:, 0], np.cross(v[:, 1], v[:, 2])).sum() / 6.0)


def winding_numbers(vertices, triangles, points, chunk: int = 4096) -> np.ndarray:
    """Generalized winding number of each point (Jacobson et al. 2013): ~1 inside a closed mesh,
    ~0 outside, and the count of parts inside overlapping closed parts."""
    tri = np.asarray(vertices, dtype=np.float64)[np.asarray(triangles)]
    points = np.asarray(points, dtype=np.float64)
    out = np.empty(len(points))
    for start in range(0, len(points), chunk):
        p = points[start:start + chunk, None, None, :]
        a, b, c = (tri[None, :, i, :] - p[:, :, 0, :] for i in range(3))
        la, lb, lc = (np.linalg.norm(x, axis=-1) for x in (a, b, c))
        det = np.einsum("...i,...i->...", a, np.cross(b, c))
        dots = (la * lb * lc + np.einsum("...i,...i->...", a, b) * lc
                + np.einsum("...i,...i->...", b, c) * la + np.einsum("...i,...i->...", c, a) * lb)
        out[start:start + chunk] = np.arctan2(det, dots).sum(axis=1) / (2.0 * math.pi)
    return out


def inside_convex(vertices, triangles, points, tolerance: float = 1e-9) -> np.ndarray:
    """Whether each point lies in the convex hull described by a closed, outward-wound convex mesh."""
    tri = np.asarray(vertices, dtype=np.float64)[np.asarray(triangles)]
    normals = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    keep = np.linalg.norm(normals, axis=1) > 0.0
    normals, origins = normals[keep], tri[keep, 0]
    offsets = np.einsum("ij,ij->i", normals, origins)
    return np.all(np.asarray(points) @ normals.T <= offsets + tolerance * np.abs(offsets).max(initial=1.0), axis=1)


def volume_iou(mesh, hulls, samples: int = 40, seed: int = 0) -> float:
    """Volume intersection over union of a closed mesh and the union of convex hulls, estimated on
    jittered grid points (``samples`` per axis) over both bounding boxes."""
    vertices, triangles = mesh
    everything = np.concatenate([vertices] + [h[0] for h in hulls])
    low, high = everything.min(axis=0), everything.max(axis=0)
    axes = [np.linspace(lo, hi, samples, endpoint=False) + (hi - lo) / samples / 2 for lo, hi in zip(low, high)]
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
    grid += np.random.default_rng(seed).uniform(-0.25, 0.25, grid.shape) * (high - low) / samples
    in_mesh = winding_numbers(vertices, triangles, grid) > 0.5
    in_hulls = np.zeros(len(grid), dtype=bool)
    for v, t in hulls:
        in_hulls |= inside_convex(v, t, grid)
    union = np.count_nonzero(in_mesh | in_hulls)
    return np.count_nonzero(in_mesh & in_hulls) / union if union else 0.0
