"""Convex colliders for any mesh: simplified convex hulls and convex decomposition, computed once.

A hull is Qhull's (SciPy), capped at ``max_vertices`` the way MuJoCo caps ``maxhullvert``
(Qhull's ``TA`` option: stop after that many points), so the hull is a subset of the exact one.
A decomposition is CoACD's (approximate convex decomposition, MIT), run per connected part of the
mesh (CoACD may otherwise join separate parts into one hull), each part then capped by Qhull,
which is orders of magnitude faster than CoACD's own decimation.

Results are cached by the mesh's bytes and the parameters: in memory, and on disk when a cache
folder is given (one ``.npz`` per result), so running it again on the same mesh costs a hash.

Meshes are ``(vertices (N, 3), triangles (M, 3))`` array pairs; hulls come back the same way,
float64 vertices and outward-wound int32 triangles.
"""

from __future__ import annotations

import functools
import hashlib
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import astuple, dataclass
from pathlib import Path

import numpy as np

Hull = tuple[np.ndarray, np.ndarray]

PHYSX_MAX_VERTICES = 255  # PhysX (Isaac Sim) refuses convex meshes with more vertices
DEFAULT_MAX_VERTICES = 64  # Isaac Sim's importers' default
_CACHE_FORMAT = 1


class DecompositionUnavailable(RuntimeError):
    """The decomposition library cannot be loaded on this platform."""


class DecompositionCancelled(Exception):
    """The caller asked to stop."""


@dataclass(frozen=True)
class DecompositionSettings:
    """CoACD's parameters. ``threshold``: the concavity each part may keep (lower: more, finer
    parts); ``max_hulls``: -1 for no limit, else parts are merged down to it; ``max_vertices``:
    the cap of each part's hull (0: none). The search settings are Newton's (fast) defaults."""

    threshold: float = 0.05
    max_hulls: int = -1
    max_vertices: int = DEFAULT_MAX_VERTICES
    resolution: int = 2000
    mcts_nodes: int = 20
    mcts_iterations: int = 5
    mcts_max_depth: int = 1
    preprocess: str = "auto"
    merge: bool = True
    seed: int = 0

    def coacd_arguments(self) -> dict:
        """The same parameters as ``coacd.run_coacd`` keywords (parts are capped by Qhull instead)."""
        return {"threshold": self.threshold, "max_convex_hull": self.max_hulls, "preprocess_mode": self.preprocess,
                "resolution": self.resolution, "mcts_nodes": self.mcts_nodes,
                "mcts_iterations": self.mcts_iterations, "mcts_max_depth": self.mcts_max_depth,
                "merge": self.merge, "seed": self.seed}


# --------------------------------------------------------------------------------------------
# the library


def load_coacd():
    """CoACD's module, or :class:`DecompositionUnavailable` saying why (no wheel for this platform)."""
    _load_usd_first()
    try:
        import coacd
    except (ImportError, OSError) as error:
        raise DecompositionUnavailable(f"convex decomposition needs the CoACD library, which cannot be "
                                       f"loaded here ({error}); no CoACD build exists for this platform") from error
    coacd.set_log_level("error")
    return coacd


def _load_usd_first() -> None:
    """CoACD's library carries its own C++ runtime: loaded before USD's, it takes over USD's number
    formatting and every int USD writes afterwards comes out empty. USD loaded first keeps its own."""
    try:
        from pxr import Sdf  # noqa: F401
    except ImportError:
        pass


def decomposition_unavailable_reason() -> str | None:
    """Why decomposition cannot run here, or None when it can."""
    try:
        load_coacd()
    except DecompositionUnavailable as error:
        return str(error)
    return None


# --------------------------------------------------------------------------------------------
# hulls


