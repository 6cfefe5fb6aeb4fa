"""Panels and menus: they draw properties and call operators, nothing more."""

import importlib

_MODULES = ("physics", "sidebar", "menus")


def register():
    for name in _MODULES:
        importlib.import_module(f".{name}", __package__).register()


def unregister():
    for name in reversed(_MODULES):
        importlib.import_module(f".{name}", __package__).unregister()
