"""Render README's convex decomposition picture: the mug, its hulls (one colour each) and a ball
that settled in the cup of the hulls (Newton, MuJoCo solver), drawn in both cups.

Run: .venv/bin/python examples/render_convex_decomposition.py  (writes docs/convex_decomposition.png)
"""

import colorsys

import _render
import _support
import bpy
from mathutils import Vector

_support.articula()
from articula.core import convex, sample_meshes  # noqa: E402
from articula.core.model import Body, PhysicsScene, Pose, SceneSettings, Shape, ShapeKind  # noqa: E402
from articula.sim.simulation import Simulation  # noqa: E402

BALL_RADIUS = 0.02
MUG_X, HULLS_X = -0.07, 0.07  # the mug on the left, its hulls on the right


def settled_ball(hulls) -> Vector:
    """Where a ball dropped into the decomposed cup comes to rest after 1 s."""
    scene = PhysicsScene(settings=SceneSettings(ground_plane=True))
    scene.shapes += convex.hull_shapes("mug", hulls, world=-1)
    scene.bodies.append(Body("ball", Pose((0.005, 0.0, 0.16))))
    scene.shapes.append(Shape("ball_sphere", ShapeKind.SPHERE, "ball", radius=BALL_RADIUS))
    sim = Simulation(scene, device="cpu")
    sim.advance(1.0)
    return Vector(sim.body_poses()[0][:3])


def add_mesh(scene, name, vertices, triangles, color, x):
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(vertices.tolist(), [], triangles.tolist())
    mesh.materials.append(_render._material(name, color, 0.5))
    obj = bpy.data.objects.new(name, mesh)
    obj.location.x = x
    scene.collection.objects.link(obj)
    return obj


def add_ball(scene, mesh, location):
    ball = bpy.data.objects.new("ball", mesh)
    ball.location = location
    scene.collection.objects.link(ball)


def stage(scene):
    _render.aimed_stage(scene, (0.0, -0.16, 0.5), (0.0, 0.0, 0.02), lens=50, sun_energy=3.5,
                        sun_turn_degrees=(40, 10, 30))
    ground = bpy.data.objects.new("ground", _render._plane_mesh("ground", 5.0))
    ground.data.materials.append(_render._material("ground", (0.55, 0.56, 0.58, 1.0), 0.9))
    scene.collection.objects.link(ground)


def main():
    mug = sample_meshes.mug()
    hulls = convex.decompose(*mug, convex.DecompositionSettings(threshold=0.03))
    ball_at = settled_ball(hulls)
    print(f"{len(hulls)} hulls; the ball rests at {tuple(round(c, 3) for c in ball_at)}")

    scene = _support.empty_scene()
    add_mesh(scene, "mug", *mug, (0.85, 0.82, 0.75, 1.0), MUG_X)
    for i, (vertices, triangles) in enumerate(hulls):
        color = colorsys.hsv_to_rgb((i * 0.618) % 1.0, 0.8, 0.75)
        add_mesh(scene, f"hull_{i}", vertices, triangles, (*color, 1.0), HULLS_X)
    bpy.ops.mesh.primitive_uv_sphere_add(radius=BALL_RADIUS)
    sphere = bpy.context.active_object
    ball_mesh = sphere.data
    ball_mesh.materials.append(_render._material("ball", (0.9, 0.2, 0.15, 1.0), 0.3))
    bpy.data.objects.remove(sphere)  # its mesh is drawn once in each cup
    for x in (MUG_X, HULLS_X):
        add_ball(scene, ball_mesh, ball_at + Vector((x, 0.0, 0.0)))
    stage(scene)
    _render.configure_cycles(scene)
    scene.render.resolution_x, scene.render.resolution_y = 480, 270
    scene.cycles.samples = 24
    scene.render.filepath = str(_support.REPO / "docs" / "convex_decomposition.png")
    bpy.ops.render.render(write_still=True)


if __name__ == "__main__":
    main()
