"""Sites, cameras and sensors through URDF as ROS 2 carries them: frame links, Gazebo's sensor tags and
ros2_control's sensors (core/urdf/sensors.py), read by urdfdom, and back into the description."""

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

pytest.importorskip("mujoco")

from articula.core.mjcf import read_mjcf  # noqa: E402
from articula.core.transforms import quat_rotate  # noqa: E402
from articula.core.urdf import read_urdf, write_urdf  # noqa: E402
from tests.urdf_checks import pinocchio  # noqa: E402

#: An arm with an IMU, a force-torque sensor, a touch sensor, a rangefinder and a camera (MuJoCo's terms).
SENSOR_ARM = """<mujoco model="sensor_arm">
  <option timestep="0.002"/>
  <worldbody>
    <light name="sun" pos="0 0 3"/>
    <body name="base" pos="0 0 0.1">
      <geom name="base_geom" type="box" size="0.1 0.1 0.05" mass="2"/>
      <site name="imu" pos="0.02 0 0.03" euler="0 0 90"/>
      <site name="arm" pos="0 0.05 0"/>
      <camera name="head_cam" pos="0.1 0 0.05" xyaxes="0 -1 0 0.6 0 0.8" fovy="60" resolution="640 480"/>
      <body name="arm" pos="0 0 0.05">
        <joint name="shoulder" type="hinge" axis="0 1 0" range="-1 1"/>
        <geom name="arm_geom" type="capsule" fromto="0 0 0 0 0 0.3" size="0.03" mass="1"/>
        <site name="wrist_ft" pos="0 0 0.3"/>
        <site name="range" pos="0 0 0.3" euler="0 90 0"/>
        <body name="hand" pos="0 0 0.3">
          <joint name="wrist" type="hinge" axis="0 0 1"/>
          <geom name="hand_geom" type="sphere" size="0.04" mass="0.3"/>
          <site name="fingertip" type="sphere" size="0.05"/>
        </body>
      </body>
    </body>
  </worldbody>
  <sensor>
    <accelerometer name="imu_accelerometer" site="imu" noise="0.01"/>
    <gyro name="imu_gyro" site="imu" noise="0.002"/>
    <framequat name="imu_framequat" objtype="site" objname="imu"/>
    <force name="wrist_force" site="wrist_ft"/>
    <torque name="wrist_torque" site="wrist_ft" noise="0.1"/>
    <touch name="finger_touch" site="fingertip"/>
    <rangefinder name="distance" site="range" cutoff="5"/>
    <jointpos name="shoulder_pos" joint="shoulder"/>
  </sensor>
</mujoco>
"""

