"""Sensor readings while simulating (``sim.sensors``): on MuJoCo's C library they are MuJoCo's own
``sensordata`` of the original file, step for step; on Newton's Featherstone and XPBD they follow MuJoCo's
definitions from Newton's state (an IMU at rest reads gravity's reaction, one in free fall about nothing,
a force sensor the weight below it, a touch sensor whether the foot is down)."""

import os
import re

import mujoco
import numpy as np
import pytest

from articula.core.mjcf.reader import read_mjcf
from articula.core.model import JointType, Sensor
from articula.sim.sensors import SensorReader, apply_cutoff, channel_names
from articula.sim.sensors_mujoco import MuJoCoSensorReader
from articula.sim.sensors_newton import NewtonSensorReader
from articula.sim.simulation import Simulation

MUJOCO_WARP_SENSOR_TEST = os.path.join(os.path.dirname(mujoco.__file__), os.pardir, "mujoco_warp", "_src",
                                       "sensor_test.py")
G = 9.81
HAND_KG = 2.0

#: A box resting on the floor with an IMU, a ball falling from 3 m, a foot dropping onto the floor with a
#: touch sensor under its sole, a pendulum swinging from 40 degrees with a force-torque site above its hand.
RIG = f"""
<mujoco model="sensor_rig">
  <option timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="box" pos="0 0 0.1">
      <freejoint name="box_root"/>
      <geom name="box_geom" type="box" size="0.1 0.1 0.1" mass="1"/>
      <site name="imu" pos="0.02 0 0.05" euler="0 0 30"/>
      <site name="tilted_imu" pos="0 0.03 0" euler="90 0 0"/>
    </body>
    <body name="ball" pos="2 0 3">
      <freejoint name="ball_root"/>
      <geom name="ball_geom" type="sphere" size="0.1" mass="1"/>
      <site name="ball_imu"/>
    </body>
    <body name="foot" pos="-2 0 0.15">
      <joint name="foot_slide" type="slide" axis="0 0 1"/>
      <geom name="foot_geom" type="box" size="0.05 0.05 0.05" mass="1"/>
      <site name="sole" type="box" size="0.06 0.06 0.02" pos="0 0 -0.05"/>
    </body>
    <body name="base" pos="0 2 1">
      <geom name="base_geom" type="box" size="0.05 0.05 0.05" mass="1" contype="0" conaffinity="0"/>
      <body name="arm" pos="0 0 -0.1" euler="0 40 0">
        <joint name="hinge" type="hinge" axis="0 1 0" damping="0.05"/>
        <geom name="arm_geom" type="capsule" fromto="0 0 0 0 0 -0.3" size="0.02" mass="0.5"
              contype="0" conaffinity="0"/>
        <body name="hand" pos="0 0 -0.35">
          <geom name="hand_geom" type="sphere" size="0.05" mass="{HAND_KG}" contype="0" conaffinity="0"/>
          <site name="wrist" pos="0 0 0.03"/>
        </body>
      </body>
    </body>
  </worldbody>
  <sensor>
    <accelerometer name="box_acc" site="imu"/>
    <gyro name="box_gyro" site="imu"/>
    <accelerometer name="tilted_acc" site="tilted_imu"/>
    <velocimeter name="box_vel" site="imu"/>
    <accelerometer name="ball_acc" site="ball_imu"/>
    <framelinvel name="ball_linvel" objtype="site" objname="ball_imu"/>
    <framelinacc name="ball_linacc" objtype="body" objname="ball"/>
    <framelinacc name="box_linacc" objtype="site" objname="imu"/>
    <frameangacc name="box_angacc" objtype="xbody" objname="box"/>
    <touch name="ball_touch" site="ball_imu"/>
    <touch name="box_touch" site="imu"/>
    <touch name="sole_touch" site="sole" cutoff="5"/>
    <force name="wrist_force" site="wrist"/>
    <torque name="wrist_torque" site="wrist"/>
    <jointpos name="hinge_pos" joint="hinge"/>
    <jointvel name="hinge_vel" joint="hinge"/>
    <framepos name="hand_in_wrist" objtype="body" objname="hand" reftype="site" refname="wrist"/>
    <framequat name="arm_quat" objtype="xbody" objname="arm"/>
    <frameangvel name="arm_spin" objtype="xbody" objname="arm" reftype="xbody" refname="base"/>
    <framelinvel name="hand_in_base" objtype="site" objname="wrist" reftype="xbody" refname="base"/>
    <subtreecom name="arm_com" body="arm"/>
    <rangefinder name="ball_range" site="ball_imu"/>
  </sensor>
</mujoco>
"""


