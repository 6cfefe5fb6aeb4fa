"""Articula's USD is Blender's USD plus physics (issue 12): a two-link robot with a bevel modifier,
n-gon caps, UVs, smooth shading and an image texture exports its render meshes exactly as
Blender's own ``wm.usd_export`` does, with the physics authored onto those prims by the USD hook."""

import importlib.util
import sys
import warnings
from pathlib import Path

import bpy
import numpy as np
import pytest
from pxr import Usd, UsdGeom, UsdPhysics, UsdShade

from articula.addon.adapters.blender_to_description import WorldFrames, scene_from_blender
from articula.addon.usd_hook import OBJECT_NAME_ATTR

_NEWTON = importlib.util.find_spec("newton") is not None and hasattr(UsdPhysics, "Axis")

sys.path.insert(0, str(Path(__file__).parent))
from textured_robot import _select, _textured_material, two_link  # noqa: E402,F401  (two_link: a fixture)


def _meshes_by_object(stage) -> dict:
    """Blender object name -> its Mesh prim (the gprim Blender wrote under the object's Xform)."""
    meshes = {}
    for prim in stage.Traverse():
        attr = prim.GetAttribute(OBJECT_NAME_ATTR)
        if attr and attr.Get():
            for child in prim.GetChildren():
                if child.IsA(UsdGeom.Mesh):
                    meshes[attr.Get()] = child
    return meshes


def _texture_files(mesh) -> list[str]:
    material = UsdShade.MaterialBindingAPI(mesh).ComputeBoundMaterial()[0]
    files = []
    for prim in Usd.PrimRange(material.GetPrim()):
        shader = UsdShade.Shader(prim)
        if shader and shader.GetIdAttr().Get() == "UsdUVTexture":
            files.append(str(shader.GetInput("file").Get().path).replace("\\", "/").rsplit("/", 1)[-1])
    return files


def test_render_meshes_are_blenders_own(two_link, tmp_path):
    ours, blenders = str(tmp_path / "ours.usda"), str(tmp_path / "blender.usda")
    assert bpy.ops.articula.export_usd(filepath=ours) == {"FINISHED"}
    assert bpy.ops.wm.usd_export(filepath=blenders, convert_world_material=False) == {"FINISHED"}
    stages = Usd.Stage.Open(ours), Usd.Stage.Open(blenders)  # prims live as long as their stage
    ours_meshes, theirs = (_meshes_by_object(stage) for stage in stages)
    for name, faces, ngons in (("base", 26, 0), ("arm", 34, 2)):
        a, b = UsdGeom.Mesh(ours_meshes[name]), UsdGeom.Mesh(theirs[name])
        counts = list(a.GetFaceVertexCountsAttr().Get())
        assert counts == list(b.GetFaceVertexCountsAttr().Get())
        assert len(counts) == faces and sum(c > 4 for c in counts) == ngons, name
        assert list(a.GetFaceVertexIndicesAttr().Get()) == list(b.GetFaceVertexIndicesAttr().Get())
        assert np.allclose(np.array(a.GetPointsAttr().Get()), np.array(b.GetPointsAttr().Get()))
        assert np.allclose(np.array(a.GetNormalsAttr().Get()), np.array(b.GetNormalsAttr().Get()))
        st_a = UsdGeom.PrimvarsAPI(a).GetPrimvar("st")
        st_b = UsdGeom.PrimvarsAPI(b).GetPrimvar("st")
        assert st_a and np.allclose(np.array(st_a.Get()), np.array(st_b.Get())), name
        assert _texture_files(ours_meshes[name]) == _texture_files(theirs[name]) == ["checker.png"], name
        assert UsdGeom.Imageable(ours_meshes[name]).GetPurposeAttr().Get() == UsdGeom.Tokens.render


def test_physics_sits_on_blenders_prims(two_link, tmp_path):
    path = str(tmp_path / "ours.usda")
    assert bpy.ops.articula.export_usd(filepath=path) == {"FINISHED"}
    stage = Usd.Stage.Open(path)
    base, arm = stage.GetPrimAtPath("/root/base"), stage.GetPrimAtPath("/root/base/arm")
    for body in (base, arm):
        assert body.HasAPI(UsdPhysics.RigidBodyAPI) and body.HasAPI(UsdPhysics.MassAPI)
        ops = [op.GetOpName() for op in UsdGeom.Xformable(body).GetOrderedXformOps()]
        assert ops == ["xformOp:translate", "xformOp:orient"]
    assert base.HasAPI(UsdPhysics.ArticulationRootAPI)
    joint = UsdPhysics.RevoluteJoint(arm.GetChild("arm_joint"))
    assert joint and joint.GetBody0Rel().GetTargets() == [base.GetPath()]
    assert not UsdGeom.Xformable(joint.GetPrim()).GetXformOpOrderAttr().HasAuthoredValue()
    colliders = [p for p in Usd.PrimRange(base) if p.HasAPI(UsdPhysics.CollisionAPI)]
    assert len(colliders) == 2
    assert all(UsdGeom.Imageable(p).GetPurposeAttr().Get() == UsdGeom.Tokens.guide for p in colliders)
    assert not stage.GetPrimAtPath("/root/env_light")


