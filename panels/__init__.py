"""Panels and menus: they draw properties and call operators, nothing more."""

from ..addon.registration import module_registrar

# Registered in this order, unregistered in reverse.
register, unregister = module_registrar(__package__, ("physics", "mujoco", "sidebar", "sensor_readings", "menus"))