@pytest.fixture(scope="module")
def rig_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("sensors") / "rig.xml"
    path.write_text(RIG)
    return str(path)


@pytest.fixture(scope="module")
def rig(rig_file):
    return read_mjcf(rig_file).scene


def values(reading: dict) -> np.ndarray:
    return np.array(list(reading.values()))


def mujoco_reading(model, data, name: str) -> np.ndarray:
    sensor = model.sensor(name)
    return data.sensordata[sensor.adr[0]:sensor.adr[0] + sensor.dim[0]]


# --- channels and cutoff -------------------------------------------------------------------------

def test_channels_are_named_by_kind():
    assert channel_names(Sensor("a", "accelerometer")) == ("x", "y", "z")
    assert channel_names(Sensor("q", "framequat")) == ("w", "x", "y", "z")
    assert channel_names(Sensor("t", "touch")) == ("value",)
    assert channel_names(Sensor("c", "contact", settings={"data": "found force", "num": "2"})) == \
        ("0_found", "0_force_x", "0_force_y", "0_force_z", "1_found", "1_force_x", "1_force_y", "1_force_z")
    assert channel_names(Sensor("u", "user", settings={"dim": "2"})) == ("0", "1")


def test_cutoff_clamps_as_mujoco_does():
    assert list(apply_cutoff(Sensor("f", "force", cutoff=5), np.array([-9.0, 2.0, 7.0]))) == [-5.0, 2.0, 5.0]
    assert list(apply_cutoff(Sensor("t", "touch", cutoff=5), np.array([7.0]))) == [5.0]
    quat = np.array([0.5, 0.5, 0.5, 0.5])
    assert list(apply_cutoff(Sensor("q", "framequat", cutoff=0.1), quat)) == list(quat)


# --- MuJoCo's C library: MuJoCo's own sensordata -------------------------------------------------

def test_mujoco_readings_equal_mujoco_running_the_file_at_every_step(rig, rig_file):
    sim = Simulation(rig, device="cpu", solver="MUJOCO")
    reader = SensorReader.of(sim)
    assert isinstance(reader, MuJoCoSensorReader)
    assert reader.unavailable == {}
    model = mujoco.MjModel.from_xml_path(rig_file)
    data = mujoco.MjData(model)
    exported = mujoco.MjData(sim.mj_model)  # the export MuJoCo compiled, stepped on its own
    landed = False
    for _ in range(500):
        sim.step()
        mujoco.mj_step(model, data)
        mujoco.mj_step(sim.mj_model, exported)
        readings = reader.read()
        assert set(readings) == {s.name for s in rig.sensors}
        for name, reading in readings.items():
            assert list(reading.values()) == list(mujoco_reading(sim.mj_model, exported, name)), name
            # the original file: equal to the export's written precision (6 digits)
            np.testing.assert_allclose(values(reading), mujoco_reading(model, data, name), atol=1e-4,
                                       err_msg=name)
        landed = landed or readings["sole_touch"]["value"] > 0
    assert landed  # the comparison saw the foot's touch sensor on
    assert readings["sole_touch"]["value"] == 5.0  # clamped by its cutoff, as MuJoCo clamps


def test_mujoco_readings_before_the_first_step_are_the_start_state(rig, rig_file):
    sim = Simulation(rig, device="cpu", solver="MUJOCO")
    readings = SensorReader.of(sim).read()
    model = mujoco.MjModel.from_xml_path(rig_file)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    for name, reading in readings.items():
        np.testing.assert_allclose(values(reading), mujoco_reading(model, data, name), atol=1e-4,
                                   err_msg=name)
    assert readings["wrist_force"]["z"] > 0.5 * HAND_KG * G  # held at 40 degrees: about the weight
    assert not sim.steps and not sim.mj_data.sensordata.any()  # reading stepped nothing


def test_mujoco_readings_per_replica(rig):
    import dataclasses

    scene = dataclasses.replace(rig, settings=dataclasses.replace(rig.settings, replicas=2,
                                                                  replica_spacing=10.0))
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    reader = SensorReader.of(sim)
    sim.advance(0.1)
    first, second = reader.read(0), reader.read(1)
    assert first["hinge_pos"] == second["hinge_pos"]
    assert second["arm_com"]["x"] - first["arm_com"]["x"] == pytest.approx(sim.offsets[1][0])


