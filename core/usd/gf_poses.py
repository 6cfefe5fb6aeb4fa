"""Poses as Gf matrices and back, shared by the physics authoring and the MuJoCo model authoring."""

from __future__ import annotations

from pxr import Gf

from ..model import Pose


def pose_matrix(pose: Pose) -> Gf.Matrix4d:
    w, x, y, z = pose.rot
    return Gf.Matrix4d().SetTransform(Gf.Rotation(Gf.Quatd(w, Gf.Vec3d(x, y, z))), Gf.Vec3d(*pose.pos))


def rigid(matrix: Gf.Matrix4d) -> Gf.Matrix4d:
    """The matrix without its scale (translation and orthonormalized rotation)."""
    rigid_matrix = Gf.Matrix4d(matrix)
    rigid_matrix.Orthonormalize(False)
    return rigid_matrix


def pose_of(matrix: Gf.Matrix4d) -> Pose:
    rigid_matrix = rigid(matrix)
    q = rigid_matrix.ExtractRotationQuat()
    t = rigid_matrix.ExtractTranslation()
    return Pose(pos=(t[0], t[1], t[2]), rot=(q.GetReal(), *q.GetImaginary()))


def pose_in(parent_world: Gf.Matrix4d, pose: Pose) -> Pose:
    """``pose`` (world) seen from ``parent_world``."""
    return pose_of(pose_matrix(pose) * rigid(parent_world).GetInverse())
