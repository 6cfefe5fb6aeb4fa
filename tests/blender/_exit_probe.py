"""Run by test_exit.py in a fresh process: enable and disable Articula a few times the way a script
using the bpy module does, then end with it enabled or disabled (argv[2]), never disabling it at
the end."""

import os
import sys
import tempfile

os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="articula-exit-"))
import bpy  # noqa: E402

last_state = sys.argv[2]
import articula  # noqa: E402
from articula.addon.pxr_runtime import ensure_blender_pxr  # noqa: E402

ensure_blender_pxr()
for _ in range(3):
    articula.register()
    articula.unregister()
if last_state == "enabled":
    articula.register()
    assert hasattr(bpy.types.Object, "articula")
print(f"{last_state}, exiting", flush=True)
