"""The export's fast read of the robot (``robot_for_export``: property groups read once, fields in one
call, body frames inverted once) gives exactly what reading field by field and composing each pose
with ``core.transforms`` gives: same values, same types, bit for bit."""

import math

import bpy

from articula.addon.adapters import fields
from articula.addon.adapters.blender_to_description import (WorldFrames, blender_problems, scene_from_blender,
                                                            world_pose)
from articula.addon.adapters.blender_to_export import robot_for_export
from articula.addon.adapters.description_to_blender import build_scene
from articula.core import samples
from articula.core.model import Pose
from articula.core.transforms import pose_mul, pose_relative, quat_normalize


def _field_by_field(props, names: dict) -> dict:
    """The reference read: one ``getattr`` per field, vectors as tuples, enums as their members."""
    values = {}
    for name, enum_type in names.items():
        switch = fields.INFINITE_WHEN_OFF.get(name)
        if switch and not getattr(props, switch[0]):
            values[name] = switch[1]
            continue
        value = getattr(props, name)
        value = value if isinstance(value, (bool, int, float, str)) else tuple(value)
        values[name] = enum_type(value) if enum_type else value
    return values


def _robot(scene):
    build_scene(bpy.context, samples.six_dof_arm())
    objects = {obj.name: obj for obj in scene.objects}
    bodies = [obj for obj in scene.objects if obj.articula.body.enabled]
    joints = [obj for obj in scene.objects if obj.articula.joint.enabled and obj.articula.joint.dofs]
    dof = joints[0].articula.joint.dofs[0]
    dof.has_lower_limit, dof.has_max_effort, dof.lower = False, True, -0.25  # switches off and on
    joints[1].articula.joint.body0_frame_offset_rotation = (0.9, 0.1, -0.3, 0.2)
    joints[1].articula.joint.body0_frame_offset_location = (0.01, -0.02, 0.3)
    # frames off the axes, so that any change in the order of float operations shows
    bodies[0].rotation_euler, bodies[0].location = (0.7, 0.2, -1.3), (0.123, -0.456, 0.789)
    bodies[2].rotation_euler = (0.3, -1.1, 2.5)  # away from its rest: frames follow its stored rest
    bodies[2].articula.body.posed = True
    bodies[1].articula.body.linear_velocity = (0.5, -1.0 / 3.0, math.pi)
    bpy.context.view_layer.update()
    return objects


def test_fields_read_at_once_equal_field_by_field(clean_scene):
    objects = _robot(clean_scene)
    groups = [(clean_scene.articula, fields.SETTINGS_FIELDS)]
    groups += [(m, fields.MATERIAL_FIELDS) for m in clean_scene.articula.materials]
    for obj in objects.values():
        props = obj.articula
        groups += [(props.body, fields.BODY_FIELDS), (props.joint, fields.JOINT_FIELDS),
                   (props.collider, fields.SHAPE_FIELDS)]
        groups += [(d, fields.DOF_FIELDS) for d in props.joint.dofs]
    assert any(not d.has_lower_limit for d, f in groups if f is fields.DOF_FIELDS)
    for props, names in groups:
        # repr: a float where an int was, or a str where an Enum member was, differs too
        assert repr(fields.read_fields(props, names)) == repr(_field_by_field(props, names)), props


def test_export_read_equals_the_poses_composed_one_by_one(clean_scene):
    objects = _robot(clean_scene)
    robot = robot_for_export(bpy.context, selected_only=False, current_pose=False)
    desc, frames = robot.desc, WorldFrames()
    assert desc == scene_from_blender(clean_scene)  # the shared read and a fresh one agree
    assert robot.warnings == [str(p) for p in blender_problems(clean_scene)]
    assert not robot.errors
    for joint in desc.joints:
        obj = objects.get(joint.name)
        if obj is None:  # a fixed base's joint to the world
            continue
        props = obj.articula.joint
        body0 = objects.get(joint.body0) if joint.body0 else None
        offset = Pose(tuple(props.body0_frame_offset_location),
                      quat_normalize(tuple(props.body0_frame_offset_rotation)))
        assert joint.local_pose0 == pose_relative(frames.pose(body0), pose_mul(frames.pose(obj), offset))
        assert joint.local_pose1 == pose_relative(frames.pose(objects[joint.body1]), frames.pose(obj))
    for item in desc.shapes + desc.visuals:
        pose = frames.pose(objects[item.name])
        assert item.pose == (pose_relative(frames.pose(objects[item.body]), pose) if item.body else pose)
    moved = next(b for b in desc.bodies if objects[b.name].articula.body.posed)
    assert moved.pose != world_pose(objects[moved.name])  # read at its rest, not where it is shown
