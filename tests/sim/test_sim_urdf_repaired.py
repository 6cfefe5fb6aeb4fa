"""URDF files Newton's add_urdf cannot load, which Articula reads after named repairs
(core/urdf/repairs.py), simulate sanely: half a second under gravity on the default solver stays
finite, the link the file fixes to the world stays where it stands, and nothing moves further than
a free fall plus a swinging limb would take it."""

import os

import numpy as np
import pytest

pytest.importorskip("mujoco")

from articula.core.model import JointType  # noqa: E402
from articula.core.urdf import read_urdf  # noqa: E402
from articula.sim.simulation import Simulation  # noqa: E402

PYBULLET_DATA = os.environ.get("ARTICULA_PYBULLET_DATA", os.path.expanduser("~/.cache/articula/pybullet_data"))
REPAIRED_NEWTON_UNREADABLE = ["bicycle/bike.urdf", "husky/husky.urdf", "biped/biped2d_pybullet.urdf",
                              "humanoid/humanoid.urdf", "quadruped/microtaur/microtaur.urdf",
                              "racecar/racecar_differential.urdf", "spherical_joint_limit.urdf"]
SECONDS = 0.5
#: A free fall in SECONDS (1.23 m) plus a limb of about a metre swinging round its joint.
FURTHEST = 0.5 * 9.81 * SECONDS ** 2 + 2.0


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


@pytest.mark.parametrize("name", REPAIRED_NEWTON_UNREADABLE)
def test_repaired_urdf_robot_simulates_without_blowing_up(name):
    path = os.path.join(PYBULLET_DATA, name)
    if not os.path.exists(path):
        pytest.skip(f"{path} not found: run `make urdf-corpus`")
    read = read_urdf(path)
    assert any("repaired:" in w for w in read.warnings)
    scene = read.scene
    sim = Simulation(scene, device="cpu")
    start = sim.body_poses().copy()
    sim.advance(SECONDS)  # raises SimulationDiverged naming the body
    end = sim.body_poses()
    assert np.isfinite(end).all()
    moved = np.linalg.norm(end[:, :3] - start[:, :3], axis=1)
    assert moved.max() < FURTHEST, dict(zip(sim.body_names, moved.round(3)))
    fixed = {j.body1 for j in scene.joints if j.body0 is None and j.type == JointType.FIXED}
    for body in fixed:  # the root link stands where the file puts it
        assert moved[sim.body_names.index(body)] < 1e-4, body
