"""File > Import URDF then File > Export URDF in real Blender (4.5 and 5.2) keeps each joint as the
file has it, as urdfdom (Pinocchio) reads both: its name (a joint named like its link is another
object, ``name.001``, in Blender), its kind (continuous, revolute) and its limits."""

import os
import xml.etree.ElementTree as ET

import bpy
import pytest

pytest.importorskip("mujoco")

from tests.urdf_checks import pinocchio  # noqa: E402

PYBULLET_DATA = os.environ.get("ARTICULA_PYBULLET_DATA",
                               os.path.expanduser("~/.cache/articula/pybullet_data"))
#: minitaur: four joints named like a link, revolute knees without a range; r2d2: a continuous joint
#: with a <limit> range (urdfdom ignores it); laikago: continuous joints with effort limits.
ROBOTS = ["quadruped/minitaur.urdf", "r2d2.urdf", "laikago/laikago.urdf"]


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def unranged_revolutes(path: str) -> set[str]:
    """Revolute joints whose <limit> writes no range: urdfdom reads 0 0, MuJoCo, Newton and pybullet
    no limit; Articula reads them unlimited and writes them continuous."""
    return {j.get("name") for j in ET.parse(path).getroot().iter("joint") if j.get("type") == "revolute"
            and (j.find("limit") is None or j.find("limit").get("lower") is None)}


@pytest.mark.parametrize("robot", ROBOTS)
def test_joints_come_back_with_the_files_names_kinds_and_limits(clean_scene, tmp_path, robot):
    source = os.path.join(PYBULLET_DATA, robot)
    if not os.path.isfile(source):
        pytest.skip(f"{source} missing: run `make urdf-corpus`")
    assert bpy.ops.articula.import_urdf(filepath=source) == {"FINISHED"}
    root = next(o for o in clean_scene.objects if o.articula.body.enabled and o.parent is None)
    bpy.context.view_layer.objects.active = root
    out = str(tmp_path / "out.urdf")
    assert bpy.ops.articula.export_urdf(filepath=out) == {"FINISHED"}
    original, back = pinocchio(source)["joints"], pinocchio(out)["joints"]
    assert sorted(back) == sorted(original)
    unranged = unranged_revolutes(source)
    for name, joint in original.items():
        if name in unranged:
            assert back[name]["kind"] == "continuous", name
            continue
        for what in ("kind", "lower", "upper"):
            assert back[name][what] == pytest.approx(joint[what]), (name, what)
