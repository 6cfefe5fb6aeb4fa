"""Render MuJoCo robots imported with their sites, a sensor and robot cameras, and a frame from a camera.

Run: .venv/bin/python examples/render_mujoco_model.py
Writes docs/mujoco_model.png, three Cycles frames side by side: tests/data/mjcf_everything.xml's arm
with its sites, its rangefinder sensor and its camera 'eye'; Newton's nv_humanoid with its touch sites
and its camera 'side'; the scene seen through 'side'. Sites and sensors are Empties in Blender, which
a render leaves out: each is drawn here as a mesh of its kind and size (sensors as an arrow), cameras
as wire pyramids.
"""

import importlib.util
import math
import sys
from pathlib import Path


import bpy
import bmesh  # noqa: E402 (after bpy)
from mathutils import Matrix, Vector

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "examples"))
import _render  # noqa: E402
import _support  # noqa: E402

EVERYTHING = REPO / "tests/data/mjcf_everything.xml"
HUMANOID = Path(importlib.util.find_spec("newton").origin).parent / "examples" / "assets" / "nv_humanoid.xml"
OUT = REPO / "out" / "mujoco_model"
SIZE = (400, 300)
GREEN = (0.1, 0.75, 0.35, 0.75)
MUJOCO_GREY = (0.5, 0.5, 0.5, 1.0)  # a site's default rgba: drawn GREEN
SMALLEST = 0.015  # m: a site is drawn at least this large
overlay = None


def imported(path):
    """A fresh scene with the robot imported, its floor and lights hidden from the render (the stage's)."""
    global overlay
    scene = _support.empty_scene()
    assert bpy.ops.articula.import_mjcf(filepath=str(path)) == {"FINISHED"}
    overlay = bpy.data.collections.new("overlay")
    scene.collection.children.link(overlay)
    for obj in scene.objects:
        if obj.name.startswith("floor") or obj.type == "LIGHT":
            obj.hide_render = True
    return scene


def role(scene, kind, obj_type="EMPTY"):
    return {o.name: o for o in scene.objects if o.type == obj_type and getattr(o.articula, kind).enabled}


def material(name, rgba):
    mat = _render._material(name, rgba, roughness=0.4)
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Alpha"].default_value = rgba[3]
    if hasattr(mat, "blend_method"):
        mat.blend_method = "BLEND"
    return mat


def mesh_object(name, bm, matrix, mat):
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new(name, mesh)
    obj.matrix_world = matrix
    mesh.materials.append(mat)
    overlay.objects.link(obj)
    return obj


def site_mesh(site_obj):
    """A mesh of the site's kind and size where its Empty stands (capsules and cylinders along Z)."""
    props = site_obj.articula.site
    size, bm = tuple(max(s, SMALLEST) for s in props.size), bmesh.new()
    if props.kind == "BOX":
        bmesh.ops.create_cube(bm, size=2.0, matrix=Matrix.Diagonal((*size, 1.0)))
    elif props.kind in ("CAPSULE", "CYLINDER"):
        radius, half = size[0], size[1]
        bmesh.ops.create_cone(bm, cap_ends=True, segments=24, radius1=radius, radius2=radius, depth=2 * half)
        if props.kind == "CAPSULE":
            for z in (-half, half):
                bmesh.ops.create_uvsphere(bm, u_segments=24, v_segments=12, radius=radius,
                                          matrix=Matrix.Translation((0, 0, z)))
    else:
        scale = size if props.kind == "ELLIPSOID" else (size[0],) * 3
        bmesh.ops.create_uvsphere(bm, u_segments=16, v_segments=8, radius=1.0,
                                  matrix=Matrix.Diagonal((*scale, 1.0)))
    frame = site_obj.matrix_world.normalized()
    color = tuple(props.color)
    if color == MUJOCO_GREY:
        color = GREEN
    color = (*color[:3], max(color[3], 0.45))
    return mesh_object(f"{site_obj.name}_drawn", bm, frame, material(f"site_{color}", color))


