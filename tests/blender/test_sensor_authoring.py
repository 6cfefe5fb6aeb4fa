"""Add Sensor, Add Site and Add Robot Camera through the operators: each sensor kind reads into the
description as the right ``Sensor`` and exports to an MJCF MuJoCo compiles with it; an IMU added on a box
bakes readings on MuJoCo; a wrong active object is refused and leaves the scene as it was."""

import math
import sys
from pathlib import Path

import bpy
import mujoco
import pytest
from mathutils import Vector

from articula.addon.adapters.blender_to_description import scene_from_blender
from articula.addon.adapters.readings_to_keyframes import READINGS

sys.path.insert(0, str(Path(__file__).parent))
from authoring_helpers import snapshot_scene  # noqa: E402

ROBOT = """<mujoco model="robot">
  <option timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="box" pos="0 0 0.1">
      <freejoint name="box_free"/>
      <geom name="box_geom" type="box" size="0.1 0.1 0.1" mass="1"/>
    </body>
    <body name="arm" pos="1 0 1">
      <joint name="swing" type="hinge" axis="0 1 0"/>
      <geom name="rod" type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="0.5"/>
    </body>
  </worldbody>
  <actuator><motor name="swing_motor" joint="swing"/></actuator>
</mujoco>
"""


@pytest.fixture
def robot(clean_scene, tmp_path):
    path = tmp_path / "robot.xml"
    path.write_text(ROBOT)
    assert bpy.ops.articula.import_mjcf(filepath=str(path)) == {"FINISHED"}
    return clean_scene


def activate(*objects):
    """Select ``objects``; the first is active."""
    for obj in bpy.context.view_layer.objects:
        obj.select_set(False)
    for obj in objects:
        obj.select_set(True)
    bpy.context.view_layer.objects.active = objects[0]


def body(name):
    return next(o for o in bpy.data.objects if o.name == name and o.articula.body.enabled)


def joint(name):
    return next(o for o in bpy.data.objects if o.articula.joint.enabled and o.name.startswith(name))


def described_sensors(scene) -> dict:
    return {s.name: s for s in scene_from_blender(scene).sensors}


def exported_model(tmp_path):
    """The scene exported to MJCF, compiled by MuJoCo."""
    path = tmp_path / "out.xml"
    assert bpy.ops.articula.export_mjcf(filepath=str(path)) == {"FINISHED"}
    return mujoco.MjModel.from_xml_path(str(path))


SITE_KINDS = [("ACCELEROMETER", ["accelerometer"]), ("GYRO", ["gyro"]), ("VELOCIMETER", ["velocimeter"]),
              ("IMU", ["accelerometer", "gyro", "framequat"]), ("FORCE", ["force"]), ("TORQUE", ["torque"]),
              ("FORCE_TORQUE", ["force", "torque"]), ("TOUCH", ["touch"])]


@pytest.mark.parametrize("kind, words", SITE_KINDS)
def test_a_site_sensor_on_a_body_gets_a_site_at_its_origin_and_compiles(robot, tmp_path, kind, words):
    box = body("box")
    activate(box)
    assert bpy.ops.articula.add_sensor(kind=kind, noise=0.01) == {"FINISHED"}
    site = next(o for o in box.children if o.articula.site.enabled)
    assert (site.matrix_world.translation - box.matrix_world.translation).length < 1e-6
    sensors = described_sensors(robot)
    assert sorted(s.kind for s in sensors.values()) == sorted(words)
    assert {(s.target_kind, s.target, s.reference, round(s.noise, 6)) for s in sensors.values()} == \
        {("site", site.name, None, 0.01)}
    made = [o for o in site.children if o.articula.sensor.enabled]
    assert len(made) == len(words) and all(o.type == "EMPTY" for o in made)  # objects you can see
    model = exported_model(tmp_path)
    assert sorted(model.sensor(i).name for i in range(model.nsensor)) == sorted(sensors)
    assert {int(t) for t in model.sensor_objtype} == {int(mujoco.mjtObj.mjOBJ_SITE)}
    assert {model.site(i).name for i in model.sensor_objid} == {site.name}


def test_a_sensor_on_the_active_site_uses_it_and_a_site_can_go_at_the_cursor(robot):
    box = body("box")
    activate(box)
    robot.cursor.location = (0.05, 0.0, 0.2)
    assert bpy.ops.articula.add_site(at_cursor=True) == {"FINISHED"}
    site = next(o for o in box.children if o.articula.site.enabled)
    assert tuple(site.matrix_world.translation) == pytest.approx((0.05, 0.0, 0.2), abs=1e-6)
    activate(site)
    assert bpy.ops.articula.add_sensor(kind="GYRO") == {"FINISHED"}
    assert [o.articula.site.enabled for o in box.children].count(True) == 1  # no second site
    (sensor,) = described_sensors(robot).values()
    assert (sensor.kind, sensor.target_kind, sensor.target) == ("gyro", "site", site.name)
    (described_site,) = scene_from_blender(robot).sites
    assert described_site.body == "box"
    assert described_site.pose.pos == pytest.approx((0.05, 0.0, 0.1), abs=1e-6)


