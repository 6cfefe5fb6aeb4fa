"""Blender's MuJoCo path in a fresh process: register the extension, bake a pendulum on MuJoCo, then
Simulate it live with a Ctrl+drag grab and a Shift+click push. Prints one JSON line: whether Newton and
Warp were loaded after each step, and what the bake and the grab did.

Run by ``test_mujoco_without_warp.py`` (a process of its own: the tier's other tests load Newton)."""

import json
import os
import sys
import tempfile

os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="articula-blender-user-"))

import bpy  # noqa: E402

from articula.addon.pxr_runtime import ensure_blender_pxr  # noqa: E402

ensure_blender_pxr()
import articula  # noqa: E402

OVER_THE_BOB = ((0.5, 0.0, 3.0), (0.0, 0.0, -1.0))


def loaded() -> list[bool]:
    return ["newton" in sys.modules, "warp" in sys.modules]


def main():
    articula.register()
    seen = {"register": loaded()}
    from articula.addon.adapters.description_to_blender import build_scene
    from articula.core import samples
    from articula.operators import simulate

    build_scene(bpy.context, samples.SAMPLES["pendulum"]())
    bpy.context.scene.articula.solver = "MUJOCO"
    seen["bake_result"] = sorted(bpy.ops.articula.bake())
    link = bpy.data.objects["pendulum_link"]
    seen["baked"] = link.animation_data is not None and link.animation_data.action is not None
    seen["bake"] = loaded()
    bpy.ops.articula.clear_bake()
    loop = simulate.start_loop(bpy.context)
    loop.handle("LEFTMOUSE", "PRESS", ray=OVER_THE_BOB, ctrl=True, shift=False)
    seen["grabbing"] = loop.grabbing
    for _ in range(3):
        loop.handle("TIMER")
    seen["pulled"] = loop.grab.largest_force > 0.0
    loop.handle("LEFTMOUSE", "RELEASE", ray=OVER_THE_BOB)
    loop.handle("LEFTMOUSE", "PRESS", ray=OVER_THE_BOB, ctrl=False, shift=True)
    loop.handle("TIMER")
    seen["stopped"] = loop.handle("ESC")
    seen["simulate"] = loaded()
    articula.unregister()
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
