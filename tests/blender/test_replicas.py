"""Replicas shown in Blender: Geometry Nodes instances at the simulated poses, removed on stop.

The check reads the evaluated depsgraph (``object_instances``): each visual appears once per
replica beyond 0, with the world matrix that replica's body pose gives it.
"""

import sys
from pathlib import Path

import bpy
import numpy as np
import pytest
from mathutils import Matrix, Quaternion, Vector

from articula.addon import replicas as replicas_module
from articula.addon.adapters.description_to_blender import build_scene
from articula.core import samples
from articula.addon import simulation_session
from articula.addon.adapters import simulation_to_keyframes as bake_module
from articula.operators import simulate as simulate_module

sys.path.insert(0, str(Path(__file__).parent))
from authoring_helpers import reset_scene_settings  # noqa: E402

REPLICAS = 4


@pytest.fixture(autouse=True)
def fresh_scene_settings(clean_scene):
    reset_scene_settings(clean_scene)
    yield
    assert simulate_module.running() is None


def load(context, sample="pendulum", replicas=REPLICAS):
    objects = build_scene(context, samples.SAMPLES[sample]())
    settings = context.scene.articula
    settings.solver, settings.replicas, settings.replica_spacing = "FEATHERSTONE", replicas, 3.0
    context.view_layer.update()
    return objects


def pose_matrix(pose) -> Matrix:
    return Matrix.LocRotScale(Vector(pose[:3]), Quaternion(pose[3:]), None)


def instances(context) -> dict[str, list[Matrix]]:
    """Evaluated instances made by replica displays: {instanced object: [world matrices]}."""
    found = {}
    for inst in context.evaluated_depsgraph_get().object_instances:
        if inst.is_instance and inst.parent and inst.parent.original.get(replicas_module.MARK):
            found.setdefault(inst.instance_object.original.name, []).append(inst.matrix_world.copy())
    return found


def expected(session, visual, poses) -> list[Matrix]:
    """Replica r's copy of ``visual``: replica 0's visual moved by its body's pose r relative to pose 0."""
    keys = session.sim.body_keys
    body = next(v.body for v in session.description.visuals if v.name == visual.name)
    base = pose_matrix(poses[keys.index((body, 0))])
    return [pose_matrix(poses[keys.index((body, r))]) @ base.inverted() @ visual.matrix_world
            for r in range(1, REPLICAS)]


def assert_matches(found: list[Matrix], wanted: list[Matrix], tol=1e-4):
    assert len(found) == len(wanted)
    for matrix in wanted:
        error = min(np.abs(np.array(m) - np.array(matrix)).max() for m in found)
        assert error < tol


def id_names() -> dict:
    return {kind: sorted(d.name for d in getattr(bpy.data, kind))
            for kind in ("objects", "collections", "node_groups", "hair_curves", "meshes", "actions")}


def test_replicas_are_instanced_at_the_simulated_poses_on_the_grid():
    context = bpy.context
    objects = load(context, "six_dof_arm")
    session = simulation_session.BlenderSimulation(context, "FEATHERSTONE")
    for _ in range(4):
        session.advance_frame()
    context.view_layer.update()
    poses = session.sim.body_poses()
    visuals = [objects[v.name] for v in session.description.visuals if v.body]
    found = instances(context)
    assert set(found) == {v.name for v in visuals} and len(visuals) >= 5
    offsets = np.array(session.sim.built.replica_offsets)
    assert np.ptp(offsets[:, :2], axis=0).max() >= 3.0  # a real grid, not one spot
    for visual in visuals:
        assert_matches(found[visual.name], expected(session, visual, poses))
        # Same robot, same start: replica r is replica 0 shifted by its grid cell.
        shifted = [Matrix.Translation(Vector(o)) @ visual.matrix_world for o in offsets[1:]]
        assert_matches(found[visual.name], shifted, tol=1e-3)
    assert bpy.data.collections[replicas_module.COLLECTION].objects[:]  # all in one collection
    session.close()


