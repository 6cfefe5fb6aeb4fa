"""The scene's ground plane and a file's own floor at z = 0 are one surface to the simulation and to the MJCF
export: with both, Featherstone's penalty contacts came twice and threw gymnasium's resting ant 5 m into
the air, and MuJoCo's contacts came twice (a hopper fell elsewhere)."""

import glob
import os

import pytest

from articula.core.mjcf.reader import read_mjcf
from articula.sim.launch import start_simulation

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def gym_ant():
    found = glob.glob(os.path.join(ROOT, ".venv-converter/lib/python3.*/site-packages/gymnasium/envs/mujoco/"
                                         "assets/ant.xml"))
    if not found:
        pytest.skip("gymnasium's MJCF files come with `make corpus` (.venv-converter)")
    return read_mjcf(found[0]).scene


def test_the_ant_on_its_floor_with_the_ground_plane_on_rests_on_featherstone():
    scene = gym_ant()
    scene.settings.ground_plane = True
    sim = start_simulation(scene, device="cpu", solver="FEATHERSTONE")
    highest = 0.0
    for _ in range(60):
        sim.advance(1 / 24)
        highest = max(highest, float(sim.body_poses()[0][2]))
    assert highest <= 0.75 + 1e-6  # never above its start: it falls onto its legs and stays there
    assert any("coincides with static plane 'floor'" in note for note in sim.notes)


def test_the_ground_plane_alone_is_still_simulated():
    scene = gym_ant()
    scene.shapes = [shape for shape in scene.shapes if shape.body is not None]  # no floor of its own
    scene.settings.ground_plane = True
    sim = start_simulation(scene, device="cpu", solver="FEATHERSTONE")
    sim.advance(1.0)
    assert 0.2 < sim.body_poses()[0][2] < 0.75  # stands on the ground plane
    assert not any("coincides" in note for note in sim.notes)


def test_the_mjcf_export_and_mujoco_write_and_step_one_ground(tmp_path):
    import mujoco
    import numpy as np

    from articula.core.mjcf.writer import write_mjcf

    scene = gym_ant()
    scene.settings.ground_plane = True
    warnings = write_mjcf(scene, str(tmp_path / "ant.xml"))
    assert "the ground plane coincides with static plane 'floor': written once, as 'floor'" in warnings
    model = mujoco.MjModel.from_xml_path(str(tmp_path / "ant.xml"))
    assert list(model.geom_type).count(mujoco.mjtGeom.mjGEOM_PLANE) == 1
    positions = []
    for ground in (False, True):  # MuJoCo on the CPU moves the ant alike with the ground plane on or off
        scene.settings.ground_plane = ground
        sim = start_simulation(scene, device="cpu", solver="MUJOCO")
        sim.advance(1.0)
        positions.append(sim.body_poses())
    np.testing.assert_array_equal(positions[0], positions[1])


def test_without_a_floor_the_export_writes_the_ground_plane(tmp_path):
    from articula.core.mjcf.writer import write_mjcf

    scene = gym_ant()
    scene.shapes = [shape for shape in scene.shapes if shape.body is not None]
    scene.settings.ground_plane = True
    warnings = write_mjcf(scene, str(tmp_path / "ant.xml"))
    assert 'name="ground_plane"' in (tmp_path / "ant.xml").read_text()
    assert not any("coincides" in warning for warning in warnings)
