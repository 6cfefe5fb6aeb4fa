"""A joint with MuJoCo's ``ref`` simulates in the file's coordinate on every solver: on MuJoCo's C library a
position servo holds the file's ctrl angle and the jointpos sensor reads what MuJoCo reads running the
original file; Newton's Featherstone (whose zero is the authored pose) starts at ``ref`` and holds the same
angle."""

import mujoco
import numpy as np
import pytest

from articula.sim.sensors import SensorReader
from articula.sim.simulation import Simulation

CTRL = 0.9  # the servo's target angle, in the file's coordinate (ref 0.4)

#: No gravity: the servo holds its ctrl exactly once settled. The slide's limits hold it near its ref.
REF_ROBOT = f"""
<mujoco model="refbot">
  <compiler angle="radian"/>
  <option timestep="0.002" gravity="0 0 0"/>
  <worldbody>
    <body name="base">
      <geom type="box" size="0.1 0.1 0.1" mass="1" contype="0" conaffinity="0"/>
      <body name="arm" pos="0 0 0.3">
        <joint name="hinge" type="hinge" axis="0 1 0" ref="0.4" range="-0.5 1.2" damping="0.2"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="0.5" contype="0" conaffinity="0"/>
        <body name="slider" pos="0.3 0 0">
          <joint name="slide" type="slide" axis="1 0 0" ref="0.05" range="-0.1 0.2" damping="5"/>
          <geom type="box" size="0.03 0.03 0.03" mass="0.2" contype="0" conaffinity="0"/>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <position name="servo" joint="hinge" kp="20" kv="1" ctrlrange="-0.5 1.2"/>
  </actuator>
  <sensor>
    <jointpos name="hinge_pos" joint="hinge"/>
    <jointpos name="slide_pos" joint="slide"/>
  </sensor>
</mujoco>
"""
SECONDS = 2.0


@pytest.fixture
def robot(mjcf_text):
    scene, path = mjcf_text(REF_ROBOT, "refbot.xml")
    (servo,) = scene.joint("hinge").dofs[0].actuators
    servo.control = CTRL  # the robot starts with the servo at its target
    return scene, path


def _mujoco_on_the_file(path: str):
    model = mujoco.MjModel.from_xml_path(path)
    data = mujoco.MjData(model)
    data.ctrl[0] = CTRL
    return model, data


def test_mujoco_servo_holds_the_files_ctrl_and_jointpos_reads_as_mujoco(robot):
    scene, path = robot
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    reader = SensorReader.of(sim)
    start = reader.read()
    assert (start["hinge_pos"]["value"], start["slide_pos"]["value"]) == pytest.approx((0.4, 0.05))
    model, data = _mujoco_on_the_file(path)
    for _ in range(int(SECONDS / model.opt.timestep)):
        sim.step()
        mujoco.mj_step(model, data)
    readings = reader.read()
    ours = [readings["hinge_pos"]["value"], readings["slide_pos"]["value"]]
    np.testing.assert_allclose(ours, data.sensordata, atol=1e-5)  # the export's 6 digits
    assert ours[0] == pytest.approx(CTRL, abs=1e-3)
    assert sim.joint_positions()[("hinge", "rotY")] == pytest.approx(ours[0])


def test_featherstone_starts_at_the_reference_and_holds_the_same_angle(robot):
    scene, path = robot
    sim = Simulation(scene, device="cpu", solver="FEATHERSTONE")
    reader = SensorReader.of(sim)
    start = reader.read()
    assert (start["hinge_pos"]["value"], start["slide_pos"]["value"]) == pytest.approx((0.4, 0.05), abs=1e-6)
    for _ in range(int(SECONDS * 24)):
        sim.advance(1.0 / 24)
    held = reader.read()["hinge_pos"]["value"]
    assert held == pytest.approx(CTRL, abs=5e-3)
    model, data = _mujoco_on_the_file(path)
    for _ in range(int(SECONDS / model.opt.timestep)):
        mujoco.mj_step(model, data)
    assert held == pytest.approx(float(data.sensordata[0]), abs=5e-3)  # MuJoCo's angle of the file


@pytest.mark.parametrize("solver", ["MUJOCO", "FEATHERSTONE"])
def test_a_control_set_while_running_is_the_files_angle(robot, solver):
    """Newton's targets count from the authored pose: a ctrl set at run time is shifted by the
    reference as the start's is, and joint_positions reads the file's coordinate back."""
    scene, _ = robot
    sim = Simulation(scene, device="cpu", solver=solver)
    sim.set_controls({"servo": 0.6})
    for _ in range(int(SECONDS * 24)):
        sim.advance(1.0 / 24)
    assert sim.joint_positions()[("hinge", "rotY")] == pytest.approx(0.6, abs=5e-3)
