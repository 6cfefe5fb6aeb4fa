"""Real robots from other tools bake through Blender's operators: MJCF robots converted by NVIDIA's
mujoco-usd-converter (``make corpus``), with stacked joints (planar roots, 3-DOF hips), joint
springs and density-derived masses, imported with ``articula.import_usd`` and baked 1 s with
``articula.bake`` on MuJoCo and Featherstone: no blow-up, every baked pose finite, the robot moves.
(The bpy-free proof that Newton itself stays finite on them is tests/core/test_corpus.py.)"""

import glob
import math
import os

import bpy
import pytest

CORPUS = os.environ.get("ARTICULA_CORPUS", os.path.expanduser("~/.cache/articula/corpus"))


def _robot(key: str) -> str:
    files = glob.glob(os.path.join(CORPUS, key, "*.usda"))
    if not files:
        pytest.skip(f"{key} not converted: run `make corpus`")
    return files[0]


def _baked_locations(obj) -> list[tuple[float, ...]]:
    anim = obj.animation_data
    assert anim is not None and anim.action is not None, obj.name
    bag = anim.action.layers[0].strips[0].channelbag(anim.action_slot)
    curves = [fc for fc in bag.fcurves if fc.data_path == "location"]
    assert len(curves) == 3, obj.name
    return [tuple(fc.keyframe_points[i].co[1] for fc in curves) for i in range(len(curves[0].keyframe_points))]


@pytest.mark.parametrize("solver", ["MUJOCO", "FEATHERSTONE"])
@pytest.mark.parametrize("key", ["gym_hopper", "gym_humanoid"])
def test_converted_robot_imports_and_bakes_one_second(clean_scene, key, solver, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo's log, if any
    assert bpy.ops.articula.import_usd(filepath=_robot(key)) == {"FINISHED"}
    scene = clean_scene
    scene.render.fps = 24
    assert bpy.ops.articula.bake(frame_start=1, frame_end=25, solver=solver) == {"FINISHED"}
    from articula.addon.adapters.blender_to_description import is_body
    bodies = [o for o in scene.objects if is_body(o)]
    assert bodies
    moved = 0.0
    for obj in bodies:
        keys = _baked_locations(obj)
        assert len(keys) == 25
        assert all(math.isfinite(v) for key_ in keys for v in key_), obj.name
        moved = max(moved, math.dist(keys[0], keys[-1]))
    assert moved > 0.005  # it settles on the floor, sways or falls: it was simulated


def test_robot_whose_limits_blew_up_bakes_on_mujoco(clean_scene, tmp_path, monkeypatch):
    """Newton's ant (62 Hz, light legs on hard joint limits) blew up after 0.08 s ("The simulation blew
    up at body 'torso'") where MuJoCo on its MJCF holds: hard limits are now MuJoCo's own constraint."""
    monkeypatch.chdir(tmp_path)
    assert bpy.ops.articula.import_usd(filepath=_robot("newton_nv_ant")) == {"FINISHED"}
    clean_scene.render.fps = 24
    assert bpy.ops.articula.bake(frame_start=1, frame_end=25, solver="MUJOCO") == {"FINISHED"}
    torso = next(o for o in clean_scene.objects if o.name == "torso")
    keys = _baked_locations(torso)
    assert len(keys) == 25 and all(math.isfinite(v) for key_ in keys for v in key_)
    assert math.dist(keys[0], keys[-1]) > 1.0  # it falls past the file's floor (a plane facing +Y)
