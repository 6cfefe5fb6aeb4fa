"""Terrain in Blender: an MJCF height field imports as a collider whose mesh is the surface grid and exports
back the same; a Grid a user displaces and sets to Height Field exports as an hfield whose surface is the
mesh's; a ball dropped on it in a MuJoCo bake rests on it; bad input is refused naming the object."""

import math
import os
import sys

import bpy
import numpy as np
import pytest
from mathutils import Vector
from mathutils.bvhtree import BVHTree

mujoco = pytest.importorskip("mujoco")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "core"))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from authoring_helpers import blender_differences, snapshot_scene  # noqa: E402
from mjcf_compare import mjcf_differences  # noqa: E402
from robot_files import mujoco_robot  # noqa: E402
from test_panels_draw import draw_panel, drawn_props  # noqa: E402

from articula.panels import physics  # noqa: E402

MUJOCO_WARP_DATA = os.path.join(ROOT, ".venv", "lib", "python3.13", "site-packages", "mujoco_warp", "test_data")
HFIELD_XML = os.path.join(MUJOCO_WARP_DATA, "hfield", "hfield.xml")
RAY_XML = os.path.join(MUJOCO_WARP_DATA, "ray.xml")  # a 3 x 2 grid, raised 1 m
SURFACE_TOL = 1e-5  # m


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def export(tmp_path, name="out.xml"):
    out = str(tmp_path / name)
    assert bpy.ops.articula.export_mjcf(filepath=out) == {"FINISHED"}
    return mujoco.MjModel.from_xml_path(out)


def height_field_differences(original, ours) -> list:
    return [d for d in mjcf_differences(original, ours) if d.startswith("height field")]


def hfield_geom(model) -> int:
    return next(g for g in range(model.ngeom) if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_HFIELD)


def hfield_world_samples(model, g: int) -> np.ndarray:
    """Every sample of geom ``g``'s hfield as a world point (row 0 at -y, as MuJoCo lays them out)."""
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    h = int(model.geom_dataid[g])
    nrow, ncol = int(model.hfield_nrow[h]), int(model.hfield_ncol[h])
    half_x, half_y, elevation, _ = model.hfield_size[h]
    start = int(model.hfield_adr[h])
    heights = model.hfield_data[start:start + nrow * ncol].reshape(nrow, ncol) * elevation
    ys, xs = np.meshgrid(np.linspace(-half_y, half_y, nrow), np.linspace(-half_x, half_x, ncol),
                         indexing="ij")
    local = np.stack([xs, ys, heights], axis=-1).reshape(-1, 3)
    return data.geom_xpos[g] + local @ data.geom_xmat[g].reshape(3, 3).T


def evaluated_world_vertices(obj) -> np.ndarray:
    mesh = obj.evaluated_get(bpy.context.evaluated_depsgraph_get()).data
    return np.array([tuple(obj.matrix_world @ v.co) for v in mesh.vertices])


def nearest_distances(points: np.ndarray, targets: np.ndarray) -> np.ndarray:
    return np.array([np.min(np.linalg.norm(targets - p, axis=1)) for p in points])


# --- import and export of real terrain ------------------------------------------------------------------