#: A ROS-style URDF: an IMU on a frame link, a force-torque sensor on a body's own link, a camera with
#: its optical frame, a bumper and a one-beam range sensor.
ROS_ROBOT = """<?xml version="1.0"?>
<robot name="rover">
  <link name="base_link"><inertial><mass value="5"/>
    <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.4 0.3 0.1"/></geometry></collision></link>
  <link name="imu_link"/>
  <joint name="imu_joint" type="fixed"><parent link="base_link"/><child link="imu_link"/>
    <origin xyz="0.1 0 0.05" rpy="0 0 0.5"/></joint>
  <link name="camera_link"/>
  <joint name="camera_joint" type="fixed"><parent link="base_link"/><child link="camera_link"/>
    <origin xyz="0.2 0 0.1" rpy="0 0.3 0"/></joint>
  <link name="camera_optical_frame"/>
  <joint name="camera_optical_joint" type="fixed">
    <parent link="camera_link"/><child link="camera_optical_frame"/>
    <origin rpy="-1.5707963267948966 0 -1.5707963267948966"/></joint>
  <link name="sonar_link"/>
  <joint name="sonar_joint" type="fixed"><parent link="base_link"/><child link="sonar_link"/>
    <origin xyz="0.2 0.1 0"/></joint>
  <ros2_control name="rover" type="system">
    <hardware><plugin>mock_components/GenericSystem</plugin></hardware>
    <sensor name="imu_sensor">
      <state_interface name="orientation.x"/><state_interface name="orientation.y"/>
      <state_interface name="orientation.z"/><state_interface name="orientation.w"/>
      <state_interface name="angular_velocity.x"/><state_interface name="angular_velocity.y"/>
      <state_interface name="angular_velocity.z"/><state_interface name="linear_acceleration.x"/>
      <state_interface name="linear_acceleration.y"/><state_interface name="linear_acceleration.z"/>
      <param name="frame_id">imu_link</param>
    </sensor>
    <sensor name="ft_sensor">
      <state_interface name="force.x"/><state_interface name="force.y"/><state_interface name="force.z"/>
      <param name="frame_id">base_link</param>
    </sensor>
  </ros2_control>
  <gazebo reference="imu_link">
    <sensor name="imu_sensor" type="imu"><always_on>true</always_on><update_rate>200</update_rate>
      <imu><angular_velocity><x><noise type="gaussian"><mean>0</mean><stddev>0.0002</stddev></noise></x>
        <y><noise type="gaussian"><mean>0</mean><stddev>0.0002</stddev></noise></y>
        <z><noise type="gaussian"><mean>0</mean><stddev>0.0002</stddev></noise></z></angular_velocity></imu>
    </sensor>
  </gazebo>
  <gazebo reference="base_link">
    <sensor name="ft_sensor" type="force_torque"><always_on>true</always_on><update_rate>100</update_rate>
      <force_torque><frame>sensor</frame><measure_direction>parent_to_child</measure_direction></force_torque>
    </sensor>
  </gazebo>
  <gazebo reference="camera_link">
    <sensor name="front_camera" type="camera"><always_on>true</always_on><update_rate>30</update_rate>
      <camera name="front_camera"><horizontal_fov>1.2</horizontal_fov>
        <image><width>800</width><height>600</height><format>R8G8B8</format></image>
        <clip><near>0.05</near><far>50</far></clip><optical_frame_id>camera_optical_frame</optical_frame_id>
      </camera>
    </sensor>
  </gazebo>
  <gazebo reference="sonar_link">
    <sensor name="sonar" type="ray"><always_on>true</always_on><update_rate>10</update_rate>
      <pose>0 0 0 0 -1.5707963267948966 0</pose>
      <ray><scan><horizontal><samples>1</samples><resolution>1</resolution><min_angle>0</min_angle>
        <max_angle>0</max_angle></horizontal></scan><range><min>0</min><max>4</max></range></ray>
    </sensor>
  </gazebo>
  <gazebo reference="base_link">
    <sensor name="lidar" type="gpu_lidar"><update_rate>10</update_rate></sensor>
  </gazebo>
</robot>
"""


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def sensor_tags(path, digits: int = 17) -> list[str]:
    """Each Gazebo sensor tag and ros2_control sensor of a URDF, as text with numbers read as floats
    (to ``digits`` significant digits)."""
    root = ET.parse(path).getroot()
    tags = [*root.findall("gazebo"), *[s for c in root.findall("ros2_control") for s in c.findall("sensor")]]
    return sorted(_canonical(t, digits) for t in tags)


def _canonical(element, digits: int) -> str:
    text = (element.text or "").strip()
    try:
        text = format(float(text), f".{digits}g") if text else ""
    except ValueError:
        pass
    attributes = " ".join(f"{k}={v}" for k, v in sorted(element.attrib.items()))
    inner = "".join(_canonical(c, digits) for c in element)
    return f"<{element.tag} {attributes}>{text}{inner}</{element.tag}>"


def export_sensor_arm(tmp_path):
    (tmp_path / "sensor_arm.xml").write_text(SENSOR_ARM)
    scene = read_mjcf(str(tmp_path / "sensor_arm.xml")).scene
    path = tmp_path / "sensor_arm.urdf"
    return scene, path, write_urdf(scene, str(path))


