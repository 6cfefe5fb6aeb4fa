"""Helpers shared by the PropertyGroups: enum items from core enums, unbounded floats, unit views.

Storage conventions (the adapters rely on them):
- Every float stores the description's SI value unclamped (hard limits are +-inf, so a negative
  mass or an infinite value survives and validation can report it); sliders use soft limits.
- Blender stores floats in single precision: Blender -> description -> Blender is exact, while
  description -> Blender -> description agrees to float32 precision (relative ~6e-8).
- A description value that may be infinite is a ``has_<x>`` boolean plus the value: the boolean
  off means +-inf (see ``INFINITE_WHEN_OFF`` in each module).
- A DOF's value whose unit depends on the axis (radians or meters) is stored once, raw; the
  ``<x>_angle`` / ``<x>_length`` views show it in degrees or scene length units.
"""

import math

from bpy.props import FloatProperty

UNBOUNDED = {"min": -math.inf, "max": math.inf}


def enum_items(enum_cls, labels=None, descriptions=None):
    """EnumProperty items from a core ``Enum``: identifiers are the enum values."""
    labels = labels or {}
    descriptions = descriptions or {}
    return [
        (m.value, labels.get(m.value, m.value.replace("_", " ").title()), descriptions.get(m.value, ""))
        for m in enum_cls
    ]


AXIS_ITEMS = [("X", "X", "The X axis of the frame"), ("Y", "Y", "The Y axis of the frame"),
              ("Z", "Z", "The Z axis of the frame")]


def is_body_object(_self, obj) -> bool:
    """Poll of the Object pointers that must name a rigid body."""
    return obj.articula.body.enabled


def float_prop(name, description="", default=0.0, **kwargs):
    """A float that stores any value (no hard limits)."""
    return FloatProperty(name=name, description=description, default=default, **{**UNBOUNDED, **kwargs})


def unit_view(raw, name, description, subtype="NONE", unit="NONE", **kwargs):
    """A stored-nowhere float that shows and edits the raw property ``raw`` with a unit."""
    return FloatProperty(
        name=name, description=description, subtype=subtype, unit=unit,
        get=lambda self: getattr(self, raw),
        set=lambda self, value: setattr(self, raw, value),
        **{**UNBOUNDED, **kwargs},
    )