@pytest.mark.skipif(not os.path.isfile(HFIELD_XML), reason="mujoco-warp's test data is not installed")
def test_mujoco_warps_terrain_comes_in_as_its_surface_and_goes_back_the_same(clean_scene, tmp_path, capfd):
    assert bpy.ops.articula.import_mjcf(filepath=HFIELD_XML) == {"FINISHED"}
    original = mujoco.MjModel.from_xml_path(HFIELD_XML)
    terrain = next(o for o in clean_scene.objects if o.articula.collider.shape == "HEIGHT_FIELD")
    floor = next(o for o in clean_scene.objects if o.articula.collider.shape == "PLANE")
    props = terrain.articula.collider
    assert terrain.type == "MESH" and props.enabled and terrain.parent is None
    assert (props.hfield_rows, props.hfield_columns, props.hfield_name) == (3, 3, "terrain")
    assert tuple(props.hfield_half_size) == pytest.approx((1.0, 1.0))
    assert (props.hfield_elevation, props.hfield_base) == pytest.approx((0.1, 0.3))
    # the mesh is the surface: one vertex per sample in MuJoCo's order, the middle one raised
    vertices = [tuple(v.co) for v in terrain.data.vertices]
    assert len(vertices) == 9 and len(terrain.data.polygons) == 8
    assert vertices[0] == pytest.approx((-1.0, -1.0, 0.0)) and vertices[4] == pytest.approx((0.0, 0.0, 0.1))
    assert (terrain.display_type, terrain.hide_render) == (floor.display_type, floor.hide_render)
    ours = export(tmp_path)
    assert ours.nhfield == 1 and height_field_differences(original, ours) == []
    _, log = draw_panel(physics.ARTICULA_PT_collider, terrain)
    assert {"hfield_rows", "hfield_columns", "hfield_base"} <= drawn_props(log, "ArticulaColliderProps")
    assert any("elevation 0.1 m" in entry[2] for entry in log if entry[0] == "label")


@pytest.mark.skipif(not os.path.isfile(HFIELD_XML), reason="mujoco-warp's test data is not installed")
def test_terrain_goes_through_usd_and_comes_back_as_a_height_field(clean_scene, tmp_path):
    assert bpy.ops.articula.import_mjcf(filepath=HFIELD_XML) == {"FINISHED"}
    assert bpy.ops.articula.export_usd(filepath=str(tmp_path / "terrain.usda")) == {"FINISHED"}
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    assert bpy.ops.articula.import_usd(filepath=str(tmp_path / "terrain.usda")) == {"FINISHED"}
    terrain = next(o for o in clean_scene.objects if o.articula.collider.shape == "HEIGHT_FIELD")
    props = terrain.articula.collider
    assert (props.hfield_rows, props.hfield_columns, len(terrain.data.vertices)) == (3, 3, 9)
    assert height_field_differences(mujoco.MjModel.from_xml_path(HFIELD_XML), export(tmp_path)) == []


@pytest.mark.skipif(not os.path.isfile(RAY_XML), reason="mujoco-warp's test data is not installed")
def test_a_grid_of_other_rows_than_columns_goes_back_the_same(clean_scene, tmp_path):
    assert bpy.ops.articula.import_mjcf(filepath=RAY_XML) == {"FINISHED"}
    terrain = clean_scene.objects["hfield"]
    assert (terrain.articula.collider.hfield_rows, terrain.articula.collider.hfield_columns) == (3, 2)
    assert height_field_differences(mujoco.MjModel.from_xml_path(RAY_XML), export(tmp_path)) == []


def test_dm_controls_quadruped_keeps_its_flat_terrain(clean_scene, tmp_path):
    path = mujoco_robot("quadruped")
    assert bpy.ops.articula.import_mjcf(filepath=path) == {"FINISHED"}
    terrain = clean_scene.objects["terrain"]
    assert len(terrain.data.vertices) == 201 * 201 and terrain.articula.collider.hfield_elevation == 5.0
    assert height_field_differences(mujoco.MjModel.from_xml_path(path), export(tmp_path)) == []


# --- terrain authored in Blender ------------------------------------------------------------------------

def add_grid(subdivisions=(20, 12), size=2.0):
    x_cuts, y_cuts = subdivisions
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=x_cuts, y_subdivisions=y_cuts, size=size,
                                    location=(0.0, 0.0, 0.0), rotation=(0.0, 0.0, 0.0))  # not at the 3D cursor
    return bpy.context.active_object


def bowl(obj, depth=0.2, ripple=0.02) -> None:
    """Sculpted by hand: each vertex raised with its distance from the centre (lowest in the middle)."""
    for v in obj.data.vertices:
        v.co.z = depth * (v.co.x ** 2 + v.co.y ** 2) + ripple * math.sin(3.0 * v.co.x)
    obj.data.update()