def convex_hull(vertices, max_vertices: int = 0) -> Hull:
    """The convex hull of the points, at most ``max_vertices`` vertices (0: all), outward wound.

    Raises ValueError for points that span no volume (fewer than 4, or all on one plane)."""
    from scipy.spatial import ConvexHull, QhullError

    points = np.asarray(vertices, dtype=np.float64).reshape(-1, 3)
    if max_vertices and max_vertices < 4:
        raise ValueError(f"a hull needs at least 4 vertices, not {max_vertices}")
    options = "Qt" + (f" TA{max_vertices - 4}" if max_vertices and len(points) > max_vertices else "")
    try:
        hull = ConvexHull(points, qhull_options=options)
    except (QhullError, ValueError) as error:
        raise ValueError(f"the points span no volume ({len(points)} points): {str(error).splitlines()[0]}") from None
    used = np.unique(hull.simplices)
    remap = np.full(len(points), -1, dtype=np.int32)
    remap[used] = np.arange(len(used), dtype=np.int32)
    triangles = remap[hull.simplices]
    hull_points = points[used]
    # Qhull's facet order is arbitrary: turn each triangle to face along its plane's outward normal.
    corners = hull_points[triangles]
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    flip = np.einsum("ij,ij->i", normals, hull.equations[:, :3]) < 0.0
    triangles[flip] = triangles[flip][:, ::-1]
    return hull_points, triangles


