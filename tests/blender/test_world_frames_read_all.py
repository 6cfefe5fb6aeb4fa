"""The export reads every object's world frame in one go (``WorldFrames.read_all``): the same poses
and scales, bit for bit, as reading the objects one by one, whatever their matrices hold."""

import math

import bpy
from mathutils import Euler

from articula.addon.adapters.blender_to_description import (WorldFrames, world_pose_and_scale,
                                                            world_poses_and_scales)

ROTATIONS = (0.0, math.pi / 2, math.pi, -math.pi / 2, 0.3, -2.9, 3.1)
SCALES = ((1.0, 1.0, 1.0), (-1.0, 1.0, 1.0), (2.0, 2.0, 2.0), (0.5, -3.0, 1.0000001), (0.0, 1.0, 1.0),
          (1.0, 0.0, 0.0), (-1.0, -1.0, -1.0))


def test_read_all_gives_the_frames_read_one_by_one(clean_scene):
    objects = []
    for k in range(len(ROTATIONS) ** 2):
        obj = bpy.data.objects.new(f"frame{k}", None)
        clean_scene.collection.objects.link(obj)
        obj.location = (0.1 * k, -0.3 * k, 1.0 + k)
        obj.rotation_euler = Euler((ROTATIONS[k % 7], ROTATIONS[(k // 7) % 7], ROTATIONS[(3 * k) % 7]))
        obj.scale = SCALES[k % len(SCALES)]
        if k % 4 == 3:
            obj.parent = objects[-1]  # world matrices through a (scaled, mirrored) parent
        objects.append(obj)
    bpy.context.view_layer.update()

    read = world_poses_and_scales(clean_scene.objects)
    assert set(read) == set(objects)
    for obj in objects:
        assert read[obj] == world_pose_and_scale(obj), obj.name  # exactly: the same float64 operations
    frames = WorldFrames().read_all(clean_scene.objects)
    assert frames[objects[5]] == world_pose_and_scale(objects[5])
    assert world_poses_and_scales(bpy.data.collections.new("empty").objects) == {}
