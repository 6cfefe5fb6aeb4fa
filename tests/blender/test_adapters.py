"""The Blender data model through the adapters: each rule on real objects."""

import math
import sys
from pathlib import Path

import bpy
import pytest
from mathutils import Matrix

from articula.addon.adapters.blender_to_description import (blender_problems, scene_from_blender,
                                                            world_pose_and_scale)
from articula.addon.adapters.description_to_blender import build_scene
from articula.core import samples
from articula.core.articulation import find_articulations
from articula.core.mass import mass_properties
from articula.core.model import DofAxis, JointType, ShapeKind
from articula.core.validation import validate

sys.path.insert(0, str(Path(__file__).parent))
from authoring_helpers import reset_scene_settings  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_scene_settings(clean_scene):
    reset_scene_settings(clean_scene)
    yield


def add(scene, name, parent=None, location=(0.0, 0.0, 0.0), mesh=False, body=False):
    data = None
    if mesh:
        data = bpy.data.meshes.new(name)
        data.from_pydata([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [], [(0, 1, 2)])
    obj = bpy.data.objects.new(name, data)
    scene.collection.objects.link(obj)
    obj.parent = parent
    obj.location = location
    obj.articula.body.enabled = body
    return obj


def box_collider(obj, half=(0.5, 0.5, 0.5), density=None):
    props = obj.articula.collider
    props.enabled, props.shape, props.half_extents = True, "BOX", half
    if density is not None:
        props.has_density, props.density = True, density


def codes(problems):
    return sorted({p.code for p in problems})


def test_parent_chain_is_the_kinematic_tree(clean_scene):
    a = add(clean_scene, "A", body=True)
    b = add(clean_scene, "B", a, (1.0, 0.0, 0.0), body=True)
    add(clean_scene, "C", b, (1.0, 0.0, 0.0), body=True)
    bpy.context.view_layer.update()
    desc = scene_from_blender(clean_scene)
    assert [(x.name, x.parent, x.hierarchy_gap) for x in desc.bodies] == [
        ("A", None, False), ("B", "A", False), ("C", "B", False)]
    assert desc.body("C").pose.pos == pytest.approx((2.0, 0.0, 0.0))
    (articulation,) = find_articulations(desc)
    assert articulation.root == "A" and articulation.bodies == ["A", "B", "C"]


def test_non_body_between_bodies_is_a_gap_with_a_warning(clean_scene):
    a = add(clean_scene, "A", body=True)
    helper = add(clean_scene, "helper", a)
    add(clean_scene, "B", helper, body=True)
    bpy.context.view_layer.update()
    desc = scene_from_blender(clean_scene)
    assert (desc.body("B").parent, desc.body("B").hierarchy_gap) == ("A", True)
    assert sorted(x.root for x in find_articulations(desc)) == ["A", "B"]
    gap = [p for p in validate(desc) if p.code == "hierarchy_gap"]
    assert [(p.severity, p.subject) for p in gap] == [("WARNING", "B")]


def test_kinematic_below_dynamic_is_an_error(clean_scene):
    a = add(clean_scene, "A", body=True)
    b = add(clean_scene, "B", a, body=True)
    c = add(clean_scene, "C", b, body=True)
    a.articula.body.kinematic = True
    c.articula.body.kinematic = True
    for obj in (a, b, c):
        box_collider(obj)
    desc = scene_from_blender(clean_scene)
    problems = [p for p in validate(desc) if p.code == "kinematic_interleaving"]
    assert [p.subject for p in problems] == ["C"]
    c.articula.body.kinematic = False
    assert "kinematic_interleaving" not in codes(validate(scene_from_blender(clean_scene)))


def test_mass_comes_from_own_colliders_only(clean_scene):
    parent = add(clean_scene, "parent", body=True)
    box_collider(parent, (0.5, 0.5, 0.5), density=100.0)  # 1 m^3
    child = add(clean_scene, "child", parent, (3.0, 0.0, 0.0), body=True)
    box_collider(child, (1.0, 1.0, 1.0), density=100.0)  # 8 m^3, pruned from the parent
    extra = add(clean_scene, "extra", parent, (1.0, 0.0, 0.0))  # a plain child collider counts
    box_collider(extra, (0.5, 0.5, 0.5), density=100.0)
    bpy.context.view_layer.update()
    desc = scene_from_blender(clean_scene)
    assert {s.name: s.body for s in desc.shapes} == {"parent": "parent", "child": "child", "extra": "parent"}
    mass = mass_properties(desc, "parent")
    assert mass.mass == pytest.approx(200.0)
    assert mass.center_of_mass == pytest.approx((0.5, 0.0, 0.0))
    assert mass_properties(desc, "child").mass == pytest.approx(800.0)


def test_non_uniform_scale_on_a_body_is_a_problem(clean_scene):
    body = add(clean_scene, "stretched", body=True)
    body.scale = (1.0, 2.0, 1.0)
    add(clean_scene, "uniform", body=True).scale = (2.0, 2.0, 2.0)
    bpy.context.view_layer.update()
    problems = blender_problems(clean_scene)
    assert [(p.code, p.subject, p.severity) for p in problems] == [("non_uniform_scale", "stretched", "ERROR")]
    assert "apply the scale" in problems[0].message


def test_dynamic_friction_above_static_is_a_problem(clean_scene):
    material = clean_scene.articula.materials.add()
    material.name, material.static_friction, material.dynamic_friction = "slick", 0.3, 0.6
    problems = [p for p in validate(scene_from_blender(clean_scene)) if p.code == "dynamic_above_static"]
    assert [p.subject for p in problems] == ["slick"]


def test_collider_sizes_bake_the_world_scale(clean_scene):
    body = add(clean_scene, "body", body=True)
    child = add(clean_scene, "capsule", body)
    child.scale = (2.0, 3.0, 0.5)
    props = child.articula.collider
    props.enabled, props.shape, props.axis, props.radius, props.half_height = True, "CAPSULE", "Z", 0.25, 1.0
    sphere = add(clean_scene, "sphere", body)
    sphere.scale = (2.0, 3.0, 0.5)
    sphere.articula.collider.enabled, sphere.articula.collider.shape = True, "SPHERE"
    bpy.context.view_layer.update()
    shapes = {s.name: s for s in scene_from_blender(clean_scene).shapes}
    assert (shapes["capsule"].radius, shapes["capsule"].half_height) == pytest.approx((0.75, 0.5))
    assert shapes["sphere"].radius == pytest.approx(1.5)


def test_visuals_are_body_meshes_and_non_collider_children(clean_scene):
    body = add(clean_scene, "body", mesh=True, body=True)
    add(clean_scene, "decal", body, mesh=True)
    hull = add(clean_scene, "hull", body, mesh=True)
    hull.articula.collider.enabled, hull.articula.collider.shape = True, "CONVEX_HULL"
    add(clean_scene, "scenery", mesh=True)
    desc = scene_from_blender(clean_scene)
    assert {v.name: v.body for v in desc.visuals} == {"body": "body", "decal": "body", "scenery": None}
    assert desc.shapes[0].mesh.vertices == [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)]
    body.articula.collider.enabled, body.articula.collider.collider_only = True, True
    assert "body" not in {v.name for v in scene_from_blender(clean_scene).visuals}


