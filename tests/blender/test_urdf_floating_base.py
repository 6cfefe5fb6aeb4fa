"""File > Import URDF with *Floating Base* in real Blender (4.5 and 5.2): the root link's object is a
floating body (no joint holds it to the world), and a bake lets the robot fall; without it the root stays
welded where it is."""

import os

import bpy
import pytest

pytest.importorskip("mujoco")

from articula.addon.adapters.blender_to_description import scene_from_blender  # noqa: E402

PYBULLET_DATA = os.environ.get("ARTICULA_PYBULLET_DATA",
                               os.path.expanduser("~/.cache/articula/pybullet_data"))
A1 = os.path.join(PYBULLET_DATA, "a1", "a1.urdf")


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def trunk_height_after_bake(scene) -> float:
    assert bpy.ops.articula.bake(frame_start=1, frame_end=8, solver="MUJOCO") == {"FINISHED"}
    scene.frame_set(8)
    return scene.objects["trunk"].matrix_world.translation.z


@pytest.mark.parametrize("floating", [True, False])
def test_the_floating_base_falls_and_the_fixed_one_stays(clean_scene, floating):
    if not os.path.isfile(A1):
        pytest.skip(f"{A1} missing: run `make urdf-corpus`")
    imported = bpy.ops.articula.import_urdf(filepath=A1, floating_base=floating, place_on_ground=False)
    assert imported == {"FINISHED"}
    held = [j.name for j in scene_from_blender(clean_scene).joints if j.body0 is None]
    assert held == ([] if floating else ["trunk_fixed_base"])
    fallen = -trunk_height_after_bake(clean_scene)
    if floating:  # about 7 frames at 24 fps of free fall (whole steps per frame): 0.42 m
        assert fallen == pytest.approx(0.5 * 9.81 * (7 / 24) ** 2, rel=0.1)
    else:
        assert fallen == pytest.approx(0.0, abs=1e-6)


def test_a_floating_robot_is_placed_on_the_ground_and_a_bake_keeps_it_above_it(clean_scene):
    if not os.path.isfile(A1):
        pytest.skip(f"{A1} missing: run `make urdf-corpus`")
    assert bpy.ops.articula.import_urdf(filepath=A1, floating_base=True) == {"FINISHED"}
    clean_scene.articula.ground_plane = True  # after: the import gives the scene the file's settings
    from articula.core.ground import lowest_point

    description = scene_from_blender(clean_scene)
    lowest = min(lowest_point(s, description.body(s.body).pose) for s in description.shapes if s.body)
    assert lowest == pytest.approx(0.001, abs=1e-4)  # Blender keeps float32 poses
    start = clean_scene.objects["trunk"].matrix_world.translation.z
    assert start > 0.3
    assert 0.0 < trunk_height_after_bake(clean_scene) <= start
