"""Field-by-field comparison of two descriptions, for round trips through USD (float32 storage).

Elements are matched by name, not list order (a NESTED file lists bodies depth first).
Inertia is compared as the full tensor, because principal axes of equal moments are not unique.
"""

from __future__ import annotations

import dataclasses
import math
from enum import Enum

from ..model import MassProperties, PhysicsScene, Pose
from ..transforms import poses_close, quat_to_matrix


def _close(a: float, b: float, tol: float) -> bool:
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def _inertia_tensor(mass: MassProperties):
    r = quat_to_matrix(mass.principal_axes)
    d = mass.diagonal_inertia
    return [sum(r[i][k] * d[k] * r[j][k] for k in range(3)) for i in range(3) for j in range(3)]


def _values_differ(a, b, tol: float) -> bool:
    if isinstance(a, Pose) and isinstance(b, Pose):
        return not poses_close(a, b, pos_tol=tol, rot_tol=tol)
    if isinstance(a, MassProperties) and isinstance(b, MassProperties):
        return (_values_differ(a.mass, b.mass, tol) or _values_differ(a.center_of_mass, b.center_of_mass, tol)
                or _values_differ(_inertia_tensor(a), _inertia_tensor(b), tol))
    if isinstance(a, Enum) or isinstance(b, Enum) or isinstance(a, (str, bool)) or a is None or b is None:
        return a != b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return not _close(float(a), float(b), tol)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() != b.keys() or any(_values_differ(a[k], b[k], tol) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) != len(b) or any(_values_differ(x, y, tol) for x, y in zip(a, b))
    if dataclasses.is_dataclass(a) and type(a) is type(b):
        return any(_values_differ(getattr(a, f.name), getattr(b, f.name), tol) for f in dataclasses.fields(a))
    return a != b


def _element_differences(kind: str, a: list, b: list, tol: float, skip=()) -> list[str]:
    left, right = {x.name: x for x in a}, {x.name: x for x in b}
    found = [f"{kind} {name}: only in the first" for name in left.keys() - right.keys()]
    found += [f"{kind} {name}: only in the second" for name in right.keys() - left.keys()]
    for name in left.keys() & right.keys():
        for f in dataclasses.fields(left[name]):
            if f.name in skip:
                continue
            x, y = getattr(left[name], f.name), getattr(right[name], f.name)
            if f.name == "dofs":
                found += _dof_differences(f"{kind} {name}", x, y, tol)
                continue
            if _values_differ(x, y, tol):
                found.append(f"{kind} {name}.{f.name}: {x!r} != {y!r}")
    return sorted(found)


def _dof_differences(subject: str, a: list, b: list, tol: float) -> list[str]:
    left, right = {d.axis: d for d in a}, {d.axis: d for d in b}
    if left.keys() != right.keys():
        return [f"{subject}.dofs: axes {sorted(x.value for x in left)} != {sorted(x.value for x in right)}"]
    return [f"{subject}.{axis.value}.{f.name}: {getattr(left[axis], f.name)!r} != {getattr(right[axis], f.name)!r}"
            for axis in left for f in dataclasses.fields(left[axis])
            if _values_differ(getattr(left[axis], f.name), getattr(right[axis], f.name), tol)]


#: The description's lists of MuJoCo's model beyond bodies and joints, compared by name as the rest.
_MUJOCO_LISTS = ("sites", "cameras", "lights", "sensors", "keyframes", "equalities", "spatial_tendons",
                 "contact_pairs", "frame_actuators")


def scene_differences(a: PhysicsScene, b: PhysicsScene, tol: float = 1e-5,
                      skip_body_fields: tuple[str, ...] = ("hierarchy_gap",)) -> list[str]:
    """Readable lines for every field that differs; empty when the descriptions agree."""
    found = []
    if _values_differ(a.settings, b.settings, tol):
        found.append(f"settings: {a.settings!r} != {b.settings!r}")
    found += _element_differences("body", a.bodies, b.bodies, tol, skip_body_fields)
    found += _element_differences("joint", a.joints, b.joints, tol)
    found += _element_differences("shape", a.shapes, b.shapes, tol)
    found += _element_differences("visual", a.visuals, b.visuals, tol)
    found += _element_differences("material", a.materials, b.materials, tol)
    found += _element_differences("tendon", a.tendons, b.tendons, tol)
    for kind in _MUJOCO_LISTS:
        found += _element_differences(kind.rstrip("s"), getattr(a, kind), getattr(b, kind), tol)
    if a.prim_names != b.prim_names:
        found.append(f"prim_names: {a.prim_names!r} != {b.prim_names!r}")
    pairs_a = {frozenset(p) for p in a.filtered_pairs}
    pairs_b = {frozenset(p) for p in b.filtered_pairs}
    if pairs_a != pairs_b:
        found.append(f"filtered_pairs: {sorted(map(sorted, pairs_a))} != {sorted(map(sorted, pairs_b))}")
    return found
