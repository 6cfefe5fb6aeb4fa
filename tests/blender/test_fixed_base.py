"""Fixed Base: a body anchored to the world, simulated as held, written to USD as a fixed joint with
only body 1, and kept through an export -> import -> export round trip."""

import sys
from pathlib import Path

import bpy
import numpy as np
import pytest

from articula.addon.adapters.blender_to_description import scene_from_blender
from articula.addon.adapters.description_to_blender import build_scene
from articula.core import samples

sys.path.insert(0, str(Path(__file__).parent))
from authoring_helpers import reset_scene_settings  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_scene_settings(clean_scene):
    reset_scene_settings(clean_scene)
    clean_scene.render.fps, clean_scene.render.fps_base = 24, 1.0
    yield


def free_arm():
    """The six-DOF arm with its base's world joint removed: a free robot that falls."""
    objects = build_scene(bpy.context, samples.six_dof_arm())
    bpy.context.scene.articula.solver = "FEATHERSTONE"
    for joint in [o for o in bpy.context.scene.objects if o.articula.joint.enabled
                  and o.articula.joint.body0 is None]:
        bpy.data.objects.remove(joint)
    base = objects["arm_base"]
    assert all(j.body0 is not None for j in scene_from_blender(bpy.context.scene).joints)
    return base


def base_drop(base) -> float:
    start = np.array(base.matrix_world.translation)
    assert bpy.ops.articula.bake(frame_start=1, frame_end=12) == {"FINISHED"}
    bpy.context.scene.frame_set(12)
    bpy.context.view_layer.update()
    dropped = float(np.linalg.norm(np.array(base.matrix_world.translation) - start))
    bpy.ops.articula.clear_bake()
    return dropped


def test_the_toggle_holds_a_free_robot_in_place_during_a_bake():
    base = free_arm()
    assert base_drop(base) > 0.05  # free: it falls
    base.articula.body.fixed_base = True
    desc = scene_from_blender(bpy.context.scene)
    anchor = desc.joint("arm_base_fixed_base")
    assert anchor.body0 is None and anchor.body1 == "arm_base" and anchor.type.value == "FIXED"
    assert base_drop(base) < 1e-5


def usd_world_joints(path):
    from pxr import Usd, UsdPhysics

    stage = Usd.Stage.Open(str(path))
    found = []
    for prim in stage.Traverse():
        if prim.IsA(UsdPhysics.FixedJoint):
            joint = UsdPhysics.Joint(prim)
            body0 = joint.GetBody0Rel().GetTargets()
            body1 = joint.GetBody1Rel().GetTargets()
            if not body0:
                found.append([str(t.name) for t in body1])
    return found


def test_a_fixed_base_is_written_as_a_world_fixed_joint_and_survives_a_round_trip(tmp_path):
    base = free_arm()
    base.articula.body.fixed_base = True
    first = tmp_path / "fixed.usda"
    assert bpy.ops.articula.export_usd(filepath=str(first), allow_warnings=True) == {"FINISHED"}
    assert usd_world_joints(first) == [["arm_base"]]
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    assert bpy.ops.articula.import_usd(filepath=str(first)) == {"FINISHED"}
    desc = scene_from_blender(bpy.context.scene)
    assert [(j.body0, j.body1) for j in desc.joints if j.body0 is None] == [(None, "arm_base")]
    second = tmp_path / "again.usda"
    assert bpy.ops.articula.export_usd(filepath=str(second), allow_warnings=True) == {"FINISHED"}
    assert usd_world_joints(second) == [["arm_base"]]
    assert base_drop(bpy.data.objects["arm_base"]) < 1e-5


def test_a_world_joint_already_there_is_not_doubled():
    objects = build_scene(bpy.context, samples.six_dof_arm())
    objects["arm_base"].articula.body.fixed_base = True
    world = [j for j in scene_from_blender(bpy.context.scene).joints if j.body0 is None]
    assert len(world) == 1 and not world[0].name.endswith("_fixed_base")


def test_the_body_panel_offers_the_toggle_and_names_a_world_joint(capfd):
    from test_panels_draw import assert_clean_output, draw_panel, drawn_props
    from articula.panels import physics

    objects = build_scene(bpy.context, samples.six_dof_arm())
    _, log = draw_panel(physics.ARTICULA_PT_body, objects["arm_base"])
    assert "fixed_base" in drawn_props(log)
    assert any("through joint 'arm_base_to_world'" in e[2] for e in log if e[0] == "label")
    _, log = draw_panel(physics.ARTICULA_PT_body, objects["elbow_link"])
    assert not any("through joint" in e[2] for e in log if e[0] == "label")
    assert_clean_output(capfd)
