"""Pictures of a baked scene: a stage (camera, sun, ground), Cycles frames, a contact sheet, a plot.

Cycles on the CPU renders headless in the ``bpy`` module (EEVEE and Workbench need a GPU context).
"""

import math
from pathlib import Path

import bpy
import numpy as np
from mathutils import Vector

FRAME_SIZE = (320, 180)  # px; four frames make one 640x360 contact sheet
SAMPLES = 16
STAGE = "Render Stage"  # the collection holding the camera, the sun and the ground


def _material(name, color, roughness=0.6):
    material = bpy.data.materials.new(name)
    if material.node_tree is None:  # Blender 4.x; 5.x materials always have nodes
        material.use_nodes = True
    bsdf = material.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = color
    bsdf.inputs["Roughness"].default_value = roughness
    return material


def _object_color_material():
    """A material whose base color is the object's color (Object Info), for uncolored visuals."""
    material = _material("object_color", (1.0, 1.0, 1.0, 1.0), roughness=0.45)
    nodes, links = material.node_tree.nodes, material.node_tree.links
    info = nodes.new("ShaderNodeObjectInfo")
    links.new(info.outputs["Color"], nodes["Principled BSDF"].inputs["Base Color"])
    return material


def _plane_mesh(name, half_size):
    mesh = bpy.data.meshes.new(name)
    h = half_size
    mesh.from_pydata([(-h, -h, 0.0), (h, -h, 0.0), (h, h, 0.0), (-h, h, 0.0)], [], [(0, 1, 2, 3)])
    mesh.update()
    return mesh


def _render_objects(scene):
    """Meshes that show up in the render (colliders are hidden from it)."""
    return [o for o in scene.objects if o.type == "MESH" and not o.hide_render
            and o.users_collection[0].name != STAGE]


def visible_points(scene, frames, ground_z=0.0) -> list[Vector]:
    """Bounding-box corners of every rendered mesh over ``frames``, in world space.

    Points below the ground are left out: a body that falls through it (collision group 0) would
    otherwise pull the camera kilometres away.
    """
    points = []
    for frame in frames:
        scene.frame_set(frame)
        for obj in _render_objects(scene):
            corners = (obj.matrix_world @ Vector(corner) for corner in obj.bound_box)
            points.extend(p for p in corners if p.z >= ground_z - 0.05)
    return points


def frame_points(camera, points, view, margin=1.1, size=FRAME_SIZE) -> None:
    """Aim ``camera`` along ``-view`` at the points' box centre, just far enough to see them all."""
    low = Vector([min(p[i] for p in points) for i in range(3)])
    high = Vector([max(p[i] for p in points) for i in range(3)])
    centre = (low + high) / 2.0
    back = Vector(view).normalized()
    rotation = (-back).to_track_quat("-Z", "Y")
    right, up = rotation @ Vector((1.0, 0.0, 0.0)), rotation @ Vector((0.0, 1.0, 0.0))
    half_width = camera.data.sensor_width / 2.0 / camera.data.lens  # tan of the half field of view
    half_height = half_width * size[1] / size[0]
    distance = max(max((p - centre).dot(back) + abs((p - centre).dot(right)) * margin / half_width,
                       (p - centre).dot(back) + abs((p - centre).dot(up)) * margin / half_height)
                   for p in points)
    camera.location = centre + back * distance
    camera.rotation_euler = rotation.to_euler()
    camera.data.clip_start = distance / 1000.0
    camera.data.clip_end = distance * 1000.0


def build_stage(scene, frames, view=(1.0, -1.6, 0.7), ground_z=0.0, size=FRAME_SIZE) -> None:
    """A camera framing the motion over ``frames`` from direction ``view``, a sun and a ground.

    The stage lives in its own collection. The ground is a plain mesh (no collider), so it does
    not change the physics.
    """
    stage = bpy.data.collections.new(STAGE)
    scene.collection.children.link(stage)
    camera = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
    camera.data.lens = 50.0
    camera.data.sensor_fit = "HORIZONTAL"  # the sensor's width is the frame's width, portrait too
    frame_points(camera, visible_points(scene, frames, ground_z), view, size=size)
    stage.objects.link(camera)
    scene.camera = camera

    sun = bpy.data.objects.new("sun", bpy.data.lights.new("sun", "SUN"))
    sun.data.energy = 3.5
    sun.data.angle = math.radians(8.0)
    sun.rotation_euler = (math.radians(40.0), math.radians(10.0), math.radians(30.0))
    stage.objects.link(sun)

    ground = bpy.data.objects.new("ground", _plane_mesh("ground", 500.0))
    ground.location.z = ground_z
    ground.data.materials.append(_material("ground", (0.55, 0.56, 0.58, 1.0), roughness=0.9))
    stage.objects.link(ground)

    uncolored = [o for o in _render_objects(scene) if not any(s.material for s in o.material_slots)]
    if uncolored:
        object_color = _object_color_material()
        for obj in uncolored:
            obj.data.materials.append(object_color)

    world = scene.world or bpy.data.worlds.new("World")
    scene.world = world
    if world.node_tree is None:
        world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (0.62, 0.7, 0.8, 1.0)
    world.node_tree.nodes["Background"].inputs["Strength"].default_value = 0.8
    configure_cycles(scene, size)


