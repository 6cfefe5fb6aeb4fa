"""Operators: thin; they move data between Blender and the layers below."""

from ..addon.registration import module_registrar

# Registered in this order, unregistered in reverse.
register, unregister = module_registrar(__package__, (
    "authoring", "robot_state", "mujoco_model", "validate", "io_usd", "io_mjcf", "io_urdf", "simulate", "bake",
    "sensor_readings", "sensor_authoring"))
