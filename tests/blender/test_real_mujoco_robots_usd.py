"""The 28 MuJoCo robots nobody here wrote (mjlab, robosuite, gymnasium-robotics, dm_control) through
Blender's USD path as a user sending a robot to Isaac Sim and back takes them: File > Import MJCF,
File > Export USD, a cleared scene, File > Import USD, File > Export MJCF, compiled by MuJoCo and
compared with the original by name (tests/core/mjcf_compare.py).

One tolerance is loosened: cameras' poses. Blender keeps an object's transform in float32, so a camera
comes back within float32's resolution of where it was (1e-7 m, quaternion components 3e-8 instead of 0),
far below what a render or MuJoCo resolves; cameras are compared at CAMERA_ATOL instead of the 6 digits
``to_xml`` writes. Everything else at mjcf_compare's tolerance."""

import os
import sys

import bpy
import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from conftest import _clear_data, _reset_to_defaults  # noqa: E402
from tests.core.mjcf_compare import Names, mjcf_differences  # noqa: E402
from tests.core.test_mjcf_roundtrip import compiled_original, joint_coordinate_differences  # noqa: E402
from tests.robot_files import MUJOCO_ROBOT_FILES, mujoco_robot  # noqa: E402

CAMERA_ATOL = 1e-6  # float32 holds a unit quaternion's components, and metres near 1, to ~6e-8

#: `:` in names (Fetch, the shadow hand), target-body cameras (dog), a camera's resolution (yam).
ON_4_5 = ("dog", "fetch", "shadow_hand", "yam")
ROBOTS = sorted(MUJOCO_ROBOT_FILES) if bpy.app.version >= (5, 0, 0) else ON_4_5


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def _cleared(scene) -> None:
    _clear_data()
    _reset_to_defaults(scene.articula)
    for camera in list(bpy.data.cameras):
        bpy.data.cameras.remove(camera)
    for light in list(bpy.data.lights):
        bpy.data.lights.remove(light)


def camera_pose_differences(original, ours) -> list[str]:
    """Each camera's pose (found by name) at float32's resolution, quaternions up to sign."""
    found = []
    ours_by_name = Names(ours).all("camera", ours.ncam)
    for name, i in Names(original).all("camera", original.ncam).items():
        j = ours_by_name.get(name)
        if j is None:
            continue  # mjcf_differences names missing cameras
        pos, quat = original.cam_pos[i], original.cam_quat[i]
        if not np.allclose(pos, ours.cam_pos[j], atol=CAMERA_ATOL, rtol=0):
            found.append(f"camera {name} pos: {pos} != {ours.cam_pos[j]}")
        if not (np.allclose(quat, ours.cam_quat[j], atol=CAMERA_ATOL, rtol=0)
                or np.allclose(quat, -ours.cam_quat[j], atol=CAMERA_ATOL, rtol=0)):
            found.append(f"camera {name} quat: {quat} != {ours.cam_quat[j]}")
    return found


def _is_camera_pose(difference: str) -> bool:
    head = difference.split(":", 1)[0].split()
    return len(head) >= 3 and head[0] == "camera" and head[-1] in ("pos", "quat")


@pytest.mark.parametrize("name", ROBOTS)
def test_real_mujoco_robots_come_back_from_blender_usd_whole(name, clean_scene, tmp_path):
    path = mujoco_robot(name)
    assert bpy.ops.articula.import_mjcf(filepath=path) == {"FINISHED"}
    usd = str(tmp_path / "robot.usda")
    assert bpy.ops.articula.export_usd(filepath=usd) == {"FINISHED"}
    _cleared(clean_scene)
    assert bpy.ops.articula.import_usd(filepath=usd) == {"FINISHED"}
    out = str(tmp_path / "robot.xml")
    assert bpy.ops.articula.export_mjcf(filepath=out) == {"FINISHED"}
    original, ours = compiled_original(path), mujoco.MjModel.from_xml_path(out)
    differences = [d for d in mjcf_differences(original, ours) if not _is_camera_pose(d)]
    differences += camera_pose_differences(original, ours) + joint_coordinate_differences(original, ours)
    assert differences == [], "\n".join(differences)
