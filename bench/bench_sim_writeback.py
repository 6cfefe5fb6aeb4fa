"""Pose write-back of 1000 parented body objects vs the bare ``foreach_set`` floor, in one run.

RATIO sim_writeback_1000 = floor time / Articula time per frame (best of RUNS x FRAMES).
Floor (FACTS): ``objects.foreach_set("location"/"rotation_quaternion")`` of ready arrays plus
``update_tag(refresh={'OBJECT'})`` per object. Articula also turns world poses into
parent-relative ones (100 chains of 10 bodies). Aim: >= 0.8.
"""

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_usd_export import load_articula  # noqa: E402

CHAINS, LINKS, FRAMES, RUNS = 100, 10, 20, 3


def main():
    import bpy

    load_articula()
    from articula.addon.adapters.poses_to_blender import BodyWriter

    objects, poses = [], []
    for c in range(CHAINS):
        parent = None
        for k in range(LINKS):
            obj = bpy.data.objects.new(f"body_{c:03d}_{k:02d}", None)
            bpy.context.scene.collection.objects.link(obj)
            obj.parent = parent
            obj.location = (0.0, 0.0, 0.1) if parent else (c * 1.0, 0.0, 0.0)
            objects.append(obj)
            parent = obj
    bpy.context.view_layer.update()
    for obj in objects:
        location, rotation, _ = obj.matrix_world.decompose()
        poses.append([*location, *rotation])
    poses = np.array(poses)
    row_of = {o.name: i for i, o in enumerate(objects)}
    writer = BodyWriter(objects, poses, list(range(len(objects))), row_of)
    rng = np.random.default_rng(0)
    frames = [poses + np.concatenate([rng.normal(0, 0.01, (len(objects), 3)), np.zeros((len(objects), 4))], 1)
              for _ in range(FRAMES)]

    def articula():
        started = time.perf_counter()
        for frame in frames:
            writer.write(frame)
        return (time.perf_counter() - started) / FRAMES

    count = len(bpy.data.objects)
    location = np.zeros(count * 3, dtype=np.float32)
    rotation = np.tile(np.array([1, 0, 0, 0], dtype=np.float32), count)

    def floor():
        started = time.perf_counter()
        for _ in frames:
            bpy.data.objects.foreach_set("location", location)
            bpy.data.objects.foreach_set("rotation_quaternion", rotation)
            for obj in objects:
                obj.update_tag(refresh={"OBJECT"})
        return (time.perf_counter() - started) / FRAMES

    articula(), floor()
    ours = min(articula() for _ in range(RUNS))
    base = min(floor() for _ in range(RUNS))
    print(f"RATIO sim_writeback_{len(objects)} {base / ours:.3f} 0.8 floor {base * 1000:.2f} ms/frame, "
          f"Articula (world -> parent-relative + foreach_set + tags) {ours * 1000:.2f} ms/frame")


if __name__ == "__main__":
    main()