def connected_parts(vertices, triangles) -> list[Hull]:
    """The mesh split into its edge-connected parts, each with its own vertices."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    vertices, triangles = np.asarray(vertices), np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    n = len(vertices)
    rows = triangles[:, [0, 1, 2]].ravel()
    cols = triangles[:, [1, 2, 0]].ravel()
    graph = coo_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(n, n))
    count, labels = connected_components(graph, directed=False)
    if count == 1:
        return [(vertices, triangles)]
    parts = []
    triangle_labels = labels[triangles[:, 0]]
    for label in range(count):
        mine = triangles[triangle_labels == label]
        if len(mine) == 0:
            continue  # a loose vertex
        used = np.unique(mine)
        remap = np.full(n, -1, dtype=np.int64)
        remap[used] = np.arange(len(used))
        parts.append((vertices[used], remap[mine]))
    return parts


# --------------------------------------------------------------------------------------------
# decomposition


def decompose(vertices, triangles, settings: DecompositionSettings = DecompositionSettings(), *,
              cache_dir: str | os.PathLike | None = None,
              progress: Callable[[float], None] | None = None,
              cancelled: Callable[[], bool] | None = None) -> list[Hull]:
    """The mesh's convex parts (CoACD), each capped at ``settings.max_vertices``; cached.

    ``progress(fraction)`` is called after each connected part; ``cancelled()`` is asked between
    parts and raises :class:`DecompositionCancelled` (CoACD itself cannot be interrupted, so a part
    already running finishes first). Thread-safe: CoACD is called through ctypes, which releases
    Python's GIL, so a worker thread leaves Blender's interface responsive.
    """
    vertices = np.ascontiguousarray(vertices, dtype=np.float64).reshape(-1, 3)
    triangles = np.ascontiguousarray(triangles, dtype=np.int32).reshape(-1, 3)
    if len(triangles) == 0:
        raise ValueError("the mesh has no triangles")
    key = cache_key(vertices, triangles, settings)
    hit = CACHE.get(key, cache_dir)
    if hit is not None:
        if progress:
            progress(1.0)
        return hit
    coacd = load_coacd()
    parts = connected_parts(vertices, triangles)
    hulls: list[Hull] = []
    for index, (part_vertices, part_triangles) in enumerate(parts):
        if cancelled and cancelled():
            raise DecompositionCancelled()
        hulls += _decompose_part(coacd, part_vertices, part_triangles, settings)
        if progress:
            progress((index + 1) / len(parts))
    if settings.max_hulls > 0 and len(hulls) > settings.max_hulls:
        hulls = _merge_smallest(hulls, settings.max_hulls, settings.max_vertices)
    CACHE.put(key, hulls, cache_dir)
    return hulls


def _decompose_part(coacd, vertices, triangles, settings: DecompositionSettings) -> list[Hull]:
    mesh = coacd.Mesh(np.ascontiguousarray(vertices, dtype=np.float64),
                      np.ascontiguousarray(triangles, dtype=np.int32))
    raw = coacd.run_coacd(mesh, **settings.coacd_arguments())
    hulls = []
    for part_vertices, _ in raw:
        try:
            hulls.append(convex_hull(part_vertices, settings.max_vertices))
        except ValueError:
            continue  # a flat sliver: no volume to collide with
    return hulls


def _merge_smallest(hulls: list[Hull], count: int, max_vertices: int) -> list[Hull]:
    """Join the parts of separate connected pieces down to ``count`` hulls, smallest first."""
    hulls = sorted(hulls, key=lambda h: hull_volume(*h))
    while len(hulls) > count:
        smallest = hulls.pop(0)
        centre = smallest[0].mean(axis=0)
        nearest = min(range(len(hulls)), key=lambda i: np.linalg.norm(hulls[i][0].mean(axis=0) - centre))
        hulls[nearest] = convex_hull(np.concatenate([hulls[nearest][0], smallest[0]]), max_vertices)
        hulls.sort(key=lambda h: hull_volume(*h))
    return hulls


def hull_volume(vertices, triangles) -> float:
    corners = np.asarray(vertices, dtype=np.float64)[np.asarray(triangles)]
    return float(np.einsum("ij,ij->i", corners[:, 0], np.cross(corners[:, 1], corners[:, 2])).sum() / 6.0)


# --------------------------------------------------------------------------------------------
# cache


def cache_key(vertices: np.ndarray, triangles: np.ndarray, settings: DecompositionSettings) -> str:
    """A digest of the mesh's raw bytes and every parameter (and the library's version)."""
    digest = hashlib.blake2b(digest_size=20)
    digest.update(repr((_CACHE_FORMAT, _library_version(), astuple(settings),
                        vertices.shape, triangles.shape, vertices.dtype.str, triangles.dtype.str)).encode())
    digest.update(memoryview(np.ascontiguousarray(vertices)).cast("B"))
    digest.update(memoryview(np.ascontiguousarray(triangles)).cast("B"))
    return digest.hexdigest()


@functools.cache
def _library_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("coacd")
    except PackageNotFoundError:  # not installed, or bundled without its metadata
        return "?"


class HullCache:
    """Results by key: the last ``capacity`` in memory, all of them in ``cache_dir`` when given."""

    def __init__(self, capacity: int = 64):
        self._memory: OrderedDict[str, list[Hull]] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()

    def get(self, key: str, cache_dir=None) -> list[Hull] | None:
        with self._lock:
            if key in self._memory:
                self._memory.move_to_end(key)
                return self._memory[key]
        hulls = _load(Path(cache_dir) / f"{key}.npz") if cache_dir else None
        if hulls is not None:
            self._remember(key, hulls)
        return hulls

    def put(self, key: str, hulls: list[Hull], cache_dir=None) -> None:
        self._remember(key, hulls)
        if cache_dir:
            _save(Path(cache_dir) / f"{key}.npz", hulls)

    def clear(self) -> None:
        with self._lock:
            self._memory.clear()

    def _remember(self, key, hulls) -> None:
        with self._lock:
            self._memory[key] = hulls
            self._memory.move_to_end(key)
            while len(self._memory) > self._capacity:
                self._memory.popitem(last=False)


CACHE = HullCache()


def _save(path: Path, hulls: list[Hull]) -> None:
    """Write atomically; a cache that cannot be written is only slower next time."""
    arrays = {f"v{i}": v for i, (v, _) in enumerate(hulls)} | {f"t{i}": t for i, (_, t) in enumerate(hulls)}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(handle, "wb") as stream:
            np.savez(stream, count=np.int64(len(hulls)), **arrays)
        os.replace(temporary, path)
    except OSError:
        return


def _load(path: Path) -> list[Hull] | None:
    """The cached hulls, or None for a missing or unreadable file (it is recomputed)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            count = int(data["count"])
            hulls = [(data[f"v{i}"], data[f"t{i}"]) for i in range(count)]
    except (OSError, KeyError, ValueError, EOFError):
        return None
    valid = all(v.ndim == 2 and v.shape[1] == 3 and t.ndim == 2 and t.shape[1] == 3 and len(t)
                and t.min() >= 0 and t.max() < len(v) for v, t in hulls)
    return hulls if valid and hulls else None


