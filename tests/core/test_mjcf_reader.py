"""core.mjcf.read_mjcf on small hand-made MJCF files: each mapping rule, and bad input."""

import math
import os

import pytest

pytest.importorskip("mujoco")

from articula.core.mjcf import MjcfReadError, read_mjcf  # noqa: E402
from articula.core.model import ActuatorKind, DofMotion, JointType, ShapeKind  # noqa: E402
from articula.core.transforms import quat_rotate  # noqa: E402
from tests.robot_files import duck_mjcf  # noqa: E402

@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


ARM = """
<mujoco model="arm">
  <compiler angle="degree" autolimits="true"/>
  <option timestep="0.002" gravity="0 0 -9"/>
  <default><joint armature="0.1" damping="0.5"/></default>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="base" pos="0 0 0.5">
      <geom name="base_geom" type="box" size="0.1 0.1 0.1" contype="1" conaffinity="0"/>
      <body name="upper" pos="0 0 0.2">
        <joint name="shoulder" type="hinge" axis="0 1 1" range="-90 45" frictionloss="0.3" stiffness="2"/>
        <geom name="upper_geom" type="capsule" fromto="0 0 0 0 0 0.4" size="0.05" contype="1" conaffinity="0"/>
        <body name="lower" pos="0 0 0.4">
          <joint name="elbow" type="slide" axis="0 0 -1" range="-0.1 0.2" ref="0.05"/>
          <geom name="lower_geom" type="sphere" size="0.05" mass="2" contype="1" conaffinity="0"/>
          <geom name="decor" type="box" size="0.01 0.01 0.01" contype="0" conaffinity="0" rgba="1 0 0 1"/>
          <site name="tip"/>
        </body>
        <body name="wrist" pos="0.1 0 0.4">
          <joint name="wrist_ball" type="ball" range="0 30"/>
          <geom type="sphere" size="0.02"/>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon><fixed name="t"><joint joint="shoulder" coef="1"/></fixed></tendon>
  <actuator>
    <position name="p" joint="shoulder" kp="50" kv="3" gear="2" forcerange="-7 7"/>
    <motor name="m" joint="elbow" gear="3" ctrlrange="-1 2"/>
  </actuator>
  <sensor><jointpos joint="shoulder"/></sensor>
</mujoco>
"""


@pytest.fixture
def arm(tmp_path):
    path = tmp_path / "arm.xml"
    path.write_text(ARM)
    return read_mjcf(str(path))


def test_bodies_joints_and_fixed_base(arm):
    scene = arm.scene
    assert [b.name for b in scene.bodies] == ["base", "upper", "lower", "wrist"]
    assert scene.body("upper").parent == "base" and scene.body("base").parent is None
    base = [j for j in scene.joints if j.body1 == "base"]
    assert len(base) == 1 and base[0].type == JointType.FIXED and base[0].body0 is None  # no free joint
    assert scene.body("upper").pose.pos == pytest.approx((0.0, 0.0, 0.7))
    assert scene.settings.steps_per_second == pytest.approx(500.0)
    assert scene.settings.gravity == pytest.approx((0.0, 0.0, -9.0))


def test_hinge_axis_limits_and_dof_properties(arm):
    shoulder = arm.scene.joint("shoulder")
    assert shoulder.type == JointType.REVOLUTE and shoulder.axis == "X"
    axis = quat_rotate(shoulder.local_pose1.rot, (1.0, 0.0, 0.0))  # X of the frame is MuJoCo's axis
    assert axis == pytest.approx((0.0, math.sqrt(0.5), math.sqrt(0.5)))
    d = shoulder.dofs[0]
    assert d.motion == DofMotion.LIMITED
    assert (d.lower, d.upper) == pytest.approx((-math.pi / 2, math.pi / 4))  # degrees resolved
    assert d.armature == pytest.approx(0.1) and d.viscous_damping == pytest.approx(0.5)
    assert d.static_friction == d.dynamic_friction == pytest.approx(0.3)
    assert d.spring_stiffness == pytest.approx(2.0)


def test_actuators_are_read_as_actuators_not_drives(arm):
    """Issue 16: a position servo is an Actuator on its DOF (no drive is made from it), a motor too;
    neither becomes the DOF's effort limit (that is the joint's actuatorfrcrange alone)."""
    d = arm.scene.joint("shoulder").dofs[0]
    assert not d.drive_enabled and d.max_effort == math.inf
    (servo,) = d.actuators
    assert (servo.name, servo.kind, servo.kp, servo.kv, servo.gear) == ("p", ActuatorKind.POSITION, 50.0, 3.0, 2.0)
    assert servo.force_range == (-7.0, 7.0) and servo.ctrl_range is None  # autolimits: forcerange given only
    elbow = arm.scene.joint("elbow").dofs[0]
    (motor,) = elbow.actuators
    assert (motor.name, motor.kind, motor.gear, motor.ctrl_range) == ("m", ActuatorKind.MOTOR, 3.0, (-1.0, 2.0))
    assert not elbow.drive_enabled and elbow.max_effort == math.inf
    tendon = arm.scene.tendon("t")
    assert [(j.joint, j.coef) for j in tendon.joints] == [("shoulder", 1.0)] and not tendon.actuators


