"""articula.bake / articula.clear_bake on real Blender data (layered actions on 4.4+ and 5.0)."""

import sys
from pathlib import Path

import bpy
import numpy as np
import pytest

from articula.addon.adapters.description_to_blender import build_scene
from articula.core import samples
from articula.addon.adapters import simulation_to_keyframes as bake_module

sys.path.insert(0, str(Path(__file__).parent))
from authoring_helpers import reset_scene_settings  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_scene_settings(clean_scene):
    reset_scene_settings(clean_scene)
    clean_scene.render.fps, clean_scene.render.fps_base = 24, 1.0
    yield


def load(sample, solver="FEATHERSTONE"):
    desc = samples.SAMPLES[sample]()
    objects = build_scene(bpy.context, desc)
    bpy.context.scene.articula.solver = solver
    return desc, objects


def baked_curves(obj):
    anim = obj.animation_data
    assert anim.action is not None and anim.action.get(bake_module.BAKE_MARK)
    bag = anim.action.layers[0].strips[0].channelbag(anim.action_slot)
    return {(fc.data_path, fc.array_index): fc for fc in bag.fcurves}


def test_bake_keys_every_frame_and_playback_matches_the_simulation():
    scene = bpy.context.scene
    _, objects = load("six_dof_arm")
    scene.frame_start, scene.frame_end = 1, 24
    session, action = bake_module.bake(bpy.context, 1, 24, "FEATHERSTONE", substeps=25)
    assert session.sim.dt == pytest.approx(1.0 / 600.0)
    baked = session.writer.objects
    assert {o.name for o in baked} == {n for n in objects if n == "arm_base" or n.endswith("link")}
    curves = baked_curves(baked[0])
    assert len(curves) == 7 and all(len(fc.keyframe_points) == 24 for fc in curves.values())
    assert curves[("location", 0)].keyframe_points[0].co[0] == 1.0
    assert curves[("location", 0)].keyframe_points[-1].interpolation == "LINEAR"
    # The last frame plays back the simulation's final world poses.
    scene.frame_set(24)
    bpy.context.view_layer.update()
    poses = dict(zip(session.sim.body_names, session.sim.body_poses()))
    for obj in baked:
        location, rotation, _ = obj.matrix_world.decompose()
        assert np.allclose(location, poses[obj.name][:3], atol=1e-5), obj.name
        assert abs(np.dot(rotation, poses[obj.name][3:])) == pytest.approx(1.0, abs=1e-5), obj.name


def test_rebake_replaces_and_clear_restores_the_authored_poses():
    scene = bpy.context.scene
    _, objects = load("pendulum")
    link = objects["pendulum_link"]
    authored = link.matrix_world.copy()
    mode = link.rotation_mode
    assert bpy.ops.articula.bake(frame_start=1, frame_end=12) == {"FINISHED"}
    assert bpy.ops.articula.bake(frame_start=1, frame_end=30, solver="MUJOCO", substeps=10) == {"FINISHED"}
    assert len([a for a in bpy.data.actions if a.get(bake_module.BAKE_MARK)]) == 1
    assert len(baked_curves(link)[("rotation_quaternion", 0)].keyframe_points) == 30
    scene.frame_set(30)
    bpy.context.view_layer.update()
    assert link.matrix_world != authored  # it swung
    assert bpy.ops.articula.clear_bake() == {"FINISHED"}
    bpy.context.view_layer.update()
    assert bake_module.bake_action() is None
    assert link.animation_data is None or link.animation_data.action is None
    assert np.allclose(np.array(link.matrix_world), np.array(authored), atol=1e-6)
    assert link.rotation_mode == mode
    assert not bpy.ops.articula.clear_bake.poll()


def test_clear_bake_gives_back_an_earlier_action():
    _, objects = load("pendulum")
    link = objects["pendulum_link"]
    link.keyframe_insert("location", frame=1)
    own = link.animation_data.action
    assert bpy.ops.articula.bake(frame_start=1, frame_end=5) == {"FINISHED"}
    assert link.animation_data.action != own
    bpy.ops.articula.clear_bake()
    assert link.animation_data.action == own


def test_empty_range_is_refused_and_nothing_is_baked():
    load("pendulum")
    with pytest.raises(RuntimeError, match="frame range"):
        bpy.ops.articula.bake(frame_start=10, frame_end=10)
    assert bake_module.bake_action() is None


def test_continuous_quaternions_take_the_short_way():
    q = np.array([[[1.0, 0, 0, 0]], [[-0.99, 0.1, 0, 0]], [[0.98, -0.2, 0, 0]]])
    fixed = bake_module.continuous_quaternions(q)
    assert (np.einsum("fbi,fbi->fb", fixed[1:], fixed[:-1]) > 0).all()
