"""Terrain (MuJoCo height fields) <-> USD.

A height field is written as what every consumer collides: a static triangle-mesh collider
(``Mesh``, ``PhysicsMeshCollisionAPI`` approximation ``none``) whose points are the surface, one per
sample. The grid itself rides along in Articula's ``mjc:hfield:*`` attributes (MuJoCo's names; no
Mjc schema has height fields), so it comes back exact: ``nrow``/``ncol``, ``size`` (half x, half y,
elevation, base, in stage units as MJCF's ``size``) and ``elevation`` (the normalized samples, row 0
at -y, as MuJoCo compiles them). A reader that does not know them still collides the surface.
"""

from __future__ import annotations

from typing import Optional

from pxr import Vt

from ..model import HeightField
from .sdf_authoring import Prim, T

NAME = "mjc:hfield:name"
ROWS = "mjc:hfield:nrow"
COLUMNS = "mjc:hfield:ncol"
SIZE = "mjc:hfield:size"
SAMPLES = "mjc:hfield:elevation"


def write_height_field(prim: Prim, field: HeightField) -> None:
    """The grid's attributes on the collider ``prim`` (its points are written as any mesh's)."""
    prim.set(NAME, T.String, field.name, custom=True, uniform=True)
    prim.set(ROWS, T.Int, int(field.nrow), custom=True, uniform=True)
    prim.set(COLUMNS, T.Int, int(field.ncol), custom=True, uniform=True)
    prim.set(SIZE, T.DoubleArray, Vt.DoubleArray([field.half_x, field.half_y, field.elevation, field.base]),
             custom=True, uniform=True)
    prim.set(SAMPLES, T.FloatArray, Vt.FloatArray(field.heights), custom=True, uniform=True)


def read_height_field(reader, prim, scale) -> Optional[HeightField]:
    """The grid a Mesh collider carries, with the prim's ``scale`` (the stage's units in it) applied;
    None where it carries none. A grid that does not add up is read as the mesh, with a warning."""
    samples = reader.value(prim, SAMPLES, "floats", None)
    if samples is None:
        return None
    rows, columns = reader.value(prim, ROWS, "int", 0), reader.value(prim, COLUMNS, "int", 0)
    size = reader.value(prim, SIZE, "floats", None) or []
    if rows < 2 or columns < 2 or len(samples) != rows * columns or len(size) != 4:
        reader.warn(prim, f"height field of {rows} x {columns} samples with {len(samples)} values and "
                          f"{len(size)} sizes does not add up: read as its triangle mesh")
        return None
    sx, sy, sz = (abs(s) for s in scale)
    return HeightField(name=reader.value(prim, NAME, "token", "") or prim.GetName(), nrow=rows, ncol=columns,
                       half_x=size[0] * sx, half_y=size[1] * sy, elevation=size[2] * sz, base=size[3] * sz,
                       heights=[float(v) for v in samples])
