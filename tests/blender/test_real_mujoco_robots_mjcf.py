"""The 28 MuJoCo robots nobody here wrote (mjlab, robosuite, gymnasium-robotics, dm_control) through
Blender as a user takes them: File > Import MJCF, File > Export MJCF, compiled by MuJoCo and compared with
the original by name (tests/core/mjcf_compare.py: joints with their limits' softness, sites, sensors,
cameras, lights, keyframes, equalities, tendons, actuators, options, contact parameters, terrain, free
joints). All 28 on Blender 5.2; on 4.5 the robots with the most of MuJoCo's model."""

import os
import sys

import bpy
import pytest

mujoco = pytest.importorskip("mujoco")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
from tests.core.mjcf_compare import mjcf_differences  # noqa: E402
from tests.core.test_mjcf_roundtrip import compiled_original, joint_coordinate_differences  # noqa: E402
from tests.robot_files import MUJOCO_ROBOT_FILES, mujoco_robot  # noqa: E402

#: Soft limits and spring rests (dog), stacked hinges (CMU humanoid), tendon equalities (jaco's gripper),
#: terrain (quadruped), servos beside joint force ranges (Fourier hand), `:` in names (Fetch).
ON_4_5 = ("dog", "humanoid_CMU", "jaco_three_finger_gripper", "quadruped", "fourier_left_hand", "fetch")
ROBOTS = sorted(MUJOCO_ROBOT_FILES) if bpy.app.version >= (5, 0, 0) else ON_4_5


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


@pytest.mark.parametrize("name", ROBOTS)
def test_real_mujoco_robots_come_back_from_blender_whole(name, clean_scene, tmp_path):
    path = mujoco_robot(name)
    assert bpy.ops.articula.import_mjcf(filepath=path) == {"FINISHED"}
    out = str(tmp_path / "robot.xml")
    assert bpy.ops.articula.export_mjcf(filepath=out) == {"FINISHED"}
    original, ours = compiled_original(path), mujoco.MjModel.from_xml_path(out)
    differences = mjcf_differences(original, ours) + joint_coordinate_differences(original, ours)
    assert differences == [], "\n".join(differences)
