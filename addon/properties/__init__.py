"""PropertyGroups, registered in dependency order; ``Object.articula`` and ``Scene.articula``."""

import importlib

import bpy

# A module's groups may point to groups of the modules before it.
_MODULES = ("actuator_props", "tendon_props", "dof_props", "joint_props", "body_props", "collider_props",
            "site_props", "camera_props", "light_props", "sensor_props", "object_props", "material_props",
            "filtered_pair_props", "problem_props", "keyframe_props", "equality_props",
            "tendon_equality_props", "contact_pair_props",
            "spatial_tendon_props", "mujoco_props", "scene_props")


def _classes():
    return [cls for name in _MODULES for cls in importlib.import_module(f".{name}", __package__).classes]


def register():
    for cls in _classes():
        bpy.utils.register_class(cls)
    from .object_props import ArticulaObjectProps
    from .scene_props import ArticulaSceneProps

    bpy.types.Object.articula = bpy.props.PointerProperty(type=ArticulaObjectProps)
    bpy.types.Scene.articula = bpy.props.PointerProperty(type=ArticulaSceneProps)


def unregister():
    del bpy.types.Scene.articula
    del bpy.types.Object.articula
    for cls in reversed(_classes()):
        bpy.utils.unregister_class(cls)
