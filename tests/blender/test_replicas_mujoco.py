"""Replicas with the MuJoCo solver on a CPU in Blender: stepped on MuJoCo's C library per replica.

Live simulation and baking show the replicas (``addon/replicas.py``) where the simulation puts them,
and a blow-up in any replica stops the simulation, naming the body.
"""

import sys
from pathlib import Path

import bpy
import numpy as np
import pytest

from articula.addon import simulation_session
from articula.addon.adapters.description_to_blender import build_scene
from articula.core import samples
from articula.operators import simulate as simulate_module
from articula.sim.mujoco_spec import MuJoCoSimulation

sys.path.insert(0, str(Path(__file__).parent))
from authoring_helpers import reset_scene_settings  # noqa: E402
from test_replicas import REPLICAS, assert_matches, expected, id_names, instances  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_scene_settings(clean_scene):
    reset_scene_settings(clean_scene)
    yield
    assert simulate_module.running() is None


def load(context):
    objects = build_scene(context, samples.pendulum())
    settings = context.scene.articula
    settings.solver, settings.replicas, settings.replica_spacing = "MUJOCO", REPLICAS, 3.0
    context.view_layer.update()
    return objects


def test_live_simulation_shows_every_replica_stepped_by_mujoco():
    context = bpy.context
    objects = load(context)
    before = id_names()
    loop = simulate_module.ModalLoop(simulation_session.BlenderSimulation(context, "MUJOCO"))
    assert isinstance(loop.session.sim, MuJoCoSimulation) and len(loop.session.sim.datas) == REPLICAS
    bob = objects["pendulum_bob_visual"]
    loop.handle("TIMER")
    loop.handle("TIMER")
    context.view_layer.update()
    assert_matches(instances(context)[bob.name], expected(loop.session, bob, loop.session.sim.body_poses()))
    assert loop.handle("RET") == "FINISHED"
    assert id_names() == before  # the display went with the stop


def test_a_blow_up_in_a_replica_stops_and_names_the_body():
    context = bpy.context
    load(context)
    before = id_names()
    loop = simulate_module.ModalLoop(simulation_session.BlenderSimulation(context, "MUJOCO"))
    loop.handle("TIMER")
    sim = loop.session.sim
    sim.datas[-1].qpos[:] = np.nan  # the last replica's hinge
    assert loop.handle("TIMER") == "CANCELLED" and "pendulum_link" in loop.error
    assert id_names() == before


def test_bake_with_mujoco_replicas_shows_them_and_clears():
    context = bpy.context
    load(context)
    before = id_names()
    assert bpy.ops.articula.bake(frame_start=1, frame_end=12) == {"FINISHED"}
    assert len(instances(context)["pendulum_bob_visual"]) == REPLICAS - 1
    assert bpy.ops.articula.clear_bake() == {"FINISHED"}
    assert id_names() == before
