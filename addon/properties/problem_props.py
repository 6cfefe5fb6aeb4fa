"""One problem found by ``articula.validate``, listed in the scene panel."""

import bpy
from bpy.props import EnumProperty, StringProperty

SEVERITIES = [
    ("ERROR", "Error", "The scene cannot be simulated or exported correctly"),
    ("WARNING", "Warning", "Allowed, but probably not what was meant"),
]


class ArticulaProblemProps(bpy.types.PropertyGroup):
    severity: EnumProperty(name="Severity", items=SEVERITIES, default="ERROR")
    message: StringProperty(name="Message")
    object_name: StringProperty(name="Object", description="The object the problem concerns")


classes = (ArticulaProblemProps,)
