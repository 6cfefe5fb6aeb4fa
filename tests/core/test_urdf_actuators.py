"""URDF coupled joints, effort limits and transmissions (issue 16).

``<mimic>`` -> Joint.mimic (offset + multiplier * leader), the coupling Newton 1.8's own ``add_urdf``
builds (its mimic constraints), also after ``write_usd`` NESTED and Newton's ``add_usd``;
``<limit effort>`` stays the DOF's effort limit; a ``<transmission>`` becomes a MOTOR actuator only
where that is exact (one joint, SimpleTransmission, effort interface), else it is named in the one
warning of what is not carried over.
"""

import os
import warnings
from pathlib import Path

import pytest

newton = pytest.importorskip("newton")
pytest.importorskip("mujoco")
pytest.importorskip("newton_usd_schemas")

from pxr import Usd  # noqa: E402

from articula.core.model import ActuatorKind  # noqa: E402
from articula.core.urdf import read_urdf  # noqa: E402
from articula.core.usd.writer import write_usd  # noqa: E402

from .robot_models import coupling_rows, description_mimic_rows, load_usd_mujoco, row_differences  # noqa: E402
from .test_urdf_corpus import PYBULLET_DATA  # noqa: E402


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


GRIPPER = Path(__file__).resolve().parents[1] / "data" / "gripper_mimic.urdf"


@pytest.fixture
def gripper_file():
    return str(GRIPPER)


def _newton_urdf(path: str):
    builder = newton.ModelBuilder()
    newton.solvers.SolverMuJoCo.register_custom_attributes(builder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder.add_urdf(path)
        return builder.finalize(device="cpu")


def _mimic_rows(model) -> list:
    return [r for r in coupling_rows(model) if r[0] == "mimic"]


def test_mimic_is_a_coupled_joint(gripper_file):
    scene = read_urdf(gripper_file).scene
    right, knuckle = scene.joint("right_slide").mimic, scene.joint("knuckle_joint").mimic
    assert (right.leader, right.gear, right.offset) == ("left_slide", -1.0, 0.001)
    assert (knuckle.leader, knuckle.gear, knuckle.offset) == ("left_slide", 10.0, 0.0)
    assert scene.joint("left_slide").mimic is None


def test_effort_limit_stays_the_joints(gripper_file):
    scene = read_urdf(gripper_file).scene
    assert scene.joint("left_slide").dofs[0].max_effort == 20.0
    assert scene.joint("knuckle_joint").dofs[0].max_effort == 3.0
    assert not any(d.drive_enabled for j in scene.joints for d in j.dofs)  # no drive is invented


def test_effort_transmission_is_a_motor_and_the_rest_one_warning(gripper_file):
    read = read_urdf(gripper_file)
    scene = read.scene
    (left,) = scene.joint("left_slide").dofs[0].actuators
    assert (left.name, left.kind, left.gear, left.ctrl_range, left.force_range) == \
        ("left_motor", ActuatorKind.MOTOR, 1.0, (-20.0, 20.0), None)  # the reduction is actuator-side
    (knuckle,) = scene.joint("knuckle_joint").dofs[0].actuators  # the older form: interface on <actuator>
    assert (knuckle.name, knuckle.kind, knuckle.ctrl_range) == ("knuckle_motor", ActuatorKind.MOTOR, (-3.0, 3.0))
    assert scene.joint("right_slide").dofs[0].actuators == []
    (listed,) = [w for w in read.warnings if "not carried over" in w]
    assert "3 transmissions not mapped exactly" in listed
    assert "right_trans (PositionJointInterface: a controller whose gains are not in the URDF)" in listed
    assert "pair_trans (type transmission_interface/DifferentialTransmission)" in listed
    assert "ghost_trans (joint no_such_joint is no revolute, continuous or prismatic joint of the file)" in listed
    assert "left_trans" not in listed and "knuckle_trans" not in listed


def test_mimic_is_newtons_add_urdf_coupling(gripper_file):
    rows = _mimic_rows(_newton_urdf(gripper_file))
    assert len(rows) == 2
    assert row_differences(rows, description_mimic_rows(read_urdf(gripper_file).scene), "coupling") == []


def test_the_coupling_comparison_can_fail(gripper_file):
    scene = read_urdf(gripper_file).scene
    scene.joint("right_slide").mimic.gear = -0.5
    assert row_differences(_mimic_rows(_newton_urdf(gripper_file)), description_mimic_rows(scene), "coupling")


PYBULLET_MIMICS = ["xarm/xarm6_with_gripper.urdf", "franka_panda/panda.urdf"]


@pytest.mark.parametrize("name", PYBULLET_MIMICS)
def test_pybullet_grippers_couple_as_in_newton(name):
    path = os.path.join(PYBULLET_DATA, name)
    if not os.path.exists(path):
        pytest.skip("pybullet_data comes with `make urdf-corpus`")
    scene = read_urdf(path).scene
    rows = _mimic_rows(_newton_urdf(path))
    assert rows and row_differences(rows, description_mimic_rows(scene), "coupling") == []


@pytest.mark.parametrize("source", ["gripper", *PYBULLET_MIMICS])
def test_export_keeps_the_coupling(source, gripper_file, tmp_path):
    """Newton's add_usd of the NESTED export has the mimic constraints add_urdf builds from the URDF."""
    path = gripper_file if source == "gripper" else os.path.join(PYBULLET_DATA, source)
    if not os.path.exists(path):
        pytest.skip("pybullet_data comes with `make urdf-corpus`")
    out = str(tmp_path / "robot.usda")
    write_usd(read_urdf(path).scene, out, layout="NESTED")
    stage = Usd.Stage.Open(out)
    assert any("NewtonMimicAPI" in p.GetAppliedSchemas() for p in stage.Traverse())
    found = row_differences(_mimic_rows(_newton_urdf(path)), _mimic_rows(load_usd_mujoco(out)), "coupling")
    assert found == [], "\n".join(found)
