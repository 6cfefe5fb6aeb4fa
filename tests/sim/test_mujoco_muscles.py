"""A MuJoCo robot's muscle, a joint coupled by a polynomial and a tendon's armature simulate as MuJoCo
simulates the file: MuJoCo's C library steps the MJCF export of the description read from it."""

import dataclasses

import mujoco
import numpy as np
import pytest

from articula.sim.simulation import Simulation

#: A slider on a spring pulled by a muscle along a spatial tendon (with armature) toward a fixed site, and
#: a lever whose follower turns as a 4th-degree polynomial of it.
MUSCLE_ROBOT = """
<mujoco model="musclebot">
  <option timestep="0.002" gravity="0 0 0"/>
  <worldbody>
    <site name="anchor" pos="1 0 0"/>
    <body name="slider">
      <joint name="slide" type="slide" axis="1 0 0" damping="2" stiffness="60" group="3"/>
      <geom type="sphere" size=".1" mass="1" contype="0" conaffinity="0"/>
      <site name="pin"/>
    </body>
    <body name="lever" pos="0 1 0">
      <joint name="lead" type="hinge" axis="0 0 1" damping="0.2"/>
      <geom type="capsule" fromto="0 0 0 .3 0 0" size=".02" mass=".2" contype="0" conaffinity="0"/>
    </body>
    <body name="follower" pos="0 2 0">
      <joint name="follow" type="hinge" axis="0 0 1"/>
      <geom type="capsule" fromto="0 0 0 .3 0 0" size=".02" mass=".2" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <tendon>
    <spatial name="cord" armature="0.3">
      <site site="pin"/>
      <site site="anchor"/>
    </spatial>
  </tendon>
  <equality>
    <joint joint1="follow" joint2="lead" polycoef="0 0.5 1.5 -0.8 0.3"/>
  </equality>
  <actuator>
    <muscle name="pull" tendon="cord" lengthrange="0.4 1.2"/>
    <motor name="turn" joint="lead"/>
  </actuator>
</mujoco>
"""
SECONDS = 1.0
CONTROLS = {"pull": 0.7, "turn": 0.05}
JOINTS = (("slide", "transX"), ("lead", "rotZ"), ("follow", "rotZ"))


@pytest.fixture
def robot(mjcf_text):
    return mjcf_text(MUSCLE_ROBOT, "musclebot.xml")


def _mujoco_run(path: str) -> np.ndarray:
    model = mujoco.MjModel.from_xml_path(path)
    data = mujoco.MjData(model)
    for name, value in CONTROLS.items():
        data.ctrl[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_ACTUATOR, name)] = value
    mujoco.mj_step(model, data, int(SECONDS / model.opt.timestep))
    return data.qpos.copy()


def _simulated(scene) -> np.ndarray:
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    sim.set_controls(CONTROLS)
    for _ in range(int(SECONDS / sim.dt)):
        sim.step()
    q = sim.joint_positions()
    return np.array([q[key] for key in JOINTS])


def test_the_description_holds_the_muscle_the_polynomial_and_the_armature(robot):
    scene, _ = robot
    muscle = scene.frame_actuators[0]
    assert (muscle.name, muscle.target_kind, muscle.target) == ("pull", "tendon", "cord")
    assert (muscle.gain_type, muscle.bias_type, muscle.dyn_type) == ("muscle", "muscle", "muscle")
    assert muscle.length_range == pytest.approx((0.4, 1.2))
    assert muscle.gain == muscle.bias and muscle.dyn_params == pytest.approx((0.01, 0.04))
    assert scene.spatial_tendons[0].armature == pytest.approx(0.3)
    mimic = scene.joint("follow").mimic
    assert (mimic.leader, mimic.gear, mimic.higher_terms) == ("lead", 0.5, pytest.approx((1.5, -0.8, 0.3)))
    assert scene.joint("slide").dofs[0].group == 3