def test_slide_ref_shifts_limits_and_negative_axis(arm):
    elbow = arm.scene.joint("elbow")
    assert elbow.type == JointType.PRISMATIC
    assert quat_rotate(elbow.local_pose1.rot, (1.0, 0.0, 0.0)) == pytest.approx((0.0, 0.0, -1.0))
    d = elbow.dofs[0]
    assert (d.lower, d.upper) == pytest.approx((-0.1, 0.2))  # the file's coordinate, as MuJoCo
    assert d.reference == pytest.approx(0.05)


def test_ball_joint_cone(arm):
    ball = arm.scene.joint("wrist_ball")
    assert ball.type == JointType.SPHERICAL and len(ball.dofs) == 3
    assert ball.cone_limit0 == ball.cone_limit1 == pytest.approx(math.radians(30))


def test_colliders_visuals_masses_and_groups(arm):
    scene = arm.scene
    assert scene.body("lower").mass.mass == pytest.approx(2.0 + 1000 * 0.02 ** 3)  # MuJoCo: geom mass + decor box density
    upper = next(s for s in scene.shapes if s.name == "upper_geom")
    assert upper.kind == ShapeKind.CAPSULE and upper.half_height == pytest.approx(0.2)
    assert upper.pose.pos == pytest.approx((0.0, 0.0, 0.2))  # fromto resolved
    floor = next(s for s in scene.shapes if s.name == "floor")
    assert floor.kind == ShapeKind.PLANE and floor.body is None
    assert "decor" not in {s.name for s in scene.shapes}  # contype = conaffinity = 0: a visual only
    decor = next(v for v in scene.visuals if v.name == "decor")
    assert decor.color == pytest.approx((1, 0, 0, 1)) and decor.mesh.triangles
    assert any(v.name == "upper_geom_visual" for v in scene.visuals)  # MuJoCo draws colliders too
    assert not any(v.name.startswith("floor") for v in scene.visuals)  # a floor shows as its collider
    # Robot geoms 1/0 touch the floor (1/1) but not each other: exact as a negative group.
    groups = {s.name: s.collision_group for s in scene.shapes}
    assert groups["floor"] == 1 and groups["base_geom"] == groups["upper_geom"] == -1
    assert not scene.filtered_pairs


def test_sites_and_sensors_are_read_so_nothing_is_left_out(arm):
    assert [(s.name, s.body) for s in arm.scene.sites] == [("tip", "lower")]
    (sensor,) = arm.scene.sensors
    assert (sensor.name, sensor.kind, sensor.target, sensor.target_kind) == ("sensor_0", "jointpos", "shoulder", "joint")
    assert not [w for w in arm.warnings if "not carried over" in w]


def test_what_cannot_be_represented_is_one_warning(tmp_path):
    path = tmp_path / "crank.xml"
    path.write_text(ARM.replace('<motor name="m" joint="elbow" gear="3" ctrlrange="-1 2"/>',
                                '<general name="mu" joint="elbow" dyntype="integrator" actlimited="true" '
                                'actrange="0 1"/>')
                    .replace('</fixed></tendon>',
                             '</fixed><fixed name="tb"><joint joint="wrist_ball" coef="1"/></fixed></tendon>')
                    .replace("</worldbody>", '<geom type="hfield" hfield="h"/></worldbody>')
                    .replace("<worldbody>", '<asset><hfield name="h" nrow="2" ncol="2" size="1 1 0.1 0.1"/></asset>'
                             "<worldbody>"))
    read = read_mjcf(str(path))
    listed = [w for w in read.warnings if "not carried over" in w]
    assert len(listed) == 1
    assert "tb (on a ball or free joint)" in listed[0] and "activation limits of actuators mu" in listed[0]
    assert "site" not in listed[0].replace("slidercrank", "") and "sensor" not in listed[0]
    assert "height" not in listed[0]  # terrain is carried: a HEIGHT_FIELD collider
    assert ShapeKind.HEIGHT_FIELD in [s.kind for s in read.scene.shapes if s.body is None]


def test_free_joint_floats(tmp_path):
    path = tmp_path / "free.xml"
    path.write_text('<mujoco><worldbody><body name="b"><freejoint/><geom size="0.1"/></body></worldbody></mujoco>')
    read = read_mjcf(str(path))
    assert read.scene.joints == []  # floating base: no joint to the world


