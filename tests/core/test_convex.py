"""Convex hulls and convex decomposition (CoACD) of concave meshes: coverage, cache, simulation, USD."""

import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from articula.core import convex, sample_meshes
from articula.core.model import Body, PhysicsScene, Pose, SceneSettings, Shape, ShapeKind

if convex.decomposition_unavailable_reason():
    pytest.skip(convex.decomposition_unavailable_reason(), allow_module_level=True)

# Finer than the default threshold: the test meshes' walls are thin (6 to 15% of their size).
FINE = convex.DecompositionSettings(threshold=0.03)
MESHES = {"bowl": sample_meshes.bowl, "mug": sample_meshes.mug, "u_slot": sample_meshes.u_slot}


class _Decompositions(dict):
    def __missing__(self, name):
        mesh = MESHES[name]()
        self[name] = mesh, convex.decompose(*mesh, FINE)
        return self[name]


@pytest.fixture(scope="module")
def decompositions():
    """Each test mesh with its hulls, decomposed once per module on first use."""
    return _Decompositions()


def _sphere_points(count=500, seed=1):
    points = np.random.default_rng(seed).normal(size=(count, 3))
    return points / np.linalg.norm(points, axis=1, keepdims=True)


def test_a_hull_keeps_at_most_max_vertices_and_faces_outward():
    points = _sphere_points()
    full_v, full_t = convex.convex_hull(points)
    capped_v, capped_t = convex.convex_hull(points, max_vertices=64)
    assert len(full_v) == 500 and len(capped_v) <= 64
    assert convex.hull_volume(capped_v, capped_t) > 0.8 * convex.hull_volume(full_v, full_t) > 0.0
    inside = sample_meshes.inside_convex(full_v, full_t, capped_v)
    assert inside.all()  # a subset of the exact hull


def test_a_flat_hull_is_refused_with_the_reason():
    with pytest.raises(ValueError, match="no volume"):
        convex.convex_hull([(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)])
    with pytest.raises(ValueError, match="at least 4"):
        convex.convex_hull(_sphere_points(), max_vertices=3)


@pytest.mark.parametrize("name", sorted(MESHES))
def test_the_hulls_cover_each_concave_mesh(decompositions, name):
    mesh, hulls = decompositions[name]
    assert len(hulls) > 1
    assert all(len(v) <= FINE.max_vertices and convex.hull_volume(v, t) > 0.0 for v, t in hulls)
    assert sample_meshes.volume_iou(mesh, hulls, samples=30) >= 0.9
    # One hull fills the cavity: far from the mesh's shape.
    assert sample_meshes.volume_iou(mesh, [convex.convex_hull(mesh[0], 64)], samples=30) < 0.7


def test_separate_parts_are_decomposed_apart():
    a = sample_meshes.u_slot()
    b = (a[0] + (1.0, 0.0, 0.0), a[1])
    parts = convex.connected_parts(*sample_meshes.merge(a, b))
    assert len(parts) == 2 and all(len(p[0]) == len(a[0]) for p in parts)


def test_a_second_run_is_a_cache_hit_in_memory_and_on_disk(decompositions, tmp_path):
    (vertices, triangles), hulls = decompositions["u_slot"]
    assert convex.decompose(vertices, triangles, FINE) is hulls  # memory
    convex.CACHE.put(convex.cache_key(np.asarray(vertices, np.float64), np.asarray(triangles, np.int32), FINE),
                     hulls, tmp_path)
    convex.CACHE.clear()
    again = convex.decompose(vertices, triangles, FINE, cache_dir=tmp_path)  # from the file
    assert len(again) == len(hulls) and all(np.array_equal(a[0], b[0]) for a, b in zip(again, hulls))
    other = convex.DecompositionSettings(threshold=0.2)
    assert convex.cache_key(vertices, triangles, other) != convex.cache_key(vertices, triangles, FINE)
    moved = vertices.copy()
    moved[0, 0] += 1e-9
    assert convex.cache_key(moved, triangles, FINE) != convex.cache_key(vertices, triangles, FINE)


