"""Import the largest real robot of the test corpus with Articula and with Blender's own USD importer.

The corpus: the MJCF robots converted by NVIDIA's mujoco-usd-converter (``make corpus``, in
~/.cache/articula/corpus) and the USD robots Newton ships in ``examples/assets``. The largest is the
file with the most rigid bodies (ties: the larger file).

RATIO corpus_import = Blender's ``wm.usd_import`` time / ``articula.import_usd`` time on that file
(best of several runs each, the scene emptied between runs, emptying not timed), same process.
Aim: >= 0.667 (at most 1.5x Blender's time), as for the generated robots in bench_usd_import.
"""

import glob
import importlib.util
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_usd_export import RUNS, best_time, load_articula  # noqa: E402
from bench_usd_import import empty_blend_data  # noqa: E402

CORPUS = os.environ.get("ARTICULA_CORPUS", os.path.expanduser("~/.cache/articula/corpus"))


def candidates() -> list[str]:
    files = glob.glob(os.path.join(CORPUS, "*", "*.usda"))
    newton = importlib.util.find_spec("newton")
    if newton is not None:
        assets = os.path.join(os.path.dirname(newton.origin), "examples", "assets")
        files += glob.glob(os.path.join(assets, "*.usd*"))
    return files


def rigid_bodies(path: str) -> int:
    from pxr import Usd, UsdPhysics

    stage = Usd.Stage.Open(path)
    return sum(1 for prim in stage.Traverse() if prim.HasAPI(UsdPhysics.RigidBodyAPI))


def main():
    import bpy

    load_articula()
    files = candidates()
    if not files:
        print("no corpus: run `make corpus`")
        return
    sized = sorted(((rigid_bodies(f), os.path.getsize(f), f) for f in files), reverse=True)
    bodies, _, path = sized[0]

    def ours():
        assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}

    def blender():
        assert bpy.ops.wm.usd_import(filepath=path) == {"FINISHED"}

    empty = lambda: empty_blend_data(bpy)  # noqa: E731
    ours(), empty(), blender()  # warm up both
    t_ours, t_blender = best_time(ours, RUNS, before=empty), best_time(blender, RUNS, before=empty)
    name = os.path.relpath(path, os.path.dirname(os.path.dirname(path)))
    print(f"{name}: {bodies} rigid bodies; articula {t_ours * 1e3:.1f} ms, wm.usd_import {t_blender * 1e3:.1f} ms")
    print(f"RATIO corpus_import {t_blender / t_ours:.3f} 0.667 {name} ({bodies} bodies): wm.usd_import "
          f"{t_blender * 1e3:.0f} ms / articula.import_usd {t_ours * 1e3:.0f} ms, best of {RUNS}", flush=True)


if __name__ == "__main__":
    main()