def test_masks_without_exact_groups_become_filtered_pairs(tmp_path):
    path = tmp_path / "masks.xml"
    path.write_text("""<mujoco><worldbody>
      <body name="a"><freejoint/><geom size="0.1" contype="1" conaffinity="1"/></body>
      <body name="b" pos="1 0 0"><freejoint/><geom size="0.1" contype="2" conaffinity="2"/></body>
      <body name="c" pos="2 0 0"><freejoint/><geom size="0.1" contype="3" conaffinity="3"/></body>
    </worldbody></mujoco>""")
    read = read_mjcf(str(path))
    assert {frozenset(p) for p in read.scene.filtered_pairs} == {frozenset(("a", "b"))}
    assert any("contype/conaffinity" in w for w in read.warnings)


def test_exclude_becomes_a_filtered_pair(tmp_path):
    path = tmp_path / "exclude.xml"
    path.write_text("""<mujoco><worldbody>
      <body name="a"><freejoint/><geom size="0.1"/></body>
      <body name="b" pos="1 0 0"><freejoint/><geom size="0.1"/></body>
    </worldbody><contact><exclude body1="a" body2="b"/></contact></mujoco>""")
    assert read_mjcf(str(path)).scene.filtered_pairs == [("a", "b")]


def test_bad_xml_names_file_and_element(tmp_path):
    path = tmp_path / "bad.xml"
    path.write_text('<mujoco><worldbody><body name="b"><geom type="nonsense"/></body></worldbody></mujoco>')
    with pytest.raises(MjcfReadError) as error:
        read_mjcf(str(path))
    assert str(path) in str(error.value) and "geom" in str(error.value)


def test_missing_mesh_file_names_it(tmp_path):
    path = tmp_path / "mesh.xml"
    path.write_text('<mujoco><asset><mesh name="m" file="missing_part.stl"/></asset><worldbody>'
                    '<body name="b"><geom type="mesh" mesh="m"/></body></worldbody></mujoco>')
    with pytest.raises(MjcfReadError) as error:
        read_mjcf(str(path))
    assert str(path) in str(error.value) and "missing_part.stl" in str(error.value)


def test_missing_file(tmp_path):
    with pytest.raises(MjcfReadError, match="no such file"):
        read_mjcf(str(tmp_path / "nope.xml"))


def test_a_pathlib_path_reads_as_its_string(tmp_path):
    path = tmp_path / "ball.xml"
    path.write_text('<mujoco><worldbody><body name="ball"><freejoint/><geom size="0.1"/></body></worldbody></mujoco>')
    assert [b.name for b in read_mjcf(path).scene.bodies] == ["ball"]


def test_mesh_geom_becomes_a_convex_hull_with_mujocos_vertices(tmp_path):
    (tmp_path / "tet.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    path = tmp_path / "mesh.xml"
    path.write_text('<mujoco><asset><mesh name="m" file="tet.obj"/></asset><worldbody>'
                    '<body name="b"><freejoint/><geom name="g" type="mesh" mesh="m"/></body></worldbody></mujoco>')
    read = read_mjcf(str(path))
    shape = read.scene.shapes[0]
    assert shape.kind == ShapeKind.CONVEX_HULL and len(shape.mesh.vertices) == 4 and len(shape.mesh.triangles) == 4


MESH_MJCF = os.path.join(os.path.dirname(__file__), "..", "data", "mesh_visual", "meshy.xml")


def test_mesh_visual_knows_its_file():
    """A mesh visual records the file MuJoCo read (through meshdir), its scale and MuJoCo's re-centring,
    so Blender's own importer can bring the file's UVs: a file vertex moved by the MeshSource lands on
    MuJoCo's triangles."""
    import numpy as np

    from articula.core.transforms import pose_inverse, transform_point

    read = read_mjcf(MESH_MJCF)
    (name,) = read.mesh_sources  # the mesh visual (the sphere's drawn copy has no file)
    visual, source = next(v for v in read.scene.visuals if v.name == name), read.mesh_sources[name]
    assert os.path.samefile(source.path, os.path.join(os.path.dirname(MESH_MJCF), "meshes", "tet.obj")) and source.scale == pytest.approx((2, 2, 2))
    file_vertices = [(0, 0, 0), (0.2, 0, 0), (0, 0.2, 0), (0, 0, 0.2)]
    moved = [transform_point(pose_inverse(source.offset), tuple(2.0 * c for c in v)) for v in file_vertices]
    ours = np.array(visual.mesh.vertices)
    for point in moved:
        assert np.min(np.linalg.norm(ours - np.array(point), axis=1)) < 1e-6


def test_mesh_material_with_a_2d_texture_names_its_image(tmp_path):
    read = read_mjcf(duck_mjcf(tmp_path))
    assert read.material_textures == {"duck": str(tmp_path / "textures" / "duckCM.png")}  # not the box's
    assert {v.material_name for v in read.scene.visuals} == {"duck", "crate"}
