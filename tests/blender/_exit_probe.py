"""Run by test_exit.py in a fresh process: enable and disable Articula a few times the way a script
using the bpy module does, then end with it enabled or disabled (argv[2]), never disabling it at
the end."""

import importlib.util
import os
import sys
import tempfile

os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="articula-exit-"))
import bpy  # noqa: E402

root, last_state = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location("articula", os.path.join(root, "__init__.py"),
                                              submodule_search_locations=[root])
articula = importlib.util.module_from_spec(spec)
sys.modules["articula"] = articula
spec.loader.exec_module(articula)
from articula.addon.pxr_runtime import ensure_blender_pxr  # noqa: E402

ensure_blender_pxr()
for _ in range(3):
    articula.register()
    articula.unregister()
if last_state == "enabled":
    articula.register()
    assert hasattr(bpy.types.Object, "articula")
print(f"{last_state}, exiting", flush=True)
