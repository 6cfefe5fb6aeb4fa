"""The simulation over a frame range -> keyframes (location + rotation_quaternion): the bake.

Keys are written with the fast path (``keyframe_points.add`` + ``foreach_set("co")``) into one
layered action (Blender 4.4+ slots/layers/strips/channelbags) holding a slot per baked body.
Re-baking replaces the bake; :func:`clear_bake` removes it and puts every body back where it was
before baking (its pose, rotation mode and any action it had).

Replicas: only replica 0 (the real objects) is baked to keyframes; keys for every replica would
need an object per replica and body. Replicas 1..N-1 are baked into the instancing display of
``addon.replicas`` (every frame's poses as points with a frame attribute, played back by the
node group at the scene frame), which clear_bake and re-baking remove with the rest.
"""

from __future__ import annotations

from typing import Optional

import bpy
import numpy as np
from mathutils import Matrix

from ..replicas import ReplicaDisplay, remove_replicas
from ..simulation_session import BlenderSimulation

BAKE_ACTION = "Articula Bake"
BAKE_MARK = "articula_bake"  # on the action
PREBAKE = "articula_prebake"  # on each baked object: what clear_bake restores
LINEAR = 1  # Keyframe.interpolation enum index: CONSTANT, LINEAR, BEZIER
CHANNELS = [("location", i) for i in range(3)] + [("rotation_quaternion", i) for i in range(4)]
def bake_action() -> Optional[bpy.types.Action]:
    return next((a for a in bpy.data.actions if a.get(BAKE_MARK)), None)


def clear_bake(scene) -> int:
    """Remove the bake (and its replica display); restore each baked body's pre-bake pose and
    action. Returns bodies restored."""
    remove_replicas()
    action = bake_action()
    restored = 0
    for obj in scene.objects:
        saved = obj.get(PREBAKE)
        if saved is None:
            continue
        anim = obj.animation_data
        if anim is not None:
            previous = bpy.data.actions.get(saved.get("action", ""))
            anim.action = previous
        obj.rotation_mode = saved["mode"]
        obj.matrix_basis = Matrix(np.reshape(saved["basis"], (4, 4)).tolist())
        del obj[PREBAKE]
        restored += 1
    if action is not None:
        bpy.data.actions.remove(action)
    return restored


def continuous_quaternions(rotation: np.ndarray) -> np.ndarray:
    """Flip signs along the frames (axis 0) so neighbouring keys interpolate the short way."""
    flips = np.ones(rotation.shape[:2])
    dots = np.einsum("fbi,fbi->fb", rotation[1:], rotation[:-1])
    flips[1:] = np.where(dots < 0.0, -1.0, 1.0)
    return rotation * np.cumprod(flips, axis=0)[..., None]


def simulate_frames(session: BlenderSimulation, count: int, progress=None,
                    replicas: Optional[ReplicaDisplay] = None) -> tuple[np.ndarray, np.ndarray, Optional[np.ndarray]]:
    """Local (frames, bodies, 3) locations and (frames, bodies, 4) rotations, start frame first,
    and the (frames, points, 7) world poses of ``replicas`` (None without)."""
    location, rotation = session.local_poses()
    locations = np.empty((count,) + location.shape)
    rotations = np.empty((count,) + rotation.shape)
    points = np.empty((count, len(replicas.rows), 7), dtype=np.float32) if replicas else None
    for i in range(count):
        if i:
            session.advance_frame(write=False)
            if progress:
                progress(i)
        locations[i], rotations[i] = session.local_poses()
        if replicas:
            points[i] = replicas.gather(session.sim.body_poses())
    return locations, continuous_quaternions(rotations), points


def write_keys(objects: list, first_frame: int, locations: np.ndarray, rotations: np.ndarray) -> bpy.types.Action:
    """One layered action, one slot per object, seven F-curves each, every frame keyed."""
    count = locations.shape[0]
    action = bpy.data.actions.new(BAKE_ACTION)
    action[BAKE_MARK] = True
    strip = action.layers.new("Articula").strips.new(type="KEYFRAME")
    co = np.empty(2 * count, dtype=np.float32)
    co[0::2] = np.arange(first_frame, first_frame + count)
    interpolation = np.full(count, LINEAR, dtype=np.int32)
    values = np.concatenate([locations, rotations], axis=2)  # (frames, bodies, 7)
    for b, obj in enumerate(objects):
        anim = obj.animation_data or obj.animation_data_create()
        slot = action.slots.new(id_type="OBJECT", name=obj.name)
        anim.action = action
        anim.action_slot = slot
        bag = strip.channelbag(slot, ensure=True)
        for c, (path, index) in enumerate(CHANNELS):
            curve = bag.fcurves.new(path, index=index)  # (4.5 has no group_name here)
            curve.keyframe_points.add(count)
            co[1::2] = values[:, b, c]
            curve.keyframe_points.foreach_set("co", co)
            curve.keyframe_points.foreach_set("interpolation", interpolation)
            curve.update()
    return action


def bake(context, frame_start: int, frame_end: int, solver: Optional[str] = None, substeps: int = 0,
         on_status=None) -> tuple[BlenderSimulation, bpy.types.Action]:
    """Simulate ``frame_start..frame_end`` and key it; step = 1 / (fps * substeps).

    ``substeps`` 0 picks the count closest to the scene's steps per second."""
    scene = context.scene
    if frame_end <= frame_start:
        raise ValueError(f"the frame range {frame_start}..{frame_end} is empty")
    clear_bake(scene)
    scene.frame_set(frame_start)
    fps = scene.render.fps / scene.render.fps_base
    if substeps <= 0:
        substeps = max(1, round(scene.articula.steps_per_second / fps))
    session = BlenderSimulation(context, solver, dt=1.0 / (fps * substeps), on_status=on_status,
                                show_replicas=False)
    objects = session.writer.objects
    wm = context.window_manager
    count = frame_end - frame_start + 1
    visuals = session.replica_visuals()
    replicas = ReplicaDisplay(scene, visuals, frames=count) if visuals else None
    wm.progress_begin(0, count)
    try:
        locations, rotations, points = simulate_frames(session, count, wm.progress_update, replicas)
    except Exception:
        if replicas:
            replicas.remove()
        session.restore()
        raise
    finally:
        wm.progress_end()
    if replicas:
        replicas.write_frames(frame_start, points)
    for obj, (mode, basis) in zip(objects, session.writer.saved):
        anim = obj.animation_data
        previous = anim.action.name if anim is not None and anim.action is not None else ""
        obj[PREBAKE] = {"mode": mode, "basis": [v for row in basis for v in row], "action": previous}
    action = write_keys(objects, frame_start, locations, rotations)
    scene.frame_set(frame_start)
    return session, action
