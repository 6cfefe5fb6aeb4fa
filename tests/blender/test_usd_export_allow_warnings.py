"""File > Export > Articula USD's *Allow Warnings* in real Blender (4.5 and 5.2): on (the default) the
file is written and its warnings reported; off, a robot with warnings is refused like one with errors,
the warnings listed and nothing written (the old file kept), in both layouts; a robot without
warnings is written either way."""

import os

import bpy
import pytest

pytest.importorskip("mujoco")

PYBULLET_DATA = os.environ.get("ARTICULA_PYBULLET_DATA",
                               os.path.expanduser("~/.cache/articula/pybullet_data"))
LAIKAGO = os.path.join(PYBULLET_DATA, "laikago", "laikago.urdf")  # links without inertia: warnings
R2D2 = os.path.join(PYBULLET_DATA, "r2d2.urdf")  # no warning


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def imported(path):
    if not os.path.isfile(path):
        pytest.skip("pybullet's files come with `make urdf-corpus`")
    assert bpy.ops.articula.import_urdf(filepath=path) == {"FINISHED"}


@pytest.mark.parametrize("layout", ["NESTED", "FLAT"])
def test_allow_warnings_off_refuses_a_robot_with_warnings_keeping_the_old_file(clean_scene, tmp_path, layout):
    imported(LAIKAGO)
    target = tmp_path / "laikago.usda"
    target.write_text("#usda 1.0\n")
    with pytest.raises(RuntimeError) as error:
        bpy.ops.articula.export_usd(filepath=str(target), layout=layout, allow_warnings=False)
    message = str(error.value)
    assert "warnings and Allow Warnings is off: nothing written" in message
    assert "chassis: inertia (0.0, 0.0, 0.0) must be positive" in message
    assert target.read_text() == "#usda 1.0\n"
    assert sorted(os.listdir(tmp_path)) == ["laikago.usda"]  # no temporary file, no textures
    assert bpy.ops.articula.export_usd(filepath=str(target), layout=layout) == {"FINISHED"}  # on by default
    assert "PhysicsRigidBodyAPI" in target.read_text()


def test_allow_warnings_off_writes_a_robot_without_warnings(clean_scene, tmp_path):
    imported(R2D2)
    target = tmp_path / "r2d2.usda"
    assert bpy.ops.articula.export_usd(filepath=str(target), allow_warnings=False) == {"FINISHED"}
    assert target.is_file()
