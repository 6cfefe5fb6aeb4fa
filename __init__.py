"""Articula: author robot physics in Blender, exchange it as OpenUSD, simulate it on Warp (Newton).

The layers register bottom-up and unregister top-down. Blender modules are imported inside
``register()`` so that the bpy-free layers (``core``, ``sim``) stay importable from plain Python.
"""

import importlib

_LAYERS = ("addon", "operators", "panels")


def _layer(name):
    return importlib.import_module(f".{name}", __package__)


def register():
    for name in _LAYERS:
        _layer(name).register()


def unregister():
    for name in reversed(_LAYERS):
        _layer(name).unregister()
