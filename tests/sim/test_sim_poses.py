"""World poses -> parent-relative location/rotation (the write-back math) against core.transforms."""

import math
import random

import numpy as np

from articula.core.model import Pose
from articula.core.transforms import pose_mul, pose_relative, quat_from_axis_angle, quat_rotate
from articula.sim.poses import Frames, world_to_local


def random_pose(rng: random.Random) -> Pose:
    axis = (rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1))
    return Pose((rng.uniform(-2, 2), rng.uniform(-2, 2), rng.uniform(-2, 2)),
                quat_from_axis_angle(axis, rng.uniform(-math.pi, math.pi)))


def test_local_poses_match_scalar_pose_math():
    rng = random.Random(7)
    worlds = [random_pose(rng) for _ in range(6)]
    # Body 0 has no parent (a fixed world frame), 1..5 hang from the previous body through an
    # offset (parent scale 1.5 and a parent-inverse matrix), as Blender parenting gives.
    offsets = [random_pose(rng) for _ in range(6)]
    scales = [1.0] + [1.5] * 5
    parent = np.array([-1, 0, 1, 2, 3, 4])
    frames = Frames(parent, np.array([o.pos for o in offsets]), np.array([o.rot for o in offsets]),
                    np.array(scales))
    poses = np.array([[*p.pos, *p.rot] for p in worlds])
    location, rotation = world_to_local(frames, poses, np.arange(6))
    for i, world in enumerate(worlds):
        frame = offsets[i] if parent[i] < 0 else pose_mul(worlds[parent[i]], offsets[i])
        expected = pose_relative(frame, world)
        # The frame's scale divides the location (Blender: world = F @ T(loc) R(rot)).
        assert np.allclose(location[i], np.array(expected.pos) / scales[i], atol=1e-5)
        assert abs(np.dot(rotation[i], expected.rot)) > 1 - 1e-6
        assert rotation[i][0] >= 0.0
        # And back: F * (scale * loc, rot) is the world pose.
        back = quat_rotate(frame.rot, tuple(scales[i] * location[i]))
        assert np.allclose(np.array(frame.pos) + back, world.pos, atol=1e-5)
