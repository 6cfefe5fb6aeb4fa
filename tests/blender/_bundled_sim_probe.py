"""Install the extension zip and simulate with ONLY its bundled wheels (what a Blender user gets).

Run by ``test_extension_install.py`` in its own process:

    python _bundled_sim_probe.py <zip> <result.json>

After bpy and numpy load (the Blender application ships numpy), the venv's site-packages leave
``sys.path``, so warp, newton and mujoco can only come from the extension's own wheels.
``BLENDER_USER_RESOURCES`` must point at a throwaway directory. The JSON holds observations only.
"""

import json
import site
import sys
from pathlib import Path

import bpy
import numpy  # noqa: F401  (Blender provides numpy; keep it loaded before the venv disappears)

import addon_utils  # noqa: E402

MODULE = "bl_ext.user_default.articula"
BUNDLED = ("warp", "newton", "mujoco", "mujoco_warp")


def hide_venv_packages() -> list[str]:
    venv_sites = set(site.getsitepackages())
    hidden = [p for p in sys.path if p in venv_sites]
    sys.path[:] = [p for p in sys.path if p not in venv_sites]
    return hidden


def main(zip_path: str, result_path: str) -> None:
    result = {"hidden": hide_venv_packages()}
    result["preloaded"] = sorted(name for name in BUNDLED if name in sys.modules)
    status = bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default",
                                                      enable_on_install=True)
    result["install_status"] = sorted(status)
    package = sys.modules[MODULE]
    samples = __import__(f"{MODULE}.core.samples", fromlist=["samples"])
    build = __import__(f"{MODULE}.addon.adapters.description_to_blender", fromlist=["build_scene"])

    objects = build.build_scene(bpy.context, samples.pendulum())
    scene = bpy.context.scene
    scene.articula.solver = "MUJOCO"
    link = objects["pendulum_link"]
    before = tuple(link.matrix_world.to_quaternion())
    result["bake_status"] = sorted(bpy.ops.articula.bake(frame_start=1, frame_end=24, solver="MUJOCO"))
    scene.frame_set(24)
    after = tuple(link.matrix_world.to_quaternion())
    result["rotation_change"] = max(abs(a - b) for a, b in zip(before, after))
    result["module_files"] = {name: getattr(sys.modules.get(name), "__file__", None) for name in BUNDLED}
    result["extension_site"] = str(Path(bpy.utils.user_resource("EXTENSIONS", path=".local")))
    result["package_file"] = package.__file__
    addon_utils.disable(MODULE, default_set=True)
    Path(result_path).write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
