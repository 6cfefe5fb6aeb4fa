"""Every authoring operator on real objects, including refused input that must change nothing."""

import sys
from pathlib import Path

import bpy
import pytest

from articula.addon.adapters.blender_to_description import scene_from_blender, world_pose
from articula.addon.adapters.description_to_blender import build_scene
from articula.core import samples
from articula.core.mass import mass_properties

sys.path.insert(0, str(Path(__file__).parent))
from authoring_helpers import reset_scene_settings, snapshot_scene  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_scene_settings(clean_scene):
    reset_scene_settings(clean_scene)
    yield


def mesh_object(scene, name, size=(1.0, 1.0, 1.0), offset=(0.0, 0.0, 0.0), location=(0.0, 0.0, 0.0), parent=None):
    sx, sy, sz = (s / 2.0 for s in size)
    ox, oy, oz = offset
    verts = [(ox + x * sx, oy + y * sy, oz + z * sz) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    obj = bpy.data.objects.new(name, mesh)
    scene.collection.objects.link(obj)
    obj.parent = parent
    obj.location = location
    return obj


def select(context, objects, active=None):
    context.view_layer.update()  # new objects get their view-layer bases
    for obj in context.view_layer.objects:
        obj.select_set(obj in objects)
    context.view_layer.objects.active = active
    context.view_layer.update()


def state(scene):
    """Everything an operator could touch, for "nothing changed" checks."""
    return snapshot_scene(scene), sorted(o.name for o in bpy.data.objects), sorted(m.name for m in bpy.data.meshes)


def refused(op, match, **kwargs):
    with pytest.raises(RuntimeError, match=match):
        op(**kwargs)


def two_bodies(scene):
    ctx = bpy.context
    base = mesh_object(scene, "base", location=(0.0, 0.0, 0.0))
    arm = mesh_object(scene, "arm", location=(0.0, 0.0, 2.0), parent=base)
    select(ctx, [base, arm], arm)
    bpy.ops.articula.make_body()
    return base, arm


# --- make_body -------------------------------------------------------------------------------

def test_make_body_keeps_parenting(clean_scene):
    base, arm = two_bodies(clean_scene)
    assert base.articula.body.enabled and arm.articula.body.enabled and arm.parent is base
    assert [(b.name, b.parent) for b in scene_from_blender(clean_scene).bodies] == [("base", None), ("arm", "base")]


def test_make_body_refuses_no_selection_and_joints(clean_scene):
    base, arm = two_bodies(clean_scene)
    select(bpy.context, [], None)
    before = state(clean_scene)
    refused(bpy.ops.articula.make_body, "Select the objects")
    assert state(clean_scene) == before
    joint = bpy.data.objects.new("j", None)
    clean_scene.collection.objects.link(joint)
    joint.articula.joint.enabled = True
    plain = mesh_object(clean_scene, "plain")
    select(bpy.context, [joint, plain], joint)
    before = state(clean_scene)
    refused(bpy.ops.articula.make_body, "Joints cannot be bodies: j")
    assert state(clean_scene) == before and not plain.articula.body.enabled


# --- add_joint -------------------------------------------------------------------------------

@pytest.mark.parametrize("joint_type,dofs", [("FIXED", []), ("REVOLUTE", ["rotY"]), ("PRISMATIC", ["transY"]),
                                             ("SPHERICAL", ["rotX", "rotY", "rotZ"]),
                                             ("D6", ["transX", "transY", "transZ", "rotX", "rotY", "rotZ"])])
def test_add_joint_between_two_bodies(clean_scene, joint_type, dofs):
    base, arm = two_bodies(clean_scene)
    arm.rotation_euler = (0.0, 0.0, 0.5)
    select(bpy.context, [base, arm], arm)
    bpy.ops.articula.add_joint(type=joint_type, axis="Y")
    joint = bpy.context.active_object
    props = joint.articula.joint
    assert (joint.type, joint.parent, props.body0, props.body1, props.type) == ("EMPTY", arm, base, arm, joint_type)
    assert [d.axis for d in props.dofs] == dofs
    desc = scene_from_blender(clean_scene)
    (j,) = desc.joints
    assert j.local_pose1.pos == pytest.approx((0.0, 0.0, 0.0), abs=1e-6)
    assert j.local_pose0.pos == pytest.approx((0.0, 0.0, 2.0), abs=1e-6)
    assert abs(j.local_pose1.rot[0]) == pytest.approx(1.0)


def test_add_joint_at_the_cursor(clean_scene):
    base, arm = two_bodies(clean_scene)
    clean_scene.cursor.location = (0.0, 0.0, 1.0)
    clean_scene.cursor.rotation_euler = (0.0, 0.0, 0.0)
    select(bpy.context, [base, arm], arm)
    bpy.ops.articula.add_joint(location="CURSOR")
    joint = bpy.context.active_object
    assert world_pose(joint).pos == pytest.approx((0.0, 0.0, 1.0))
    assert joint.parent is arm
    arm.location = (0.0, 0.0, 3.0)
    bpy.context.view_layer.update()
    assert world_pose(joint).pos == pytest.approx((0.0, 0.0, 2.0))  # the joint follows body 1


def test_add_joint_with_one_body_joins_it_to_the_world(clean_scene):
    base, arm = two_bodies(clean_scene)
    select(bpy.context, [arm], arm)
    assert bpy.ops.articula.add_joint(type="FIXED") == {"FINISHED"}
    joint = bpy.context.active_object
    props = joint.articula.joint
    assert props.enabled and props.body0 is None and props.body1 is arm and joint.parent is arm
    desc = scene_from_blender(clean_scene)
    world_joint = desc.joint(joint.name)
    assert world_joint.body0 is None and world_joint.local_pose0.pos == pytest.approx(tuple(arm.location))


@pytest.mark.parametrize("case", ["none", "one_plain", "three", "non_body"])
def test_add_joint_refuses_bad_selection(clean_scene, case):
    base, arm = two_bodies(clean_scene)
    plain = mesh_object(clean_scene, "plain")
    third = mesh_object(clean_scene, "third")
    third.articula.body.enabled = True
    chosen = {"none": ([], None), "one_plain": ([plain], plain), "three": ([base, arm, third], arm),
              "non_body": ([plain, arm], arm)}[case]
    select(bpy.context, *chosen)
    before = state(clean_scene)
    message = {"non_body": "Not rigid bodies: plain", "one_plain": "Not rigid bodies: plain"}.get(
        case, "Select one body")
    refused(bpy.ops.articula.add_joint, message)
    assert state(clean_scene) == before


# --- set_collider ----------------------------------------------------------------------------

@pytest.mark.parametrize("shape,expected", [
    ("BOX", {"half_extents": (0.5, 1.0, 2.0)}),
    ("SPHERE", {"radius": 2.0}),
    ("CAPSULE", {"radius": 1.0, "half_height": 1.0, "axis": "Z"}),
    ("CYLINDER", {"radius": 1.0, "half_height": 2.0, "axis": "Z"}),
    ("CONVEX_HULL", {}),
])
def test_set_collider_fits_a_centred_body_mesh(clean_scene, shape, expected):
    body = mesh_object(clean_scene, "body", size=(1.0, 2.0, 4.0))
    body.articula.body.enabled = True
    select(bpy.context, [body], body)
    bpy.ops.articula.set_collider(shape=shape)
    props = body.articula.collider
    assert props.enabled and props.shape == shape
    for key, value in expected.items():
        actual = getattr(props, key)
        actual = tuple(actual) if isinstance(value, tuple) else actual
        assert actual == (value if isinstance(value, str) else pytest.approx(value))
    desc = scene_from_blender(clean_scene)
    assert [s.name for s in desc.shapes] == ["body"] and [v.name for v in desc.visuals] == ["body"]


def test_set_collider_off_centre_or_visual_child_gets_a_child_collider(clean_scene):
    body = mesh_object(clean_scene, "body", size=(2.0, 2.0, 2.0), offset=(0.0, 0.0, 1.0))
    body.articula.body.enabled = True
    visual = mesh_object(clean_scene, "decal", parent=body, location=(3.0, 0.0, 0.0))
    select(bpy.context, [body, visual], body)
    bpy.ops.articula.set_collider(shape="BOX")
    assert not body.articula.collider.enabled and not visual.articula.collider.enabled
    child = bpy.data.objects["body_collider"]
    assert child.parent is body and tuple(child.location) == pytest.approx((0.0, 0.0, 1.0))
    assert tuple(child.articula.collider.half_extents) == pytest.approx((1.0, 1.0, 1.0))
    assert len(child.data.vertices) == 8 and child.display_type == "WIRE"
    desc = scene_from_blender(clean_scene)
    assert {s.name: s.body for s in desc.shapes} == {"body_collider": "body", "decal_collider": "body"}
    assert {v.name for v in desc.visuals} == {"body", "decal"}


def test_set_collider_refuses_non_meshes(clean_scene):
    empty = bpy.data.objects.new("empty", None)
    clean_scene.collection.objects.link(empty)
    select(bpy.context, [empty], empty)
    before = state(clean_scene)
    refused(bpy.ops.articula.set_collider, "Select mesh objects")
    select(bpy.context, [], None)
    refused(bpy.ops.articula.set_collider, "Select mesh objects")
    assert state(clean_scene) == before


# --- compute_mass ----------------------------------------------------------------------------

def test_compute_mass_prunes_child_bodies(clean_scene):
    base, arm = two_bodies(clean_scene)  # unit cubes, arm nested under base
    for obj in (base, arm):
        select(bpy.context, [obj], obj)
        bpy.ops.articula.set_collider(shape="BOX")
    base.articula.collider.has_density, base.articula.collider.density = True, 500.0
    select(bpy.context, [base, arm], base)
    bpy.ops.articula.compute_mass()
    props = base.articula.body
    assert props.mass_mode == "MANUAL" and props.mass == pytest.approx(500.0)  # the arm is not in it
    assert tuple(props.center_of_mass) == pytest.approx((0.0, 0.0, 0.0), abs=1e-6)
    assert tuple(props.diagonal_inertia) == pytest.approx((500.0 / 6.0,) * 3)
    assert arm.articula.body.mass == pytest.approx(1000.0)  # default density
    desc = scene_from_blender(clean_scene)
    assert desc.body("base").mass.mass == pytest.approx(500.0)
    # Recomputing ignores the manual values now stored: same result after a density change.
    base.articula.collider.density = 250.0
    select(bpy.context, [base], base)
    bpy.ops.articula.compute_mass()
    assert base.articula.body.mass == pytest.approx(250.0)
    assert mass_properties(scene_from_blender(clean_scene), "base").mass == pytest.approx(250.0)


def test_compute_mass_refuses_without_colliders_or_bodies(clean_scene):
    base, arm = two_bodies(clean_scene)
    select(bpy.context, [base], base)
    before = state(clean_scene)
    refused(bpy.ops.articula.compute_mass, "base: .*add a collider")
    plain = mesh_object(clean_scene, "plain")
    before = state(clean_scene)
    select(bpy.context, [plain], plain)
    refused(bpy.ops.articula.compute_mass, "Select rigid bodies")
    assert state(clean_scene)[0] == before[0]


def test_compute_mass_refuses_all_when_one_fails(clean_scene):
    base, arm = two_bodies(clean_scene)
    select(bpy.context, [arm], arm)
    bpy.ops.articula.set_collider(shape="BOX")
    select(bpy.context, [base, arm], arm)
    before = state(clean_scene)
    refused(bpy.ops.articula.compute_mass, "base")
    assert state(clean_scene) == before and arm.articula.body.mass_mode == "AUTO"


# --- assign_collision ------------------------------------------------------------------------

def test_assign_collision_to_bodies_and_their_colliders(clean_scene):
    base, arm = two_bodies(clean_scene)
    for obj in (base, arm):
        select(bpy.context, [obj], obj)
        bpy.ops.articula.set_collider(shape="SPHERE")
    select(bpy.context, [base], base)
    bpy.ops.articula.assign_collision(set_group=True, group=-4, set_world=True, world=2)
    assert (base.articula.collider.collision_group, base.articula.collider.world, base.articula.body.world) == (-4, 2, 2)
    assert (arm.articula.collider.collision_group, arm.articula.body.world) == (1, 0)  # a separate body
    shapes = {s.name: (s.collision_group, s.world) for s in scene_from_blender(clean_scene).shapes}
    assert shapes == {"base": (-4, 2), "arm": (1, 0)}


def test_assign_collision_refuses_empty_input(clean_scene):
    plain = mesh_object(clean_scene, "plain")
    select(bpy.context, [plain], plain)
    before = state(clean_scene)
    refused(bpy.ops.articula.assign_collision, "Select colliders or rigid bodies")
    refused(bpy.ops.articula.assign_collision, "Choose a group", set_group=False, set_world=False)
    assert state(clean_scene) == before


# --- materials and filtered pairs ------------------------------------------------------------

def test_material_list_add_and_remove(clean_scene):
    bpy.ops.articula.material_add()
    bpy.ops.articula.material_add()
    names = [m.name for m in clean_scene.articula.materials]
    assert names == ["Material", "Material.001"]
    bpy.ops.articula.material_remove()
    assert [m.name for m in clean_scene.articula.materials] == ["Material"]
    bpy.ops.articula.material_remove()
    with pytest.raises(RuntimeError, match="poll"):
        bpy.ops.articula.material_remove()


def test_filtered_pair_add_and_remove(clean_scene):
    base, arm = two_bodies(clean_scene)
    select(bpy.context, [base, arm], arm)
    bpy.ops.articula.filtered_pair_add()
    assert scene_from_blender(clean_scene).filtered_pairs in ([("base", "arm")], [("arm", "base")])
    bpy.ops.articula.filtered_pair_remove()
    assert scene_from_blender(clean_scene).filtered_pairs == []
    select(bpy.context, [arm], arm)
    refused(bpy.ops.articula.filtered_pair_add, "exactly two rigid bodies")


# --- validate --------------------------------------------------------------------------------

def test_validate_lists_problems_and_selects_their_objects(clean_scene):
    build_scene(bpy.context, samples.six_dof_arm())
    link = bpy.data.objects["elbow_link"]
    link.scale = (1.0, 1.0, 2.0)
    clean_scene.articula.materials[0].dynamic_friction = 5.0
    bpy.context.view_layer.update()
    with pytest.raises(RuntimeError) as raised:  # an ERROR problem is reported as Blender's error
        bpy.ops.articula.validate()
    report = str(raised.value)
    assert "Error: elbow_link: body has non-uniform scale" in report
    assert "WARNING" not in report and "ERROR" not in report and "Error: Error" not in report
    problems = {(p.severity, p.object_name): p.message for p in clean_scene.articula.problems}
    assert ("ERROR", "elbow_link") in problems and "non-uniform scale" in problems[("ERROR", "elbow_link")]
    assert any("exceeds static friction" in p.message and p.object_name == "" for p in clean_scene.articula.problems)
    index = next(i for i, p in enumerate(clean_scene.articula.problems) if p.object_name == "elbow_link")
    bpy.ops.articula.select_problem_object(index=index)
    assert bpy.context.active_object is link and list(bpy.context.selected_objects) == [link]
    material_problem = next(i for i, p in enumerate(clean_scene.articula.problems) if not p.object_name)
    refused(bpy.ops.articula.select_problem_object, "concerns no object", index=material_problem)
    refused(bpy.ops.articula.select_problem_object, "No problem number", index=99)
    link.scale = (1.0, 1.0, 1.0)
    clean_scene.articula.materials[0].dynamic_friction = 0.1
    bpy.context.view_layer.update()
    bpy.ops.articula.validate()
    assert [p.message for p in clean_scene.articula.problems if p.severity == "ERROR"] == []


def test_select_problem_object_needs_a_validated_scene(clean_scene):
    clean_scene.articula.problems.clear()
    with pytest.raises(RuntimeError, match="poll"):
        bpy.ops.articula.select_problem_object()


def test_every_operator_is_undoable():
    from articula.operators import authoring, validate

    for cls in authoring.classes + validate.classes:
        assert {"REGISTER", "UNDO"} <= set(cls.bl_options), cls.bl_idname
