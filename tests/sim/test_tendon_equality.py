"""A tendon equality (how MuJoCo grippers couple a finger's joints: a fixed tendon held at its start
length) simulates as MuJoCo simulates the file: on MuJoCo's C library, and in Newton's conversion for
MuJoCo Warp; Featherstone and XPBD name it as not simulated."""

import mujoco
import numpy as np
import pytest

from articula.core.model import Solver
from articula.sim.builder import build_model
from articula.sim.simulation import Simulation

#: A two-link finger falling under gravity; the tendon ``knuckle - tip`` is held at its start length, so the
#: tip joint turns with the knuckle (a tendon friction and a spring on the tendon ride along).
FINGER = """
<mujoco model="finger">
  <compiler angle="radian"/>
  <option timestep="0.002"/>
  <worldbody>
    <body name="palm" pos="0 0 1">
      <geom type="box" size="0.05 0.05 0.02" mass="1" contype="0" conaffinity="0"/>
      <body name="proximal" pos="0.05 0 0">
        <joint name="knuckle" type="hinge" axis="0 1 0" range="-1 1.5" damping="0.01"/>
        <geom type="capsule" fromto="0 0 0 0.08 0 0" size="0.01" mass="0.05" contype="0" conaffinity="0"/>
        <body name="distal" pos="0.08 0 0">
          <joint name="tip" type="hinge" axis="0 1 0" range="-1 1.5" damping="0.01"/>
          <geom type="capsule" fromto="0 0 0 0.06 0 0" size="0.008" mass="0.03" contype="0" conaffinity="0"/>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="coupling" frictionloss="0.001">
      <joint joint="knuckle" coef="1"/>
      <joint joint="tip" coef="-1"/>
    </fixed>
  </tendon>
  <equality>
    <tendon name="hold" tendon1="coupling" solref="0.005 1"/>
  </equality>
</mujoco>
"""
SECONDS = 0.5


@pytest.fixture
def finger(mjcf_text):
    return mjcf_text(FINGER, "finger.xml")


def test_the_description_holds_the_equality(finger):
    scene, _ = finger
    (equality,) = scene.tendon_equalities
    assert (equality.name, equality.tendon0, equality.tendon1) == ("hold", "coupling", None)
    assert equality.solref == pytest.approx((0.005, 1.0))
    assert scene.tendons[0].frictionloss == pytest.approx(0.001)


def test_mujoco_keeps_the_finger_coupled_as_the_file(finger):
    scene, path = finger
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    for _ in range(int(SECONDS / sim.dt)):
        sim.step()
    q = sim.joint_positions()
    ours = np.array([q[("knuckle", "rotY")], q[("tip", "rotY")]])
    model = mujoco.MjModel.from_xml_path(path)
    data = mujoco.MjData(model)
    mujoco.mj_step(model, data, int(SECONDS / model.opt.timestep))
    np.testing.assert_allclose(ours, data.qpos, atol=1e-5)  # the export's 6 digits
    assert ours[0] > 0.3  # the finger fell...
    assert ours[0] - ours[1] == pytest.approx(0.0, abs=0.02)  # ...and its tip turned with the knuckle


def test_newtons_mujoco_conversion_holds_the_equality(finger):
    scene, _ = finger
    import newton

    model = build_model(scene, Solver.MUJOCO).model
    converted = newton.solvers.SolverMuJoCo(model, use_mujoco_cpu=True).mj_model
    assert converted.neq == 1 and int(converted.eq_type[0]) == int(mujoco.mjtEq.mjEQ_TENDON)
    assert converted.eq_obj2id[0] == -1  # held at its start length
    np.testing.assert_allclose(converted.eq_solref[0], (0.005, 1.0), rtol=1e-6)
    assert converted.tendon_frictionloss[0] == pytest.approx(0.001)


@pytest.mark.parametrize("solver", [Solver.FEATHERSTONE, Solver.XPBD])
def test_other_solvers_name_it_as_not_simulated(finger, solver):
    scene, _ = finger
    notes = build_model(scene, solver).notes
    assert any("tendon equalities" in n and "'hold'" in n for n in notes)
