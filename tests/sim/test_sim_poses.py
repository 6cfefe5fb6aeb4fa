"""World poses -> parent-relative location/rotation (the write-back math) against core.transforms."""

import math
import random

import numpy as np

from articula.core.model import Pose
from articula.core.transforms import pose_mul, pose_relative, quat_from_axis_angle, quat_rotate
from articula.sim.poses import Frames, LocalPoses, world_to_local


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


def test_poses_of_more_rows_than_objects_and_a_subset_of_rows():
    """Replicas' rows follow replica 0's in the poses; only the rows asked are written (dynamic bodies),
    and a writer keeps working when the poses it gets change length."""
    rng = random.Random(3)
    worlds = [random_pose(rng) for _ in range(4)]
    offsets = [random_pose(rng) for _ in range(4)]
    frames = Frames(np.array([-1, 0, 1, 1]), np.array([o.pos for o in offsets]),
                    np.array([o.rot for o in offsets]), np.ones(4))
    poses = np.array([[*p.pos, *p.rot] for p in worlds])
    rows = np.array([3, 1])
    alone_location, alone_rotation = world_to_local(frames, poses, rows)
    writer = LocalPoses(frames, rows)
    for replicas in (3, 1, 2):
        extra = np.array([[*random_pose(rng).pos, *random_pose(rng).rot] for _ in range(4 * (replicas - 1))])
        location, rotation = writer(np.concatenate([poses, extra.reshape(-1, 7)]))
        np.testing.assert_array_equal(location, alone_location)
        np.testing.assert_array_equal(rotation, alone_rotation)
    for k, i in enumerate(rows):
        expected = pose_relative(pose_mul(worlds[frames.parent[i]], offsets[i]), worlds[i])
        assert np.allclose(location[k], expected.pos, atol=1e-5)