def test_the_display_follows_each_frame():
    context = bpy.context
    objects = load(context)
    loop = simulate_module.ModalLoop(simulation_session.BlenderSimulation(context, "FEATHERSTONE"))
    bob = objects["pendulum_bob_visual"]
    loop.handle("TIMER")
    first = instances(context)[bob.name]
    loop.handle("TIMER")
    context.view_layer.update()
    second = instances(context)[bob.name]
    assert_matches(second, expected(loop.session, bob, loop.session.sim.body_poses()))
    assert max(np.abs(np.array(a) - np.array(b)).max() for a, b in zip(first, second)) > 1e-3  # it swings
    assert loop.handle("RET") == "FINISHED"


@pytest.mark.parametrize("stop", ["ESC", "RET", "BLOW_UP"])
def test_every_stop_removes_everything_the_display_created(stop):
    context = bpy.context
    load(context)
    before = id_names()
    loop = simulate_module.ModalLoop(simulation_session.BlenderSimulation(context, "FEATHERSTONE"))
    loop.handle("TIMER")
    assert len(instances(context)["pendulum_bob_visual"]) == REPLICAS - 1
    assert id_names() != before
    if stop == "BLOW_UP":
        sim = loop.session.sim
        sim.state_0.joint_q.assign(np.full(sim.model.joint_coord_count, np.nan))
        assert loop.handle("TIMER") == "CANCELLED" and "pendulum_link" in loop.error
    else:
        loop.handle(stop)
    assert id_names() == before
    assert instances(context) == {}


def test_one_replica_shows_no_display():
    context = bpy.context
    load(context, replicas=1)
    before = id_names()
    session = simulation_session.BlenderSimulation(context, "FEATHERSTONE")
    session.advance_frame()
    assert session.replicas is None and id_names() == before


def test_bake_plays_replicas_back_per_frame_and_clear_removes_them():
    context = bpy.context
    scene = context.scene
    objects = load(context)
    before = id_names()
    assert bpy.ops.articula.bake(frame_start=1, frame_end=12) == {"FINISHED"}
    bob = objects["pendulum_bob_visual"]
    offsets = [Vector(o) for o in samples_offsets(scene)]
    seen = []
    for frame in (1, 6, 12, 20):  # 20: past the bake, the last frame is held
        scene.frame_set(frame)
        found = instances(context)[bob.name]
        shifted = [Matrix.Translation(o) @ bob.matrix_world for o in offsets[1:]]
        assert_matches(found, shifted, tol=1e-3)  # replicas follow replica 0's keys, shifted
        seen.append(bob.matrix_world.translation.copy())
    assert (seen[0] - seen[1]).length > 1e-2 and (seen[2] - seen[3]).length < 1e-6
    # The baked display's modifier inputs, read back the way this Blender stores them (5.2: the
    # modifier's ``properties.inputs``; 4.5: its ID properties).
    [points] = bpy.data.collections[replicas_module.COLLECTION].objects
    modifier = points.modifiers[0]
    inputs = replicas_module.input_identifiers(modifier.node_group)
    read = {name: replicas_module.get_input(modifier, inputs[name]) for name in ("Visual", "Baked",
                                                                               "Frame Start", "Frame End")}
    assert read == {"Visual": bob, "Baked": True, "Frame Start": 1.0, "Frame End": 12.0}
    # Live simulation over a bake: Esc removes only its own display, not the baked one.
    baked = id_names()
    loop = simulate_module.ModalLoop(simulation_session.BlenderSimulation(context, "FEATHERSTONE"))
    loop.handle("TIMER")
    assert loop.handle("ESC") == "CANCELLED"
    assert id_names() == baked
    assert bpy.ops.articula.clear_bake() == {"FINISHED"}
    assert id_names() == before


def samples_offsets(scene):
    from articula.sim.builder import replica_offsets

    return replica_offsets(scene.articula.replicas, scene.articula.replica_spacing)


def test_bake_report_says_replicas_are_display_only():
    context = bpy.context
    load(context)
    assert bpy.ops.articula.bake(frame_start=1, frame_end=3) == {"FINISHED"}
    action = bake_module.bake_action()
    assert {slot.name_display for slot in action.slots} == {"pendulum_link"}  # keys for replica 0 only
    assert len(bpy.data.collections[replicas_module.COLLECTION].objects) == 1
