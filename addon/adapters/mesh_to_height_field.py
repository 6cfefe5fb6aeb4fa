"""A mesh object's surface -> a height field (``core.model.HeightField``): terrain authored in Blender.

The surface is the evaluated mesh (modifiers applied), scaled by the object's world scale. A regular
grid of the wanted rows x columns (what import made, a Grid primitive) gives its vertex heights as they
are; any other surface is sampled on the rows x columns grid over its XY bounds by downward ray casts
(a sample that misses takes the lowest height). The field sits at the bounds' centre in XY and at the
lowest sample in Z, as MuJoCo places an hfield; its samples are normalized to [0, 1].
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import bpy
import numpy as np
from mathutils import Vector
from mathutils.bvhtree import BVHTree

from ...core.model import HeightField

FLAT_ELEVATION = 1e-6  # m: a flat surface's elevation (its samples are all 0); MuJoCo needs one > 0
DEFAULT_BASE = 0.1  # of the larger half size, where the collider stores no base of its own
GRID_TOLERANCE = 1e-5  # of the surface's extent: vertices this close share a grid row or column
DEFAULT_SAMPLES = (16, 256)  # the fewest and most rows/columns picked for a surface that is no grid


@dataclass
class Surface:
    """A mesh's vertices (object axes, world scale applied) and triangles."""

    points: np.ndarray  # (n, 3) float64
    triangles: np.ndarray  # (m, 3) int


def evaluated_mesh(obj):
    """The object's mesh with its modifiers applied (its own mesh where no depsgraph is at hand)."""
    try:
        depsgraph = bpy.context.evaluated_depsgraph_get()
    except (AttributeError, RuntimeError):
        return obj.data
    return obj.evaluated_get(depsgraph).data


def has_faces(obj) -> bool:
    return obj.type == "MESH" and len(evaluated_mesh(obj).polygons) > 0


def surface(obj, scale=(1.0, 1.0, 1.0)) -> Surface:
    mesh = evaluated_mesh(obj)
    mesh.calc_loop_triangles()
    points = np.empty(3 * len(mesh.vertices), dtype=np.float32)
    mesh.vertices.foreach_get("co", points)
    corners = np.empty(3 * len(mesh.loop_triangles), dtype=np.int32)
    mesh.loop_triangles.foreach_get("vertices", corners)
    scaled = points.reshape(-1, 3).astype(np.float64) * np.asarray(scale, dtype=np.float64)
    return Surface(points=scaled, triangles=corners.reshape(-1, 3))


def _levels(values: np.ndarray, tolerance: float) -> Optional[tuple[np.ndarray, np.ndarray]]:
    """(evenly spaced level values, each value's level index), or None where they are not even."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.concatenate([[True], np.diff(ordered) > tolerance])
    level_of_ordered = np.cumsum(starts) - 1
    levels = ordered[starts]
    if len(levels) < 2:
        return None
    spacing = (levels[-1] - levels[0]) / (len(levels) - 1)
    if not np.allclose(np.diff(levels), spacing, rtol=0.0, atol=tolerance):
        return None
    index = np.empty(len(values), dtype=np.int64)
    index[order] = level_of_ordered
    return levels, index


def grid_heights(points: np.ndarray) -> Optional[np.ndarray]:
    """The vertex heights as a (rows, columns) array (row 0 at -y, column 0 at -x) when the vertices are
    one per node of a regular XY grid; else None."""
    if len(points) < 4:
        return None
    extent = float(np.ptp(points[:, :2], axis=0).max())
    tolerance = GRID_TOLERANCE * max(extent, 1e-9)
    columns, rows = _levels(points[:, 0], tolerance), _levels(points[:, 1], tolerance)
    if columns is None or rows is None or len(columns[0]) * len(rows[0]) != len(points):
        return None
    nodes = rows[1] * len(columns[0]) + columns[1]
    if len(np.unique(nodes)) != len(points):
        return None
    heights = np.empty(len(points))
    heights[nodes] = points[:, 2]
    return heights.reshape(len(rows[0]), len(columns[0]))


def default_resolution(obj) -> tuple[int, int]:
    """(rows, columns) for a new height field on ``obj``: its grid's own where the mesh is a regular
    grid, else about one sample per vertex spread over the XY bounds' aspect."""
    points = surface(obj).points
    grid = grid_heights(points)
    if grid is not None:
        return grid.shape
    low, high = DEFAULT_SAMPLES
    size_x, size_y = (max(float(v), 1e-9) for v in np.ptp(points[:, :2], axis=0))
    per_axis = max(len(points), 1) ** 0.5
    aspect = (size_y / size_x) ** 0.5
    rows, columns = (int(np.clip(round(n), low, high)) for n in (per_axis * aspect, per_axis / aspect))
    return rows, columns


