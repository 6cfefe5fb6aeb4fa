"""core.urdf.read_urdf on small hand-made URDF files: each mapping rule, URIs, and bad input."""

import math
import struct

import pytest

pytest.importorskip("mujoco")

from articula.core.model import DofMotion, JointType, ShapeKind  # noqa: E402
from articula.core.transforms import quat_rotate  # noqa: E402
from articula.core.urdf import UrdfReadError, read_urdf, resolve_uri  # noqa: E402


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def write_stl(path, scale=0.1):
    """A binary STL tetrahedron."""
    v = [(0, 0, 0), (scale, 0, 0), (0, scale, 0), (0, 0, scale)]
    faces = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]
    data = b"\0" * 80 + struct.pack("<I", len(faces))
    for f in faces:
        data += struct.pack("<3f", 0, 0, 0) + b"".join(struct.pack("<3f", *v[i]) for i in f) + b"\0\0"
    path.write_bytes(data)


INERTIAL = '<inertial><mass value="{m}"/><inertia ixx="0.01" iyy="0.02" izz="0.03" ixy="0.001" ixz="0" iyz="0"/></inertial>'

ARM = f"""<?xml version="1.0"?>
<robot name="arm">
  <material name="red"><color rgba="1 0 0 1"/></material>
  <link name="base">{INERTIAL.format(m=2)}
    <collision><geometry><box size="0.2 0.2 0.1"/></geometry></collision>
    <visual><geometry><mesh filename="package://arm_description/meshes/base.stl"/></geometry>
      <material name="red"/></visual>
  </link>
  <link name="upper">{INERTIAL.format(m=1)}
    <collision><origin xyz="0 0 0.2"/><geometry><cylinder radius="0.05" length="0.4"/></geometry></collision>
  </link>
  <link name="tool">{INERTIAL.format(m=0.5)}</link>
  <link name="wheel">{INERTIAL.format(m=0.3)}</link>
  <link name="finger">{INERTIAL.format(m=0.1)}</link>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/><origin xyz="0 0 0.1" rpy="0 0 1.5707963"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="2" effort="30" velocity="4"/>
    <dynamics damping="0.7" friction="0.2"/>
  </joint>
  <joint name="tool_mount" type="fixed">
    <parent link="upper"/><child link="tool"/><origin xyz="0 0 0.4"/>
  </joint>
  <joint name="spin" type="continuous">
    <parent link="upper"/><child link="wheel"/><origin xyz="0.1 0 0.2"/><axis xyz="0 0 1"/>
  </joint>
  <joint name="finger_joint" type="prismatic">
    <parent link="tool"/><child link="finger"/><axis xyz="1 0 0"/><limit lower="0" upper="0.04" effort="5" velocity="0.1"/>
    <mimic joint="shoulder" multiplier="0.01"/>
  </joint>
  <transmission name="shoulder_trans"><type>transmission_interface/SimpleTransmission</type></transmission>
</robot>
"""


@pytest.fixture
def arm_file(tmp_path):
    (tmp_path / "arm_description" / "meshes").mkdir(parents=True)
    write_stl(tmp_path / "arm_description" / "meshes" / "base.stl")
    (tmp_path / "arm_description" / "urdf").mkdir()
    path = tmp_path / "arm_description" / "urdf" / "arm.urdf"
    path.write_text(ARM)
    return path


def test_links_joints_and_fixed_links(arm_file):
    scene = read_urdf(str(arm_file)).scene
    assert [b.name for b in scene.bodies] == ["base", "upper", "tool", "finger", "wheel"] or \
        sorted(b.name for b in scene.bodies) == ["base", "finger", "tool", "upper", "wheel"]
    assert scene.body("tool").parent == "upper"
    mount = scene.joint("tool_mount")  # a fixed link stays a body, welded under its URDF name
    assert mount.type == JointType.FIXED and (mount.body0, mount.body1) == ("upper", "tool")
    base = next(j for j in scene.joints if j.body1 == "base")
    assert base.body0 is None and base.type == JointType.FIXED  # the root is fixed to the world
    assert scene.body("upper").pose.pos == pytest.approx((0.0, 0.0, 0.1))


def test_limits_dynamics_and_axes(arm_file):
    scene = read_urdf(str(arm_file)).scene
    shoulder = scene.joint("shoulder")
    d = shoulder.dofs[0]
    assert shoulder.type == JointType.REVOLUTE and d.motion == DofMotion.LIMITED
    assert (d.lower, d.upper) == pytest.approx((-1.0, 2.0))
    assert d.max_effort == pytest.approx(30.0) and d.velocity_limit == pytest.approx(4.0)
    assert d.viscous_damping == pytest.approx(0.7) and d.dynamic_friction == pytest.approx(0.2)
    world_axis = quat_rotate(scene.body("upper").pose.rot,
                             quat_rotate(shoulder.local_pose1.rot, (1.0, 0.0, 0.0) if shoulder.axis == "X"
                                         else {"Y": (0, 1, 0), "Z": (0, 0, 1)}[shoulder.axis]))
    assert world_axis == pytest.approx((-1.0, 0.0, 0.0), abs=1e-6)  # y rotated 90 degrees about z
    spin = scene.joint("spin").dofs[0]
    assert spin.motion == DofMotion.FREE and spin.velocity_limit == math.inf  # continuous
    assert scene.joint("finger_joint").type == JointType.PRISMATIC


