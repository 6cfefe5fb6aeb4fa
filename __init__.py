"""Articula: author robot physics in Blender, exchange it as OpenUSD, simulate it on Warp (Newton).

The layers register bottom-up and unregister top-down. Blender modules are imported inside
``register()`` so that the bpy-free layers (``core``, ``sim``) stay importable from plain Python:
``pip install articula`` (``[sim]`` for the simulation) gives the library (``articula.core.formats``:
``read_file``, ``write_file``) and the ``articula`` command (``articula.sim.cli``).
"""

import atexit
import importlib
import sys

__all__ = ["register", "unregister"]

_LAYERS = ("addon", "addon.cli_command", "operators", "panels")


def _layer(name):
    return importlib.import_module(f".{name}", __package__)


def register():
    for name in _LAYERS:
        _layer(name).register()
    # The bpy 4.5 module never exits while an add-on's classes are still registered (its static
    # destructor waits on a sound thread that nothing stops). Blender itself disables the add-ons it
    # enabled (addon_utils, extensions) after this handler runs: only a script that called register()
    # itself, and never unregister(), needs it.
    atexit.register(_unregister_at_exit)


def unregister():
    atexit.unregister(_unregister_at_exit)
    for name in reversed(_LAYERS):
        _layer(name).unregister()


def _unregister_at_exit():
    if not _enabled_by_blender():
        unregister()


def _enabled_by_blender() -> bool:
    bpy = sys.modules["bpy"]  # registered: Blender is loaded (imported here, it would not be at import time)
    preferences = bpy.context.preferences
    return preferences is not None and __package__ in preferences.addons
