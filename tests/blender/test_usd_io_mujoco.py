"""MuJoCo's model beyond bodies and joints through Blender's own USD export and Articula's USDHook, on
both Blenders: a robot holding every item (tests/core/test_usd_mujoco_model.py) built in Blender and
exported with ``articula.export_usd`` reads back with the same sites, cameras, lights, sensors,
keyframes, equalities, spatial tendons, contact pairs, frame actuators, options and contact
parameters. Blender writes the cameras and lights itself: the hook adds only MuJoCo's part to them."""

import sys
from pathlib import Path

import bpy
import pytest

from articula.addon.adapters.description_to_blender import build_scene

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
try:
    from test_usd_mujoco_converted import MODELS, _converted
    from test_usd_mujoco_model import _every_item_scene
finally:
    sys.path.pop(0)

from pxr import Usd  # noqa: E402

from articula.core.usd.compare import _MUJOCO_LISTS, scene_differences  # noqa: E402
from articula.core.usd.reader import read_usd  # noqa: E402


@pytest.fixture(params=["NESTED", "FLAT"])
def exported(clean_scene, tmp_path, request):
    """NESTED: Blender's exporter and the hook; FLAT: the core writer on the robot read from Blender."""
    scene = _every_item_scene()
    build_scene(bpy.context, scene)
    path = str(tmp_path / "every_item.usda")
    assert bpy.ops.articula.export_usd(filepath=path, layout=request.param) == {"FINISHED"}
    return scene, path


def _mujoco_differences(a, b) -> list[str]:
    """scene_differences of the MuJoCo items, options and contact parameters only."""
    kinds = tuple(kind.rstrip("s") + " " for kind in _MUJOCO_LISTS)
    return [d for d in scene_differences(a, b) if d.startswith(kinds) or d.startswith("settings")
            or ".contact" in d or ".free_joint_name" in d or ".name:" in d]


def test_every_mujoco_item_leaves_blender_as_it_came(exported):
    scene, path = exported
    back = read_usd(path)
    assert _mujoco_differences(scene, back.scene) == []


def test_blender_writes_cameras_and_lights_once(exported):
    scene, path = exported
    stage = Usd.Stage.Open(path)
    cameras = [p for p in stage.Traverse() if p.GetTypeName() == "Camera"]
    lights = [p for p in stage.Traverse() if p.GetTypeName() in ("SphereLight", "DistantLight")]
    assert len(cameras) == len(scene.cameras) and len(lights) == len(scene.lights)
    head_cam = next(p for p in cameras if "head_cam" in str(p.GetPath()))
    assert "/head/" in str(head_cam.GetPath())  # which body it rides on is the prim hierarchy
    assert head_cam.GetAttribute("mjc:camera:mode").Get() == "TARGETBODY"


@pytest.mark.parametrize("rel", MODELS)
def test_converted_mujoco_models_come_back_whole_through_blender(clean_scene, rel, tmp_path):
    """MuJoCo Warp's models as NVIDIA's converter writes them (sites as guide gprims, welds and connects
    as joints in the Physics scope, spatial tendons, site actuators) imported and exported again."""
    _, original = _converted(rel)
    assert bpy.ops.articula.import_usd(filepath=original) == {"FINISHED"}
    path = str(tmp_path / "export.usda")
    assert bpy.ops.articula.export_usd(filepath=path, layout="NESTED") == {"FINISHED"}
    assert _mujoco_differences(read_usd(original).scene, read_usd(path).scene) == []


def test_cameras_and_lights_keep_their_names_when_their_data_names_are_taken(clean_scene, tmp_path):
    """Blender names a camera's or light's prim after its data: where an earlier camera or light took
    the name (``head_cam.001``), the robot's camera still comes back as ``head_cam``."""
    scene = _every_item_scene()
    taken = [bpy.data.cameras.new(c.name) for c in scene.cameras] + \
        [bpy.data.lights.new(light.name, "POINT") for light in scene.lights]
    build_scene(bpy.context, scene)
    path = str(tmp_path / "every_item.usda")
    assert bpy.ops.articula.export_usd(filepath=path, layout="NESTED") == {"FINISHED"}
    back = read_usd(path).scene
    assert sorted(c.name for c in back.cameras) == sorted(c.name for c in scene.cameras)
    assert sorted(light.name for light in back.lights) == sorted(light.name for light in scene.lights)
    assert all(data.users == 0 for data in taken)  # the robot's objects made data of their own
