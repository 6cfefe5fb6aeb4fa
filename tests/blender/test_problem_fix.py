"""Validation offers the operator that fixes a problem: a button in the problems list that runs it."""

import sys
from pathlib import Path

import bpy
import pytest
from articula.addon.adapters import mesh_to_convex_colliders as adapter
from articula.core import convex
from articula.operators.validate import scene_problems, store_problems
from articula.panels import physics

sys.path.insert(0, str(Path(__file__).parent))
from test_panels_draw import assert_clean_output, draw_panel, drawn_operators  # noqa: E402


def _mesh_body(name="cup"):
    bpy.ops.mesh.primitive_cube_add(size=0.2, location=(0.0, 0.0, 1.0))
    obj = bpy.context.active_object
    obj.name = name
    obj.articula.body.enabled = True
    obj.articula.collider.enabled = True
    obj.articula.collider.shape = "MESH"
    return obj


def _triangle_mesh_problem(scene):
    problems = [i for i, p in enumerate(scene.articula.problems) if p.code == "triangle_mesh_on_moving_body"]
    return problems[0] if problems else None


def test_the_triangle_mesh_warning_carries_its_fix_and_the_panel_offers_it(clean_scene, capfd):
    obj = _mesh_body()
    assert bpy.ops.articula.validate() == {"FINISHED"}
    index = _triangle_mesh_problem(clean_scene)
    problem = clean_scene.articula.problems[index]
    assert problem.object_name == obj.name
    assert problem.fix == ("articula.set_collider", {"shape": "CONVEX_DECOMPOSITION"}, "Convex Decomposition")
    clean_scene.articula.active_problem_index = index
    capfd.readouterr()
    _, log = draw_panel(physics.ARTICULA_PT_scene, obj)
    assert ("articula.fix_problem", "Fix: Convex Decomposition") in drawn_operators(log)
    assert_clean_output(capfd)


def test_a_problem_without_a_fix_draws_no_fix_button(clean_scene, capfd):
    obj = _mesh_body()
    obj.articula.body.kinematic = True  # a kinematic body may keep its triangle mesh
    obj.scale = (1.0, 2.0, 1.0)  # a body with non-uniform scale: a problem with no automatic fix
    bpy.context.view_layer.update()
    store_problems(clean_scene, scene_problems(clean_scene))
    problems = clean_scene.articula.problems
    assert problems and all(p.fix is None for p in problems)
    capfd.readouterr()
    _, log = draw_panel(physics.ARTICULA_PT_scene, obj)
    assert "articula.fix_problem" not in {name for name, _ in drawn_operators(log)}
    with pytest.raises(RuntimeError, match="no automatic fix"):
        bpy.ops.articula.fix_problem(index=0)


@pytest.mark.skipif(bool(convex.decomposition_unavailable_reason()), reason="CoACD cannot be loaded")
def test_the_fix_decomposes_the_collider_and_the_warning_goes(clean_scene):
    obj = _mesh_body()
    other = _mesh_body("other")
    bpy.ops.articula.validate()
    index = next(i for i, p in enumerate(clean_scene.articula.problems)
                 if p.code == "triangle_mesh_on_moving_body" and p.object_name == "cup")
    assert bpy.ops.articula.fix_problem(index=index) == {"FINISHED"}
    assert adapter.hull_children(obj) and not adapter.hull_children(other)
    assert all(c.articula.collider.shape == "CONVEX_HULL" for c in adapter.hull_children(obj))
    bpy.ops.articula.validate()
    left = [p.object_name for p in clean_scene.articula.problems if p.code == "triangle_mesh_on_moving_body"]
    assert left == ["other"]


def test_the_fix_names_a_deleted_object(clean_scene):
    obj = _mesh_body()
    bpy.ops.articula.validate()
    index = _triangle_mesh_problem(clean_scene)
    bpy.data.objects.remove(obj)
    with pytest.raises(RuntimeError, match="no object"):
        bpy.ops.articula.fix_problem(index=index)
