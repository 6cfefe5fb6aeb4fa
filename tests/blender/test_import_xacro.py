"""File > Import > URDF of a xacro file in real Blender (4.5 and 5.2): refused unless the user ticks
"Trust this file (runs its xacro expressions)" (the refusal names the checkbox); trusted, it expands with
the Arguments and Package Paths, which the preferences remember; a file that cannot be expanded names
the file and line and leaves the scene as it was."""

import types

import bpy
import pytest

pytest.importorskip("xacro")

from articula.addon import preferences  # noqa: E402
from articula.operators.io_urdf import TRUST_LABEL  # noqa: E402

ROBOT = """<?xml version="1.0"?>
<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="legs">
  <xacro:arg name="side" default="left"/>
  <xacro:include filename="$(find leg_description)/urdf/leg.xacro"/>
  <link name="base"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>
    </inertial><collision><geometry><box size="0.2 0.2 0.1"/></geometry></collision></link>
  <xacro:leg side="$(arg side)"/>
</robot>
"""
LEG = """<?xml version="1.0"?>
<robot xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:macro name="leg" params="side">
    <link name="${side}_leg"><inertial><mass value="${0.5 * 2}"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
      <collision><geometry><cylinder radius="0.03" length="0.3"/></geometry></collision></link>
    <joint name="${side}_hip" type="revolute"><parent link="base"/><child link="${side}_leg"/>
      <origin xyz="0 0 -0.2"/><axis xyz="0 1 0"/><limit lower="${-pi/4}" upper="${pi/4}" effort="5" velocity="3"/>
    </joint>
  </xacro:macro>
</robot>
"""


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


@pytest.fixture
def robot(tmp_path):
    (tmp_path / "ws" / "leg_description" / "urdf").mkdir(parents=True)
    (tmp_path / "ws" / "leg_description" / "urdf" / "leg.xacro").write_text(LEG)
    path = tmp_path / "robot.urdf.xacro"
    path.write_text(ROBOT)
    return path


@pytest.fixture
def prefs(monkeypatch):
    remembered = types.SimpleNamespace(package_paths="")
    monkeypatch.setattr(preferences, "preferences", lambda context=None: remembered)
    return remembered


def _objects():
    return sorted(bpy.data.objects.keys())


@pytest.mark.parametrize("uri", ["http://www.ros.org/wiki/xacro", "http://wiki.ros.org/xacro",
                                 "http://ros.org/wiki/xacro"])
def test_an_untrusted_xacro_is_refused_naming_the_checkbox(clean_scene, robot, prefs, uri):
    robot.write_text(ROBOT.replace("http://www.ros.org/wiki/xacro", uri))
    with pytest.raises(RuntimeError) as error:
        bpy.ops.articula.import_urdf(filepath=str(robot))
    assert TRUST_LABEL in str(error.value) and str(robot) in str(error.value)
    assert _objects() == []


def test_a_urdf_without_any_rigid_body_is_refused(clean_scene, tmp_path, prefs):
    path = tmp_path / "empty.urdf"
    path.write_text('<robot name="empty"><link name="world"/></robot>')
    with pytest.raises(RuntimeError, match="nothing to import \\(no link becomes a rigid body"):
        bpy.ops.articula.import_urdf(filepath=str(path))
    assert _objects() == []


def test_a_trusted_xacro_imports_with_arguments_and_remembered_package_paths(clean_scene, robot, prefs, tmp_path):
    workspace = str(tmp_path / "ws")
    assert bpy.ops.articula.import_urdf(filepath=str(robot), trust_xacro=True, arguments="side:=right",
                                        package_paths=workspace) == {"FINISHED"}
    bodies = sorted(o.name for o in clean_scene.objects if o.articula.body.enabled)
    assert bodies == ["base", "right_leg"]
    hip = next(o for o in clean_scene.objects if o.articula.joint.enabled and o.name == "right_hip")
    assert hip.articula.joint.body1.name == "right_leg"
    assert prefs.package_paths == workspace


def test_an_unexpandable_xacro_names_file_and_line_and_adds_nothing(clean_scene, robot, prefs):
    with pytest.raises(RuntimeError) as error:  # leg_description is on no package path
        bpy.ops.articula.import_urdf(filepath=str(robot), trust_xacro=True, package_paths="")
    message = str(error.value)
    assert f"file {robot}, line 4" in message and "package leg_description not found" in message
    assert _objects() == []
    with pytest.raises(RuntimeError, match="Arguments: argument 'tool' is not name:=value"):
        bpy.ops.articula.import_urdf(filepath=str(robot), trust_xacro=True, arguments="tool")
    assert prefs.package_paths == ""
