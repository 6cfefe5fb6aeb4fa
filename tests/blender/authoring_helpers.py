"""Helpers of the authoring tests: snapshots of everything Blender stores, and their comparison."""

import math

import bpy

FLOAT32_TOL = 2e-6  # relative (and absolute near zero): float32 spacing plus pose composition


def same_rotation(a, b, tol=FLOAT32_TOL):
    """Quaternions equal up to sign (q and -q are one rotation)."""
    return len(a) == len(b) == 4 and abs(abs(sum(x * y for x, y in zip(a, b))) - 1.0) <= tol


def snapshot_props(group) -> dict:
    """Every stored RNA property of a PropertyGroup, recursively (object pointers by name)."""
    values = {}
    for prop in group.bl_rna.properties:
        key = prop.identifier
        if key == "rna_type" or key.endswith(("_angle", "_length")):  # unit views store nothing
            continue
        value = getattr(group, key)
        if prop.type == "COLLECTION":
            values[key] = [snapshot_props(item) for item in value]
        elif prop.type == "POINTER":
            values[key] = value.name if isinstance(value, bpy.types.ID) else (
                snapshot_props(value) if value is not None else None)
        elif getattr(prop, "is_array", False):
            values[key] = tuple(value)
        else:
            values[key] = value
    return values


def snapshot_scene(scene) -> dict:
    objects = {}
    for obj in scene.objects:
        objects[obj.name] = {
            "type": obj.type,
            "parent": obj.parent.name if obj.parent else None,
            "matrix_world": [tuple(row) for row in obj.matrix_world],
            "articula": snapshot_props(obj.articula),
            "color": tuple(obj.color),
            "materials": [m.name for m in obj.data.materials] if obj.type == "MESH" else [],
            "mesh": [tuple(v.co) for v in obj.data.vertices] if obj.type == "MESH" else [],
        }
    return {"scene": snapshot_props(scene.articula), "objects": objects}


def _flatten(value, path=""):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _flatten(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _flatten(v, f"{path}[{i}]")
    else:
        yield path, value


TOLERATED = ("matrix_world", "body0_frame_offset")  # recomputed from poses: float32 tolerance


def blender_differences(before: dict, after: dict) -> list:
    a, b = dict(_flatten(before)), dict(_flatten(after))
    found = [(k, a.get(k), b.get(k)) for k in sorted(set(a) ^ set(b))]
    for key in sorted(set(a) & set(b)):
        x, y = a[key], b[key]
        if any(t in key for t in TOLERATED):
            if isinstance(x, tuple):
                close = all(math.isclose(p, q, rel_tol=FLOAT32_TOL, abs_tol=FLOAT32_TOL) for p, q in zip(x, y))
                close = close or (key.endswith("rotation") and same_rotation(x, y, FLOAT32_TOL))
            else:
                close = math.isclose(x, y, rel_tol=FLOAT32_TOL, abs_tol=FLOAT32_TOL)
            if not close:
                found.append((key, x, y))
        elif x != y:
            found.append((key, x, y))
    return found


def reset_scene_settings(scene) -> None:
    """``scene.articula`` back to its defaults (the shared ``clean_scene`` fixture clears only data)."""
    scene.property_unset("articula")
