"""A URDF robot read with a floating base: the root link gets a free joint instead of a weld to the world
(a legged robot, a mobile base), the rest as the file says; a root the file joints to the world keeps its
joint, said. Through ``read_urdf``, ``read_file``/xacro and ``articula convert --floating-base``."""

import subprocess
import sys

import mujoco
import pytest

from articula.core.formats import ReadOptions, read_file
from articula.core.mjcf.writer import write_mjcf
from articula.core.urdf import read_urdf

from .test_urdf_corpus import corpus_file

A1 = "pybullet/a1/a1.urdf"
PENDULUM = "pybullet/pendulum5.urdf"


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def world_joints(scene) -> list:
    return [j for j in scene.joints if j.body0 is None]


def test_the_root_link_floats_and_the_legs_stay_as_written():
    fixed = read_urdf(corpus_file(A1)).scene
    floating = read_urdf(corpus_file(A1), floating_base=True)
    assert [(j.name, j.type.value) for j in world_joints(fixed)] == [("trunk_fixed_base", "FIXED")]
    assert world_joints(floating.scene) == []
    assert {j.name for j in floating.scene.joints} == {j.name for j in fixed.joints} - {"trunk_fixed_base"}
    assert [b.name for b in floating.scene.bodies] == [b.name for b in fixed.bodies]
    assert not [w for w in floating.warnings if "floating" in w]


def test_the_mjcf_export_of_a_floating_urdf_robot_has_its_free_joint(tmp_path):
    scene = read_file(corpus_file(A1), ReadOptions(floating_base=True)).scene
    write_mjcf(scene, str(tmp_path / "a1.xml"))
    model = mujoco.MjModel.from_xml_path(str(tmp_path / "a1.xml"))
    trunk = model.body("trunk").id
    assert model.body_jntnum[trunk] == 1
    assert model.jnt_type[model.body_jntadr[trunk]] == mujoco.mjtJoint.mjJNT_FREE
    assert model.nq == 7 + 12


def test_a_root_the_file_joints_to_the_world_keeps_its_joint_and_says_so():
    read = read_urdf(corpus_file(PENDULUM), floating_base=True)
    assert [(j.name, j.type.value) for j in world_joints(read.scene)] == [("joint0", "REVOLUTE")]
    assert any("floating base: link 'link0' is jointed to the world (joint0)" in w for w in read.warnings)


def test_a_trusted_xacro_reads_with_a_floating_base_too(tmp_path):
    (tmp_path / "cart.urdf.xacro").write_text("""<?xml version="1.0"?>
<robot name="cart" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:property name="side" value="0.2"/>
  <link name="base"><inertial><mass value="1"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="${side} ${side} ${side}"/></geometry></collision></link>
</robot>""")
    options = ReadOptions(trust_xacro=True, floating_base=True)
    assert world_joints(read_file(str(tmp_path / "cart.urdf.xacro"), options).scene) == []
    assert len(world_joints(read_file(str(tmp_path / "cart.urdf.xacro"), ReadOptions(True)).scene)) == 1


def test_the_command_converts_with_a_floating_base(tmp_path):
    out = tmp_path / "a1.xml"
    command = [sys.executable, "-m", "articula", "convert", "--floating-base", corpus_file(A1), str(out)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert mujoco.MjModel.from_xml_path(str(out)).nq == 7 + 12