def mujoco_warp_sensor_model(folder, more_sensors: str = "") -> str:
    """MuJoCo Warp's own sensor test model (141 sensors of every kind on every object kind, a keyframe
    in motion), without its joint and tendon limit margins, which the description does not carry."""
    text = open(MUJOCO_WARP_SENSOR_TEST).read()
    xml = re.search(r'def test_sensor\(self\):.*?xml="""(.*?)"""', text, re.S).group(1)
    xml = xml.replace("</sensor>", more_sensors + "</sensor>")
    path = folder / "mujoco_warp_sensors.xml"
    path.write_text(re.sub(r' margin="[^"]*"', "", xml))
    return str(path)


def test_mujoco_warp_sensor_model_reads_as_mujoco_runs_it(tmp_path):
    path = mujoco_warp_sensor_model(tmp_path)
    scene = read_mjcf(path).scene
    sim = Simulation(scene, device="cpu", solver="MUJOCO", keyframe=scene.keyframes[0].name)
    reader = SensorReader.of(sim)
    assert reader.unavailable == {}
    model = mujoco.MjModel.from_xml_path(path)
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, 0)
    assert len(scene.sensors) == model.nsensor == 141
    for _ in range(50):
        sim.step()
        mujoco.mj_step(model, data)
        readings = reader.read()
        for index, sensor in enumerate(scene.sensors):
            start, dim = model.sensor_adr[index], model.sensor_dim[index]
            assert len(reader.channel_names(sensor.name)) == dim
            np.testing.assert_allclose(values(readings[sensor.name]), data.sensordata[start:start + dim],
                                       rtol=1e-4, atol=1e-4, err_msg=f"{sensor.name}: {sensor.kind}")


# --- Newton: Featherstone and XPBD ---------------------------------------------------------------

@pytest.fixture(scope="module")
def featherstone(rig):
    """The rig on Featherstone: its readings at the start, at about 0.5 s (the ball falling, the foot down)
    and at about 1.3 s (the box settled)."""
    sim = Simulation(rig, device="cpu", solver="FEATHERSTONE")
    reader = SensorReader.of(sim)
    first = reader.read()
    for _ in range(30):
        sim.advance(1 / 60)
        reader.read()  # one reading a frame, as a bake takes them
    in_air = reader.read()
    in_air["time"] = sim.time
    for _ in range(54):
        sim.advance(1 / 60)
        reader.read()
    return reader, first, in_air, reader.read()


def test_featherstone_frames_and_velocities_read_as_mujoco_reads_the_same_state(tmp_path):
    """MuJoCo Warp's sensor model at its start pose, its hinges and slides turning: every sensor Newton's
    state gives reads what MuJoCo reads in that state; every other one says why it has no reading."""
    turning = '<subtreelinvel body="body8"/><subtreeangmom body="body8"/><subtreeangmom body="body3"/>'
    path = mujoco_warp_sensor_model(tmp_path, turning)
    scene = read_mjcf(path).scene
    sim = Simulation(scene, device="cpu", solver="FEATHERSTONE")
    reader = SensorReader.of(sim)
    model = mujoco.MjModel.from_xml_path(path)
    data = mujoco.MjData(model)
    speeds = {}
    for joint in scene.joints:
        body = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, joint.body1)
        if joint.type in (JointType.REVOLUTE, JointType.PRISMATIC) and body >= 0:
            speed = 0.3 + 0.1 * len(speeds)
            speeds[(joint.name, joint.dofs[0].axis.value)] = speed
            data.qvel[model.jnt_dofadr[model.body_jntadr[body]]] = speed
    assert len(speeds) == 4  # slide, hinge0 and the two hinges body9 turns on
    sim.set_joint_velocities(speeds)
    mujoco.mj_forward(model, data)
    readings = reader.read()
    waiting = {s.name for s in scene.sensors if s.name not in readings and s.name not in reader.unavailable}
    assert {s.kind for s in scene.sensors if s.name in waiting} == \
        {"accelerometer", "force", "torque", "framelinacc", "frameangacc"}
    kinds = {sensor.kind for sensor in scene.sensors if sensor.name in readings}
    assert {"framepos", "framequat", "framexaxis", "framelinvel", "frameangvel", "velocimeter", "gyro",
            "jointpos", "jointvel", "subtreecom", "subtreelinvel", "subtreeangmom", "clock"} <= kinds
    for index, sensor in enumerate(scene.sensors):
        if sensor.name in readings:
            start, dim = model.sensor_adr[index], model.sensor_dim[index]
            np.testing.assert_allclose(values(readings[sensor.name]), data.sensordata[start:start + dim],
                                       atol=1e-5, err_msg=f"{sensor.name}: {sensor.kind}")
        elif sensor.name not in waiting:  # accelerations and wrenches: from the first step on
            assert sensor.kind in reader.unavailable[sensor.name]


