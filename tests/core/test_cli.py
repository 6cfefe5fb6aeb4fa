"""``articula convert`` and ``articula check`` (``python -m articula``), run as a user runs them, in a
subprocess without Blender: real robots (pybullet's URDFs, gymnasium's and Newton's MJCF) between URDF,
MJCF and USD, many files into a folder, trusted xacro with packages and arguments; broken files give
a non-zero exit, a message naming the file, and leave nothing written."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from articula.core import samples
from articula.core.mjcf import read_mjcf
from articula.core.urdf import read_urdf
from articula.core.usd.reader import read_usd
from articula.core.usd.writer import write_usd

from . import test_mjcf_corpus as mjcf_corpus
from . import test_urdf_corpus as urdf_corpus

R2D2 = "pybullet/r2d2.urdf"
ANT = "gym/ant"


def articula(*args, cwd=None):
    done = subprocess.run([sys.executable, "-m", "articula", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=300)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def files_in(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_urdf_robot_converts_to_usd_and_mjcf_and_back(tmp_path):
    source = urdf_corpus.corpus_file(R2D2)
    original = read_urdf(source).scene
    code, out, err = articula("convert", source, tmp_path / "r2d2.usda", "--layout", "flat")
    assert code == 0, err
    assert f"-> {tmp_path / 'r2d2.usda'}" in out
    usd = read_usd(str(tmp_path / "r2d2.usda")).scene
    assert sorted(b.name for b in usd.bodies) == sorted(b.name for b in original.bodies)
    code, _, err = articula("convert", tmp_path / "r2d2.usda", tmp_path / "r2d2.xml")
    assert code == 0, err
    mjcf = read_mjcf(str(tmp_path / "r2d2.xml")).scene
    assert {j.name for j in mjcf.joints if j.dofs} == {j.name for j in original.joints if j.dofs}


def test_an_mjcf_robot_converts_to_urdf_with_its_warnings_on_stderr(tmp_path):
    source = mjcf_corpus.corpus_file(ANT)
    code, out, err = articula("convert", source, tmp_path / "ant.urdf")
    assert code == 0, err
    assert "warning: " in err and "URDF cannot say" in err  # the writer's warnings, named by file
    assert out.strip() == f"{source} -> {tmp_path / 'ant.urdf'}"
    back = read_urdf(str(tmp_path / "ant.urdf")).scene
    assert {b.name for b in back.bodies} == {b.name for b in read_mjcf(source).scene.bodies}


def test_many_files_convert_into_a_folder_and_one_broken_file_fails_alone(tmp_path):
    broken = tmp_path / "broken.urdf"
    broken.write_text("<robot name='broken'><link name='a'>")
    folder = tmp_path / "out"
    folder.mkdir()
    inputs = [urdf_corpus.corpus_file(R2D2), mjcf_corpus.corpus_file(ANT), broken]
    code, out, err = articula("convert", "--to", "usda", *inputs, folder)
    assert code == 1
    assert sorted(files_in(folder)) == ["ant.usda", "r2d2.usda"]  # nothing for the broken one
    assert f"error: file {broken}: not valid XML" in err
    assert "1 of 3 files failed" in err
    assert out.count(" -> ") == 2
    assert "\r[" not in err  # no progress bar when stderr is no terminal


def test_a_file_that_cannot_be_read_leaves_the_old_output_as_it_was(tmp_path):
    target = tmp_path / "robot.usda"
    write_usd(samples.six_dof_arm(), str(target))
    before = files_in(tmp_path)
    unknown_geom = "<mujoco><worldbody><body name='a'><geom type='nonsense'/></body></worldbody></mujoco>"
    for text, expected in ((unknown_geom, "nonsense"), ("not xml at all", "")):
        source = tmp_path / "broken.xml"
        source.write_text(text)
        code, out, err = articula("convert", source, target)
        assert code == 1 and out == ""
        assert str(source) in err and expected in err
        source.unlink()
        assert files_in(tmp_path) == before


def test_a_scene_that_cannot_be_written_leaves_nothing(tmp_path):
    source = tmp_path / "arm.usda"
    scene = samples.six_dof_arm()
    write_usd(scene, str(source))
    code, _, err = articula("convert", source, tmp_path / "missing" / "robot.urdf")
    assert code == 1 and "does not exist" in err
    assert sorted(files_in(tmp_path)) == ["arm.usda"]


def test_usage_errors_exit_2_naming_what_to_change(tmp_path):
    source = urdf_corpus.corpus_file(R2D2)
    code, _, err = articula("convert", source, source, tmp_path)  # a folder without --to
    assert code == 2 and "--to" in err
    code, _, err = articula("convert", source, tmp_path / "robot.obj")
    assert code == 2 and "robot.obj" in err
    code, _, err = articula("convert", "--to", "usda", source, source, tmp_path)
    assert code == 2 and "would both be written" in err
    code, _, err = articula("convert", "--package-path", tmp_path / "nowhere", source, tmp_path / "a.usda")
    assert code == 2 and "is not a folder" in err
    assert files_in(tmp_path) == {}


ROBOT = """<?xml version="1.0"?>
<robot xmlns:xacro="http://wiki.ros.org/xacro" name="legs">
  <xacro:arg name="side" default="left"/>
  <xacro:include filename="$(find leg_description)/urdf/leg.xacro"/>
  <link name="base"><inertial><mass value="1"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial><collision><geometry><box size="0.2 0.2 0.1"/></geometry></collision></link>
  <xacro:leg side="$(arg side)"/>
