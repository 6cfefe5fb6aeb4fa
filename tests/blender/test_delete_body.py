"""Deleting a body that joints reference: Delete Bodies and Their Joints removes the body (from the
file, no hidden copy), its joints and its own colliders; a plain delete is named by validation."""

import sys
from pathlib import Path

import bpy
import numpy as np
import pytest

from articula.addon.adapters.blender_to_description import blender_problems, scene_from_blender
from articula.addon.adapters.description_to_blender import build_scene
from articula.core import samples
from articula.core.validation import validate

sys.path.insert(0, str(Path(__file__).parent))
from authoring_helpers import reset_scene_settings  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_scene_settings(clean_scene):
    reset_scene_settings(clean_scene)
    yield


def select_only(obj):
    for other in bpy.context.selected_objects:
        other.select_set(False)
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj


def test_delete_body_removes_its_joints_and_colliders_and_keeps_the_rest_in_place(capfd):
    objects = build_scene(bpy.context, samples.six_dof_arm())
    elbow = objects["elbow_link"]
    wrist = objects["wrist_1_link"]
    wrist_world = wrist.matrix_world.copy()
    colliders = [c.name for c in elbow.children if c.articula.collider.enabled
                 and c.articula.collider.collider_only]
    assert colliders == ["elbow_link_collider"]
    select_only(elbow)
    capfd.readouterr()
    assert bpy.ops.articula.delete_body() == {"FINISHED"}
    out = capfd.readouterr().out
    assert "Deleted elbow_link" in out and "joint_3" in out and "joint_4" in out
    for name in ["elbow_link", "joint_3", "joint_4", *colliders]:
        assert bpy.data.objects.get(name) is None, name  # gone from the file, not only the scene
    bpy.context.view_layer.update()
    assert np.allclose(np.array(wrist.matrix_world), np.array(wrist_world), atol=1e-6)
    assert wrist.parent is objects["shoulder_lift_link"]
    problems = validate(scene_from_blender(bpy.context.scene)) + blender_problems(bpy.context.scene)
    assert not [p for p in problems if p.code in ("unknown_body", "joint_body_deleted")], problems


def test_delete_body_needs_a_selected_body():
    objects = build_scene(bpy.context, samples.pendulum())
    select_only(objects["pendulum_hinge"])
    with pytest.raises(RuntimeError, match="Select the rigid bodies to delete"):
        bpy.ops.articula.delete_body()
    assert bpy.data.objects.get("pendulum_link") is not None


def test_a_body_deleted_the_plain_way_is_named_by_validation():
    objects = build_scene(bpy.context, samples.six_dof_arm())
    elbow = objects["elbow_link"]
    for collection in list(elbow.users_collection):
        collection.objects.unlink(elbow)  # what Blender's Delete leaves while a joint points at it
    problems = blender_problems(bpy.context.scene)
    deleted = [p for p in problems if p.code == "joint_body_deleted"]
    assert {p.subject for p in deleted} == {"joint_3", "joint_4"}
    assert all("'elbow_link' is no longer in the scene" in p.message for p in deleted)