def test_a_broken_cache_file_is_recomputed(tmp_path):
    vertices, triangles = sample_meshes.u_slot(depth=0.07)
    settings = convex.DecompositionSettings(threshold=0.2)
    key = convex.cache_key(vertices.astype(np.float64), triangles.astype(np.int32), settings)
    (tmp_path / f"{key}.npz").write_bytes(b"not a zip")
    hulls = convex.decompose(vertices, triangles, settings, cache_dir=tmp_path)
    assert hulls and np.load(tmp_path / f"{key}.npz")["count"] == len(hulls)


def test_cancelling_stops_before_the_next_part():
    a = sample_meshes.u_slot(depth=0.03)
    two = sample_meshes.merge(a, (a[0] + (1.0, 0.0, 0.0), a[1]))
    seen = []
    with pytest.raises(convex.DecompositionCancelled):
        convex.decompose(*two, convex.DecompositionSettings(threshold=0.3), progress=seen.append,
                         cancelled=lambda: bool(seen))
    assert seen == [0.5]


def test_without_the_library_decomposition_says_why(tmp_path):
    """A Python that has numpy and SciPy but no CoACD (as on a platform without its wheel)."""
    import scipy

    for module in (np, scipy):
        os.symlink(Path(module.__file__).parent, tmp_path / module.__name__)
    for libs in Path(np.__file__).parent.parent.glob("*.libs"):
        os.symlink(libs, tmp_path / libs.name)
    root = Path(__file__).resolve().parents[2]
    code = ("import sys, importlib.util\n"
            f"spec = importlib.util.spec_from_file_location('articula', {str(root / '__init__.py')!r}, "
            f"submodule_search_locations=[{str(root)!r}])\n"
            "m = importlib.util.module_from_spec(spec); sys.modules['articula'] = m\n"
            "from articula.core import convex\n"
            "print(convex.decomposition_unavailable_reason())\n"
            "print(len(convex.convex_hull([(0,0,0),(1,0,0),(0,1,0),(0,0,1)])[0]))\n")
    result = subprocess.run([sys.executable, "-S", "-c", code], check=False, capture_output=True, text=True,
                            env={"PYTHONPATH": str(tmp_path)}, timeout=120)
    assert result.returncode == 0, result.stderr
    reason, hull_vertices = result.stdout.strip().splitlines()
    assert "CoACD" in reason and "No module named 'coacd'" in reason
    assert hull_vertices == "4"  # simplified hulls need only SciPy


def _drop_sphere_into(hull_list, solver="MUJOCO") -> float:
    """Rest height of a 3 cm ball dropped on the bowl's axis (the bowl's rim at z = 0.5)."""
    from articula.sim.simulation import Simulation

    scene = PhysicsScene(settings=SceneSettings(ground_plane=False, solver=solver))
    scene.shapes += convex.hull_shapes("bowl", hull_list, pose=Pose((0.0, 0.0, 0.5)), world=-1)
    scene.bodies.append(Body("ball", Pose((0.0, 0.0, 0.62))))
    scene.shapes.append(Shape("ball_sphere", ShapeKind.SPHERE, "ball", radius=0.03))
    sim = Simulation(scene, device="cpu")
    sim.advance(0.8)
    return float(sim.body_poses()[0][2])


def test_a_ball_rests_inside_the_decomposed_bowl_and_on_one_hull(decompositions):
    pytest.importorskip("newton")
    (vertices, _), hulls = decompositions["bowl"]
    inner_bottom = 0.5 - 0.088
    assert _drop_sphere_into(hulls) == pytest.approx(inner_bottom + 0.03, abs=0.015)
    assert _drop_sphere_into([convex.convex_hull(vertices, 64)]) > 0.5 + 0.02  # on the lid the hull makes


