"""Operators: thin; they move data between Blender and the layers below."""

import importlib

_MODULES = ("authoring", "validate", "io_usd", "simulate", "bake")


def register():
    for name in _MODULES:
        importlib.import_module(f".{name}", __package__).register()


def unregister():
    for name in reversed(_MODULES):
        importlib.import_module(f".{name}", __package__).unregister()
