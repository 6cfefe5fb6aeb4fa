"""URDF files other tools load but MuJoCo's compiler refuses as written come in after a named
repair (core/urdf/repairs.py): the robot as the file means it, each repair in one warning, the
user's file untouched; what no repair can read stays a clear error naming the file."""

import math

import pytest

pytest.importorskip("mujoco")

from articula.core.model import JointType, ShapeKind  # noqa: E402
from articula.core.urdf import UrdfReadError, read_urdf  # noqa: E402
from articula.core.validation import ERROR, validate  # noqa: E402

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
    assert any("1 character after </robot> (line 6) ignored ('\\x00')" in n for n in repairs(result))


def test_blank_lines_before_the_xml_declaration(tmp_path):
    """The XML declaration must come first; pybullet's files often start with blank lines. MuJoCo's
    messages still count the file's lines."""
    result = read(tmp_path, "\n\n" + robot(joint_body='<limit lower="-1" upper="1" effort="5" velocity="2"/>'))
    assert any("2 blank lines before <?xml ignored" in n for n in repairs(result))
    path = tmp_path / "late.urdf"
    path.write_text("\n\n" + robot(joint_body='<origin xyz="0 0 one"/>'))
    with pytest.raises(UrdfReadError, match="line 7"):
        read_urdf(str(path))


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


def test_pybullet_spherical_joint_keeps_its_swing_limits_as_a_cone(tmp_path):
    """pybullet limits a spherical joint's swing about X by ``lower`` and about Y by ``upper`` and its
    twist about Z: a ball joint about Z whose cone angles are those swings (cone 0 leans Z toward X,
    a swing about Y); the twist has no place and is named."""
    result = read(tmp_path, robot('type="spherical"', '<limit effort="10" lower="0.2" upper="0.8" twist="0.3"/>'))
    joint = result.scene.joint("j")
    assert joint.type == JointType.SPHERICAL and joint.axis == "Z"
    assert (joint.cone_limit0, joint.cone_limit1) == pytest.approx((0.8, 0.2))
    notes = repairs(result)
    assert any("half-angles 0.8 rad toward X and 0.2 rad toward Y" in n and "twist limit +-0.3 rad is not carried" in n
               for n in notes)
    assert not [p for p in validate(result.scene) if p.severity == ERROR]


@pytest.mark.parametrize("limit", ['<limit effort="0" lower="0.2" upper="0.8" twist="0.3"/>',
                                   '<limit effort="10" lower="0.2" upper="0.8"/>'])
def test_a_spherical_limit_pybullet_does_not_apply_is_no_limit(tmp_path, limit):
    result = read(tmp_path, robot('type="spherical"', limit))
    joint = result.scene.joint("j")
    assert joint.type == JointType.SPHERICAL and math.isinf(joint.cone_limit0) and math.isinf(joint.cone_limit1)
    assert any("read as no limit, as pybullet does" in n for n in repairs(result))


def test_an_inertia_that_is_not_positive_definite(tmp_path):
    rod = '<inertial><mass value="1"/><inertia ixx="0.2125" ixy="-0.005" ixz="0.0225" iyy="0.205" iyz="0.045" izz="0.0125"/></inertial>'
    text = robot(joint_body='<limit lower="-1" upper="1" effort="5" velocity="2"/>').replace(
        f'<link name="arm">{INERTIAL}', f'<link name="arm">{rod}')
    result = read(tmp_path, text)
    moments = sorted(result.scene.body("arm").mass.diagonal_inertia)
    assert moments[0] == pytest.approx(1e-6 * moments[2] + 1e-6, rel=1e-3), "as Newton's finalize corrects it"
    # Its smallest moment is 0 up to rounding, whose last bits differ by CPU and BLAS: written 0.
    assert any("link arm: inertia not positive definite (principal moments 0, 0.215, 0.215)" in n
               for n in repairs(result)), repairs(result)


@pytest.mark.parametrize("inertia", [
    'ixx="1e-16" iyy="1e-16" izz="1e-16" ixy="0" ixz="0" iyz="0"',  # a sensor link's: below MuJoCo's floor
    # A rank-2 tensor written to 15 digits: its smallest moment, 5e-15, is positive but under MuJoCo's floor.
    'ixx="1e-06" iyy="1e-06" izz="1e-06" ixy="9.99999995e-07" ixz="0" iyz="0"',
])
def test_an_inertia_mujoco_reads_as_not_positive_is_repaired_not_refused(tmp_path, inertia):
    """urdfdom, pybullet and Newton load these; MuJoCo's "inertia must have positive eigenvalues"
    refused the whole file."""
    text = robot(joint_body='<limit lower="-1" upper="1" effort="5" velocity="2"/>').replace(
        f'<link name="arm">{INERTIAL}', f'<link name="arm"><inertial><mass value="0.01"/><inertia {inertia}/></inertial>')
    result = read(tmp_path, text)
    moments = sorted(result.scene.body("arm").mass.diagonal_inertia)
    assert moments[0] >= 1e-6, "lifted as Newton's finalize lifts it"
    assert [n for n in repairs(result) if "link arm: inertia not positive definite" in n], result.warnings
    assert [str(p) for p in validate(result.scene) if p.severity == ERROR] == []


@pytest.mark.parametrize("text, expected", [
    ("not xml at all", "not valid XML"),
    ('<?xml version="1.0"?><model name="m"/>', "not <robot>"),
    ("\x00\x01 binary", "not valid XML"),
    (robot(joint_body='<origin xyz="0 0 one"/>'), "origin"),
    ('<robot name="r"><link name="a"/><link name="b"/>'
     '<joint name="j1" type="fixed"><parent link="a"/><child link="b"/></joint>'
     '<joint name="j2" type="fixed"><parent link="b"/><child link="a"/></joint></robot>',
     "joints j1, j2 form a cycle of links (b -> a -> b): a URDF is a tree of links"),
    (robot(joint_body='<limit lower="-1" upper="1" effort="5" velocity="2"/>').replace(
        "</robot>", '<joint name="back" type="fixed"><parent link="arm"/><child link="base"/></joint></robot>'),
     "joints j, back form a cycle of links (arm -> base -> arm)"),
    (robot(joint_body='<limit lower="-1" upper="1" effort="5" velocity="2"/>').replace(
        "</robot>", '<joint name="twice" type="fixed"><parent link="base"/><child link="arm"/></joint></robot>'),
     "link arm is the child of two joints (j, twice)"),
])
def test_what_no_repair_reads_stays_an_error_naming_the_file(tmp_path, text, expected):
    """Nothing is half-built: the error is all that comes back, the file is as it was."""
    path = tmp_path / "broken.urdf"
    path.write_text(text)
    with pytest.raises(UrdfReadError) as error:
        read_urdf(str(path))
    assert error.value.file == str(path) and str(path) in str(error.value) and expected in str(error.value)
    assert path.read_text() == text
