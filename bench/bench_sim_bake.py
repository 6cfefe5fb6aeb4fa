"""Bake keyframes per second: Articula's key writer vs ``keyframe_points.insert(FAST)``, one run.

RATIO bake_mkeys_per_s = millions of keys written per second by ``addon.adapters.simulation_to_keyframes.write_keys``
(100 bodies x 500 frames x 7 channels = 350k keys, layered action); aim >= 3.
RATIO bake_vs_insert_fast = ``keyframe_points.insert(..., options={'FAST'})`` time / Articula's,
same keys (FACTS: 0.75 s for 350k); aim >= 5.
"""

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_usd_export import load_articula  # noqa: E402

BODIES, FRAMES, RUNS = 100, 500, 3


def main():
    import bpy

    load_articula()
    from articula.addon.adapters import simulation_to_keyframes as bake

    objects = []
    for b in range(BODIES):
        obj = bpy.data.objects.new(f"body_{b:03d}", None)
        obj.rotation_mode = "QUATERNION"
        bpy.context.scene.collection.objects.link(obj)
        objects.append(obj)
    t = np.linspace(0.0, 2.0, FRAMES)[:, None]
    locations = np.stack([np.sin(t + b) * np.ones((1, 3)) for b in range(BODIES)], axis=1)
    rotations = np.zeros((FRAMES, BODIES, 4))
    rotations[..., 0] = 1.0
    keys = BODIES * FRAMES * 7

    def clear():
        for obj in objects:
            obj.animation_data_clear()
        for action in list(bpy.data.actions):
            bpy.data.actions.remove(action)

    def articula():
        clear()
        started = time.perf_counter()
        bake.write_keys(objects, 1, locations, rotations)
        return time.perf_counter() - started

    from articula.addon.adapters.animation_to_simulation import _fcurves

    def insert_fast():
        clear()
        started = time.perf_counter()
        for b, obj in enumerate(objects):
            obj.keyframe_insert("location", frame=1)
            obj.keyframe_insert("rotation_quaternion", frame=1)
            for fc in _fcurves(obj.animation_data):
                values = locations[:, b, fc.array_index] if fc.data_path == "location" else \
                    rotations[:, b, fc.array_index]
                points = fc.keyframe_points
                for f in range(FRAMES):
                    points.insert(1 + f, values[f], options={"FAST"})
                fc.update()
        return time.perf_counter() - started

    articula()
    ours = min(articula() for _ in range(RUNS))
    base = insert_fast()
    print(f"RATIO bake_mkeys_per_s {keys / ours / 1e6:.3f} 3 {keys} keys ({BODIES} bodies x {FRAMES} frames x 7) "
          f"in {ours * 1000:.1f} ms, layered action, fast F-curve path")
    print(f"RATIO bake_vs_insert_fast {base / ours:.3f} 5 keyframe_points.insert(FAST) {base:.2f} s "
          f"vs Articula {ours:.3f} s for the same keys")


if __name__ == "__main__":
    main()