def sampled_heights(shape: Surface, rows: int, columns: int) -> np.ndarray:
    """The surface's highest z over each node of a rows x columns grid spanning its XY bounds (the lowest
    vertex height where a node misses it)."""
    points = shape.points
    low, high = points.min(axis=0), points.max(axis=0)
    tree = BVHTree.FromPolygons([tuple(p) for p in points], [tuple(t) for t in shape.triangles.tolist()])
    inset = 1e-6 * max(float(np.ptp(points[:, :2], axis=0).max()), 1e-9)  # edge nodes still hit the edge
    xs = np.clip(np.linspace(low[0], high[0], columns), low[0] + inset, high[0] - inset)
    ys = np.clip(np.linspace(low[1], high[1], rows), low[1] + inset, high[1] - inset)
    top = float(high[2]) + 1.0
    down = Vector((0.0, 0.0, -1.0))
    heights = np.full((rows, columns), float(low[2]))
    for r, y in enumerate(ys):
        for c, x in enumerate(xs):
            hit = tree.ray_cast(Vector((x, y, top)), down)[0]
            if hit is not None:
                heights[r, c] = hit.z
    return heights


def read_height_field(obj, props, scale) -> tuple[Optional[HeightField], tuple[float, float, float]]:
    """(the field of collider ``obj`` at world ``scale``, where its frame sits in the object's axes, world
    scale applied). None for an object without faces; rows or columns below 2 give a field with no
    samples (validation names it)."""
    if obj.type != "MESH":
        return None, (0.0, 0.0, 0.0)
    shape = surface(obj, scale)
    if not len(shape.triangles):
        return None, (0.0, 0.0, 0.0)
    points = shape.points
    low, high = points.min(axis=0), points.max(axis=0)
    grid = grid_heights(points)
    rows, columns = props.hfield_rows, props.hfield_columns
    if grid is not None and (rows, columns) in ((0, 0), grid.shape):
        heights = grid
    else:
        if grid is None and not rows and not columns:
            rows, columns = default_resolution(obj)
        rows, columns = rows or columns, columns or rows
        heights = sampled_heights(shape, rows, columns) if min(rows, columns) >= 2 else None
    half_x, half_y = (float(v) / 2.0 for v in high[:2] - low[:2])
    centre = ((low[0] + high[0]) / 2.0, (low[1] + high[1]) / 2.0)
    if heights is None:
        field = HeightField(name=props.hfield_name or obj.name, nrow=rows, ncol=columns, half_x=half_x,
                            half_y=half_y, elevation=FLAT_ELEVATION, base=_base(props, half_x, half_y))
        return field, (float(centre[0]), float(centre[1]), float(low[2]))
    bottom, elevation = float(heights.min()), float(heights.max() - heights.min())
    flat = elevation <= 1e-7 * max(half_x, half_y, 1e-9)
    normalized = np.zeros_like(heights) if flat else np.clip((heights - bottom) / elevation, 0.0, 1.0)
    if flat:
        elevation = props.hfield_elevation if props.hfield_elevation > 0.0 else FLAT_ELEVATION
    field = HeightField(name=props.hfield_name or obj.name, nrow=heights.shape[0], ncol=heights.shape[1],
                        half_x=half_x, half_y=half_y, elevation=elevation, base=_base(props, half_x, half_y),
                        heights=normalized.ravel().tolist())
    return field, (float(centre[0]), float(centre[1]), bottom)


def _base(props, half_x: float, half_y: float) -> float:
    return props.hfield_base if props.hfield_base > 0.0 else DEFAULT_BASE * max(half_x, half_y)