def arrow_mesh(obj, length=0.25):
    """A yellow arrow along the sensor Empty's +Z (its single-arrow display)."""
    bm = bmesh.new()
    bmesh.ops.create_cone(bm, cap_ends=True, segments=16, radius1=0.008, radius2=0.008, depth=length,
                          matrix=Matrix.Translation((0, 0, length / 2)))
    bmesh.ops.create_cone(bm, cap_ends=True, segments=16, radius1=0.025, radius2=0.0, depth=0.06,
                          matrix=Matrix.Translation((0, 0, length + 0.03)))
    return mesh_object(f"{obj.name}_drawn", bm, obj.matrix_world.normalized(),
                       material("sensor", (1.0, 0.8, 0.0, 1.0)))


def frustum_mesh(cam, depth):
    """The camera's field of view as a wire pyramid, to ``depth`` in front of it."""
    data = cam.data
    half_h = math.tan(data.angle_y / 2) * depth
    half_w = half_h * SIZE[0] / SIZE[1]
    bm = bmesh.new()
    apex = bm.verts.new((0, 0, 0))
    corners = [bm.verts.new((x * half_w, y * half_h, -depth))
               for x, y in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    for i in range(4):
        bm.faces.new((apex, corners[i], corners[(i + 1) % 4]))
    obj = mesh_object(f"{cam.name}_frustum", bm, cam.matrix_world.normalized(),
                      material("camera", (0.1, 0.1, 0.1, 1.0)))
    wire = obj.modifiers.new("wire", "WIREFRAME")
    wire.thickness = depth / 60
    return obj


def corners(objects):
    return [o.matrix_world @ Vector(c) for o in objects for c in o.bound_box]


def render(scene, name, view, points):
    _render.frame_points(scene.camera, points, view, margin=1.05, size=SIZE)
    return _render.render_frames(scene, [1], OUT, name)[0]


def everything_close_up():
    """mjcf_everything.xml's arm: its sites, the rangefinder on the fingertip, the torso's camera 'eye'."""
    scene = imported(EVERYTHING)
    sites, sensors = role(scene, "site"), role(scene, "sensor")
    print(f"everything: {len(sites)} sites, {len(sensors)} sensors")
    for site in sites.values():
        site_mesh(site)
    sensor = sensors["range"]
    print("sensor range:", sensor.articula.sensor.kind, "on", sensor.articula.sensor.target.name)
    arrow_mesh(sensor)
    frustum_mesh(role(scene, "camera", "CAMERA")["eye"], depth=0.12)
    arm_bodies = ("torso", "upper", "lower", "finger")
    arm = [o for o in _render._render_objects(scene) if o.name.split("_")[0] in arm_bodies]
    view = (0.9, -1.6, 0.8)
    _render.build_stage(scene, [1], view=view, ground_z=-0.001, size=SIZE)
    tip = sensor.matrix_world.translation
    return render(scene, "close", view, corners(arm) + [tip + Vector((0, 0, 0.3))])


def humanoid_and_its_camera():
    """nv_humanoid.xml: its touch and force-torque sites, its camera 'side', and what that camera sees."""
    scene = imported(HUMANOID)
    sites, cameras = role(scene, "site"), role(scene, "camera", "CAMERA")
    print(f"humanoid: {len(sites)} sites, cameras {sorted(cameras)}")
    for site in sites.values():
        site_mesh(site)
    camera = cameras["side"]
    frustum = frustum_mesh(camera, depth=1.8)
    robot = [o for o in _render._render_objects(scene) if o.users_collection[0] != overlay]
    low = min(p.z for p in corners(robot))
    view = (1.6, -0.7, 0.45)
    _render.build_stage(scene, [1], view=view, ground_z=low, size=SIZE)
    wide = render(scene, "wide", view, corners(robot + [frustum]))
    frustum.hide_render = True
    scene.camera = camera  # what Look Through Robot Camera does
    through = _render.render_frames(scene, [1], OUT, "robot_camera")[0]
    return wide, through


close = everything_close_up()
wide, through = humanoid_and_its_camera()
sheet = _render.contact_sheet([close, wide, through], REPO / "docs" / "mujoco_model.png", columns=3)
print("wrote", sheet)
