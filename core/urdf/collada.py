"""COLLADA (``.dae``) meshes of URDF robots, read with pycollada.

MuJoCo's compiler reads STL, OBJ and MSH only, and Blender 5 has no COLLADA importer any more, yet
ROS robots often draw their links with ``.dae`` files. pycollada (pure Python, bundled with the
extension) parses them; this module turns a file into one polygon mesh with its materials, UVs
and textures, for MuJoCo (its triangles) and for Blender (polygons, UVs, materials).

Read as ROS reads them (RViz, which URDF authors check their robots in): the scene's node transforms
and the ``<unit meter>`` scale are applied, ``<up_axis>`` is ignored. RViz ignores it, and exporters
such as SolidWorks' URDF exporter write ``Y_UP`` over data that is already in the link's frame
(pybullet's racecar: ``chassis.dae`` says ``Y_UP``, its ``chassis.STL`` has the same coordinates).
Newton's ``add_urdf`` (trimesh) ignores ``<unit>`` too: a file in inches comes in 39x too big there.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from typing import Optional
from urllib.parse import unquote, urlparse

import numpy as np

#: A material whose diffuse is neither a color nor an image (RViz's default grey).
DEFAULT_COLOR = (0.8, 0.8, 0.8, 1.0)


class ColladaReadError(Exception):
    """A ``.dae`` file that cannot be read as a mesh; the message says why."""


@dataclass
class ColladaMaterial:
    name: str
    color: tuple  # RGBA, linear as written
    texture: Optional[str] = None  # the diffuse image's absolute path, when it is an image


@dataclass
class ColladaMesh:
    """Polygons in the file's frame, in meters: ``face_counts[i]`` corners each, their vertices
    in ``face_indices`` (one after the other); ``uvs`` per corner (or None when no primitive has
    texture coordinates); ``face_materials[i]`` indexes ``materials``, -1 where the file binds none
    (the URDF's own ``<material>`` color is what ROS draws there)."""

    vertices: np.ndarray  # (n, 3) float
    face_counts: np.ndarray  # (f,) int
    face_indices: np.ndarray  # (sum of counts,) int
    face_materials: np.ndarray  # (f,) int
    materials: list = field(default_factory=list)
    uvs: Optional[np.ndarray] = None  # (sum of counts, 2) float
    missing_images: list = field(default_factory=list)  # image files the materials name, not found

    def triangles(self) -> np.ndarray:
        """(t, 3) vertex indices: each polygon as a fan from its first corner."""
        if np.all(self.face_counts == 3):  # what most exporters write: no Python loop
            return self.face_indices.reshape(-1, 3)
        starts = np.concatenate(([0], np.cumsum(self.face_counts)[:-1]))
        fans = [(self.face_indices[s], self.face_indices[s + k], self.face_indices[s + k + 1])
                for s, n in zip(starts.tolist(), self.face_counts.tolist()) for k in range(1, n - 1)]
        return np.asarray(fans, dtype=np.int64).reshape(-1, 3)


def read_collada(path: str) -> ColladaMesh:
    """Every polygon primitive the file's scene draws (or, without a scene, every geometry) as one
    mesh. Raises ``ColladaReadError`` when the file is no COLLADA or draws nothing."""
    with warnings.catch_warnings():  # pycollada's numpy.matrix: a PendingDeprecationWarning per file
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        return _read(path)


def _read(path: str) -> ColladaMesh:
    import collada

    builder = _MeshBuilder(os.path.dirname(os.path.abspath(path)))
    try:  # pycollada resolves references lazily: a broken file can fail at any step
        document = collada.Collada(path, ignore=[collada.common.DaeUnsupportedError,
                                                 collada.common.DaeBrokenRefError])
        unit = float(document.assetInfo.unitmeter or 1.0) if document.assetInfo is not None else 1.0
        if document.scene is not None:
            primitives = [p for geometry in document.scene.objects("geometry") for p in geometry.primitives()]
        else:  # a geometry library alone: each geometry where it was modelled, without materials
            primitives = [p for geometry in document.geometries for p in geometry.bind(np.identity(4), {}).primitives()]
        for primitive in primitives:
            builder.add(primitive, collada)
    except (collada.common.DaeError, OSError, ValueError, KeyError, AttributeError, IndexError, TypeError) as error:
        raise ColladaReadError(f"not a readable COLLADA file ({type(error).__name__}: {error})") from error
    if not builder.face_counts:
        raise ColladaReadError("the file draws no polygons")
    return builder.mesh(unit)


class _MeshBuilder:
    """Collects polygon primitives (triangles, polylists, polygons) into one mesh."""

    def __init__(self, folder: str):
        self.folder = folder
        self.vertices, self.face_counts, self.face_indices, self.face_materials = [], [], [], []
        self.uvs: list = []  # per primitive: (corners, 2) or None
        self.materials: list[ColladaMaterial] = []
        self.missing_images: list[str] = []
        self._material_index: dict[int, int] = {}
        self._offset = 0

    def add(self, primitive, collada) -> None:
        if isinstance(primitive, collada.triangleset.BoundTriangleSet):
            counts = np.full(len(primitive.vertex_index), 3, dtype=np.int64)
        elif isinstance(primitive, collada.polylist.BoundPolylist):  # <polygons> too: a subclass
            bounds = np.asarray(primitive.polyindex, dtype=np.int64).reshape(-1, 2)
            counts = bounds[:, 1] - bounds[:, 0]
        else:  # lines and points draw no surface
            return
        if primitive.vertex is None or not len(counts):
            return
        indices = np.asarray(primitive.vertex_index, dtype=np.int64).reshape(-1)
        vertices = np.asarray(primitive.vertex, dtype=float).reshape(-1, 3)
        if len(indices) != int(counts.sum()) or (len(indices) and indices.max() >= len(vertices)):
            raise ColladaReadError("face indices do not match the vertices")
        self.vertices.append(vertices)
        self.face_indices.append(indices + self._offset)
        self._offset += len(vertices)
        self.face_counts.append(counts)
        self.face_materials.append(np.full(len(counts), self._material(primitive.material), dtype=np.int64))
        self.uvs.append(self._uvs(primitive, len(indices)))

    def _uvs(self, primitive, corners: int) -> Optional[np.ndarray]:
        if not primitive.texcoordset or primitive.texcoord_indexset is None or not len(primitive.texcoord_indexset):
            return None
        coords = np.asarray(primitive.texcoordset[0], dtype=float).reshape(-1, 2)
        index = np.asarray(primitive.texcoord_indexset[0], dtype=np.int64).reshape(-1)
        if len(index) != corners or (len(index) and index.max() >= len(coords)):
            return None  # malformed texture coordinates: the shape is still drawn
        return coords[index]

    def _material(self, material) -> int:
        if material is None:
            return -1
        key = id(material)
        if key not in self._material_index:
            self._material_index[key] = len(self.materials)
            self.materials.append(self._read_material(material))
        return self._material_index[key]

    def _read_material(self, material) -> ColladaMaterial:
        name = material.name or material.id or "collada_material"
        effect = getattr(material, "effect", None)
        diffuse = getattr(effect, "diffuse", None)
        if diffuse is not None and hasattr(diffuse, "sampler"):  # an image
            return ColladaMaterial(name, (1.0, 1.0, 1.0, 1.0), self._image_path(diffuse))
        if isinstance(diffuse, tuple) and len(diffuse) >= 3:  # <transparency> is left out: exporters
            alpha = float(diffuse[3]) if len(diffuse) > 3 else 1.0  # disagree on what 0 means
            return ColladaMaterial(name, (float(diffuse[0]), float(diffuse[1]), float(diffuse[2]), alpha))
        return ColladaMaterial(name, DEFAULT_COLOR)

    def _image_path(self, diffuse) -> Optional[str]:
        try:
            image = diffuse.sampler.surface.image
        except AttributeError:
            return None
        location = getattr(image, "path", None)
        if not location or urlparse(location).scheme not in ("", "file"):
            return None  # no network at run time; embedded data is not kept
        location = unquote(urlparse(location).path) if location.startswith("file:") else location
        path = os.path.normpath(location if os.path.isabs(location) else os.path.join(self.folder, location))
        if not os.path.isfile(path):
            self.missing_images.append(path)
            return None
        return path

    def mesh(self, unit: float) -> ColladaMesh:
        corners = [len(i) for i in self.face_indices]
        uvs = None
        if any(u is not None for u in self.uvs):
            uvs = np.concatenate([u if u is not None else np.zeros((n, 2)) for u, n in zip(self.uvs, corners)])
        return ColladaMesh(vertices=np.concatenate(self.vertices) * unit,
                           face_counts=np.concatenate(self.face_counts),
                           face_indices=np.concatenate(self.face_indices),
                           face_materials=np.concatenate(self.face_materials),
                           materials=self.materials, uvs=uvs, missing_images=sorted(set(self.missing_images)))

