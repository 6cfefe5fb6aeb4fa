"""Render the quadruped being pulled up by its front through the live Simulate's grab, recorded.

Run: .venv/bin/python examples/render_simulate_grab.py
Writes docs/simulate_grab.png (a 2x2 contact sheet of Cycles frames) and prints what it measured.
"""

import sys
from pathlib import Path

import bpy
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "examples"))
import _render  # noqa: E402
import _support  # noqa: E402

_support.articula()
from articula.addon.adapters.description_to_blender import build_scene  # noqa: E402
from articula.core.samples import quadruped  # noqa: E402
from articula.operators import simulate  # noqa: E402

scene = _support.empty_scene()
scene.render.fps, scene.render.fps_base = 24, 1.0
scene.frame_start, scene.frame_end = 1, 96
scene.frame_set(1)
robot = quadruped()
for visual in robot.visuals:
    visual.color = (0.15, 0.17, 0.2, 1.0) if visual.body == "torso" else (0.95, 0.55, 0.1, 1.0) \
        if "thigh" in visual.body else (0.85, 0.85, 0.88, 1.0)
objects = build_scene(bpy.context, robot)
scene.articula.record_simulation = True

loop = simulate.start_loop(bpy.context, "MUJOCO", record=True)
pulls = {}  # frame -> (grabbed point, target)
for _ in range(23):  # lands and stands
    loop.handle("TIMER")
torso = loop.session.sim.body_poses()[loop.session.row_of["torso"]]
front = torso[:3] + np.array((0.28, 0.0, 0.0))
origin = front + np.array((0.0, 0.0, 2.0))
assert loop.handle("LEFTMOUSE", "PRESS", ray=(origin, (0, 0, -1)), ctrl=True) == "RUNNING", loop.message
depth = loop.grab._depth
print("grabbed", loop.grab.point, "cap", round(loop.grab.max_force, 1), "N")
largest = 0.0
for i in range(1, 50):  # the mouse moves up 0.45 m and forward 0.1 m over 2 s, then holds
    t = min(1.0, i / 36)
    lifted = origin + np.array((0.1 * t, 0.0, 0.45 * t))
    loop.handle("MOUSEMOVE", "NOTHING", ray=(lifted, (0, 0, -1)))
    loop.handle("TIMER")
    largest = max(largest, loop.grab.largest_force)
    pulls[loop.session.frame] = (loop.grab.point.copy(), loop.grab.target.copy())
loop.handle("LEFTMOUSE", "RELEASE", ray=(lifted, (0, 0, -1)))
for _ in range(24):  # let go: it drops back
    loop.handle("TIMER")
print("largest force", round(largest, 1), "N; frames recorded", loop.recording.frames)
assert loop.handle("RET") == "FINISHED"

# The pull as a thin orange tube in the render (the viewport draws it as a line).
curve = bpy.data.curves.new("pull", "CURVE")
curve.dimensions, curve.bevel_depth = "3D", 0.008
spline = curve.splines.new("POLY")
spline.points.add(1)
line = bpy.data.objects.new("pull", curve)
scene.collection.objects.link(line)
material = _render._material("pull", (0.9, 0.05, 0.05, 1.0))
curve.materials.append(material)

frames = [24, 45, 72, 96]
_render.build_stage(scene, frames, view=(0.2, -1.6, 0.5))
out = REPO / "out" / "simulate_grab"
paths = []
for frame in frames:
    scene.frame_set(frame)
    pull = pulls.get(frame)
    line.hide_render = pull is None
    if pull is not None:
        for p, xyz in zip(spline.points, pull):
            p.co = (*xyz, 1.0)
    paths.append(_render.render_frames(scene, [frame], out, "grab")[0])
sheet = _render.contact_sheet(paths, REPO / "docs" / "simulate_grab.png")
print("wrote", sheet)
