"""MJCF files that are pieces of another model (``<include>``d by a scene file), opened on their own:
the error or warning says so and names the files nearby that include them, as model collections
(gymnasium-robotics' fetch, hand, adroit and kitchen) lay them out."""

import pytest

pytest.importorskip("mujoco")

from articula.core.mjcf.fragments import including_files  # noqa: E402
from articula.core.mjcf.reader import MjcfReadError, read_mjcf  # noqa: E402

ROBOT = '<body name="base"><joint type="hinge"/><geom size="0.1"/></body>'


def _collection(tmp_path):
    """scenes/reach.xml and scenes/push.xml include parts/arm.xml (<mujocoinclude>) and
    scenes/robot.xml (bodies at its top level, as gymnasium-robotics writes them)."""
    scenes, parts = tmp_path / "scenes", tmp_path / "parts"
    scenes.mkdir()
    parts.mkdir()
    (parts / "arm.xml").write_text(f"<mujocoinclude>{ROBOT}</mujocoinclude>")
    (scenes / "robot.xml").write_text(f"<mujoco>{ROBOT.replace('base', 'gripper')}</mujoco>")
    for name in ("reach", "push"):
        (scenes / f"{name}.xml").write_text(
            '<mujoco><worldbody><include file="../parts/arm.xml"/></worldbody>'
            '<worldbody><body name="table"><include file="robot.xml"/></body></worldbody></mujoco>')
    (scenes / "unrelated.xml").write_text('<mujoco><include file="other.xml"/></mujoco>')
    return scenes, parts


def test_the_files_that_include_a_piece_are_found_beside_it_and_in_a_neighbouring_folder(tmp_path):
    scenes, parts = _collection(tmp_path)
    assert including_files(str(parts / "arm.xml")) == ["../scenes/push.xml", "../scenes/reach.xml"]
    assert including_files(str(scenes / "robot.xml")) == ["push.xml", "reach.xml"]
    assert including_files(str(scenes / "reach.xml")) == []


def test_a_mujocoinclude_file_is_refused_naming_the_files_to_open(tmp_path):
    _, parts = _collection(tmp_path)
    with pytest.raises(MjcfReadError) as error:
        read_mjcf(str(parts / "arm.xml"))
    said = str(error.value)
    assert "<mujocoinclude>" in said and "../scenes/push.xml, ../scenes/reach.xml" in said


def test_top_level_bodies_that_mujoco_ignores_are_named_with_the_files_to_open(tmp_path):
    scenes, _ = _collection(tmp_path)
    read = read_mjcf(str(scenes / "robot.xml"))
    assert not read.scene.bodies  # as MuJoCo compiles it: an empty world
    assert any("outside <worldbody>" in w and "push.xml, reach.xml" in w for w in read.warnings)


def test_a_piece_that_fails_to_compile_names_the_files_that_include_it(tmp_path):
    scenes, _ = _collection(tmp_path)
    (scenes / "contacts.xml").write_text('<mujoco><contact><exclude body1="a" body2="b"/></contact></mujoco>')
    (scenes / "hand.xml").write_text('<mujoco><include file="contacts.xml"/><worldbody>'
                                     '<body name="a"/><body name="b"/></worldbody></mujoco>')
    with pytest.raises(MjcfReadError) as error:
        read_mjcf(str(scenes / "contacts.xml"))
    assert "other files include this one" in str(error.value) and "hand.xml" in str(error.value)


def test_a_robot_of_its_own_gets_no_such_note(tmp_path):
    scenes, _ = _collection(tmp_path)
    read = read_mjcf(str(scenes / "reach.xml"))
    assert {b.name for b in read.scene.bodies} == {"base", "table", "gripper"}
    assert not any("include" in w for w in read.warnings)