</robot>
"""
LEG = """<?xml version="1.0"?>
<robot xmlns:xacro="http://wiki.ros.org/xacro">
  <xacro:macro name="leg" params="side">
    <link name="${side}_leg"><inertial><mass value="${0.5 * 2}"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
      <collision><geometry><cylinder radius="0.03" length="0.3"/></geometry></collision></link>
    <joint name="${side}_hip" type="revolute"><parent link="base"/><child link="${side}_leg"/>
      <axis xyz="0 1 0"/><limit lower="${-pi/4}" upper="${pi/4}" effort="5" velocity="3"/></joint>
  </xacro:macro>
</robot>
"""


def test_xacro_converts_only_when_trusted_with_packages_and_arguments(tmp_path):
    package = tmp_path / "src" / "legs-v2"  # a folder not named as its package
    (package / "urdf").mkdir(parents=True)
    (package / "urdf" / "leg.xacro").write_text(LEG)
    source = tmp_path / "robot.urdf.xacro"
    source.write_text(ROBOT)
    target = tmp_path / "robot.usda"
    code, _, err = articula("convert", source, target)
    assert code == 1 and "--trust-xacro" in err and str(source) in err
    code, _, err = articula("convert", "--trust-xacro", source, target)
    assert code == 1 and "package leg_description not found" in err
    assert not target.exists()
    code, out, err = articula("convert", "--trust-xacro", "--package-path", f"leg_description={package}",
                              "--arg", "side:=right", source, target)
    assert code == 0, err
    assert sorted(b.name for b in read_usd(str(target)).scene.bodies) == ["base", "right_leg"]


def test_check_prints_the_problems_and_exits_1_on_an_error(tmp_path):
    good = urdf_corpus.corpus_file(R2D2)
    code, out, _ = articula("check", good)
    assert code == 0
    assert out.strip().endswith("0 errors, 0 warnings") and "bodies" in out
    scene = samples.six_dof_arm()
    last = [b for b in scene.bodies if b.parent][-1]
    last.kinematic = True  # below a dynamic body: an error, written anyway
    bad = tmp_path / "bad.usda"
    write_usd(scene, str(bad))
    code, out, _ = articula("check", good, bad)
    assert code == 1
    assert f"{bad}: ERROR: {last.name}: kinematic body below dynamic body" in out
    assert f"{bad}: 7 bodies, 7 joints: 1 errors" in out
    code, out, _ = articula("check", tmp_path / "missing.urdf")
    assert code == 1 and "missing.urdf: ERROR: cannot be read" in out


def test_the_installed_command_is_the_same(tmp_path):
    command = Path(sys.executable).with_name("articula")
    if not command.exists():
        pytest.skip("the package is not installed with its scripts (pip install -e .)")
    done = subprocess.run([str(command), "check", urdf_corpus.corpus_file(R2D2)], capture_output=True,
                          text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0 and "0 errors" in done.stdout
    assert os.path.dirname(str(command)) == os.path.dirname(sys.executable)


def test_many_files_show_a_progress_bar_on_a_terminal(tmp_path):
    import pty

    main, terminal = pty.openpty()
    inputs = [urdf_corpus.corpus_file(R2D2), mjcf_corpus.corpus_file(ANT)]
    command = [sys.executable, "-m", "articula", "convert", "--to", "xml", *inputs, str(tmp_path)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=terminal)
    os.close(terminal)
    shown = b""
    while True:  # read while it writes (a full terminal buffer would block it); EIO once it is gone
        try:
            chunk = os.read(main, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(main)
    assert process.wait(timeout=300) == 0
    assert b"\r[----------" in shown and b"] 1/2 ant.xml" in shown