def world_frame(pin_links, link):
    return np.array(pin_links[link]["pos"]), np.array(pin_links[link]["rot"])


def test_an_mjcf_robot_exports_its_sites_and_camera_as_frame_links_urdfdom_reads(tmp_path):
    scene, path, warnings = export_sensor_arm(tmp_path)
    links = pinocchio(str(path))["links"]
    assert {"imu", "wrist_ft", "range", "fingertip", "head_cam", "head_cam_optical_frame"} <= set(links)
    assert "arm_1" in links and "arm" in links  # a site named as a body gets a name of its own
    base, _ = world_frame(links, "base")
    imu_pos, imu_rot = world_frame(links, "imu")
    assert imu_pos - base == pytest.approx([0.02, 0.0, 0.03], abs=1e-9)
    assert imu_rot[:, 0] == pytest.approx([0.0, 1.0, 0.0], abs=1e-9)  # turned 90 degrees about Z
    camera = scene.camera("head_cam")
    forward = quat_rotate(camera.pose.rot, (0.0, 0.0, -1.0))  # MuJoCo's camera looks down -Z
    up = quat_rotate(camera.pose.rot, (0.0, 1.0, 0.0))
    _, body_rot = world_frame(links, "head_cam")
    _, optical_rot = world_frame(links, "head_cam_optical_frame")
    assert body_rot[:, 0] == pytest.approx(forward, abs=1e-9)  # ROS's body convention: +X forward
    assert body_rot[:, 2] == pytest.approx(up, abs=1e-9)
    assert optical_rot[:, 2] == pytest.approx(forward, abs=1e-9)  # ROS's optical frame: +Z forward
    assert optical_rot[:, 1] == pytest.approx([-c for c in up], abs=1e-9)  # +Y down
    say = next(w for w in warnings if w.startswith("URDF cannot say"))
    assert "shoulder_pos (jointpos)" in say and "lights (sun)" in say


def test_mujoco_sensors_become_gazebo_and_ros2_control_sensors(tmp_path):
    _, path, _ = export_sensor_arm(tmp_path)
    root = ET.parse(path).getroot()
    sensors = {s.get("name"): (g.get("reference"), s)
               for g in root.findall("gazebo") for s in g.findall("sensor")}
    assert {n: (ref, s.get("type")) for n, (ref, s) in sensors.items()} == {
        "imu": ("imu", "imu"), "wrist": ("wrist_ft", "force_torque"),
        "finger_touch": ("fingertip", "contact"),
        "distance": ("range", "ray"), "head_cam": ("head_cam", "camera")}
    imu = sensors["imu"][1]
    assert float(imu.findtext("update_rate")) == 500.0  # one reading per step of 0.002 s
    assert float(imu.findtext("imu/angular_velocity/y/noise/stddev")) == 0.002
    assert float(imu.findtext("imu/linear_acceleration/z/noise/stddev")) == 0.01
    assert float(sensors["wrist"][1].findtext("force_torque/torque/x/noise/stddev")) == 0.1
    assert sensors["wrist"][1].find("force_torque/force") is None  # no noise on the force
    assert sensors["finger_touch"][1].findtext("contact/collision") == "hand_collision"
    assert float(sensors["distance"][1].findtext("ray/range/max")) == 5.0
    camera = sensors["head_cam"][1]
    assert (camera.findtext("camera/image/width"), camera.findtext("camera/image/height")) == ("640", "480")
    hfov = 2.0 * math.atan(math.tan(math.radians(30.0)) * 640 / 480)
    assert float(camera.findtext("camera/horizontal_fov")) == pytest.approx(hfov, rel=1e-12)
    control = {s.get("name"): s for s in root.find("ros2_control").findall("sensor")}
    assert set(control) == {"imu", "wrist"}
    assert [i.get("name") for i in control["imu"].findall("state_interface")] == [
        f"{q}.{c}" for q, cs in (("orientation", "xyzw"), ("angular_velocity", "xyz"),
                                 ("linear_acceleration", "xyz")) for c in cs]
    assert [i.get("name") for i in control["wrist"].findall("state_interface")] == [
        "force.x", "force.y", "force.z", "torque.x", "torque.y", "torque.z"]
    assert control["imu"].findtext("param") == "imu"


