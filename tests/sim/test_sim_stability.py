"""The default solver at the default step is stable on typical robots: no NaN, no blow-up; converted
robots hold where MuJoCo holds their original."""

import glob
import os
from pathlib import Path

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
@pytest.mark.parametrize("name", ROBOTS)
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
    monkeypatch.chdir(tmp_path)  # where MuJoCo's own handler would write MUJOCO_LOG.TXT
    scene = samples.pendulum()
    scene.settings.steps_per_second = 600.0
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    sim.advance(0.05)
    assert sim.diverged() is None
    sim.mj_data.qvel[:] = 1e30  # an acceleration MuJoCo calls huge on the next step
    with pytest.raises(SimulationDiverged, match="pendulum_link"):
        sim.advance(0.05)
    assert np.isfinite(sim.body_poses()).all()  # what the poses alone would have said
    assert not (tmp_path / "MUJOCO_LOG.TXT").exists()  # MuJoCo's warning went to Articula's log
    sim.reset()
    sim.advance(0.05)  # an instability before the reset is not this run's


# --- converted robots against MuJoCo on their original MJCF --------------------------------------------

CORPUS = os.environ.get("ARTICULA_CORPUS", os.path.expanduser("~/.cache/articula/corpus"))
ROOT = Path(__file__).resolve().parents[2]


def _original_mjcf(key: str) -> str:
    """The MJCF the corpus robot was converted from (tools/convert_corpus.py's sources)."""
    source, name = key.split("_", 1)
    if source == "newton":
        import newton
        found = [os.path.join(os.path.dirname(newton.__file__), "examples", "assets", name + ".xml")]
    else:  # gymnasium's files, in the converter's venv (`make corpus`)
        found = glob.glob(str(ROOT / ".venv-converter" / "lib" / "python3.*" / "site-packages" / "gymnasium" /
                              "envs" / "mujoco" / "assets" / (name + ".xml")))
    if not found or not os.path.isfile(found[0]):
        pytest.skip(f"{key}'s original MJCF comes with `make corpus`")
    return found[0]


def _converted(key: str) -> str:
    files = glob.glob(os.path.join(CORPUS, key, "*.usda"))
    if not files:
        pytest.skip(f"{key} not converted: run `make corpus`")
    return files[0]


#: How far the root may end from MuJoCo's after 1 s (m). Newton's ant's file asks for 62.5 Hz, its
#: conversion for 62 (an integer): the free fall it ends in differs by about a step.
ROOT_TOLERANCE = {"gym_ant": 0.1, "gym_humanoid": 0.1, "newton_nv_ant": 0.3}


@pytest.mark.parametrize("key", sorted(ROOT_TOLERANCE))
def test_converted_robot_holds_and_follows_mujoco_on_its_original(key, tmp_path, monkeypatch):
    """A robot converted by NVIDIA's mujoco-usd-converter, simulated 1 s on MuJoCo, ends where MuJoCo's
    C library puts the original MJCF's root: hard joint limits are MuJoCo's own constraint. (Newton's
    conversion of its default limit gains made the gymnasium ant bounce 2 m high, the humanoid fall
    flat, and Newton's ant blow up after 0.08 s.)"""
    import mujoco

    from articula.core.usd.reader import read_usd

    monkeypatch.chdir(tmp_path)  # where MuJoCo's own handler would write MUJOCO_LOG.TXT
    original = mujoco.MjModel.from_xml_path(_original_mjcf(key))
    data = mujoco.MjData(original)
    for _ in range(int(round(1.0 / original.opt.timestep))):
        mujoco.mj_step(original, data)
    root = original.body(1).name
    sim = Simulation(read_usd(_converted(key)).scene, device="cpu", solver="MUJOCO")
    sim.advance(1.0)  # raises SimulationDiverged naming the body
    ours = sim.body_poses()[sim.body_names.index(root)][:3]
    assert np.isfinite(sim.body_poses()).all()
    assert np.linalg.norm(ours - data.xpos[1]) < ROOT_TOLERANCE[key], (ours, data.xpos[1])
