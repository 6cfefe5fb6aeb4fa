"""(stub: filled in by its feature)."""

import bpy

classes = ()

register, unregister = bpy.utils.register_classes_factory(classes)