def test_the_urdf_reads_back_into_the_same_sensors_sites_and_camera(tmp_path):
    scene, path, _ = export_sensor_arm(tmp_path)
    read = read_urdf(str(path)).scene
    # the frame links sensors read at are sites and a camera again; a plain site's frame link stays a link
    assert {b.name for b in read.bodies} == {"base", "arm", "hand", "arm_1"}
    assert {(s.name, s.kind, s.target, s.noise) for s in read.sensors} == {
        (s.name, s.kind, s.target, s.noise) for s in scene.sensors if s.kind != "jointpos"}
    for site in ("imu", "wrist_ft", "range", "fingertip"):
        before, after = scene.site(site), read.site(site)
        assert after.body == before.body
        assert after.pose.pos == pytest.approx(before.pose.pos, abs=1e-9)
        assert abs(np.dot(after.pose.rot, before.pose.rot)) == pytest.approx(1.0, abs=1e-9)
    before, after = scene.camera("head_cam"), read.camera("head_cam")
    assert after.body == "base" and after.resolution == (640, 480)
    assert after.fovy == pytest.approx(before.fovy, rel=1e-12)
    assert after.pose.pos == pytest.approx(before.pose.pos, abs=1e-9)
    assert abs(np.dot(after.pose.rot, before.pose.rot)) == pytest.approx(1.0, abs=1e-9)
    assert read.sensor("distance").cutoff == 5.0


def test_gazebo_and_ros2_control_tags_survive_urdf_to_articula_to_urdf(tmp_path):
    source = tmp_path / "rover.urdf"
    source.write_text(ROS_ROBOT)
    read = read_urdf(str(source))
    assert "sensors not read: lidar (gpu_lidar)" in read.warnings
    scene = read.scene
    assert [b.name for b in scene.bodies] == ["base_link"]  # the frame links are sites and a camera
    assert {(s.name, s.kind, s.target) for s in scene.sensors} == {
        ("imu_sensor_framequat", "framequat", "imu_link"), ("imu_sensor_gyro", "gyro", "imu_link"),
        ("imu_sensor_accelerometer", "accelerometer", "imu_link"), ("ft_sensor_force", "force", "base_link"),
        ("sonar", "rangefinder", "sonar_link")}
    assert scene.sensor("imu_sensor_gyro").noise == 0.0002 and scene.sensor("sonar").cutoff == 4.0
    camera = scene.camera("front_camera")
    assert camera.resolution == (800, 600) and camera.update_rate == 30.0
    assert camera.fovy == pytest.approx(2.0 * math.atan(math.tan(0.6) * 0.75))
    assert camera.body == "base_link" and camera.ros_frames == ("camera_link", "camera_optical_frame")
    # it looks along the camera link's +X (ROS's body convention): pitched down 0.3 rad about Y
    assert quat_rotate(camera.pose.rot, (0.0, 0.0, -1.0)) == pytest.approx(
        (math.cos(0.3), 0.0, -math.sin(0.3)), abs=1e-9)
    assert scene.site("imu_link").pose.pos == pytest.approx((0.1, 0.0, 0.05))
    assert scene.site("base_link").body == "base_link"  # the force-torque sensor's own link
    out = tmp_path / "out" / "rover.urdf"
    out.parent.mkdir()
    write_urdf(scene, str(out))
    expected = [t for t in sensor_tags(source) if "gpu_lidar" not in t]
    assert sensor_tags(out) == expected
    links = set(pinocchio(str(out))["links"])
    assert {"imu_link", "camera_link", "camera_optical_frame", "sonar_link"} <= links