def set_height_field(obj) -> None:
    bpy.ops.object.select_all(action="DESELECT")
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj
    assert bpy.ops.articula.set_collider(shape="HEIGHT_FIELD") == {"FINISHED"}


def test_a_displaced_grid_exports_as_an_hfield_whose_samples_are_its_vertices(clean_scene, tmp_path):
    grid = add_grid()
    bowl(grid)
    texture = bpy.data.textures.new("bumps", "CLOUDS")
    displace = grid.modifiers.new("displace", "DISPLACE")
    displace.texture, displace.direction, displace.strength = texture, "Z", 0.05
    grid.location, grid.rotation_euler, grid.scale = (0.4, -0.2, 0.3), (0.0, 0.0, 0.5), (1.5, 0.8, 2.0)
    set_height_field(grid)
    props = grid.articula.collider
    vertices = evaluated_world_vertices(grid)
    columns = len({round(v.co.x, 5) for v in grid.data.vertices})
    rows = len({round(v.co.y, 5) for v in grid.data.vertices})
    assert (props.hfield_rows, props.hfield_columns) == (rows, columns) and rows != columns
    model = export(tmp_path)
    g = hfield_geom(model)
    assert (int(model.hfield_nrow[0]), int(model.hfield_ncol[0])) == (rows, columns)
    samples = hfield_world_samples(model, g)
    assert nearest_distances(samples, vertices).max() < SURFACE_TOL
    assert np.ptp(samples[:, 2]) > 0.1  # the displaced, scaled relief, not a flat grid
    assert model.hfield_size[0][0] == pytest.approx(1.5, rel=1e-5)  # half x: the grid's 1 m, scaled


def test_a_surface_that_is_no_grid_is_sampled_on_the_rows_and_columns(clean_scene, tmp_path):
    """A grid whose vertices were pushed around in XY (no longer a regular grid) on a tilted plane: every
    hfield sample lies on that plane, whatever the triangles."""
    grid = add_grid((9, 9))
    rng = np.random.default_rng(3)
    for v in grid.data.vertices:
        if abs(v.co.x) < 0.99 and abs(v.co.y) < 0.99:
            v.co.x, v.co.y = v.co.x + rng.uniform(-0.05, 0.05), v.co.y + rng.uniform(-0.05, 0.05)
        v.co.z = 0.3 * v.co.x + 0.1 * v.co.y + 0.5
    grid.data.update()
    set_height_field(grid)
    props = grid.articula.collider
    props.hfield_rows, props.hfield_columns = 13, 17
    model = export(tmp_path)
    assert (int(model.hfield_nrow[0]), int(model.hfield_ncol[0])) == (13, 17)
    samples = hfield_world_samples(model, hfield_geom(model))
    plane = 0.3 * samples[:, 0] + 0.1 * samples[:, 1] + 0.5
    assert np.abs(samples[:, 2] - plane).max() < SURFACE_TOL


def test_an_authored_terrain_keeps_its_surface_through_usd(clean_scene, tmp_path):
    grid = add_grid()
    bowl(grid)
    grid.location, grid.rotation_euler, grid.scale = (0.4, -0.2, 0.3), (0.0, 0.0, 0.5), (1.5, 0.8, 2.0)
    set_height_field(grid)
    vertices = evaluated_world_vertices(grid)
    assert bpy.ops.articula.export_usd(filepath=str(tmp_path / "terrain.usda")) == {"FINISHED"}
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    assert bpy.ops.articula.import_usd(filepath=str(tmp_path / "terrain.usda")) == {"FINISHED"}
    terrain = next(o for o in clean_scene.objects if o.articula.collider.shape == "HEIGHT_FIELD")
    assert nearest_distances(evaluated_world_vertices(terrain), vertices).max() < SURFACE_TOL
    model = export(tmp_path)
    assert nearest_distances(hfield_world_samples(model, hfield_geom(model)), vertices).max() < SURFACE_TOL