def test_featherstone_reader_says_what_it_cannot_read(featherstone):
    reader, first, _, _ = featherstone
    assert isinstance(reader, NewtonSensorReader)
    assert set(reader.unavailable) == {"ball_range"}
    assert "rangefinder" in reader.unavailable["ball_range"]
    assert "ball_range" not in first
    assert "box_acc" not in first  # no change of velocity seen before the first step: no reading


def test_featherstone_imu_at_rest_reads_gravity_reaction(featherstone):
    *_, settled = featherstone
    np.testing.assert_allclose(values(settled["box_acc"]), [0.0, 0.0, G], atol=0.05)
    np.testing.assert_allclose(values(settled["box_gyro"]), 0.0, atol=1e-3)
    np.testing.assert_allclose(values(settled["box_linacc"]), [0.0, 0.0, G], atol=0.05)  # world frame
    np.testing.assert_allclose(values(settled["box_angacc"]), 0.0, atol=0.05)
    np.testing.assert_allclose(values(settled["tilted_acc"]), [0.0, G, 0.0], atol=0.05)  # up is its +y


def test_featherstone_imu_in_free_fall_reads_about_nothing(featherstone):
    _, _, in_air, _ = featherstone
    np.testing.assert_allclose(values(in_air["ball_acc"]), 0.0, atol=1e-3)
    np.testing.assert_allclose(values(in_air["ball_linacc"]), 0.0, atol=1e-3)
    assert in_air["ball_linvel"]["z"] == pytest.approx(-G * in_air["time"], rel=1e-3)