def test_sensors_read_from_urdf_run_in_mujoco(tmp_path):
    import mujoco

    from articula.core.mjcf import write_mjcf

    source = tmp_path / "rover.urdf"
    source.write_text(ROS_ROBOT)
    write_mjcf(read_urdf(str(source)).scene, str(tmp_path / "rover.xml"))
    model = mujoco.MjModel.from_xml_path(str(tmp_path / "rover.xml"))
    names = {model.sensor(i).name: int(model.sensor_type[i]) for i in range(model.nsensor)}
    assert names["sonar"] == int(mujoco.mjtSensor.mjSENS_RANGEFINDER)
    assert names["imu_sensor_gyro"] == int(mujoco.mjtSensor.mjSENS_GYRO)
    assert model.cam_resolution[model.camera("front_camera").id].tolist() == [800, 600]


def test_an_exported_robots_tags_survive_a_second_round(tmp_path):
    _, path, _ = export_sensor_arm(tmp_path)
    again = tmp_path / "again" / "sensor_arm.urdf"
    again.parent.mkdir()
    write_urdf(read_urdf(str(path)).scene, str(again))
    assert sensor_tags(again) == sensor_tags(path)


def test_a_ros2_control_sensor_without_a_gazebo_tag_reads_at_its_frame(tmp_path):
    source = tmp_path / "rover.urdf"
    start, end = ROS_ROBOT.index("  <gazebo"), ROS_ROBOT.index("</robot>")
    source.write_text(ROS_ROBOT[:start] + ROS_ROBOT[end:])  # ros2_control alone
    scene = read_urdf(str(source)).scene
    assert {(s.name, s.kind, s.target) for s in scene.sensors} == {
        ("imu_sensor_framequat", "framequat", "imu_link"), ("imu_sensor_gyro", "gyro", "imu_link"),
        ("imu_sensor_accelerometer", "accelerometer", "imu_link"), ("ft_sensor_force", "force", "base_link")}
    assert not scene.cameras


def test_names_of_frames_never_collide_with_links_or_joints(tmp_path):
    renamed = (SENSOR_ARM.replace('<site name="wrist_ft"', '<site name="shoulder_joint"')
               .replace('site="wrist_ft"', 'site="shoulder_joint"')
               .replace('<camera name="head_cam"', '<camera name="hand"'))
    (tmp_path / "arm.xml").write_text(renamed)
    path = tmp_path / "arm.urdf"
    write_urdf(read_mjcf(str(tmp_path / "arm.xml")).scene, str(path))
    root = ET.parse(path).getroot()
    links = [link.get("name") for link in root.findall("link")]
    joints = [joint.get("name") for joint in root.findall("joint")]
    assert len(links) == len(set(links)) and len(joints) == len(set(joints))
    assert {"hand", "hand_1", "hand_1_optical_frame", "shoulder_joint"} <= set(links)
    assert "shoulder_joint_joint" in joints
    assert set(pinocchio(str(path))["links"]) >= {"hand_1", "hand_1_optical_frame", "shoulder_joint"}


def test_a_camera_without_an_image_size_gets_gazebos(tmp_path):
    (tmp_path / "arm.xml").write_text(SENSOR_ARM.replace(' resolution="640 480"', ""))
    path = tmp_path / "arm.urdf"
    write_urdf(read_mjcf(str(tmp_path / "arm.xml")).scene, str(path))
    camera = ET.parse(path).getroot().find("gazebo/sensor[@type='camera']/camera")
    assert (camera.findtext("image/width"), camera.findtext("image/height")) == ("320", "240")
    hfov = 2.0 * math.atan(math.tan(math.radians(30.0)) * 320 / 240)
    assert float(camera.findtext("horizontal_fov")) == pytest.approx(hfov, rel=1e-12)