def test_inertial_as_written(arm_file):
    body = read_urdf(str(arm_file)).scene.body("base")
    assert body.mass.mass == pytest.approx(2.0)
    assert sorted(body.mass.diagonal_inertia) == pytest.approx(sorted(
        [0.01 - 0.001 * 0.1, 0.02, 0.03]), abs=1e-4)  # principal moments of the written tensor
    assert sum(body.mass.diagonal_inertia) == pytest.approx(0.06)


def test_visual_mesh_through_package_uri_and_color(arm_file):
    read = read_urdf(str(arm_file))
    visual = next(v for v in read.scene.visuals if v.body == "base")
    assert len(visual.mesh.vertices) == 4 and visual.color == pytest.approx((1, 0, 0, 1))
    kinds = {s.kind for s in read.scene.shapes}
    assert {ShapeKind.BOX, ShapeKind.CYLINDER} <= kinds
    assert not any(v.name.endswith("_visual") for v in read.scene.visuals)  # no copies of colliders


def test_mimic_is_a_coupled_joint(arm_file):
    read = read_urdf(str(arm_file))
    mimic = read.scene.joint("finger_joint").mimic
    assert (mimic.leader, mimic.gear, mimic.offset) == ("shoulder", 0.01, 0.0)
    assert not any("mimic" in w or "equality constraint" in w for w in read.warnings)


def test_transmission_without_joint_is_named_in_one_warning(arm_file):
    read = read_urdf(str(arm_file))
    listed = [w for w in read.warnings if "not carried over" in w]
    assert len(listed) == 1
    assert "1 transmissions not mapped exactly (shoulder_trans (0 joints))" in listed[0]
    assert read.scene.actuators() == []


def test_package_search_path(tmp_path):
    (tmp_path / "pkgs" / "robot_pkg" / "meshes").mkdir(parents=True)
    write_stl(tmp_path / "pkgs" / "robot_pkg" / "meshes" / "part.stl")
    (tmp_path / "elsewhere").mkdir()
    urdf = tmp_path / "elsewhere" / "r.urdf"
    assert resolve_uri("package://robot_pkg/meshes/part.stl", str(urdf)) is None
    found = resolve_uri("package://robot_pkg/meshes/part.stl", str(urdf), [str(tmp_path / "pkgs")])
    assert found == str(tmp_path / "pkgs" / "robot_pkg" / "meshes" / "part.stl")
    assert resolve_uri("../pkgs/robot_pkg/meshes/part.stl", str(urdf)) == found
    assert resolve_uri(f"file://{found}", str(urdf)) == found


def test_missing_mesh_is_left_out_naming_link_and_file(tmp_path):
    """As Blender's importers go on past a missing texture (more cases: tests/core/test_urdf_meshes.py)."""
    path = tmp_path / "missing.urdf"
    path.write_text(f"""<robot name="r"><link name="hand">{INERTIAL.format(m=1)}
      <visual><geometry><mesh filename="package://gone/hand.stl"/></geometry></visual></link></robot>""")
    read = read_urdf(str(path))
    assert [b.name for b in read.scene.bodies] == ["hand"] and not read.scene.visuals
    warning = next(w for w in read.warnings if "not found" in w)
    assert "hand (visual)" in warning and "package://gone/hand.stl" in warning
    assert str(tmp_path / "gone" / "hand.stl") in warning, "the paths searched"


def test_bad_xml_names_file_and_line(tmp_path):
    path = tmp_path / "bad.urdf"
    path.write_text('<robot name="r">\n<link name="a">\n</robot>')
    with pytest.raises(UrdfReadError) as error:
        read_urdf(str(path))
    assert str(path) in str(error.value) and "line 3" in str(error.value)


def test_bad_value_names_element_and_line_of_the_file(tmp_path):
    path = tmp_path / "bad.urdf"
    path.write_text(f"""<?xml version="1.0"?>
<!-- a comment -->
<robot name="r"><link name="a">{INERTIAL.format(m=1)}</link><link name="b">{INERTIAL.format(m=1)}</link>
<joint name="j" type="revolute"><parent link="a"/><child link="b"/>
<origin xyz="0 0 one"/><axis xyz="1 0 0"/></joint></robot>""")
    with pytest.raises(UrdfReadError) as error:
        read_urdf(str(path))
    assert "origin" in str(error.value) and "line 5" in str(error.value)