def test_body_scale_moves_onto_its_mesh(two_link, tmp_path):
    _, base, arm = two_link
    arm.scale = (1.0, 1.0, 2.0)  # a scaled body (uniform scale only is valid): the mesh keeps it
    arm.scale = (1.5, 1.5, 1.5)
    bpy.context.view_layer.update()
    path = str(tmp_path / "scaled.usda")
    assert bpy.ops.articula.export_usd(filepath=path) == {"FINISHED"}
    stage = Usd.Stage.Open(path)
    prim = stage.GetPrimAtPath("/root/base/arm")
    assert [op.GetOpName() for op in UsdGeom.Xformable(prim).GetOrderedXformOps()] == [
        "xformOp:translate", "xformOp:orient"]
    mesh = _meshes_by_object(stage)["arm"]
    world = UsdGeom.Xformable(mesh).ComputeLocalToWorldTransform(Usd.TimeCode.Default())
    expected = np.array(arm.matrix_world).T  # Blender's column vectors -> USD's row vectors
    assert np.allclose(np.array(world), expected, atol=1e-6)


def test_export_of_a_bodiless_scene_says_so(clean_scene, tmp_path):
    bpy.ops.mesh.primitive_cube_add()
    path = str(tmp_path / "empty.usda")
    bpy.ops.articula.export_usd(filepath=path)
    stage = Usd.Stage.Open(path)
    assert not [p for p in stage.Traverse() if p.HasAPI(UsdPhysics.RigidBodyAPI)]


def test_failed_export_leaves_the_old_file(two_link, tmp_path, monkeypatch):
    from articula.core.usd import physics_author

    path = tmp_path / "robot.usda"
    path.write_text("keep me")

    def broken(*args, **kwargs):
        raise RuntimeError("authoring broke")

    monkeypatch.setattr(physics_author, "author_physics", broken)
    with pytest.raises(RuntimeError, match="authoring broke"):
        bpy.ops.articula.export_usd(filepath=str(path))
    assert path.read_text() == "keep me"
    # no temporary file left (Blender may already have copied the textures into textures/)
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["checker.png", "robot.usda"]


def test_plain_usd_export_carries_the_physics_unless_turned_off(two_link, tmp_path, monkeypatch):
    import types

    from articula.addon import preferences

    path = str(tmp_path / "plain.usda")
    assert bpy.ops.wm.usd_export(filepath=path) == {"FINISHED"}
    assert Usd.Stage.Open(path).GetPrimAtPath("/root/base").HasAPI(UsdPhysics.RigidBodyAPI)
    # the preference as the installed extension has it (tests load the add-on under another id)
    off = types.SimpleNamespace(usd_export_physics=False, device="AUTO")
    monkeypatch.setattr(preferences, "preferences", lambda context=None: off)
    assert bpy.ops.wm.usd_export(filepath=path) == {"FINISHED"}
    stage = Usd.Stage.Open(path)
    assert stage.GetPrimAtPath("/root/base") and not stage.GetPrimAtPath("/root/base").HasAPI(
        UsdPhysics.RigidBodyAPI)


def test_plain_usd_export_of_the_selection_carries_its_physics(two_link, tmp_path):
    """Blender writes only the selected objects: the hook authors the physics of what it wrote
    (a body's children it left out, another body and its joint, are no part of it)."""
    _, base, arm = two_link
    _select(base)
    path = str(tmp_path / "base.usda")
    assert bpy.ops.wm.usd_export(filepath=path, selected_objects_only=True) == {"FINISHED"}
    stage = Usd.Stage.Open(path)
    assert stage.GetPrimAtPath("/root/base").HasAPI(UsdPhysics.RigidBodyAPI)
    assert not stage.GetPrimAtPath("/root/base/arm")
    assert [p for p in stage.Traverse() if p.HasAPI(UsdPhysics.CollisionAPI)]
    del stage
    _select(base, arm, bpy.data.objects["arm_joint"])
    path = str(tmp_path / "both.usda")
    assert bpy.ops.wm.usd_export(filepath=path, selected_objects_only=True) == {"FINISHED"}
    stage = Usd.Stage.Open(path)
    assert stage.GetPrimAtPath("/root/base/arm").HasAPI(UsdPhysics.RigidBodyAPI)
    assert [p for p in stage.Traverse() if p.IsA(UsdPhysics.RevoluteJoint)]


