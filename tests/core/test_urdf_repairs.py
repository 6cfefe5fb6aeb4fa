"""URDF files other tools load but MuJoCo's compiler refuses as written come in after a named
repair (core/urdf/repairs.py): the robot as the file means it, each repair in one warning, the
user's file untouched; what no repair can read stays a clear error naming the file."""

import math

import pytest

pytest.importorskip("mujoco")

from articula.core.model import JointType, ShapeKind  # noqa: E402
from articula.core.urdf import UrdfReadError, read_urdf  # noqa: E402

INERTIAL = '<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>'


def robot(joint_attributes: str = 'type="revolute"', joint_body: str = "", base_extra: str = "",
          tail: str = "") -> str:
    return f"""<?xml version="1.0"?>
<robot name="r">
  <link name="base">{INERTIAL}{base_extra}</link>
  <link name="arm">{INERTIAL}<collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>
  <joint name="j" {joint_attributes}><parent link="base"/><child link="arm"/>{joint_body}</joint>
</robot>{tail}"""


def read(tmp_path, text: str):
    path = tmp_path / "robot.urdf"
    path.write_text(text)
    before = path.read_bytes()
    result = read_urdf(str(path))
    assert path.read_bytes() == before, "the user's file is never written"
    return result


def repairs(result) -> list[str]:
    return [w for w in result.warnings if "repaired:" in w]


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def test_a_file_mujoco_reads_needs_no_repair(tmp_path):
    result = read(tmp_path, robot(joint_body='<axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="5" velocity="2"/>'))
    assert repairs(result) == []


def test_commas_and_xacro_defaults_in_vectors(tmp_path):
    body = '<origin xyz="0.1, 0, 0.5" rpy="$(optenv ROBOT_RPY 0 0 1.5708)"/><axis xyz="0 0 1"/>'
    result = read(tmp_path, robot(joint_body=body + '<limit lower="-1" upper="1" effort="5" velocity="2"/>'))
    arm = result.scene.body("arm").pose
    assert arm.pos == pytest.approx((0.1, 0.0, 0.5), abs=1e-6)
    half = math.radians(90.0) / 2  # the optenv default: a quarter turn about Z
    assert [abs(c) for c in arm.rot] == pytest.approx([math.cos(half), 0.0, 0.0, math.sin(half)], abs=1e-4)
    notes = repairs(result)
    assert any('xyz="0.1, 0, 0.5"> read as "0.1 0 0.5"' in n for n in notes)
    assert any('read as "0 0 1.5708"' in n for n in notes)


def test_extra_numbers_a_number_with_junk_and_a_second_axis(tmp_path):
    body = ('<origin xyz="0 0 0.5" rpy="0 0 0 0"/><axis xyz="0 1 0"/><axis xyz="1 0 0"/>'
            '<limit lower="-1.5." upper="1" effort="5" velocity="2"/>')
    result = read(tmp_path, robot(joint_body=body))
    dof = result.scene.joint("j").dofs[0]
    assert dof.lower == pytest.approx(-1.5) and dof.upper == pytest.approx(1.0)
    notes = repairs(result)
    assert any('rpy="0 0 0 0"> read as "0 0 0"' in n for n in notes)
    assert any('lower="-1.5."> read as "-1.5"' in n for n in notes)
    assert any("2 <axis> elements, the first (0 1 0) kept" in n for n in notes)


def test_a_limit_that_is_no_number_is_left_out(tmp_path):
    result = read(tmp_path, robot(joint_body='<limit lower="-PI" upper="1" effort="5" velocity="2"/>'))
    assert any('lower="-PI"> is no number and was left out' in n for n in repairs(result))


def test_junk_after_the_robot_element(tmp_path):
    result = read(tmp_path, robot(joint_body='<limit lower="-1" upper="1" effort="5" velocity="2"/>', tail="\x00"))
    assert [b.name for b in result.scene.bodies] == ["base", "arm"]
    assert any("characters after </robot> ignored" in n for n in repairs(result))


def test_pybullet_plane_and_unknown_geometry(tmp_path):
    base = ('<collision><origin xyz="0 0 -0.5"/><geometry><plane normal="0 0 1"/></geometry></collision>'
            '<visual><geometry><plane normal="0 0 1"/></geometry></visual>'
            '<collision><geometry><cdf filename="x.cdf"/></geometry></collision>')
    result = read(tmp_path, robot(joint_body='<limit lower="-1" upper="1" effort="5" velocity="2"/>', base_extra=base))
    planes = [s for s in result.scene.shapes if s.kind == ShapeKind.PLANE]
    assert len(planes) == 1 and planes[0].body is None, "an infinite plane is static"
    assert planes[0].pose.pos == pytest.approx((0.0, 0.0, -0.5))
    notes = repairs(result)
    assert any("<plane> collider read as an infinite plane" in n for n in notes)
    assert any("collision geometry <cdf> is no URDF geometry and was left out" in n for n in notes)


def test_pybullet_spherical_joint(tmp_path):
    result = read(tmp_path, robot('type="spherical"', '<limit effort="10" lower="0.2" upper="0.8" twist="0.3"/>'))
    joint = result.scene.joint("j")
    assert joint.type == JointType.SPHERICAL and math.isinf(joint.cone_limit0)
    assert any("spherical joint limits lower, upper, twist not carried" in n for n in repairs(result))


def test_an_inertia_that_is_not_positive_definite(tmp_path):
    rod = '<inertial><mass value="1"/><inertia ixx="0.2125" ixy="-0.005" ixz="0.0225" iyy="0.205" iyz="0.045" izz="0.0125"/></inertial>'
    text = robot(joint_body='<limit lower="-1" upper="1" effort="5" velocity="2"/>').replace(
        f'<link name="arm">{INERTIAL}', f'<link name="arm">{rod}')
    result = read(tmp_path, text)
    assert min(result.scene.body("arm").mass.diagonal_inertia) > 0.0
    assert any("link arm: inertia not positive definite" in n for n in repairs(result))


@pytest.mark.parametrize("text, expected", [
    ("not xml at all", "not valid XML"),
    ('<?xml version="1.0"?><model name="m"/>', "not <robot>"),
    (robot(joint_body='<origin xyz="0 0 one"/>'), "origin"),
])
def test_what_no_repair_reads_stays_an_error_naming_the_file(tmp_path, text, expected):
    path = tmp_path / "broken.urdf"
    path.write_text(text)
    with pytest.raises(UrdfReadError) as error:
        read_urdf(str(path))
    assert str(path) in str(error.value) and expected in str(error.value)