def test_exported_hulls_are_convex_meshes_newton_reads_as_the_same_shapes(decompositions, tmp_path):
    newton = pytest.importorskip("newton")
    pytest.importorskip("newton_usd_schemas")
    from articula.core.usd.writer import write_usd
    from pxr import Usd, UsdPhysics

    _, hulls = decompositions["mug"]
    scene = PhysicsScene()
    scene.bodies.append(Body("mug", Pose((0.0, 0.0, 0.3))))
    scene.shapes += convex.hull_shapes("mug", hulls, body="mug")
    path = tmp_path / "mug.usda"
    write_usd(scene, str(path))
    stage = Usd.Stage.Open(str(path))
    colliders = [p for p in stage.Traverse() if p.HasAPI(UsdPhysics.MeshCollisionAPI)]
    assert len(colliders) == len(hulls)
    assert {UsdPhysics.MeshCollisionAPI(p).GetApproximationAttr().Get() for p in colliders} == {"convexHull"}
    builder = newton.ModelBuilder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder.add_usd(str(path))
    model = builder.finalize(device="cpu")
    kinds = model.shape_type.numpy()
    assert (kinds == int(newton.GeoType.CONVEX_MESH)).sum() == len(hulls)
    read = sorted(round(float(m.vertices.shape[0])) for m in model.shape_source if m is not None)
    assert read == sorted(len(v) for v, _ in hulls)
    volumes = sorted(convex.hull_volume(m.vertices, m.indices.reshape(-1, 3)) for m in model.shape_source
                     if m is not None)
    assert np.allclose(volumes, sorted(convex.hull_volume(v, t) for v, t in hulls), rtol=1e-4)


def test_validation_warns_about_a_triangle_mesh_on_a_moving_body_and_names_the_fix():
    from articula.core.model import MeshData
    from articula.core.validation import validate

    vertices, triangles = sample_meshes.u_slot()
    mesh = MeshData(vertices=[tuple(v) for v in vertices.tolist()], triangles=[tuple(t) for t in triangles.tolist()])
    scene = PhysicsScene()
    scene.bodies += [Body("slot"), Body("rail", kinematic=True)]
    scene.shapes += [Shape("slot_mesh", ShapeKind.MESH, "slot", mesh=mesh),
                     Shape("rail_mesh", ShapeKind.MESH, "rail", mesh=mesh),
                     Shape("floor_mesh", ShapeKind.MESH, None, mesh=mesh, world=-1)]
    found = [p for p in validate(scene) if p.code == "triangle_mesh_on_moving_body"]
    assert [p.subject for p in found] == ["slot_mesh"]  # static and kinematic bodies may keep triangles
    assert found[0].severity == "WARNING"
    assert "PhysX" in found[0].message and "Convex Decomposition" in found[0].message
    scene.shapes[0] = convex.hull_shapes("slot", [convex.convex_hull(vertices)], body="slot")[0]
    assert not [p for p in validate(scene) if p.code == "triangle_mesh_on_moving_body"]


def _mesh_data(mesh):
    from articula.core.model import MeshData

    vertices, triangles = mesh
    return MeshData(vertices=[tuple(v) for v in vertices.tolist()], triangles=[tuple(t) for t in triangles.tolist()])


def test_colliders_from_visuals_for_bodies_without_collision_geometry(decompositions):
    from articula.core.model import Visual
    from articula.core.validation import validate

    mesh, hulls = decompositions["mug"]
    scene = PhysicsScene()
    scene.bodies += [Body("cup", Pose((0.0, 0.0, 1.0)), world=1), Body("kept", world=1)]
    scene.shapes.append(Shape("kept_box", ShapeKind.BOX, "kept", world=1))
    scene.visuals += [Visual("cup_visual", "cup", _mesh_data(mesh), pose=Pose((0.1, 0.0, 0.0))),
                      Visual("kept_visual", "kept", _mesh_data(mesh))]
    notes = convex.colliders_from_visuals(scene, "CONVEX_DECOMPOSITION", FINE)
    made = scene.shapes_of("cup")
    assert len(made) == len(hulls) and {s.kind for s in made} == {ShapeKind.CONVEX_HULL}
    assert {s.pose.pos for s in made} == {(0.1, 0.0, 0.0)} and {s.world for s in made} == {1}
    assert [s.name for s in scene.shapes_of("kept")] == ["kept_box"]  # bodies with colliders keep theirs
    assert "cup" not in notes[0] and "1 bod" in notes[0]
    assert not [p for p in validate(scene) if p.severity == "ERROR"]