def aimed_stage(scene, camera_at, look_at, lens: float, sun_energy: float, sun_turn_degrees) -> None:
    """A camera at ``camera_at`` looking at ``look_at``, a sun turned by ``sun_turn_degrees`` (x, y, z)
    and the pale sky of :func:`build_stage`, for pictures framed by hand."""
    camera = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
    camera.data.lens = lens
    camera.location = Vector(camera_at)
    camera.rotation_euler = (Vector(look_at) - camera.location).to_track_quat("-Z", "Y").to_euler()
    scene.collection.objects.link(camera)
    scene.camera = camera
    sun = bpy.data.objects.new("sun", bpy.data.lights.new("sun", "SUN"))
    sun.data.energy = sun_energy
    sun.rotation_euler = tuple(math.radians(a) for a in sun_turn_degrees)
    scene.collection.objects.link(sun)
    scene.world = scene.world or bpy.data.worlds.new("World")
    if scene.world.node_tree is None:
        scene.world.use_nodes = True
    scene.world.node_tree.nodes["Background"].inputs["Color"].default_value = (0.62, 0.7, 0.8, 1.0)


def configure_cycles(scene, size=FRAME_SIZE) -> None:
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = SAMPLES
    scene.cycles.use_denoising = True
    scene.render.resolution_x, scene.render.resolution_y = size
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_mode = "RGB"
    scene.view_settings.view_transform = "Standard"  # keeps the robots' colors as authored


def render_frames(scene, frames, folder: Path, stem: str) -> list[Path]:
    """Render ``frames`` to ``folder/<stem>_<frame>.png`` (after :func:`build_stage`)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for frame in frames:
        scene.frame_set(frame)
        path = folder / f"{stem}_{frame:03d}.png"
        scene.render.filepath = str(path)
        bpy.ops.render.render(write_still=True)
        paths.append(path)
    return paths


def _pixels(path: Path) -> np.ndarray:
    image = bpy.data.images.load(str(path))
    width, height = image.size
    pixels = np.empty(width * height * 4, dtype=np.float32)
    image.pixels.foreach_get(pixels)
    bpy.data.images.remove(image)
    return pixels.reshape(height, width, 4)


def contact_sheet(paths, out: Path, columns: int = 2) -> Path:
    """Tile equally sized PNGs left to right, top to bottom, into one PNG."""
    tiles = [_pixels(p) for p in paths]
    height, width = tiles[0].shape[:2]
    columns = min(columns, len(tiles))
    rows = math.ceil(len(tiles) / columns)
    sheet = np.ones((rows * height, columns * width, 4), dtype=np.float32)
    for i, tile in enumerate(tiles):
        row, column = divmod(i, columns)
        top = (rows - 1 - row) * height  # Blender's pixel rows run bottom-up
        sheet[top:top + height, column * width:(column + 1) * width] = tile
    image = bpy.data.images.new(out.stem, columns * width, rows * height)
    image.pixels.foreach_set(sheet.ravel())
    image.filepath_raw = str(out)
    image.file_format = "PNG"
    out.parent.mkdir(parents=True, exist_ok=True)
    image.save()
    bpy.data.images.remove(image)
    return out


def plot_joint_angles(times, angles: dict, targets: dict, out: Path, title: str) -> Path:
    """Joint angles (solid) and their drive targets (dashed) over time, 640x360 px."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6.4, 3.6), dpi=100)
    for i, (name, values) in enumerate(angles.items()):
        color = f"C{i}"
        axes.plot(times, values, color=color, label=name)
        if name in targets:
            axes.plot(times, targets[name], color=color, linestyle="--", linewidth=0.9)
    axes.set_xlabel("time (s)")
    axes.set_ylabel("joint angle (rad)")
    axes.set_title(title, fontsize=10)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=7, ncol=3, loc="lower left")
    figure.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out)
    plt.close(figure)
    return out
