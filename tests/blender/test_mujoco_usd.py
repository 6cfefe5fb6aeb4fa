"""MuJoCo's model through USD in Blender: File > Import USD makes each site, camera and light one Blender
object (Blender's own import of the prim, taken over), and File > Export USD gives them back."""

import sys
from pathlib import Path

import bpy
import pytest

from articula.core.usd.reader import read_usd
from articula.core.usd.writer import write_usd

sys.path.insert(0, str(Path(__file__).parent))
from test_mujoco_objects import mujoco_finger  # noqa: E402


@pytest.fixture(autouse=True)
def no_camera_or_light_data(clean_scene):
    """Blender's USD export names a camera's prim after its data: no data of an earlier test holds it."""
    for items in (bpy.data.cameras, bpy.data.lights):
        for item in list(items):
            items.remove(item)
    yield


def frames_in_scene():
    objects = list(bpy.data.objects)
    return {"sites": sorted(o.name for o in objects if o.articula.site.enabled),
            "cameras": sorted(o.name for o in objects if o.type == "CAMERA"),
            "lights": sorted(o.name for o in objects if o.type == "LIGHT"),
            "sensors": sorted(o.name for o in objects if o.articula.sensor.enabled)}


def test_usd_import_makes_one_object_each(clean_scene, tmp_path):
    path = str(tmp_path / "finger.usda")
    write_usd(mujoco_finger(), path)
    assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}
    assert frames_in_scene() == {"sites": ["palm_site", "tip"], "cameras": ["eye"], "lights": ["lamp", "sun"],
                                 "sensors": ["act_force", "mcp_pos", "tip_pos", "touch"]}
    assert bpy.data.objects["tip"].parent == bpy.data.objects["distal"]


def test_usd_import_then_export_keeps_them(clean_scene, tmp_path):
    path, out = str(tmp_path / "finger.usda"), str(tmp_path / "out.usda")
    write_usd(mujoco_finger(), path)
    assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}
    assert bpy.ops.articula.export_usd(filepath=out) == {"FINISHED"}
    back = read_usd(out).scene
    assert sorted(s.name for s in back.sites) == ["palm_site", "tip"]
    assert sorted(c.name for c in back.cameras) == ["eye"]
    assert sorted(s.name for s in back.sensors) == ["act_force", "mcp_pos", "tip_pos", "touch"]
    assert [k.name for k in back.keyframes] == ["bent"]
