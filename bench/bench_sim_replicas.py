"""Replica display write-back: 1000 replicas x 10 visuals (Geometry Nodes instancing), in one run.

RATIO sim_replicas_writeback_1000x10 = floor time / Articula time per frame (best of RUNS x FRAMES).
Floor: the bare batches on the same points objects, arrays ready: per object
``attributes["position"]`` and the rotation attribute ``foreach_set`` + ``update_tag()``.
Articula (``addon.replicas.ReplicaDisplay.write``) also gathers each replica's body pose rows out
of the simulation's ``body_poses()`` array (float64 rows of 7) into those float32 arrays: about
0.1 ms of numpy for 10,000 poses, against a floor of ~0.05 ms, so the ratio stays well under the
0.8 aim while the whole write stays far below the depsgraph's evaluation of the instances.

RATIO sim_replicas_vs_objects_1000x10 = the same poses written to 10,000 separate objects (the
``objects.foreach_set`` + ``update_tag(refresh={'OBJECT'})`` floor, FACTS) / Articula. Aim: >= 5.
The note gives the depsgraph evaluation of the 9,990 instances too (not part of either ratio).
"""

import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_usd_export import load_articula  # noqa: E402

REPLICAS, BODIES, FRAMES, RUNS = 1000, 10, 20, 3


def best(run) -> float:
    run()
    return min(run() for _ in range(RUNS))


def per_frame(write, frames) -> callable:
    """Mean time of ``write(poses)``, each frame's poses fresh in the cache as ``body_poses()`` leaves them."""
    current = np.empty_like(frames[0])

    def run():
        spent = 0.0
        for poses in frames:
            np.copyto(current, poses)
            started = time.perf_counter()
            write(current)
            spent += time.perf_counter() - started
        return spent / len(frames)
    return run


def robot(bpy, scene):
    """BODIES body empties in a row, each with a cube mesh visual child; their Visual records."""
    mesh = bpy.data.meshes.new("cube")
    mesh.from_pydata([(x, y, z) for x in (-.1, .1) for y in (-.1, .1) for z in (-.1, .1)], [],
                     [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)])
    visuals = []
    for i in range(BODIES):
        body = bpy.data.objects.new(f"body_{i}", None)
        visual = bpy.data.objects.new(f"body_{i}_visual", mesh)
        for obj in (body, visual):
            scene.collection.objects.link(obj)
        body.location = (0.3 * i, 0.0, 1.0)
        visual.parent = body
        visuals.append(SimpleNamespace(name=visual.name, body=body.name))
    bpy.context.view_layer.update()
    return visuals


def random_frames(rng, count: int) -> list[np.ndarray]:
    frames = []
    for _ in range(FRAMES):
        rotation = rng.normal(size=(count, 4))
        rotation /= np.linalg.norm(rotation, axis=1, keepdims=True)
        frames.append(np.concatenate([rng.uniform(-50, 50, (count, 3)), rotation], axis=1))
    return frames


def main():
    import bpy

    load_articula()
    from articula.addon.replicas import ROTATION, ReplicaDisplay, replica_visuals

    scene = bpy.context.scene
    visuals = robot(bpy, scene)
    body_keys = [(f"body_{i}", r) for r in range(REPLICAS) for i in range(BODIES)]
    display = ReplicaDisplay(scene, replica_visuals(scene, visuals, body_keys))
    frames = random_frames(np.random.default_rng(0), len(body_keys))
    ours = best(per_frame(display.write, frames))

    ready = display.gather(frames[0])
    position = [np.ascontiguousarray(ready[s:e, :3]).ravel() for s, e in display.spans]
    rotation = [np.ascontiguousarray(ready[s:e, 3:]).ravel() for s, e in display.spans]

    def floor_write(_poses):
        for obj, p, q in zip(display.objects, position, rotation):
            obj.data.attributes["position"].data.foreach_set("vector", p)
            obj.data.attributes[ROTATION].data.foreach_set("value", q)
            obj.data.update_tag()

    floor = best(per_frame(floor_write, frames))

    started = time.perf_counter()
    bpy.context.view_layer.update()
    evaluate = time.perf_counter() - started
    instances = sum(1 for i in bpy.context.evaluated_depsgraph_get().object_instances if i.is_instance)

    copies = [bpy.data.objects.new(f"copy_{k:05d}", None) for k in range(len(display.rows))]
    for obj in copies:
        scene.collection.objects.link(obj)
    count = len(bpy.data.objects)
    location = np.zeros(count * 3, dtype=np.float32)
    quaternion = np.tile(np.array([1, 0, 0, 0], dtype=np.float32), count)

    def objects_write(_poses):
        bpy.data.objects.foreach_set("location", location)
        bpy.data.objects.foreach_set("rotation_quaternion", quaternion)
        for obj in copies:
            obj.update_tag(refresh={"OBJECT"})

    separate = best(per_frame(objects_write, frames[:5]))
    size = f"{REPLICAS} replicas x {BODIES} visuals"
    print(f"RATIO sim_replicas_writeback_{REPLICAS}x{BODIES} {floor / ours:.3f} 0.8 {size}: floor (foreach_set "
          f"position + rotation + update_tag per points object) {floor * 1000:.3f} ms/frame, Articula "
          f"(gather pose rows + the same) {ours * 1000:.3f} ms/frame")
    print(f"RATIO sim_replicas_vs_objects_{REPLICAS}x{BODIES} {separate / ours:.3f} 5 {len(copies)} separate "
          f"objects (objects.foreach_set + update_tag) {separate * 1000:.2f} ms/frame vs Articula instancing "
          f"{ours * 1000:.3f} ms/frame; depsgraph evaluation of {instances} instances {evaluate * 1000:.1f} ms")


if __name__ == "__main__":
    main()
