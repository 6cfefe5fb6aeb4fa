"""USD's own C++ UsdPhysics parse (``UsdPhysics.LoadUsdPhysicsFromRange``), indexed by prim path.

One call parses every rigid body, collider, joint, physics material, articulation, collision group
and physics scene under the stage's root. It exists in USD 25.08 and later (Blender 5.x's bundled
pxr, usd-core); Blender 4.5's USD 25.02 lacks it (:func:`available` is then False and the reader
walks the stage in Python). The parse holds Python's GIL while it runs (measured: a Python thread
beside it runs at about a tenth of its speed).

Whatever the parse reports through USD's diagnostics (a wrong attribute type, a joint with two
bodies on one side...) is kept in :attr:`ParsedPhysics.diagnostics`: such a stage is read by the
Python reader, which names the prim and attribute.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

from pxr import Sdf, Usd, UsdPhysics

try:  # USD's diagnostic capture (usd-core and Blender's pxr both ship UsdUtils)
    from pxr import UsdUtils
except ImportError:  # pragma: no cover - every USD with the parse has UsdUtils
    UsdUtils = None

_PARSE = getattr(UsdPhysics, "LoadUsdPhysicsFromRange", None)


def available() -> bool:
    """Whether the imported pxr has the C++ UsdPhysics parse (USD 25.08 and later)."""
    return _PARSE is not None and UsdUtils is not None


@dataclass
class ParsedPhysics:
    """The parse's descriptors by prim path, per kind; ``diagnostics``: what USD said meanwhile."""

    bodies: dict[Sdf.Path, object] = field(default_factory=dict)
    shapes: dict[Sdf.Path, object] = field(default_factory=dict)
    joints: dict[Sdf.Path, object] = field(default_factory=dict)
    materials: dict[Sdf.Path, object] = field(default_factory=dict)
    articulations: dict[Sdf.Path, object] = field(default_factory=dict)
    collision_groups: dict[Sdf.Path, object] = field(default_factory=dict)
    scenes: dict[Sdf.Path, object] = field(default_factory=dict)
    diagnostics: list[str] = field(default_factory=list)


def _kind(object_type) -> str:
    name = str(object_type).rsplit(".", 1)[-1]
    if name == "RigidBody":
        return "bodies"
    if name.endswith("Shape"):
        return "shapes"
    if name.endswith("Joint"):
        return "joints"
    return {"RigidBodyMaterial": "materials", "Articulation": "articulations",
            "CollisionGroup": "collision_groups", "Scene": "scenes"}.get(name, "")


def parse_physics(stage: Usd.Stage) -> ParsedPhysics:
    """Every UsdPhysics object of the stage, parsed by USD in C++."""
    if not available():
        raise RuntimeError("this USD has no UsdPhysics.LoadUsdPhysicsFromRange (USD 25.08 or later)")
    parsed = ParsedPhysics()
    delegate = UsdUtils.CoalescingDiagnosticDelegate()
    with warnings.catch_warnings():  # usd-core 26.11 names a successor; both parse the same
        warnings.simplefilter("ignore", DeprecationWarning)
        found = _PARSE(stage, [Sdf.Path.absoluteRootPath])
    parsed.diagnostics = [d.commentary for d in delegate.TakeUncoalescedDiagnostics()]
    for object_type, (paths, descriptors) in found.items():
        kind = _kind(object_type)
        if kind:
            getattr(parsed, kind).update(zip(paths, descriptors))
    return parsed


__all__ = ["ParsedPhysics", "available", "parse_physics"]