def test_featherstone_force_at_a_fixed_joint_is_the_weight_below(featherstone, hanging_rig):
    _, first, in_air, _ = featherstone
    assert "wrist_force" not in first  # no step has computed a wrench yet
    assert np.linalg.norm(values(in_air["wrist_force"])) > 0.5 * HAND_KG * G  # swinging: changing frame
    sim = Simulation(hanging_rig, device="cpu", solver="FEATHERSTONE")
    reader = SensorReader.of(sim)
    sim.advance(1 / 60)
    hanging = reader.read()
    np.testing.assert_allclose(values(hanging["wrist_force"]), [0.0, 0.0, HAND_KG * G], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(values(hanging["wrist_torque"]), 0.0, atol=1e-4)
    sim.reset()
    assert "wrist_force" not in reader.read() and "box_acc" not in reader.read()  # back at the start
    sim.advance(1 / 60)
    assert reader.read()["wrist_force"]["z"] == pytest.approx(HAND_KG * G, rel=1e-4)


@pytest.fixture(scope="module")
def hanging_rig(tmp_path_factory):
    """The rig with the pendulum hanging straight down (its hinge at rest)."""
    path = tmp_path_factory.mktemp("hanging") / "rig.xml"
    path.write_text(RIG.replace('euler="0 40 0"', ""))
    return read_mjcf(str(path)).scene


def test_featherstone_touch_is_on_when_the_foot_is_down(featherstone):
    _, first, in_air, settled = featherstone
    assert first["ball_touch"]["value"] == 0.0 and in_air["ball_touch"]["value"] == 0.0
    assert first["sole_touch"]["value"] == 0.0  # the foot starts 10 cm up
    assert in_air["sole_touch"]["value"] == 1.0 and settled["sole_touch"]["value"] == 1.0
    assert settled["box_touch"]["value"] == 1.0
    assert "force" in featherstone[0].notes["sole_touch"]  # a flag, said so, not MuJoCo's newtons


def assert_joint_and_frame_readings(settled: dict, sim) -> None:
    """The rig's joint sensors read the simulation's joint; its frame sensors read the turned arm."""
    assert settled["hinge_pos"]["value"] == pytest.approx(sim.joint_positions()[("hinge", "rotY")], abs=1e-6)
    np.testing.assert_allclose(values(settled["hand_in_wrist"]), [0.0, 0.0, -0.03], atol=1e-5)
    angle = np.radians(40) + settled["hinge_pos"]["value"]  # the arm's turn about y in the world
    np.testing.assert_allclose(values(settled["arm_quat"]), [np.cos(angle / 2), 0, np.sin(angle / 2), 0],
                               atol=1e-4)
    np.testing.assert_allclose(values(settled["arm_spin"]), [0.0, settled["hinge_vel"]["value"], 0.0],
                               atol=1e-4)


def test_featherstone_joint_and_frame_sensors(featherstone):
    reader, *_, settled = featherstone
    assert_joint_and_frame_readings(settled, reader.sim)


def test_xpbd_imu_and_force_read_from_its_state(hanging_rig):
    sim = Simulation(hanging_rig, device="cpu", solver="XPBD")
    reader = SensorReader.of(sim)
    for _ in range(20):
        sim.advance(1 / 60)
        readings = reader.read()
    assert readings["wrist_force"]["z"] == pytest.approx(HAND_KG * G, rel=0.05)
    assert readings["box_acc"]["z"] == pytest.approx(G, abs=0.5)


def test_mujoco_through_newton_reads_from_newtons_state(hanging_rig):
    """MuJoCo stepping Newton's own model of the robot (not the MJCF export): Newton's state is read, and
    MuJoCo's contacts in Newton's form."""
    sim = Simulation(hanging_rig, device="cpu", solver="MUJOCO", mujoco_direct=False)
    reader = SensorReader.of(sim)
    assert isinstance(reader, NewtonSensorReader)
    assert reader.read()["sole_touch"]["value"] == 0.0  # the foot starts 10 cm up
    for _ in range(15):
        sim.advance(1 / 60)
        readings = reader.read()
    assert readings["sole_touch"]["value"] == 1.0 and readings["box_touch"]["value"] == 1.0
    assert readings["ball_touch"]["value"] == 0.0  # still falling
    assert readings["wrist_force"]["z"] == pytest.approx(HAND_KG * G, rel=1e-4)
    np.testing.assert_allclose(values(readings["box_acc"]), [0.0, 0.0, G], atol=0.01)


def test_featherstone_readings_per_replica(hanging_rig):
    import dataclasses

    settings = dataclasses.replace(hanging_rig.settings, replicas=2, replica_spacing=10.0)
    sim = Simulation(dataclasses.replace(hanging_rig, settings=settings), device="cpu", solver="FEATHERSTONE")
    reader = SensorReader.of(sim)
    sim.advance(1 / 60)
    first, second = reader.read(0), reader.read(1)
    offset = np.asarray(sim.built.replica_offsets[1])
    assert np.linalg.norm(offset) > 1.0
    np.testing.assert_allclose(values(second["arm_com"]) - values(first["arm_com"]), offset, atol=1e-5)
    np.testing.assert_allclose(values(second["wrist_force"]), values(first["wrist_force"]), atol=1e-4)
    assert second["wrist_force"]["z"] == pytest.approx(HAND_KG * G, rel=1e-4)


def described_scene():
    """A description made without a file (as Blender's objects make it): a box resting on the ground with
    an IMU site, a ball falling beside it with an IMU and a clamped position sensor."""
    from articula.core.model import (Body, MassProperties, PhysicsScene, Pose, SceneSettings, Shape,
                                     ShapeKind, Site)

    scene = PhysicsScene(name="described", settings=SceneSettings(ground_plane=True))
    one_kg = MassProperties(1.0, diagonal_inertia=(0.01,) * 3)
    scene.bodies += [Body("crate", Pose((0.0, 0.0, 0.1)), mass=one_kg), Body("ball", Pose((2.0, 0.0, 3.0)),
                                                                            mass=one_kg)]
    scene.shapes += [Shape("crate_box", ShapeKind.BOX, "crate", half_extents=(0.1, 0.1, 0.1)),
                     Shape("ball_sphere", ShapeKind.SPHERE, "ball", radius=0.1)]
    scene.sites += [Site("crate_imu", "crate", Pose((0.0, 0.0, 0.1))), Site("ball_imu", "ball")]
    scene.sensors += [Sensor("crate_acc", "accelerometer", "crate_imu", "site"),
                      Sensor("ball_acc", "accelerometer", "ball_imu", "site"),
                      Sensor("ball_height", "framepos", "ball_imu", "site", cutoff=1.5)]
    return scene


@pytest.mark.parametrize("solver", ["MUJOCO", "FEATHERSTONE"])
def test_a_described_scene_reads_alike_on_mujoco_and_featherstone(solver):
    sim = Simulation(described_scene(), device="cpu", solver=solver)
    reader = SensorReader.of(sim)
    assert reader.unavailable == {}
    for _ in range(30):
        sim.advance(1 / 60)
        readings = reader.read()
    np.testing.assert_allclose(values(readings["crate_acc"]), [0.0, 0.0, G], atol=0.1)
    np.testing.assert_allclose(values(readings["ball_acc"]), 0.0, atol=1e-3)
    assert 3.0 - 0.5 * G * sim.time ** 2 > 1.6  # at x 2 m and still above 1.5 m: both clamped
    assert values(readings["ball_height"]) == pytest.approx([1.5, 0.0, 1.5], abs=1e-6)
