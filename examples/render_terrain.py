"""Render README's terrain picture: a Grid shaped into hills in Blender, made a Height Field with Set
Collider, and balls dropped on it, baked on MuJoCo (the export's ``<hfield>``); the drop and where the
balls came to rest, side by side.

Run: .venv/bin/python examples/render_terrain.py  (writes docs/terrain.png)
"""

import colorsys

import _render
import _support
import bpy
import numpy as np

_support.articula()

FPS, SECONDS = 25, 4.0
BALL_RADIUS = 0.08
HILLS = [(-0.5, 0.4, 0.45, 0.28), (0.6, -0.3, 0.4, 0.28), (0.1, -0.7, 0.35, 0.22), (-0.7, -0.6, 0.3, 0.25),
         (0.6, 0.7, 0.45, 0.28), (0.0, 0.15, 0.3, 0.18), (-0.9, 0.9, 0.3, 0.25)]  # x, y, height, width (m)


def shaped_grid(scene):
    """A 3 m Grid of 64 x 64 vertices, its vertices raised into a wide bowl with Gaussian hills in it."""
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=64, y_subdivisions=64, size=3.0)
    grid = bpy.context.active_object
    grid.name = "terrain"
    points = np.empty(3 * len(grid.data.vertices))
    grid.data.vertices.foreach_get("co", points)
    points = points.reshape(-1, 3)
    x, y = points[:, 0], points[:, 1]
    z = 0.45 * ((x / 1.5) ** 2 + (y / 1.5) ** 2)
    for cx, cy, height, width in HILLS:
        z += height * np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * width ** 2))
    points[:, 2] = z
    grid.data.vertices.foreach_set("co", points.ravel())
    grid.data.update()
    bpy.ops.object.shade_smooth()
    assert bpy.ops.articula.set_collider(shape="HEIGHT_FIELD") == {"FINISHED"}
    return grid


def dropped_balls(scene) -> list:
    balls = []
    for i, (x, y) in enumerate((x, y) for x in (-0.9, -0.3, 0.3, 0.9) for y in (-0.8, 0.0, 0.8)):
        bpy.ops.mesh.primitive_uv_sphere_add(radius=BALL_RADIUS, location=(x, y, 0.95 + 0.1 * (i % 3)))
        ball = bpy.context.active_object
        ball.name = f"ball_{i}"
        assert bpy.ops.articula.make_body() == {"FINISHED"}
        assert bpy.ops.articula.set_collider(shape="SPHERE") == {"FINISHED"}
        color = colorsys.hsv_to_rgb((i * 0.618) % 1.0, 0.75, 0.85)
        ball.data.materials.append(_render._material(ball.name, (*color, 1.0), 0.35))
        bpy.ops.object.shade_smooth()
        balls.append(ball)
    return balls


def stage(scene, terrain):
    terrain.hide_render, terrain.display_type = False, "TEXTURED"  # a collider, drawn for the picture
    terrain.data.materials.append(_render._material("terrain", (0.25, 0.4, 0.18, 1.0), 0.9))
    _render.aimed_stage(scene, (2.9, -3.2, 2.5), (0.0, 0.0, 0.75), lens=35, sun_energy=2.5,
                        sun_turn_degrees=(45, 15, 40))


def main():
    scene = _support.empty_scene()
    terrain = shaped_grid(scene)
    balls = dropped_balls(scene)
    last = int(SECONDS * FPS)
    scene.render.fps, scene.frame_start, scene.frame_end = FPS, 1, last
    assert bpy.ops.articula.bake(solver="MUJOCO") == {"FINISHED"}
    scene.frame_set(last)
    print("balls at rest:", [tuple(round(c, 2) for c in b.matrix_world.translation) for b in balls])
    stage(scene, terrain)
    _render.configure_cycles(scene, (480, 320))
    scene.cycles.samples = 24
    out = _support.REPO / "out" / "terrain"
    paths = _render.render_frames(scene, (1, last), out, "terrain")
    _render.contact_sheet(paths, _support.REPO / "docs" / "terrain.png", columns=2)


if __name__ == "__main__":
    main()