def test_joint_frames_come_from_the_empty(clean_scene):
    a = add(clean_scene, "A", body=True)
    b = add(clean_scene, "B", a, (0.0, 0.0, 1.0), body=True)
    pin = add(clean_scene, "pin", b, (0.0, 0.0, -0.5))
    props = pin.articula.joint
    props.enabled, props.body0, props.body1, props.type, props.axis = True, a, b, "REVOLUTE", "Y"
    bpy.context.view_layer.update()
    (joint,) = scene_from_blender(clean_scene).joints
    assert (joint.type, joint.body0, joint.body1) == (JointType.REVOLUTE, "A", "B")
    assert joint.local_pose0.pos == pytest.approx((0.0, 0.0, 0.5))
    assert joint.local_pose1.pos == pytest.approx((0.0, 0.0, -0.5))
    assert [d.axis for d in joint.dofs] == [DofAxis.ROT_Y]
    assert blender_problems(clean_scene) == []
    pin.parent = None
    assert codes(blender_problems(clean_scene)) == ["joint_not_on_body1"]


def test_objects_argument_limits_the_description(clean_scene):
    a = add(clean_scene, "A", body=True)
    b = add(clean_scene, "B", a, body=True)
    add(clean_scene, "C", body=True)
    desc = scene_from_blender(clean_scene, objects=[b])
    assert [(x.name, x.parent, x.hierarchy_gap) for x in desc.bodies] == [("B", None, False)]


def test_build_places_joints_on_body1_and_colliders_under_bodies(clean_scene):
    objects = build_scene(bpy.context, samples.d6_sampler())
    joint = objects["d6_joint"]
    assert joint.parent is objects["d6_link"] and joint.type == "EMPTY"
    assert objects["d6_link_collider"].parent is objects["d6_link"]
    assert objects["d6_link_collider"].articula.collider.shape == ShapeKind.CYLINDER.value
    assert objects["d6_link_collider"].hide_render
    assert [d.motion for d in joint.articula.joint.dofs] == ["LIMITED", "LOCKED", "LOCKED", "FREE", "LIMITED",
                                                               "LOCKED"]
    pose, _ = world_pose_and_scale(joint)
    assert pose.pos == pytest.approx((0.0, 0.0, 0.65))
    assert clean_scene.articula.materials[0].name == "steel"
    assert [p for p in validate(scene_from_blender(clean_scene)) if p.severity == "ERROR"] == []


def test_build_gap_body_under_a_plain_empty(clean_scene):
    desc = samples.pendulum()
    desc.bodies.append(type(desc.bodies[0])("bob", parent="pendulum_link", hierarchy_gap=True))
    objects = build_scene(bpy.context, desc)
    gap = objects["bob"].parent
    assert gap.name == "bob_gap" and not gap.articula.body.enabled and gap.parent is objects["pendulum_link"]


def test_build_keeps_matrix_without_parent_inverse(clean_scene):
    objects = build_scene(bpy.context, samples.six_dof_arm())
    for obj in objects.values():
        assert obj.matrix_parent_inverse == Matrix.Identity(4)
    link = objects["wrist_3_link"]
    assert link.matrix_world.translation.z == pytest.approx(1.0)
    assert math.isclose(link.matrix_world.to_scale().x, 1.0, rel_tol=1e-6)


def test_a_chain_deeper_than_python_recursion_reads_and_builds(clean_scene):
    """A 1,100-link cable: rest anchors and parents-first order are found in loops, whatever
    order the objects come in (a leaf asked first walks the whole chain)."""
    from articula.addon.adapters.blender_to_description import WorldFrames, parents_first

    scene = samples.hanging_chain(1100)
    assert [b.name for b in parents_first(list(reversed(scene.bodies)))] == [b.name for b in scene.bodies]
    objects = build_scene(bpy.context, scene)
    frames = WorldFrames()
    assert frames.anchor(objects["link_1099"]) is None  # at rest: no anchor above it
    objects["link_0500"].articula.body.posed = True  # a simulated state kept from here down
    assert WorldFrames().anchor(objects["link_1099"]) == objects["link_0500"]
    desc = scene_from_blender(clean_scene, None, frames)
    assert len(desc.bodies) == 1100 and desc.body("link_1099").parent == "link_1098"
