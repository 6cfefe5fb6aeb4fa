"""``blender -b -c articula convert IN OUT``, ``... check FILE``, ``... simulate FILE``: the command line
inside Blender 4.2+.

The same commands as the ``articula`` program (:mod:`sim.cli`), reading and writing USD with
Blender's own pxr; registered with Blender while Articula is enabled, gone when it is disabled.
"""

import bpy

from .pxr_runtime import ensure_blender_pxr

COMMAND = "articula"
_handle = None


def execute(argv: list[str]) -> int:
    """Blender's callback: the arguments after ``-c articula``; returns the exit code."""
    ensure_blender_pxr()
    from ..sim.cli import main

    return main(argv, prog=f"blender -c {COMMAND}")


def register():
    global _handle
    if _handle is None and hasattr(bpy.utils, "register_cli_command"):  # Blender 4.2+
        _handle = bpy.utils.register_cli_command(COMMAND, execute)


def unregister():
    global _handle
    if _handle is not None:
        bpy.utils.unregister_cli_command(_handle)
        _handle = None
