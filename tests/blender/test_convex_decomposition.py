"""Set Collider > Convex Decomposition and Convex Hull's Max Vertices on real Blender meshes."""

import time

import bpy
import numpy as np
import pytest
from articula.addon.adapters import mesh_to_convex_colliders as adapter
from articula.addon.adapters.blender_to_description import scene_from_blender
from articula.core import convex, sample_meshes
from articula.core.model import ShapeKind
from pxr import Usd, UsdPhysics

if convex.decomposition_unavailable_reason():
    pytest.skip(convex.decomposition_unavailable_reason(), allow_module_level=True)


@pytest.fixture(autouse=True)
def fresh(clean_scene):
    yield


def mesh_object(name, mesh, location=(0.0, 0.0, 0.0)):
    vertices, triangles = mesh
    data = bpy.data.meshes.new(name)
    data.from_pydata(vertices.tolist(), [], triangles.tolist())
    obj = bpy.data.objects.new(name, data)
    bpy.context.scene.collection.objects.link(obj)
    obj.location = location
    return obj


def select(objects):
    context = bpy.context
    context.view_layer.update()
    for obj in context.view_layer.objects:
        obj.select_set(obj in objects)
    context.view_layer.objects.active = objects[0]


def child_hulls(obj):
    return [adapter.mesh_arrays(c) for c in adapter.hull_children(obj)]


def test_decomposition_adds_one_hull_collider_per_part_on_the_body():
    mesh = sample_meshes.u_slot()
    slot = mesh_object("slot", mesh, location=(0.0, 0.0, 1.0))
    slot.articula.body.enabled = True
    select([slot])
    assert bpy.ops.articula.set_collider(shape="CONVEX_DECOMPOSITION", concavity=0.05, max_vertices=32) \
        == {"FINISHED"}
    children = adapter.hull_children(slot)
    assert len(children) >= 3 and children[0].name == "slot_hull_000"
    for child in children:
        props = child.articula.collider
        assert props.enabled and props.collider_only and props.shape == "CONVEX_HULL"
        assert child.parent == slot and len(child.data.vertices) <= 32 and child.display_type == "WIRE"
    assert sample_meshes.volume_iou(mesh, child_hulls(slot)) >= 0.9
    desc = scene_from_blender(bpy.context.scene)
    shapes = [s for s in desc.shapes if s.body == "slot"]
    assert sorted(s.name for s in shapes) == sorted(c.name for c in children)
    assert {s.kind for s in shapes} == {ShapeKind.CONVEX_HULL}


def test_running_again_replaces_the_hulls_from_the_cache():
    slot = mesh_object("slot", sample_meshes.u_slot())
    select([slot])
    bpy.ops.articula.set_collider(shape="CONVEX_DECOMPOSITION", concavity=0.05)
    first = sorted(c.name for c in adapter.hull_children(slot))
    objects = len(bpy.data.objects)
    select([slot])
    start = time.perf_counter()
    bpy.ops.articula.set_collider(shape="CONVEX_DECOMPOSITION", concavity=0.05)
    del start  # speed is measured in bench/, not here
    assert sorted(c.name for c in adapter.hull_children(slot)) == first
    assert len(bpy.data.objects) == objects


def test_a_cancelled_job_leaves_nothing_behind():
    cup = mesh_object("cup", sample_meshes.mug())
    before = sorted(o.name for o in bpy.data.objects), sorted(m.name for m in bpy.data.meshes)
    job = adapter.DecompositionJob([cup], convex.DecompositionSettings(threshold=0.31)).start()
    job.cancel()
    while not job.done:
        time.sleep(0.05)
    assert (sorted(o.name for o in bpy.data.objects), sorted(m.name for m in bpy.data.meshes)) == before
    with pytest.raises(convex.DecompositionCancelled):
        job.finish()  # the mug has two parts: the second is never started
    assert sorted(o.name for o in bpy.data.objects) == before[0]


def test_convex_hull_max_vertices_makes_a_simplified_child_hull():
    bpy.ops.mesh.primitive_uv_sphere_add(segments=32, ring_count=16)
    ball = bpy.context.active_object
    select([ball])
    assert bpy.ops.articula.set_collider(shape="CONVEX_HULL", max_vertices=24) == {"FINISHED"}
    hull = bpy.data.objects[f"{ball.name}_collider"]
    assert hull.parent == ball and hull.articula.collider.shape == "CONVEX_HULL"
    assert 4 <= len(hull.data.vertices) <= 24
    shapes = scene_from_blender(bpy.context.scene).shapes
    assert [s.name for s in shapes] == [hull.name] and len(shapes[0].mesh.vertices) <= 24


