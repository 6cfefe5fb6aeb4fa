"""Blender side of Articula: PropertyGroups, preferences, adapters to and from the core and the
simulation, and the live simulation session."""

from .registration import module_registrar

# Registered in this order, unregistered in reverse.
register, unregister = module_registrar(__package__, ("properties", "preferences", "usd_hook"))
