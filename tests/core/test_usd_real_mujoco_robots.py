"""The MuJoCo robots nobody here wrote, through USD: MJCF -> description -> USD -> description -> MJCF
compiles to the original's model by name (mjcf_compare: joints with their limits' softness, sites, sensors,
cameras, lights, keyframes, equalities, tendons, actuators, options, contact parameters, terrain).

NESTED for all 28; FLAT for the robots with the most of MuJoCo's model (the dog's soft limits and spring
rests, the CMU humanoid's stacked hinges, jaco's tendon equality, the quadruped's terrain, the Fourier
hand's servos beside joint force ranges): FLAT ran whole on the 28 when this test was written."""

import pytest

mujoco = pytest.importorskip("mujoco")

from articula.core.mjcf import read_mjcf  # noqa: E402
from articula.core.mjcf.writer import write_mjcf  # noqa: E402
from articula.core.usd.reader import read_usd  # noqa: E402
from articula.core.usd.writer import build_stage  # noqa: E402

from ..robot_files import MUJOCO_ROBOT_FILES, mujoco_robot  # noqa: E402
from .mjcf_compare import mjcf_differences  # noqa: E402
from .test_mjcf_roundtrip import compiled_original, joint_coordinate_differences  # noqa: E402

FLAT_ROBOTS = ("dog", "humanoid_CMU", "jaco_three_finger_gripper", "quadruped", "fourier_left_hand")


def _through_usd(name: str, layout: str, tmp_path) -> list[str]:
    path = mujoco_robot(name)
    read = read_usd(build_stage(read_mjcf(path).scene, layout))
    out = str(tmp_path / "robot.xml")
    write_mjcf(read.scene, out)
    original, ours = compiled_original(path), mujoco.MjModel.from_xml_path(out)
    return mjcf_differences(original, ours) + joint_coordinate_differences(original, ours)


@pytest.mark.parametrize("name", sorted(MUJOCO_ROBOT_FILES))
def test_real_mujoco_robots_come_back_from_nested_usd_whole(name, tmp_path):
    assert _through_usd(name, "NESTED", tmp_path) == []


@pytest.mark.parametrize("name", FLAT_ROBOTS)
def test_real_mujoco_robots_come_back_from_flat_usd_whole(name, tmp_path):
    assert _through_usd(name, "FLAT", tmp_path) == []
