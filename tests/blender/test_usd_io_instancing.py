"""Scene instancing (``instanceable = true``), as Isaac Sim's assets use it, through File > Import > USD:
Blender draws an instance as an Empty instancing a prototype collection, the physics reader sees
instance proxies. Every visual and collider is drawn once: instanced visuals stay Blender's
instancers (materials kept), instanced colliders and bodies are Articula's, with no copy left over."""

import importlib.util
import os

import bpy
import pytest
from pxr import Sdf, Usd, UsdGeom

from articula.core import samples
from articula.core.usd.reader import read_usd
from articula.core.usd.writer import write_usd

_NEWTON = importlib.util.find_spec("newton")
NEWTON_DIR = os.path.dirname(_NEWTON.origin) if _NEWTON else None


def _instancers(scene) -> list:
    return [o for o in scene.objects if o.instance_type == "COLLECTION" and o.instance_collection is not None]


def test_instanced_colliders_are_built_once_without_blenders_copies(clean_scene):
    """Newton's cartpole (from Isaac Lab): each body's colliders are an instanceable ``collisions``
    prim. Blender instanced them (on the pole, merged into the body's own Empty); after the import
    each collider is one wire object of Articula's and no prototype is left."""
    path = os.path.join(NEWTON_DIR or "", "examples", "assets", "cartpole_single_pendulum.usda")
    if not os.path.isfile(path):
        pytest.skip("Newton's assets are not installed")
    assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}
    assert _instancers(clean_scene) == []
    assert not [c.name for c in bpy.data.collections if c.name.startswith("proto")]
    colliders = [o for o in clean_scene.objects if o.articula.collider.enabled]
    assert sorted(o.parent.name for o in colliders) == ["cart", "pole", "slider"]
    assert all(o.display_type == "WIRE" and o.hide_render for o in colliders)
    assert all(o.type in ("EMPTY", "MESH") for o in clean_scene.objects)
    drawn = [o for o in clean_scene.objects if o.type == "MESH" and not o.hide_render]
    assert drawn == [], "a collider drawn as a render object"


def _instanced_visuals_file(folder) -> tuple[str, int]:
    """The robotic finger with each visual mesh moved into a prototype and referenced back by an
    instanceable Xform of its name (Isaac Sim's converter does this with ``instanceable_meshes.usd``)."""
    path = str(folder / "finger_instanced.usda")
    write_usd(samples.robotic_finger(), path, layout="NESTED")
    stage = Usd.Stage.Open(path)
    layer = stage.GetRootLayer()
    visuals = [p.GetPath() for p in stage.Traverse()
               if p.IsA(UsdGeom.Mesh) and UsdGeom.Imageable(p).ComputePurpose() != UsdGeom.Tokens.guide]
    Sdf.CreatePrimInLayer(layer, "/Prototypes").specifier = Sdf.SpecifierClass
    for i, visual in enumerate(visuals):
        prototype = Sdf.Path(f"/Prototypes/visual_{i}")
        Sdf.CreatePrimInLayer(layer, prototype).specifier = Sdf.SpecifierDef
        layer.GetPrimAtPath(prototype).typeName = "Xform"
        Sdf.CopySpec(layer, visual, layer, prototype.AppendChild("mesh"))
        del layer.GetPrimAtPath(visual.GetParentPath()).nameChildren[visual.name]
        holder = Sdf.CreatePrimInLayer(layer, visual)
        holder.specifier, holder.typeName = Sdf.SpecifierDef, "Xform"
        holder.referenceList.Prepend(Sdf.Reference(primPath=prototype))
        holder.SetInfo("instanceable", True)
    layer.Save()
    return path, len(visuals)


def test_instanced_visuals_stay_blenders_and_export_once(clean_scene, tmp_path):
    path, count = _instanced_visuals_file(tmp_path)
    assert count == 5
    assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}
    instancers = _instancers(clean_scene)
    assert len(instancers) == count
    assert all(o.parent is not None and o.parent.articula.body.enabled for o in instancers)
    in_robot = [o for o in clean_scene.objects if o.parent is not None]  # not the prototypes' objects
    built = [o for o in in_robot if o.type == "MESH" and not o.articula.collider.enabled]
    assert built == [], "an instanced visual built a second time"

    out = str(tmp_path / "out.usda")
    assert bpy.ops.articula.export_usd(filepath=out) == {"FINISHED"}
    stage = Usd.Stage.Open(out)
    render = [p for p in stage.Traverse()
              if p.IsA(UsdGeom.Mesh) and UsdGeom.Imageable(p).ComputePurpose() != UsdGeom.Tokens.guide]
    assert len(render) == count
    again = read_usd(out).scene
    original = samples.robotic_finger()
    assert sorted(b.name for b in again.bodies) == sorted(b.name for b in original.bodies)
    assert len(again.shapes) == len(original.shapes) and len(again.visuals) == count


def test_instanced_robot_is_built_with_its_own_names(clean_scene, tmp_path):
    """A whole robot referenced as one instance: Articula builds it from the instance proxies, under
    its bodies' own names (Blender's prototype copies, which held them, are gone first)."""
    write_usd(samples.robotic_finger(), str(tmp_path / "robot.usda"), layout="NESTED")
    top = tmp_path / "top.usda"
    top.write_text('#usda 1.0\n(\n    defaultPrim = "robotic_finger"\n    upAxis = "Z"\n    metersPerUnit = 1\n)\n\n'
                   'def Xform "robotic_finger" (\n    instanceable = true\n    prepend references = @robot.usda@\n) {}\n')
    assert bpy.ops.articula.import_usd(filepath=str(top)) == {"FINISHED"}
    assert _instancers(clean_scene) == []
    assert not [c.name for c in bpy.data.collections if c.name.startswith("proto")]
    bodies = sorted(o.name for o in clean_scene.objects if o.articula.body.enabled)
    assert bodies == sorted(b.name for b in samples.robotic_finger().bodies)