@pytest.mark.parametrize("kind, word", [("JOINT_POSITION", "jointpos"), ("JOINT_VELOCITY", "jointvel"),
                                        ("JOINT_ACTUATOR_FORCE", "jointactfrc")])
def test_a_joint_sensor_reads_the_active_joint(robot, tmp_path, kind, word):
    swing = joint("swing")
    activate(swing)
    assert bpy.ops.articula.add_sensor(kind=kind) == {"FINISHED"}
    (sensor,) = described_sensors(robot).values()
    assert (sensor.kind, sensor.target_kind, sensor.target) == (word, "joint", swing.name)
    model = exported_model(tmp_path)
    assert model.nsensor == 1 and model.sensor_objtype[0] == mujoco.mjtObj.mjOBJ_JOINT
    assert model.joint(model.sensor_objid[0]).name == "swing"


@pytest.mark.parametrize("kind, word", [("FRAME_POSITION", "framepos"), ("FRAME_ORIENTATION", "framequat"),
                                        ("FRAME_LINEAR_VELOCITY", "framelinvel"),
                                        ("FRAME_ANGULAR_VELOCITY", "frameangvel")])
def test_a_frame_sensor_reads_the_active_body_in_the_other_selected_ones_frame(robot, tmp_path, kind, word):
    box, arm = body("box"), body("arm")
    activate(box, arm)
    assert bpy.ops.articula.add_sensor(kind=kind) == {"FINISHED"}
    (sensor,) = described_sensors(robot).values()
    assert (sensor.kind, sensor.target_kind, sensor.target, sensor.reference_kind, sensor.reference) == \
        (word, "xbody", "box", "xbody", "arm")
    model = exported_model(tmp_path)
    assert model.nsensor == 1
    assert model.body(model.sensor_objid[0]).name == "box" and model.body(model.sensor_refid[0]).name == "arm"
    activate(arm)  # alone: in the world's frame
    assert bpy.ops.articula.add_sensor(kind=kind) == {"FINISHED"}
    on_arm = [s for s in described_sensors(robot).values() if s.target == "arm"]
    assert [(s.reference_kind, s.reference) for s in on_arm] == [(None, None)]


@pytest.mark.parametrize("kind", ["IMU", "JOINT_POSITION"])
def test_a_wrong_active_object_is_refused_naming_it_and_the_scene_is_unchanged(robot, kind):
    wrong = joint("swing") if kind == "IMU" else body("box")
    activate(wrong)
    before = snapshot_scene(robot)
    with pytest.raises(RuntimeError, match=wrong.name):
        bpy.ops.articula.add_sensor(kind=kind)
    assert snapshot_scene(robot) == before


@pytest.mark.parametrize("operator", ["add_site", "add_robot_camera"])
def test_site_and_camera_need_an_active_body(robot, operator):
    floor = next(o for o in bpy.data.objects if o.name == "floor")
    activate(floor)
    before = snapshot_scene(robot)
    with pytest.raises(RuntimeError, match="floor"):
        getattr(bpy.ops.articula, operator)()
    assert snapshot_scene(robot) == before


def test_a_robot_camera_looks_down_its_bodys_minus_z_and_exports(robot, tmp_path):
    arm = body("arm")
    activate(arm)
    assert bpy.ops.articula.add_robot_camera(resolution=(320, 240), fov=math.radians(60.0)) == {"FINISHED"}
    camera = next(o for o in arm.children if o.type == "CAMERA")
    assert camera.articula.camera.enabled and tuple(camera.articula.camera.resolution) == (320, 240)
    minus_z = Vector((0.0, 0.0, -1.0))
    assert (camera.matrix_world.to_3x3() @ minus_z - arm.matrix_world.to_3x3() @ minus_z).length < 1e-6
    (described,) = scene_from_blender(robot).cameras
    assert described.body == "arm" and described.fovy == pytest.approx(math.radians(60.0))
    model = exported_model(tmp_path)
    assert model.ncam == 1 and model.cam_fovy[0] == pytest.approx(60.0)
    assert model.body(model.cam_bodyid[0]).name == "arm"


def test_an_imu_added_on_a_box_bakes_readings_on_mujoco(robot):
    activate(body("box"))
    assert bpy.ops.articula.add_sensor(kind="IMU") == {"FINISHED"}
    robot.render.fps, robot.render.fps_base = 25, 1.0
    assert bpy.ops.articula.bake(frame_start=1, frame_end=6, solver="MUJOCO", substeps=20) == {"FINISHED"}
    keyed = {o[READINGS]["sensor"]: o for o in robot.objects if o.get(READINGS)}
    assert sorted(p for o in keyed.values() for p in o[READINGS]["properties"].values()) == sorted(
        [f"accelerometer.{a}" for a in "xyz"] + [f"gyro.{a}" for a in "xyz"]
        + [f"framequat.{a}" for a in "wxyz"])
    accelerometer = next(o for o in keyed.values() if "accelerometer.z" in o[READINGS]["properties"].values())
    robot.frame_set(6)
    assert accelerometer["accelerometer.z"] == pytest.approx(9.81, abs=0.5)  # the floor holds it up