def test_colliders_from_visuals_fits_a_box_and_hulls_a_urdf_with_no_collision():
    from articula.core.urdf import read_urdf

    path = Path.home() / ".cache/articula/pybullet_data/sphere2red_nocol.urdf"
    if not path.exists():
        pytest.skip("pybullet_data not extracted (make urdf-corpus)")
    scene = read_urdf(str(path)).scene
    assert not scene.shapes
    convex.colliders_from_visuals(scene, "CONVEX_HULL", convex.DecompositionSettings(max_vertices=32))
    (hull,) = scene.shapes
    visual = scene.visuals[0]
    assert hull.kind == ShapeKind.CONVEX_HULL and len(hull.mesh.vertices) <= 32 and hull.scale == visual.scale
    assert np.linalg.norm(hull.mesh.vertices, axis=1).max() * max(visual.scale) == pytest.approx(0.5, rel=0.02)
    scene.shapes.clear()
    convex.colliders_from_visuals(scene, "BOX")
    (box,) = scene.shapes
    vertices = np.asarray(visual.mesh.vertices)
    assert np.allclose(box.half_extents, (vertices.max(axis=0) - vertices.min(axis=0)) / 2 * np.abs(visual.scale))
    with pytest.raises(ValueError, match="unknown method 'SPHERES'"):
        convex.colliders_from_visuals(scene, "SPHERES")


def test_triangle_mesh_colliders_of_moving_bodies_can_be_decomposed(decompositions):
    mesh, hulls = decompositions["u_slot"]
    scene = PhysicsScene()
    scene.bodies += [Body("slot"), Body("rail", kinematic=True)]
    scene.shapes += [Shape("slot_mesh", ShapeKind.MESH, "slot", mesh=_mesh_data(mesh), density=500.0),
                     Shape("rail_mesh", ShapeKind.MESH, "rail", mesh=_mesh_data(mesh))]
    notes = convex.colliders_from_visuals(scene, "NONE", FINE, decompose_meshes=True)
    assert [s.name for s in scene.shapes_of("rail")] == ["rail_mesh"]
    slot = scene.shapes_of("slot")
    assert len(slot) == len(hulls) and {s.density for s in slot} == {500.0} and "slot_mesh" in notes[0]


def test_max_hulls_limits_the_parts():
    vertices, triangles = sample_meshes.u_slot()
    hulls = convex.decompose(vertices, triangles, convex.DecompositionSettings(threshold=0.05, max_hulls=2))
    assert 1 <= len(hulls) <= 2


def test_hulls_export_to_mjcf_and_urdf_as_the_same_convex_meshes(decompositions, tmp_path):
    """MuJoCo compiles one mesh geom per hull, and the URDF read back gives the same hulls."""
    mujoco = pytest.importorskip("mujoco")
    from articula.core.mjcf.writer import write_mjcf
    from articula.core.urdf import read_urdf
    from articula.core.urdf.writer import write_urdf

    _, hulls = decompositions["u_slot"]
    scene = PhysicsScene()
    scene.bodies.append(Body("slot", Pose((0.0, 0.0, 0.3))))
    scene.shapes += convex.hull_shapes("slot", hulls, body="slot")
    write_mjcf(scene, str(tmp_path / "slot.xml"))
    model = mujoco.MjModel.from_xml_path(str(tmp_path / "slot.xml"))
    mesh_geoms = [g for g in range(model.ngeom) if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH]
    assert len(mesh_geoms) == len(hulls)
    assert sorted(int(model.mesh_vertnum[model.geom_dataid[g]]) for g in mesh_geoms) == sorted(len(v) for v, _ in hulls)
    write_urdf(scene, str(tmp_path / "slot.urdf"))
    back = read_urdf(str(tmp_path / "slot.urdf")).scene
    volumes = sorted(convex.hull_volume(s.mesh.vertices, s.mesh.triangles) for s in back.shapes)
    assert len(back.shapes) == len(hulls) and {s.kind for s in back.shapes} == {ShapeKind.CONVEX_HULL}
    assert np.allclose(volumes, sorted(convex.hull_volume(v, t) for v, t in hulls), rtol=1e-4)
