"""Broken input: each case raises UsdReadError naming the file, the prim and the attribute."""

import pytest
from pxr import Sdf, UsdPhysics

from articula.core import samples
from articula.core.usd.errors import UsdReadError
from articula.core.usd.reader import read_usd
from articula.core.usd.writer import build_stage

JOINT = "/robotic_finger/palm_articulation/palm/index_finger_base/proximal/rotational"
BODY = "/robotic_finger/palm_articulation/palm/index_finger_base/proximal"


@pytest.fixture
def finger_text():
    stage = build_stage(samples.robotic_finger(), "NESTED")
    return stage.GetRootLayer().ExportToString()


def _read_text(tmp_path, text, name="broken.usda"):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(UsdReadError) as raised:
        read_usd(str(path))
    error = raised.value
    assert error.file == str(path) and str(path) in str(error)
    return error


def _replace_once(text, old, new):
    assert text.count(old) >= 1, old
    return text.replace(old, new, 1)


def test_missing_body_target(tmp_path, finger_text):
    text = _replace_once(finger_text, f"rel physics:body1 = <{BODY}>", "rel physics:body1 = </robotic_finger/nowhere>")
    error = _read_text(tmp_path, text)
    assert (error.prim, error.attribute) == (JOINT, "physics:body1")
    assert "/robotic_finger/nowhere" in str(error) and "does not exist" in str(error)


def test_joint_without_any_body(tmp_path, finger_text):
    text = _replace_once(finger_text, f"rel physics:body1 = <{BODY}>", "")
    text = _replace_once(text, "rel physics:body0 = </robotic_finger/palm_articulation/palm/index_finger_base>", "")
    error = _read_text(tmp_path, text)
    assert error.prim == JOINT and "no rigid body" in str(error)


def test_joint_cycle(tmp_path):
    stage = build_stage(samples.robotic_finger(), "NESTED")
    loop = UsdPhysics.RevoluteJoint.Define(stage, "/robotic_finger/palm_articulation/palm/loop")
    loop.CreateBody0Rel().SetTargets([Sdf.Path(BODY + "/middle/distal")])
    loop.CreateBody1Rel().SetTargets([Sdf.Path("/robotic_finger/palm_articulation/palm")])
    path = tmp_path / "cycle.usda"
    stage.GetRootLayer().Export(str(path))
    with pytest.raises(UsdReadError) as raised:
        read_usd(str(path))
    assert "cycle" in str(raised.value)
    assert raised.value.prim in {"/robotic_finger/palm_articulation/palm/loop", JOINT} or raised.value.prim.startswith(
        "/robotic_finger/palm_articulation")
    loop.CreateExcludeFromArticulationAttr(True)  # the same loop, marked as a loop: fine
    assert len(read_usd(stage).scene.joints) == 6


def test_wrong_attribute_type(tmp_path, finger_text):
    old = next(line for line in finger_text.splitlines() if "physics:lowerLimit" in line and "-11.459" not in line)
    text = _replace_once(finger_text, old.strip(), 'string physics:lowerLimit = "very low"')
    error = _read_text(tmp_path, text)
    assert error.attribute == "physics:lowerLimit" and "expected a number" in str(error)


def test_wrong_relationship_type_on_a_count(tmp_path, finger_text):
    text = _replace_once(finger_text, "custom int newton:collision_group = 1",
                         'custom string newton:collision_group = "one"')
    error = _read_text(tmp_path, text)
    assert error.attribute == "newton:collision_group" and "expected an int" in str(error)


def test_nan_value(tmp_path, finger_text):
    text = _replace_once(finger_text, "float physics:mass = 0.08448", "float physics:mass = nan")
    error = _read_text(tmp_path, text)
    assert (error.prim, error.attribute) == ("/robotic_finger/palm_articulation/palm", "physics:mass")
    assert "NaN" in str(error)


def test_nan_in_a_joint_frame(tmp_path, finger_text):
    line = next(line for line in finger_text.splitlines() if "physics:localPos0" in line)
    text = _replace_once(finger_text, line.strip(), "point3f physics:localPos0 = (nan, 0, 0)")
    error = _read_text(tmp_path, text)
    assert error.attribute == "physics:localPos0" and "NaN" in str(error)


def test_truncated_text_file(tmp_path, finger_text):
    error = _read_text(tmp_path, finger_text[: len(finger_text) // 2])
    assert error.prim is None and "not a readable USD file" in str(error)


def test_truncated_binary_file(tmp_path):
    stage = build_stage(samples.robotic_finger(), "NESTED")
    full = tmp_path / "full.usdc"
    stage.GetRootLayer().Export(str(full))
    data = full.read_bytes()
    path = tmp_path / "truncated.usdc"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(UsdReadError) as raised:
        read_usd(str(path))
    assert raised.value.file == str(path)


@pytest.mark.parametrize("name,content", [
    ("notes.usda", "These are my notes, not a scene.\n"),
    ("image.usd", bytes(range(256)) * 8),
    ("empty.usda", ""),
])
def test_file_that_is_not_usd(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(UsdReadError) as raised:
        read_usd(str(path))
    assert raised.value.file == str(path) and name in str(raised.value)


def test_missing_file(tmp_path):
    with pytest.raises(UsdReadError, match="no such file"):
        read_usd(str(tmp_path / "absent.usda"))


def test_error_text_names_file_prim_and_attribute():
    error = UsdReadError("/a/robot.usda", "/World/arm", "physics:mass", "value is NaN")
    assert str(error) == "file /a/robot.usda, prim /World/arm, attribute physics:mass: value is NaN"


COLLIDER_SCALE = "double3 xformOp:scale"


@pytest.mark.parametrize("op, value", [("xformOp:scale", "(inf, 0.5, 0.5)"),
                                       ("xformOp:translate", "(-inf, 0, 0.01)"),
                                       ("xformOp:translate", "(nan, 0, 0)")])
def test_non_finite_transform_is_refused_naming_prim_and_attribute(tmp_path, finger_text, op, value):
    """7 of 120 randomly damaged robot files had such values; they must not import."""
    line = next(line for line in finger_text.splitlines()
                if f"{op} = " in line and "double3" in line or f"{op} = " in line and "float3" in line)
    kind = line.strip().split()[0]
    text = _replace_once(finger_text, line.strip(), f"{kind} {op} = {value}")
    error = _read_text(tmp_path, text)
    assert error.attribute == op and error.prim and "not finite" in str(error)
