"""An MJCF robot with sites, a camera and sensors, imported into real Blender (4.5 and 5.2) and exported
as URDF: its sites and camera are frame links urdfdom reads, its sensors Gazebo and ros2_control tags."""

import xml.etree.ElementTree as ET

import bpy
import pytest

pytest.importorskip("mujoco")

from tests.core.test_urdf_sensors import SENSOR_ARM, sensor_tags  # noqa: E402
from tests.urdf_checks import pinocchio  # noqa: E402


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def test_an_imported_mjcf_robot_exports_its_frames_and_sensor_tags(clean_scene, tmp_path):
    from articula.core.mjcf import read_mjcf
    from articula.core.urdf import write_urdf

    source = tmp_path / "sensor_arm.xml"
    source.write_text(SENSOR_ARM)
    assert bpy.ops.articula.import_mjcf(filepath=str(source)) == {"FINISHED"}
    bpy.context.view_layer.objects.active = bpy.data.objects["base"]
    path = tmp_path / "sensor_arm.urdf"
    assert bpy.ops.articula.export_urdf(filepath=str(path)) == {"FINISHED"}
    links = pinocchio(str(path))["links"]
    assert {"imu", "wrist_ft", "range", "fingertip", "head_cam", "head_cam_optical_frame"} <= set(links)
    root = ET.parse(path).getroot()
    sensors = {s.get("name"): s.get("type") for g in root.findall("gazebo") for s in g.findall("sensor")}
    assert sensors == {"imu": "imu", "wrist": "force_torque", "finger_touch": "contact", "distance": "ray",
                       "head_cam": "camera"}
    direct = tmp_path / "direct" / "sensor_arm.urdf"  # the file itself, without Blender
    direct.parent.mkdir()
    write_urdf(read_mjcf(str(source)).scene, str(direct))
    assert sensor_tags(path, digits=6) == sensor_tags(direct, digits=6)  # Blender keeps float32


def export_ros_robot(tmp_path):
    from tests.core.test_urdf_sensors import ROS_ROBOT

    source = tmp_path / "rover.urdf"
    source.write_text(ROS_ROBOT)
    assert bpy.ops.articula.import_urdf(filepath=str(source)) == {"FINISHED"}
    bpy.context.view_layer.objects.active = bpy.data.objects["base_link"]
    path = tmp_path / "out" / "rover.urdf"
    path.parent.mkdir()
    assert bpy.ops.articula.export_urdf(filepath=str(path)) == {"FINISHED"}
    return source, path


def without_lidar(file) -> list[str]:
    return [t for t in sensor_tags(file, digits=6) if "gpu_lidar" not in t]


def test_a_ros_robots_sensor_tags_survive_blender(clean_scene, tmp_path):
    source, path = export_ros_robot(tmp_path)
    assert without_lidar(path) == without_lidar(source)


def test_a_ros_robots_rates_and_camera_links_are_blender_properties(clean_scene, tmp_path):
    export_ros_robot(tmp_path)
    camera = next(o.articula.camera for o in bpy.data.objects if o.type == "CAMERA")
    assert (camera.update_rate, camera.ros_link, camera.ros_optical_frame) == (
        30.0, "camera_link", "camera_optical_frame")
    rates = {o.name: o.articula.sensor.update_rate for o in bpy.data.objects if o.articula.sensor.enabled}
    assert rates["imu_sensor_gyro"] == 200.0 and rates["ft_sensor_force"] == 100.0
