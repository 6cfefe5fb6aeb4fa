"""Blender side of Articula: PropertyGroups, preferences, adapters to and from the core and the
simulation, and the live simulation session."""

import importlib

# Registered in this order, unregistered in reverse.
_MODULES = ("properties", "preferences")


def register():
    for name in _MODULES:
        importlib.import_module(f".{name}", __package__).register()


def unregister():
    for name in reversed(_MODULES):
        importlib.import_module(f".{name}", __package__).unregister()
