"""File > Export in real Blender, with Blender's own USD: the finger, layouts, refusals."""

import math
import os

import bpy
import pytest
from pxr import Usd, UsdGeom, UsdPhysics

from articula.addon.adapters.description_to_blender import build_scene
from articula.core import samples

FINGER = ["palm", "index_finger_base", "proximal", "middle", "distal"]


@pytest.fixture
def finger(clean_scene):
    objects = build_scene(bpy.context, samples.robotic_finger())
    return clean_scene, objects


def test_usd_comes_from_blender():
    from articula.addon.pxr_runtime import blender_site_packages

    import pxr
    if os.path.isdir(os.path.join(blender_site_packages(), "pxr")):
        assert pxr.__file__.startswith(blender_site_packages())


def test_export_menu_entries_are_registered(articula_addon):
    from articula.panels import menus

    assert menus.draw_export in bpy.types.TOPBAR_MT_file_export._dyn_ui_initialize()
    assert menus.draw_import in bpy.types.TOPBAR_MT_file_import._dyn_ui_initialize()


def test_finger_built_in_blender_exports_the_proposal_structure(finger, tmp_path):
    path = str(tmp_path / "finger.usda")
    assert bpy.ops.articula.export_usd(filepath=path) == {"FINISHED"}
    stage = Usd.Stage.Open(path)
    assert UsdGeom.GetStageUpAxis(stage) == "Z" and UsdGeom.GetStageMetersPerUnit(stage) == 1.0
    root = stage.GetDefaultPrim()
    base = root.GetChild("palm_articulation")
    assert base.HasAPI(UsdPhysics.ArticulationRootAPI)
    prim = base
    for name in FINGER:
        prim = prim.GetChild(name)
        assert prim and prim.HasAPI(UsdPhysics.RigidBodyAPI), name
        ops = [op.GetOpName() for op in UsdGeom.Xformable(prim).GetOrderedXformOps()]
        assert ops == ["xformOp:translate", "xformOp:orient"], name
    distal_joint = UsdPhysics.RevoluteJoint(prim.GetChild("distal_interphalangeal"))
    assert distal_joint.GetBody1Rel().GetTargets() == [prim.GetPath()]
    assert distal_joint.GetBody0Rel().GetTargets() == [prim.GetParent().GetPath()]
    assert distal_joint.GetUpperLimitAttr().Get() == pytest.approx(math.degrees(1.7), rel=1e-5)
    index = base.GetChild("palm").GetChild("index_finger_base")
    assert tuple(index.GetAttribute("xformOp:translate").Get()) == pytest.approx((-0.007, 0.023, -0.0187), abs=1e-6)


def test_flat_export_of_the_selection_only(finger, tmp_path):
    scene, objects = finger
    for obj in scene.objects:
        obj.select_set(False)
    objects["palm"].select_set(True)  # the palm brings its whole parented tree
    path = str(tmp_path / "flat.usda")
    assert bpy.ops.articula.export_usd(filepath=path, layout="FLAT", selected_only=True) == {"FINISHED"}
    stage = Usd.Stage.Open(path)
    container = stage.GetDefaultPrim().GetChild("palm_articulation")
    bodies = [c.GetName() for c in container.GetChildren() if c.HasAPI(UsdPhysics.RigidBodyAPI)]
    assert sorted(bodies) == sorted(FINGER)


def _scale_middle(objects):
    objects["middle"].scale = (1.0, 2.0, 1.0)  # a non-uniformly scaled body: Blender-side check
    bpy.context.view_layer.update()


def _infinite_mass(objects):
    body = objects["middle"].articula.body  # validation's check, run beside Blender's exporter
    body.mass_mode, body.mass = "MANUAL", math.inf


@pytest.mark.parametrize("break_it, message", [(_scale_middle, "non-uniform"),
                                               (_infinite_mass, "mass must be a finite number")])
def test_a_refused_scene_leaves_the_file_untouched(finger, tmp_path, break_it, message):
    """Refused before Blender's exporter runs, or by validation beside it: nothing written."""
    _, objects = finger
    break_it(objects)
    path = tmp_path / "finger.usda"
    path.write_text("keep me")
    with pytest.raises(RuntimeError, match=message):
        bpy.ops.articula.export_usd(filepath=str(path))
    assert path.read_text() == "keep me"
    assert os.listdir(tmp_path) == ["finger.usda"]


def test_the_export_gives_pythons_garbage_collector_back(finger, tmp_path):
    """The export pauses the cyclic collector while it runs; afterwards it is as it was, after a
    refusal too, and stays off where a script had turned it off."""
    import gc

    _, objects = finger
    assert gc.isenabled()
    assert bpy.ops.articula.export_usd(filepath=str(tmp_path / "a.usda")) == {"FINISHED"}
    assert gc.isenabled()
    gc.disable()
    try:
        assert bpy.ops.articula.export_usd(filepath=str(tmp_path / "b.usda")) == {"FINISHED"}
        assert not gc.isenabled()
    finally:
        gc.enable()
    _infinite_mass(objects)
    with pytest.raises(RuntimeError, match="mass must be a finite number"):
        bpy.ops.articula.export_usd(filepath=str(tmp_path / "c.usda"))
    assert gc.isenabled()


def test_what_validation_warns_of_is_written_and_reported(finger, tmp_path):
    from articula.operators.io_usd import export_scene

    _, objects = finger
    body = objects["middle"].articula.body
    body.mass_mode, body.mass = "MANUAL", -1.0
    path = str(tmp_path / "finger.usda")
    warnings = export_scene(bpy.context, path, "NESTED", False, allow_warnings=True)
    assert any("mass must be positive" in w for w in warnings)
    stage = Usd.Stage.Open(path)
    middle = next(p for p in stage.Traverse() if p.GetName() == "middle")
    assert UsdPhysics.MassAPI(middle).GetMassAttr().Get() == -1.0
