"""Copy a PropertyGroup's values out and put them back: the undo of an operation that failed halfway.

Blender's undo stack is not there for a script or a failing operator to roll back with, so an
operator that changes settings before it may fail takes a snapshot first.
"""

import bpy


def _fields(group):
    for prop in group.bl_rna.properties:
        if prop.identifier == "rna_type":
            continue
        if prop.is_readonly and prop.type not in ("POINTER", "COLLECTION"):
            continue
        yield prop


def snapshot(group) -> dict:
    """Every stored value of ``group``, nested groups and list items included (ID pointers by reference)."""
    data = {}
    for prop in _fields(group):
        value = getattr(group, prop.identifier)
        if prop.type == "COLLECTION":
            data[prop.identifier] = [snapshot(item) for item in value]
        elif prop.type == "POINTER" and isinstance(value, bpy.types.PropertyGroup):
            data[prop.identifier] = snapshot(value)
        elif getattr(prop, "is_array", False) or prop.type == "ENUM" and prop.is_enum_flag:
            data[prop.identifier] = value[:] if not isinstance(value, set) else set(value)
        else:
            data[prop.identifier] = value
    return data


def restore(group, data: dict) -> None:
    """Put ``group`` back exactly as :func:`snapshot` saw it."""
    for prop in _fields(group):
        if prop.identifier not in data:
            continue
        saved = data[prop.identifier]
        if prop.type == "COLLECTION":
            items = getattr(group, prop.identifier)
            items.clear()
            for item_data in saved:
                restore(items.add(), item_data)
        elif prop.type == "POINTER" and isinstance(saved, dict):
            restore(getattr(group, prop.identifier), saved)
        else:
            setattr(group, prop.identifier, _alive(saved))


def _alive(value):
    """An ID removed since the snapshot reads back as None instead of raising."""
    if isinstance(value, bpy.types.ID):
        try:
            value.name  # noqa: B018  (touching a removed ID raises ReferenceError)
        except ReferenceError:
            return None
    return value
