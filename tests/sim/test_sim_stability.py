"""The default solver at the default step is stable on typical robots: no NaN, no blow-up."""

import numpy as np
import pytest

from articula.core import samples
from articula.core.model import SceneSettings, Solver
from articula.sim.simulation import Simulation, SimulationDiverged

ROBOTS = ["robotic_finger", "six_dof_arm", "quadruped", "d6_sampler", "four_bar", "pendulum"]


def test_the_default_is_mujoco_at_600_steps_per_second():
    settings = SceneSettings()
    assert settings.solver == Solver.MUJOCO and settings.steps_per_second == 600.0


@pytest.mark.parametrize("name", ROBOTS)
def test_default_solver_runs_two_seconds_without_diverging(name):
    scene = samples.SAMPLES[name]()
    sim = Simulation(scene, device="cpu")
    assert sim.solver_kind == scene.settings.solver
    sim.advance(2.0)  # raises SimulationDiverged naming the body
    assert np.isfinite(sim.body_poses()).all()


@pytest.mark.parametrize("solver", ["FEATHERSTONE", "XPBD"])
@pytest.mark.parametrize("name", ["six_dof_arm", "quadruped"])
def test_other_solvers_run_one_second_without_diverging(name, solver):
    sim = Simulation(samples.SAMPLES[name](), device="cpu", solver=solver)
    sim.advance(1.0)


def test_quadruped_lands_on_the_ground_and_stays_up():
    sim = Simulation(samples.quadruped(), device="cpu")
    sim.advance(2.0)
    torso = sim.body_poses()[sim.body_names.index("torso")]
    assert 0.2 < torso[2] < 0.7


def test_divergence_is_reported_with_the_body_name():
    scene = samples.pendulum()
    sim = Simulation(scene, device="cpu", solver="FEATHERSTONE")
    q = sim.state_0.body_q.numpy()
    q[0, 0] = np.nan
    sim.state_0.body_q.assign(q)
    hit = sim.diverged()
    assert hit == ("pendulum_link", 0)
    with pytest.raises(SimulationDiverged, match="pendulum_link"):
        sim.raise_if_diverged()


def test_a_mujoco_instability_its_library_resets_by_itself_is_reported(tmp_path, monkeypatch):
    """MuJoCo's C library resets its state on a NaN/huge acceleration and only writes a log line:
    the poses look finite afterwards, so the simulation must say it blew up."""
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder
    scene = samples.pendulum()
    scene.settings.steps_per_second = 600.0
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    sim.advance(0.05)
    assert sim.diverged() is None
    qd = sim.state_0.joint_qd.numpy()
    qd[:] = 1e30  # an acceleration MuJoCo calls huge on the next step
    sim.state_0.joint_qd.assign(qd)
    with pytest.raises(SimulationDiverged, match="pendulum_link"):
        sim.advance(0.05)
    assert np.isfinite(sim.body_poses()).all()  # what the poses alone would have said
    sim.reset()
    sim.advance(0.05)  # an instability before the reset is not this run's
