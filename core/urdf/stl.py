"""STL files as ROS packages ship them, for MuJoCo.

MuJoCo's compiler reads binary STL of 1 to 200,000 faces only; an ASCII STL (common in ROS
description packages) gives "stl_decoder: number of faces should be between 1 and 200000". Such
files are read here with numpy and their triangles handed to MuJoCo (as COLLADA meshes are), the
file staying the visual's source for Blender's own STL importer, which reads both kinds.
"""

from __future__ import annotations

import os
import re
import struct
import warnings

import numpy as np

#: The most faces MuJoCo's own STL decoder takes.
MUJOCO_STL_FACES = 200_000
_VERTEX = re.compile(rb"vertex\s+(\S+\s+\S+\s+\S+)")


class StlReadError(ValueError):
    """An STL file that is neither a binary nor an ASCII STL (the message says why)."""


def mujoco_reads_stl(path: str) -> bool:
    """True for a binary STL MuJoCo's own decoder takes (its size matches its face count)."""
    faces = _binary_face_count(path)
    return faces is not None and faces <= MUJOCO_STL_FACES and os.path.getsize(path) == 84 + 50 * faces


def read_stl(path: str) -> tuple[np.ndarray, np.ndarray]:
    """(vertices (n, 3) float, triangles (m, 3) int) of a binary or ASCII STL, shared corners merged.
    Raises :class:`StlReadError` for a file that is neither."""
    faces = _binary_face_count(path)
    if faces is not None:
        records = np.fromfile(path, dtype=np.dtype([("normal", "<f4", 3), ("corners", "<f4", (3, 3)),
                                                   ("attribute", "<u2")]), count=faces, offset=84)
        corners = records["corners"].reshape(-1, 3).astype(float)
    else:
        with open(path, "rb") as f:
            data = f.read()
        if not data.lstrip().lower().startswith(b"solid"):
            raise StlReadError("neither a binary STL (its size does not match its face count) nor an ASCII "
                               "one (it does not start with 'solid')")
        found = _VERTEX.findall(data)
        with warnings.catch_warnings():  # a token that is no number: numpy 1 ends short, numpy 2 raises
            warnings.simplefilter("ignore", DeprecationWarning)
            try:
                numbers = np.fromstring(b" ".join(found).decode("ascii", "replace"), sep=" ")
            except ValueError:
                numbers = ()
        if len(numbers) != 3 * len(found):
            raise StlReadError("an ASCII STL with a vertex that is no number")
        corners = numbers.reshape(-1, 3)
        if len(corners) % 3:
            raise StlReadError(f"an ASCII STL whose {len(corners)} vertices are no whole triangles")
    if not len(corners) or not np.all(np.isfinite(corners)):
        raise StlReadError("no triangles" if not len(corners) else "a vertex that is not finite")
    rows = np.ascontiguousarray(corners).view(np.dtype((np.void, corners.itemsize * 3))).ravel()
    _, first, index = np.unique(rows, return_index=True, return_inverse=True)  # bytewise: fast
    return corners[first], index.reshape(-1, 3)


def _binary_face_count(path: str) -> int | None:
    """The face count of a binary STL, None when the file's size says it is none (an ASCII file's
    bytes 80 to 84 are text: a count of hundreds of millions)."""
    size = os.path.getsize(path)
    if size < 84:
        return None
    with open(path, "rb") as f:
        f.seek(80)
        (faces,) = struct.unpack("<I", f.read(4))
    return faces if faces >= 1 and size >= 84 + 50 * faces else None
