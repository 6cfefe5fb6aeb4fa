"""A MuJoCo robot's soft joint limits (``solreflimit``/``solimplimit``) and its spring's rest (``springref``)
simulate as MuJoCo simulates the file: on MuJoCo's C library (the MJCF export), in Newton's conversion for
MuJoCo Warp, and, for the spring, on Featherstone."""

import dataclasses

import mujoco
import numpy as np
import pytest

from articula.core.model import DEFAULT_SOLIMP, DEFAULT_SOLREF, Solver
from articula.sim.builder import build_model
from articula.sim.simulation import Simulation

SPRING_REST = 0.5  # rad, the file's coordinate (its ref is 0.2)

#: An arm swinging down into a soft, underdamped stop (its upper limit, 1 rad, lets it sink and bounce), and a
#: weightless wheel on a spring whose rest is not the joint's zero.
SOFT_ROBOT = f"""
<mujoco model="softbot">
  <compiler angle="radian"/>
  <option timestep="0.002"/>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="swing" type="hinge" axis="0 1 0" range="-0.3 1.0" solreflimit="0.08 0.2"
             solimplimit="0.2 0.9 0.05"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03" mass="0.5" contype="0" conaffinity="0"/>
    </body>
    <body name="wheel" pos="1 0 1">
      <joint name="spin" type="hinge" axis="0 0 1" ref="0.2" stiffness="2" springref="{SPRING_REST}"
             damping="0.3"/>
      <geom type="cylinder" size="0.1 0.02" mass="0.3" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
</mujoco>
"""
SECONDS = 1.0


@pytest.fixture
def robot(mjcf_text):
    return mjcf_text(SOFT_ROBOT, "softbot.xml")


def _mujoco_run(path: str) -> np.ndarray:
    model = mujoco.MjModel.from_xml_path(path)
    data = mujoco.MjData(model)
    mujoco.mj_step(model, data, int(SECONDS / model.opt.timestep))
    return data.qpos.copy()


def _simulated(scene) -> np.ndarray:
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    for _ in range(int(SECONDS / sim.dt)):
        sim.step()
    q = sim.joint_positions()
    return np.array([q[("swing", "rotY")], q[("spin", "rotZ")]])


def test_the_description_holds_the_files_limit_and_spring(robot):
    scene, _ = robot
    swing, spin = scene.joint("swing").dofs[0], scene.joint("spin").dofs[0]
    assert swing.limit_solref == pytest.approx((0.08, 0.2))
    assert swing.limit_solimp == pytest.approx((0.2, 0.9, 0.05, 0.5, 2.0))
    assert spin.spring_reference == pytest.approx(SPRING_REST)


def test_mujoco_simulates_the_soft_stop_and_the_spring_as_the_file(robot):
    scene, path = robot
    ours = _simulated(scene)
    np.testing.assert_allclose(ours, _mujoco_run(path), atol=1e-5)  # the export's 6 digits
    assert ours[0] > 1.0  # sunk into the soft stop
    hard = dataclasses.replace(scene.joint("swing").dofs[0], limit_solref=DEFAULT_SOLREF,
                               limit_solimp=DEFAULT_SOLIMP)
    scene.joint("swing").dofs[0] = hard
    assert abs(_simulated(scene)[0] - ours[0]) > 0.01  # MuJoCo's default stop: elsewhere after 1 s


def test_newtons_mujoco_conversion_carries_them(robot):
    """What MuJoCo Warp steps on a GPU: Newton's conversion of Articula's model, compared with MuJoCo's
    compile of the file by joint (Newton's zero is the authored pose, so its spring rest is ``springref -
    ref``)."""
    scene, path = robot
    import newton

    model = build_model(scene, Solver.MUJOCO).model
    converted = newton.solvers.SolverMuJoCo(model, use_mujoco_cpu=True).mj_model
    original = mujoco.MjModel.from_xml_path(path)
    for name in ("swing", "spin"):
        ours = mujoco.mj_name2id(converted, mujoco.mjtObj.mjOBJ_JOINT, name)
        theirs = mujoco.mj_name2id(original, mujoco.mjtObj.mjOBJ_JOINT, name)
        assert ours >= 0 and theirs >= 0, name
        if name == "swing":
            np.testing.assert_allclose(converted.jnt_solref[ours], original.jnt_solref[theirs], rtol=1e-6)
            np.testing.assert_allclose(converted.jnt_solimp[ours], original.jnt_solimp[theirs], rtol=1e-6)
    spin = mujoco.mj_name2id(converted, mujoco.mjtObj.mjOBJ_JOINT, "spin")
    assert converted.qpos_spring[converted.jnt_qposadr[spin]] == pytest.approx(SPRING_REST - 0.2, abs=1e-6)


def test_featherstone_springs_to_the_files_rest(robot):
    scene, path = robot
    sim = Simulation(scene, device="cpu", solver="FEATHERSTONE")
    for _ in range(int(3.0 * 24)):
        sim.advance(1.0 / 24)
    assert sim.joint_positions()[("spin", "rotZ")] == pytest.approx(SPRING_REST, abs=2e-3)
