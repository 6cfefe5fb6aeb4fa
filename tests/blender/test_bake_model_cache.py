"""Must show, in Blender: a re-bake of an unchanged robot reuses the robot built by the last bake
(sim.model_cache) and keys exactly the same motion; an edited robot is built afresh."""

import bpy
import numpy as np
import pytest

from articula.addon.adapters.simulation_to_keyframes import BakeJob
from articula.sim import model_cache

from .test_bake_mujoco_direct import LAST, SUBSTEPS, keyed_arm


@pytest.fixture(autouse=True)
def empty_cache():
    model_cache.clear()
    yield
    model_cache.clear()


def bake_once():
    """(the simulation's compiled MuJoCo model, the keyed locations and rotations) of one bake."""
    job = BakeJob(bpy.context, 1, LAST, "MUJOCO", SUBSTEPS)
    while not job.run(budget=1.0):
        pass
    solver = job.session.sim.mj_model
    job.finish()
    return solver, np.concatenate([job.locations, job.rotations], axis=-1)


def test_a_rebake_of_the_unchanged_robot_reuses_its_build(clean_scene):
    keyed_arm(clean_scene)
    first, keys = bake_once()
    assert model_cache.size() == 1  # the bake ended: its robot is kept
    again, keys_again = bake_once()
    assert again is first
    np.testing.assert_array_equal(keys_again, keys)
    assert np.abs(keys[-1] - keys[0]).max() > 1e-3  # something moved


def test_an_edited_robot_is_built_afresh(clean_scene):
    keyed_arm(clean_scene)
    first, _ = bake_once()
    clean_scene.objects["elbow"].articula.joint.dofs[0].actuators[0].kp *= 2.0
    edited, _ = bake_once()
    assert edited is not first


def test_a_cancelled_bake_gives_its_robot_back(clean_scene):
    keyed_arm(clean_scene)
    job = BakeJob(bpy.context, 1, LAST, "MUJOCO", SUBSTEPS)
    solver = job.session.sim.mj_model
    job.cancel()
    assert model_cache.size() == 1
    again = BakeJob(bpy.context, 1, LAST, "MUJOCO", SUBSTEPS)
    try:
        assert again.session.sim.mj_model is solver
    finally:
        again.cancel()