def test_not_a_robot(tmp_path):
    path = tmp_path / "x.urdf"
    path.write_text("<mujoco/>")
    with pytest.raises(UrdfReadError, match="not <robot>"):
        read_urdf(str(path))


def test_mesh_source_maps_the_file_onto_mujocos_vertices(arm_file, tmp_path):
    """A Blender importer reading the file, moved by the MeshSource, gives MuJoCo's re-centred mesh."""
    from articula.core.transforms import pose_inverse, transform_point

    read = read_urdf(str(arm_file))
    visual = next(v for v in read.scene.visuals if v.body == "base")
    source = read.mesh_sources[visual.name]
    assert source.path == str(tmp_path / "arm_description" / "meshes" / "base.stl")
    raw = [(0, 0, 0), (0.1, 0, 0), (0, 0.1, 0), (0, 0, 0.1)]  # write_stl's tetrahedron
    inverse = pose_inverse(source.offset)
    moved = [transform_point(inverse, tuple(s * c for s, c in zip(source.scale, v))) for v in raw]
    assert len(visual.mesh.vertices) == 4
    for a in moved:
        assert min(math.dist(a, b) for b in visual.mesh.vertices) < 1e-7


XACRO = """<?xml version="1.0"?>
<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="arm">
  <xacro:property name="length" value="0.5"/>
  <link name="base">{inertial}</link><link name="arm">{inertial}</link>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/>
    <origin xyz="0 0 {z}"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>"""


def test_xacro_file_is_refused_saying_how_to_expand_it(tmp_path):
    """Expanding xacro runs Python expressions from the file: refused, with the command that does it."""
    path = tmp_path / "arm.urdf.xacro"
    path.write_text(XACRO.format(inertial=INERTIAL.format(m=1), z="${length}"))
    with pytest.raises(UrdfReadError) as error:
        read_urdf(str(path))
    message = str(error.value)
    assert str(path) in message and "xacro:property name='length'" in message and "xacro robot.urdf.xacro" in message


def test_expression_alone_is_a_xacro_file(tmp_path):
    path = tmp_path / "arm.urdf"
    text = XACRO.format(inertial=INERTIAL.format(m=1), z="${length}").replace(
        '<xacro:property name="length" value="0.5"/>', "")
    path.write_text(text)
    with pytest.raises(UrdfReadError, match=r"a xacro file.*\$\{length\}"):
        read_urdf(str(path))


def test_expanded_xacro_output_reads(tmp_path):
    """xacro's output keeps the namespace declaration on <robot>: a plain URDF all the same."""
    path = tmp_path / "arm.urdf"
    text = XACRO.format(inertial=INERTIAL.format(m=1), z="0.5").replace(
        '<xacro:property name="length" value="0.5"/>', "")
    path.write_text(text)
    read = read_urdf(str(path))
    assert [b.name for b in read.scene.bodies] == ["base", "arm"]


PLAIN_WITH_XACRO_NAMESPACE = """<?xml version="1.0"?>
<!-- autogenerated by xacro: the namespace declaration stays -->
<robot name="plain" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <link name="base"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>
  </inertial></link>
</robot>
"""


def test_a_urdf_that_declares_the_xacro_namespace_but_uses_none_is_plain_urdf(tmp_path):
    from articula.core.formats import read_file
    from articula.core.urdf import is_xacro

    path = tmp_path / "plain.urdf"
    path.write_text(PLAIN_WITH_XACRO_NAMESPACE)
    assert not is_xacro(str(path))
    assert [b.name for b in read_file(str(path)).scene.bodies] == ["base"]
    path.write_text(PLAIN_WITH_XACRO_NAMESPACE.replace('name="base"', 'name="${prefix}base"'))
    assert is_xacro(str(path))  # an expression: xacro, refused untrusted
    with pytest.raises(UrdfReadError, match=r"a xacro file, not a URDF \(<link \.\.\. '\$\{prefix\}base'>\)"):
        read_urdf(str(path))


@pytest.mark.parametrize("robot", ["franka_panda/panda.urdf", "kuka_iiwa/model.urdf"])
def test_pybullets_xacro_generated_robots_convert_as_plain_urdf(tmp_path, robot):
    import os

    from articula.core.formats import read_file, write_file
    from tests.robot_files import PYBULLET_DATA

    path = os.path.join(PYBULLET_DATA, robot)
    if not os.path.isfile(path):
        pytest.skip("pybullet's files come with `make urdf-corpus`")
    read = read_file(path)  # what `articula convert` reads, untrusted
    assert len(read.scene.joints) >= 7
    write_file(read.scene, str(tmp_path / "robot.xml"))
    assert (tmp_path / "robot.xml").stat().st_size > 0
