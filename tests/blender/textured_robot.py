"""The issue-12 robot for the USD visual tests: a bevelled base and an n-gon-capped arm, smooth, UV
mapped, with an image texture, box colliders and a revolute joint, authored through Articula's
operators."""

import bpy
import pytest


def _textured_material(tmp_path):
    image = bpy.data.images.new("checker", 8, 8)
    image.filepath_raw = str(tmp_path / "checker.png")
    image.file_format = "PNG"
    image.save()
    material = bpy.data.materials.new("painted")
    if bpy.app.version < (5, 0, 0):
        material.use_nodes = True
    nodes = material.node_tree.nodes
    bsdf = next(n for n in nodes if n.type == "BSDF_PRINCIPLED")
    texture = nodes.new("ShaderNodeTexImage")
    texture.image = image
    material.node_tree.links.new(texture.outputs["Color"], bsdf.inputs["Base Color"])
    return material


def _select(*objects, active=None):
    for obj in bpy.context.view_layer.objects:
        obj.select_set(False)
    for obj in objects:
        obj.select_set(True)
    bpy.context.view_layer.objects.active = active or objects[-1]


@pytest.fixture
def two_link(clean_scene, tmp_path):
    """The issue's robot, authored through Articula's operators."""
    material = _textured_material(tmp_path)
    bpy.ops.mesh.primitive_cube_add(size=0.2, location=(0.0, 0.0, 0.1))
    base = bpy.context.active_object
    base.name = "base"
    bevel = base.modifiers.new("Bevel", "BEVEL")
    bevel.width, bevel.segments = 0.02, 1
    bpy.ops.mesh.primitive_cylinder_add(vertices=32, radius=0.03, depth=0.3, location=(0.0, 0.0, 0.35))
    arm = bpy.context.active_object
    arm.name = "arm"
    for obj in (base, arm):
        obj.data.materials.append(material)
        _select(obj)
        bpy.ops.object.shade_smooth()
    arm.parent = base
    arm.matrix_parent_inverse = base.matrix_world.inverted()
    _select(base, arm)
    assert bpy.ops.articula.make_body() == {"FINISHED"}
    for obj in (base, arm):
        _select(obj)
        assert bpy.ops.articula.set_collider(shape="BOX") == {"FINISHED"}
    _select(base, arm, active=arm)
    assert bpy.ops.articula.add_joint(type="REVOLUTE", axis="X") == {"FINISHED"}
    bpy.context.view_layer.update()
    return clean_scene, base, arm
