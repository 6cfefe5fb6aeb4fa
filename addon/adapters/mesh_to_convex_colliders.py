"""Blender meshes to convex colliders: a mesh's arrays go to :mod:`core.convex` (on a worker thread
for a decomposition) and the hulls come back as child collider objects.

Nothing is created until a job's hulls are all there, so a cancelled or failed job leaves the
scene as it was.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import bpy
import numpy as np

from ...core import convex
from ...core.background import BackgroundCall

HULL_INFIX = "_hull_"


def mesh_arrays(obj) -> tuple[np.ndarray, np.ndarray]:
    """The object's own mesh (object space, modifiers not applied) as float64 vertices and int32
    triangles, read with ``foreach_get`` (no Python loop over vertices)."""
    mesh = obj.data
    mesh.calc_loop_triangles()
    vertices = np.empty(3 * len(mesh.vertices), dtype=np.float32)
    mesh.vertices.foreach_get("co", vertices)
    triangles = np.empty(3 * len(mesh.loop_triangles), dtype=np.int32)
    mesh.loop_triangles.foreach_get("vertices", triangles)
    return vertices.reshape(-1, 3).astype(np.float64), triangles.reshape(-1, 3)


def cache_dir() -> str | None:
    """Decompositions are kept in the extension's user folder, so they survive restarts."""
    package = __package__.rsplit(".", 2)[0]
    try:
        return bpy.utils.extension_path_user(package, path="convex_cache", create=True)
    except (ValueError, AttributeError, OSError):  # not installed as an extension (tests, legacy add-on)
        return None


def hull_children(obj) -> list:
    """The child hull colliders an earlier decomposition of ``obj`` made."""
    prefix = f"{obj.name}{HULL_INFIX}"
    return [c for c in obj.children if c.name.startswith(prefix) and c.articula.collider.collider_only]


def add_hull_children(obj, hulls: list[convex.Hull]) -> list:
    """Replace ``obj``'s earlier hull children by one wireframe CONVEX_HULL child per hull, named
    ``<mesh>_hull_000``..., in ``obj``'s frame."""
    for old in hull_children(obj):
        data = old.data
        bpy.data.objects.remove(old)
        if data is not None and data.users == 0:
            bpy.data.meshes.remove(data)
    made = []
    for index, (vertices, triangles) in enumerate(hulls):
        name = f"{obj.name}{HULL_INFIX}{index:03d}"
        made.append(_collider_child(obj, name, vertices, triangles))
    return made


def add_hull_child(obj, hull: convex.Hull):
    """One wireframe CONVEX_HULL child holding the (simplified) hull's own mesh."""
    return _collider_child(obj, f"{obj.name}_collider", *hull)


def _collider_child(obj, name: str, vertices, triangles):
    mesh = bpy.data.meshes.new(name)
    mesh.vertices.add(len(vertices))
    mesh.vertices.foreach_set("co", np.asarray(vertices, dtype=np.float32).ravel())
    mesh.loops.add(3 * len(triangles))
    mesh.loops.foreach_set("vertex_index", np.asarray(triangles, dtype=np.int32).ravel())
    mesh.polygons.add(len(triangles))
    mesh.polygons.foreach_set("loop_start", np.arange(0, 3 * len(triangles), 3, dtype=np.int32))
    mesh.update()
    child = bpy.data.objects.new(name, mesh)
    for collection in obj.users_collection:
        collection.objects.link(child)
    child.parent = obj
    child.display_type = "WIRE"
    child.hide_render = True
    props = child.articula.collider
    props.enabled, props.shape, props.collider_only = True, "CONVEX_HULL", True
    _copy_contact_settings(obj.articula.collider, props)
    return child


def _copy_contact_settings(source, target) -> None:
    for name in ("material", "has_density", "density", "collision_group", "world", "contact_margin", "contact_gap"):
        setattr(target, name, getattr(source, name))


@dataclass
class DecompositionJob:
    """Decompose several objects' meshes on a worker thread; :meth:`finish` makes the objects.

    The meshes are read when the job is made (bpy is main-thread only); the worker touches only
    arrays. ``progress`` runs from 0 to 1 over all meshes.
    """

    objects: list
    settings: convex.DecompositionSettings
    progress: float = 0.0
    _stop: threading.Event = field(default_factory=threading.Event, init=False)
    _finished: threading.Event = field(default_factory=threading.Event, init=False)
    _call: BackgroundCall | None = field(default=None, init=False)

    def __post_init__(self):
        self._names = [o.name for o in self.objects]
        self._meshes = [mesh_arrays(o) for o in self.objects]
        self._cache = cache_dir()

    def start(self) -> DecompositionJob:
        self._call = BackgroundCall(self._run)
        return self

    def _run(self) -> list[list[convex.Hull]]:
        try:
            return self._decompose_all()
        finally:
            self._finished.set()

    def _decompose_all(self) -> list[list[convex.Hull]]:
        results = []
        for index, (vertices, triangles) in enumerate(self._meshes):
            def step(fraction, index=index):
                self.progress = (index + fraction) / len(self._meshes)
            results.append(convex.decompose(vertices, triangles, self.settings, cache_dir=self._cache,
                                            progress=step, cancelled=self._stop.is_set))
        return results

    @property
    def done(self) -> bool:
        return self._finished.is_set()

    def cancel(self) -> None:
        """Stop after the part being decomposed; nothing is created."""
        self._stop.set()

    def finish(self) -> dict[str, list]:
        """Wait for the hulls and make the child colliders (main thread): {mesh name: children}.

        Raises what the worker raised (nothing is made then), ValueError when a mesh gave no hull."""
        results = self._call.result()
        gone = [name for name, obj in zip(self._names, self.objects) if not _alive(obj)]
        if gone:
            raise ValueError(f"{', '.join(gone)}: deleted while its decomposition ran; nothing was added")
        empty = [name for name, hulls in zip(self._names, results) if not hulls]
        if empty:
            raise ValueError(f"{', '.join(empty)}: the mesh gave no convex part with volume (a flat or open mesh?)")
        made = {}
        for obj, hulls in zip(self.objects, results):
            if obj.articula.collider.enabled and not obj.articula.collider.collider_only:
                obj.articula.collider.enabled = False  # the hulls replace the object's own collider
            made[obj.name] = add_hull_children(obj, hulls)
        return made


def _alive(obj) -> bool:
    try:
        return obj.name is not None and bpy.data.objects.get(obj.name) == obj
    except ReferenceError:  # the object was removed from Blender's data
        return False


def decomposition_unavailable_reason() -> str | None:
    return convex.decomposition_unavailable_reason()


def simplified_hull(obj, max_vertices: int) -> convex.Hull:
    vertices, _ = mesh_arrays(obj)
    return convex.convex_hull(vertices, max_vertices)