@pytest.mark.skipif(not _NEWTON, reason="Newton 1.8's add_usd needs UsdPhysics.Axis, missing in 4.5's USD 25.02")
def test_newton_loads_the_same_model_as_the_core_writer(two_link, tmp_path):
    import newton

    from articula.core.usd.writer import write_usd

    scene = two_link[0]
    ours, core = str(tmp_path / "ours.usda"), str(tmp_path / "core.usda")
    assert bpy.ops.articula.export_usd(filepath=ours) == {"FINISHED"}
    write_usd(scene_from_blender(scene, None, WorldFrames()), core)

    def load(path):
        builder = newton.ModelBuilder()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            builder.add_usd(path)
        return builder.finalize(device="cpu")

    a, b = load(core), load(ours)
    leaf = lambda labels: [label.rsplit("/", 1)[-1] for label in labels]  # noqa: E731
    assert leaf(a.body_label) == leaf(b.body_label) and leaf(a.joint_label) == leaf(b.joint_label)
    for attr in ("body_mass", "body_com", "body_inertia", "body_q", "joint_type", "joint_X_p", "joint_X_c",
                 "joint_axis", "joint_limit_lower", "joint_limit_upper", "shape_type", "shape_scale",
                 "shape_transform"):
        assert np.allclose(getattr(a, attr).numpy(), getattr(b, attr).numpy(), atol=1e-5), attr


def test_export_and_import_without_physics_say_what_happened(clean_scene, tmp_path):
    from articula.operators.io_usd import export_scene, import_summary

    bpy.ops.mesh.primitive_cube_add()
    path = str(tmp_path / "plain.usda")
    warnings_ = export_scene(bpy.context, path, "NESTED", False, allow_warnings=True)
    assert any("no rigid bodies" in w for w in warnings_)
    bpy.data.objects.remove(bpy.context.active_object)
    assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}
    level, message = import_summary(path, list(clean_scene.objects))
    assert level == "WARNING" and "no UsdPhysics rigid bodies" in message and path in message
    assert import_summary(path, [])[0] == "WARNING"


def test_unreadable_file_is_named_without_cpp_details(clean_scene, tmp_path):
    path = tmp_path / "broken.usda"
    path.write_text("not usd at all")
    with pytest.raises(RuntimeError) as error:
        bpy.ops.articula.import_usd(filepath=str(path))
    text = str(error.value)
    assert str(path) in text and "not a readable USD file" in text
    assert "pxr" not in text and ".cpp" not in text and "::" not in text


def test_plain_usd_export_keeps_colliders_hidden_from_render(clean_scene, tmp_path):
    """Collider stand-ins are hidden from render, so Blender does not write them: the hook still
    authors every collider (on both export paths) and no body is left massless."""
    from articula.addon.adapters.description_to_blender import build_scene
    from articula.core import samples

    scene = samples.robotic_finger()
    build_scene(bpy.context, scene)
    for i, export in enumerate((lambda p: bpy.ops.wm.usd_export(filepath=p),
                                lambda p: bpy.ops.articula.export_usd(filepath=p))):
        path = str(tmp_path / f"finger{i}.usda")
        assert export(path) == {"FINISHED"}
        stage = Usd.Stage.Open(path)
        colliders = [p for p in stage.Traverse() if p.HasAPI(UsdPhysics.CollisionAPI)]
        assert len(colliders) == len(scene.shapes)
        masses = [UsdPhysics.MassAPI(p).GetMassAttr().Get() for p in stage.Traverse()
                  if p.HasAPI(UsdPhysics.RigidBodyAPI)]
        assert len(masses) == len(scene.bodies) and all(m > 0 for m in masses)


def test_nested_export_of_the_selection_only(two_link, tmp_path):
    _, base, arm = two_link
    bpy.ops.mesh.primitive_monkey_add(location=(1.0, 0.0, 0.0))
    other = bpy.context.active_object
    _select(base)  # the base brings what is parented to it: the arm, its joint
    path = str(tmp_path / "selected.usda")
    assert bpy.ops.articula.export_usd(filepath=path, selected_only=True) == {"FINISHED"}
    stage = Usd.Stage.Open(path)
    names = {p.GetAttribute(OBJECT_NAME_ATTR).Get() for p in stage.Traverse() if p.GetAttribute(OBJECT_NAME_ATTR)}
    assert names == {"base", "arm", "arm_joint"}
    assert stage.GetPrimAtPath("/root/base/arm").HasAPI(UsdPhysics.RigidBodyAPI)
    assert [o.name for o in bpy.context.selected_objects] == ["base"] and not other.select_get()