def test_a_flat_mesh_gets_no_hull_and_the_scene_is_untouched():
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=10, y_subdivisions=10)
    grid = bpy.context.active_object
    select([grid])
    with pytest.raises(RuntimeError, match=f"No convex hull for {grid.name}.*no volume"):
        bpy.ops.articula.set_collider(shape="CONVEX_HULL", max_vertices=16)
    assert not grid.articula.collider.enabled and not grid.children


def test_exported_hulls_are_convex_hull_meshes(tmp_path):
    slot = mesh_object("slot", sample_meshes.u_slot(), location=(0.0, 0.0, 1.0))
    slot.articula.body.enabled = True
    select([slot])
    bpy.ops.articula.set_collider(shape="CONVEX_DECOMPOSITION", concavity=0.05)
    count = len(adapter.hull_children(slot))
    path = str(tmp_path / "slot.usda")
    assert bpy.ops.articula.export_usd(filepath=path) == {"FINISHED"}
    stage = Usd.Stage.Open(path)
    hulls = [p for p in stage.Traverse() if p.HasAPI(UsdPhysics.MeshCollisionAPI)]
    assert len(hulls) == count
    assert {UsdPhysics.MeshCollisionAPI(p).GetApproximationAttr().Get() for p in hulls} == {"convexHull"}
    counts = [len(p.GetAttribute("faceVertexCounts").Get()) for p in hulls]
    assert all(n >= 4 for n in counts)  # integers are written (CoACD's C++ runtime leaves USD's alone)
    assert np.isclose(sum(len(c.data.polygons) for c in adapter.hull_children(slot)), sum(counts))


def test_urdf_import_makes_colliders_from_visuals_for_a_robot_without_collision():
    from pathlib import Path

    path = Path.home() / ".cache/articula/pybullet_data/sphere2red_nocol.urdf"
    if not path.exists():
        pytest.skip("pybullet_data not extracted (make urdf-corpus)")
    assert bpy.ops.articula.import_urdf(filepath=str(path)) == {"FINISHED"}
    assert not [o for o in bpy.data.objects if o.articula.collider.enabled]
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    assert bpy.ops.articula.import_urdf(filepath=str(path), colliders_from_visuals="CONVEX_HULL") == {"FINISHED"}
    colliders = [o for o in bpy.data.objects if o.articula.collider.enabled]
    assert len(colliders) == 1 and colliders[0].articula.collider.shape == "CONVEX_HULL"
    assert len(colliders[0].data.vertices) <= convex.DEFAULT_MAX_VERTICES
    shapes = scene_from_blender(bpy.context.scene).shapes
    assert len(shapes) == 1 and shapes[0].body == "baseLink"


def test_a_mesh_deleted_while_its_decomposition_runs_gets_nothing():
    slot = mesh_object("slot", sample_meshes.u_slot(depth=0.04))
    job = adapter.DecompositionJob([slot], convex.DecompositionSettings(threshold=0.3)).start()
    bpy.data.objects.remove(slot)
    with pytest.raises(ValueError, match="slot: deleted while its decomposition ran"):
        job.finish()
    assert not [o for o in bpy.data.objects if o.name.startswith("slot")]


class _ModalRun:
    """The operator's modal loop driven with synthetic events (the bpy module never invokes)."""

    def __init__(self, objects, settings):
        from types import SimpleNamespace

        from articula.operators.authoring import ARTICULA_OT_set_collider as op

        wm = bpy.context.window_manager
        self.reports = []
        self.state = SimpleNamespace(
            _job=adapter.DecompositionJob(objects, settings).start(), _timer=wm.event_timer_add(0.1, window=None),
            report=lambda kind, text: self.reports.append(text), fail=lambda text: {"CANCELLED"})
        self.state._end_modal = lambda context: op._end_modal(self.state, context)
        self.state._finish = lambda job: op._finish(self.state, job)
        self._modal = op.modal
        wm.progress_begin(0, 100)

    def event(self, kind):
        from types import SimpleNamespace

        return self._modal(self.state, bpy.context, SimpleNamespace(type=kind))


def test_the_modal_loop_finishes_with_the_hulls_and_esc_leaves_nothing():
    slot = mesh_object("slot", sample_meshes.u_slot(depth=0.045))
    run = _ModalRun([slot], convex.DecompositionSettings(threshold=0.3))
    result = run.event("TIMER")
    while result == {"RUNNING_MODAL"}:
        time.sleep(0.05)
        result = run.event("TIMER")
    assert result == {"FINISHED"} and adapter.hull_children(slot)

    cup = mesh_object("cup", sample_meshes.mug(height=0.09))
    before = sorted(o.name for o in bpy.data.objects)
    run = _ModalRun([cup], convex.DecompositionSettings(threshold=0.3))
    assert run.event("MOUSEMOVE") == {"PASS_THROUGH"}
    assert run.event("ESC") == {"CANCELLED"} and "nothing was changed" in run.reports[-1]
    while not run.state._job.done:
        time.sleep(0.05)
    assert sorted(o.name for o in bpy.data.objects) == before
