"""One problem found by ``articula.validate``, listed in the scene panel."""

import bpy
from bpy.props import EnumProperty, StringProperty

SEVERITIES = [
    ("ERROR", "Error", "The scene cannot be simulated or exported correctly"),
    ("WARNING", "Warning", "Allowed, but probably not what was meant"),
]


#: Validation rule -> (operator, its arguments, button text): what fixes the problem on its object.
FIXES = {
    "triangle_mesh_on_moving_body": ("articula.set_collider", {"shape": "CONVEX_DECOMPOSITION"},
                                     "Convex Decomposition"),
}


class ArticulaProblemProps(bpy.types.PropertyGroup):
    severity: EnumProperty(name="Severity", items=SEVERITIES, default="ERROR")
    message: StringProperty(name="Message")
    object_name: StringProperty(name="Object", description="The object the problem concerns")
    code: StringProperty(name="Rule", description="The validation rule that found the problem")

    @property
    def fix(self):
        """(operator, arguments, button text) that fixes the problem on its object, else None."""
        return FIXES.get(self.code) if self.object_name else None


classes = (ArticulaProblemProps,)