def test_a_ball_dropped_on_the_terrain_rests_on_its_surface(clean_scene):
    """Dropped over the bowl's lowest point, 0.3 m above the ground, where it stays (a ball rolls on)."""
    terrain = add_grid((24, 24))
    bowl(terrain, ripple=0.0)
    terrain.location = (0.0, 0.0, 0.3)
    set_height_field(terrain)
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.1, location=(0.0, 0.0, 0.8))
    ball = bpy.context.active_object
    assert bpy.ops.articula.make_body() == {"FINISHED"}
    assert bpy.ops.articula.set_collider(shape="SPHERE") == {"FINISHED"}
    scene = clean_scene
    scene.render.fps, scene.frame_start, scene.frame_end = 25, 1, 75
    assert bpy.ops.articula.bake(solver="MUJOCO") == {"FINISHED"}
    scene.frame_set(75)
    centre = ball.matrix_world.translation.copy()
    mesh = terrain.evaluated_get(bpy.context.evaluated_depsgraph_get()).data
    world = [terrain.matrix_world @ v.co for v in mesh.vertices]
    tree = BVHTree.FromPolygons(world, [tuple(p.vertices) for p in mesh.polygons])
    closest, *_ = tree.find_nearest(centre)
    assert closest is not None and (centre - closest).length == pytest.approx(0.1, abs=3e-3)
    below = tree.ray_cast(centre, Vector((0.0, 0.0, -1.0)))[0]
    assert below is not None and centre.z - below.z == pytest.approx(0.1, abs=5e-3)
    scene.frame_set(74)
    assert (ball.matrix_world.translation - centre).length < 1e-3  # at rest


# --- bad input ------------------------------------------------------------------------------------------

def test_a_mesh_without_faces_is_refused_naming_it(clean_scene, tmp_path):
    mesh = bpy.data.meshes.new("edges")
    mesh.from_pydata([(0, 0, 0), (1, 0, 0), (1, 1, 0)], [(0, 1), (1, 2)], [])
    wire = bpy.data.objects.new("wire_terrain", mesh)
    clean_scene.collection.objects.link(wire)
    bpy.ops.object.select_all(action="DESELECT")
    wire.select_set(True)
    bpy.context.view_layer.objects.active = wire
    before = snapshot_scene(clean_scene)
    with pytest.raises(RuntimeError, match="wire_terrain.*no faces"):
        bpy.ops.articula.set_collider(shape="HEIGHT_FIELD")
    assert blender_differences(before, snapshot_scene(clean_scene)) == []
    wire.articula.collider.enabled, wire.articula.collider.shape = True, "HEIGHT_FIELD"  # by the panel
    before = snapshot_scene(clean_scene)
    with pytest.raises(RuntimeError, match="wire_terrain.*no faces"):
        bpy.ops.articula.export_mjcf(filepath=str(tmp_path / "refused.xml"))
    assert not (tmp_path / "refused.xml").exists()
    assert blender_differences(before, snapshot_scene(clean_scene)) == []


@pytest.mark.parametrize("rows,columns", [(1, 8), (8, 1)])
def test_too_few_rows_or_columns_are_refused_naming_the_object(clean_scene, tmp_path, rows, columns):
    grid = add_grid((6, 6))
    set_height_field(grid)
    grid.articula.collider.hfield_rows, grid.articula.collider.hfield_columns = rows, columns
    before = snapshot_scene(clean_scene)
    with pytest.raises(RuntimeError, match=f"{grid.name}.*at least 2 rows and 2 columns"):
        bpy.ops.articula.export_mjcf(filepath=str(tmp_path / "refused.xml"))
    assert not (tmp_path / "refused.xml").exists()
    assert blender_differences(before, snapshot_scene(clean_scene)) == []
