"""Import 200- and 2,000-body UsdPhysics files with Articula and with Blender's own USD importer.

RATIO usd_import_<bodies> = Blender's ``wm.usd_import`` time / ``articula.import_usd`` time (best
of several runs each, the scene emptied between runs, emptying not timed), same file, same
process. Aim: >= 0.5 (at most 2x Blender's time). The files are the core writer's export of
bench_usd_export's scene (10 or 100 arms x 20 links).

``articula.import_usd`` is ``wm.usd_import`` (guides on, for the colliders) plus the USD hook's
``on_import`` (the objects adopted by prim path), with Articula's reader running on a worker
thread meanwhile; Blender's side is timed with the hook off for plain imports (its preference),
so it is Blender's importer alone. The scene (and its Articula settings) is emptied between runs.
Also printed, for the record: Blender's importer with guides on (the objects Articula starts
from, the floor of any import built on it), the core reader alone, and where one more (untimed
for the ratio) import of ours spends its time: Blender's importer up to the hook, the hook's wait
for the reader, the hook's own work (adopting the objects, setting the properties) and Blender's
importer after the hook.
"""

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_usd_export import RUNS, best_time, chain_scene, hook_off, load_articula  # noqa: E402


def empty_blend_data(bpy) -> None:
    bpy.data.batch_remove([item for name in ("objects", "meshes", "materials", "collections")
                           for item in getattr(bpy.data, name)])  # one by one is quadratic
    _reset_settings(bpy.context.scene.articula)


def _reset_settings(group) -> None:
    """The scene's Articula settings back to their defaults (an import into a scene without a robot)."""
    for prop in group.bl_rna.properties:
        if prop.identifier != "rna_type" and prop.type == "COLLECTION":
            getattr(group, prop.identifier).clear()


def measure(robots: int, runs: int) -> None:
    import bpy

    from articula.core.usd.writer import write_usd

    path = os.path.join(tempfile.mkdtemp(prefix="articula-bench-usd-"), "robots.usdc")
    scene = chain_scene(robots=robots)
    write_usd(scene, path)

    def ours():
        assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}

    def blender(guides: bool = False):  # Blender's importer alone: Articula's hook off for plain imports
        with hook_off("_plain_import_enabled"):
            assert bpy.ops.wm.usd_import(filepath=path, import_guide=guides) == {"FINISHED"}

    ours(), blender()  # warm up both
    empty = lambda: empty_blend_data(bpy)  # noqa: E731
    t_ours, t_blender = best_time(ours, runs, before=empty), best_time(blender, runs, before=empty)
    t_guides = best_time(lambda: blender(guides=True), runs, before=empty)
    empty()
    from articula.core.usd.reader import read_usd

    from articula.core.usd import physics_parse

    t_read = best_time(lambda: read_usd(path, parser="python"), runs)  # the bpy-free part of ours
    parse_note = "not in this USD"
    if physics_parse.available():
        t_parse = best_time(lambda: read_usd(path, parser="usd"), runs)
        parse_note = f"{t_parse * 1e3:.1f} ms"
    phases = import_phases(bpy, ours, empty)
    bodies = len(scene.bodies)
    print(f"for the record: {phases}")
    print(f"for the record: core read_usd alone {t_read * 1e3:.1f} ms (in the import it runs on a worker "
          f"thread beside Blender's importer; with parser='usd', USD's C++ parse: {parse_note}); "
          f"wm.usd_import with guides {t_guides * 1e3:.1f} ms "
          f"(ratio {t_blender / t_guides:.3f}: the floor of an import built on Blender's)")
    print(f"bodies {bodies}: articula {t_ours * 1e3:.1f} ms, wm.usd_import {t_blender * 1e3:.1f} ms")
    print(f"RATIO usd_import_{bodies} {t_blender / t_ours:.3f} 0.5 wm.usd_import {t_blender * 1e3:.0f} ms / "
          f"articula.import_usd {t_ours * 1e3:.0f} ms, best of {runs}", flush=True)


def import_phases(bpy, ours, empty) -> str:
    """One more import of ours with its phases timed: Blender's importer until the hook, the hook
    waiting for the reader, the hook's own work, Blender's importer after the hook."""
    from articula.addon import usd_hook
    from articula.core.background import BackgroundCall

    marks = {}
    import_physics, result = usd_hook.import_physics, BackgroundCall.result

    def timed_import_physics(*args, **kwargs):
        marks["hook"] = time.perf_counter()
        try:
            return import_physics(*args, **kwargs)
        finally:
            marks["hook_end"] = time.perf_counter()

    def timed_result(call):
        started = time.perf_counter()
        try:
            return result(call)
        finally:
            marks["waited"] = marks.get("waited", 0.0) + time.perf_counter() - started

    empty()
    usd_hook.import_physics, BackgroundCall.result = timed_import_physics, timed_result
    try:
        started = time.perf_counter()
        ours()
        ended = time.perf_counter()
    finally:
        usd_hook.import_physics, BackgroundCall.result = import_physics, result
    ms = lambda seconds: f"{seconds * 1e3:.0f} ms"  # noqa: E731
    hook, hook_end, waited = marks["hook"], marks["hook_end"], marks.get("waited", 0.0)
    own = hook_end - hook - waited
    return (f"one import of ours, {ms(ended - started)}: Blender's importer until the hook (its prim map "
            f"read) {ms(hook - started)}, the hook waiting for the reader {ms(waited)}, the hook's own work "
            f"{ms(own)}, after the hook {ms(ended - hook_end)}")


def main():
    import bpy

    load_articula()
    measure(10, RUNS)
    empty_blend_data(bpy)
    measure(100, 2)


if __name__ == "__main__":
    main()