def test_mujoco_moves_the_robot_as_the_file(robot):
    scene, path = robot
    ours = _simulated(scene)
    np.testing.assert_allclose(ours, _mujoco_run(path), atol=1e-5)  # the export's 6 digits
    assert ours[0] > 0.5  # the muscle pulled the slider toward the anchor against its spring


def test_each_part_matters(robot):
    """The comparison above can fail: another length range, a linear coupling or no armature move it
    elsewhere."""
    scene, _ = robot
    ours = _simulated(scene)
    muscle = scene.frame_actuators[0]
    scene.frame_actuators[0] = dataclasses.replace(muscle, length_range=(0.2, 1.0))
    assert abs(_simulated(scene)[0] - ours[0]) > 0.01
    scene.frame_actuators[0] = muscle
    scene.joint("follow").mimic.higher_terms = ()
    assert abs(_simulated(scene)[2] - ours[2]) > 1e-3
    scene.joint("follow").mimic.higher_terms = (1.5, -0.8, 0.3)
    scene.spatial_tendons[0].armature = 0.0
    assert abs(_simulated(scene)[0] - ours[0]) > 1e-3


def test_a_slider_crank_turns_its_crank_as_mujoco_turns_the_file(mjcf_text):
    """MuJoCo Warp's slider-crank, driven: MuJoCo on the CPU steps the export as MuJoCo steps the file."""
    import glob
    import os

    found = glob.glob(os.path.join(os.path.dirname(mujoco.__file__), os.pardir, "mujoco_warp", "test_data",
                                   "actuation", "slidercrank.xml"))
    if not found:
        pytest.skip("MuJoCo Warp's test_data is not installed")
    with open(found[0]) as file:
        scene, path = mjcf_text(file.read(), "slidercrank.xml")
    model = mujoco.MjModel.from_xml_path(path)
    data = mujoco.MjData(model)
    data.ctrl[0] = 0.5
    mujoco.mj_step(model, data, int(SECONDS / model.opt.timestep))
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    sim.set_controls({scene.frame_actuators[0].name: 0.5})
    for _ in range(int(SECONDS / sim.dt)):
        sim.step()
    crank = next(j.name for j in scene.joints if j.name != "unactuated")
    ours = sim.joint_positions()[(crank, "rotZ")]
    assert ours == pytest.approx(data.qpos[0], abs=1e-5) and abs(ours) > 0.1


JOINT_MUSCLE = """
<mujoco model="arm">
  <worldbody>
    <body name="upper" pos="0 0 1">
      <joint name="elbow" type="hinge" axis="0 1 0" range="-1 1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      <body name="fore" pos="0.3 0 0">
        <joint name="wrist" type="hinge" axis="0 1 0" range="-1 1"/>
        <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="both" armature="0.25">
      <joint joint="elbow" coef="1"/><joint joint="wrist" coef="0.5"/>
    </fixed>
  </tendon>
  <actuator>
    <muscle name="flexor" joint="elbow" lengthrange="-0.8 0.9"/>
  </actuator>
</mujoco>
"""


def test_newtons_mujoco_conversion_gets_the_length_range_and_the_tendon_armature(mjcf_text):
    """MuJoCo Warp's path (Newton's conversion, checked on its CPU twin): the muscle's length range and
    the fixed tendon's armature as the file's."""
    import newton

    from articula.core.model import Solver
    from articula.sim.builder import build_model

    scene, path = mjcf_text(JOINT_MUSCLE, "arm.xml")
    model = build_model(scene, Solver.MUJOCO).model
    converted = newton.solvers.SolverMuJoCo(model, use_mujoco_cpu=True).mj_model
    original = mujoco.MjModel.from_xml_path(path)
    np.testing.assert_allclose(converted.actuator_lengthrange[0], original.actuator_lengthrange[0], rtol=1e-6)
    assert converted.actuator_gaintype[0] == original.actuator_gaintype[0] == mujoco.mjtGain.mjGAIN_MUSCLE
    assert converted.tendon_armature[0] == pytest.approx(0.25)