# --------------------------------------------------------------------------------------------
# the description


def hull_shapes(name: str, hulls: list[Hull], **shape_fields) -> list:
    """One CONVEX_HULL collider per hull, named ``name_hull_000``...; ``shape_fields`` go to each
    :class:`core.model.Shape` (body, pose, scale, material...)."""
    from .model import MeshData, Shape, ShapeKind

    return [Shape(name=f"{name}_hull_{index:03d}", kind=ShapeKind.CONVEX_HULL,
                  mesh=MeshData(vertices=[tuple(p) for p in v.tolist()], triangles=[tuple(t) for t in f.tolist()]),
                  **shape_fields)
            for index, (v, f) in enumerate(hulls)]


COLLIDER_SOURCES = ("NONE", "BOX", "CONVEX_HULL", "CONVEX_DECOMPOSITION")


def colliders_from_visuals(scene, method: str, settings: DecompositionSettings = DecompositionSettings(),
                           decompose_meshes: bool = False) -> list[str]:
    """Give each body that has no collider colliders made from its visual meshes: a fitted box, a
    convex hull (at most ``settings.max_vertices``) or a convex decomposition per visual. With
    ``decompose_meshes``, triangle-mesh colliders of moving bodies become convex decompositions.
    Changes ``scene`` in place; returns notes for the user (what was made)."""
    from .mesh_files import triangle_arrays
    from .model import ShapeKind
    from .transforms import pose_mul

    if method not in COLLIDER_SOURCES:
        raise ValueError(f"colliders from visuals: unknown method {method!r} (one of {', '.join(COLLIDER_SOURCES)})")
    notes = []
    if method != "NONE":
        bare = [b.name for b in scene.bodies if not scene.shapes_of(b.name)]
        made = 0
        for visual in (v for v in scene.visuals if v.body in bare and v.mesh and v.mesh.triangles):
            shapes = _shapes_for_visual(visual, method, settings, pose_mul, scene.body(visual.body).world)
            scene.shapes += shapes
            made += len(shapes)
        if made:
            notes.append(f"{made} collider(s) made from the visuals of {len(bare)} bod(ies) without collision "
                         f"geometry ({method.replace('_', ' ').lower()})")
    if decompose_meshes:
        moving = {b.name for b in scene.bodies if not b.kinematic}
        for shape in [s for s in scene.shapes if s.kind == ShapeKind.MESH and s.body in moving and s.mesh]:
            hulls = decompose(*triangle_arrays(shape.mesh), settings)
            index = scene.shapes.index(shape)
            scene.shapes[index:index + 1] = hull_shapes(
                shape.name, hulls, body=shape.body, pose=shape.pose, scale=shape.scale, material=shape.material,
                density=shape.density, collision_group=shape.collision_group, world=shape.world)
            notes.append(f"triangle-mesh collider {shape.name} of a moving body decomposed into {len(hulls)} hulls")
    return notes


def _shapes_for_visual(visual, method: str, settings: DecompositionSettings, pose_mul, world: int) -> list:
    from .mesh_files import triangle_arrays
    from .model import Pose, Shape, ShapeKind

    vertices, triangles = triangle_arrays(visual.mesh)
    scale = np.abs(np.asarray(visual.scale, dtype=np.float64))
    if method == "BOX":
        low, high = vertices.min(axis=0), vertices.max(axis=0)
        center = tuple(((low + high) / 2.0 * np.asarray(visual.scale)).tolist())
        half = tuple(np.maximum((high - low) / 2.0 * scale, 1e-6).tolist())
        return [Shape(name=f"{visual.name}_box", kind=ShapeKind.BOX, body=visual.body,
                      pose=pose_mul(visual.pose, Pose(pos=center)), half_extents=half, world=world)]
    if method == "CONVEX_HULL":
        try:
            hulls = [convex_hull(vertices, settings.max_vertices)]
        except ValueError:
            return []  # a flat visual: nothing to collide with
    else:
        hulls = decompose(vertices, triangles, settings)
    return hull_shapes(visual.name, hulls, body=visual.body, pose=visual.pose, scale=tuple(visual.scale), world=world)
