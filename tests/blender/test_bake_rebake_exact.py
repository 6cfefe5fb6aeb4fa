"""Must show, in Blender: a bake, and a recorded live simulation, put each body's location and rotation
back exactly (values, not a matrix's decomposition), so a robot whose bodies are turned does not creep
bake after bake and a re-bake reuses the robot the last bake built (``sim.model_cache``); records of
earlier versions (only the basis matrix) still put a body back."""

import bpy
import numpy as np
import pytest

from articula.addon.adapters.live_recording import LiveRecording
from articula.addon.adapters.simulation_to_keyframes import PREBAKE, BakeJob, clear_bake
from articula.sim import model_cache

TURNED = """<mujoco model="turned">
  <worldbody>
    <body name="base" pos="0.1 0.2 1.0" euler="0.3 0.2 0.1">
      <freejoint/>
      <geom type="capsule" size="0.05" fromto="0 0 0 0.2 0.1 0" mass="1"/>
      <body name="arm" pos="0.2 0.1 0" euler="0.001 -0.4 0.7">
        <joint name="hinge" type="hinge" axis="0.3 1 0.2"/>
        <geom type="capsule" size="0.04" fromto="0 0 0 0 0.25 0.05" mass="0.5"/>
      </body>
    </body>
  </worldbody>
</mujoco>"""


@pytest.fixture(autouse=True)
def empty_cache():
    model_cache.clear()
    yield
    model_cache.clear()


def turned_robot(scene, tmp_path) -> list:
    path = tmp_path / "turned.xml"
    path.write_text(TURNED)
    assert bpy.ops.articula.import_mjcf(filepath=str(path)) == {"FINISHED"}
    scene.frame_start, scene.frame_end = 1, 4
    scene.frame_set(1)
    return [scene.objects["base"], scene.objects["arm"]]


def pose_values(objects) -> list:
    """Each object's rotation mode, location and the rotation of its mode (the one that places it)."""
    return [(o.rotation_mode, tuple(o.location),
             tuple(o.rotation_quaternion if o.rotation_mode == "QUATERNION" else o.rotation_euler))
            for o in objects]


def bake_once():
    job = BakeJob(bpy.context, 1, 4, "MUJOCO", 2)
    while not job.run(budget=1.0):
        pass
    model = job.session.sim.mj_model
    job.finish()
    return model, np.concatenate([job.locations, job.rotations], axis=-1)


def test_rebakes_of_a_turned_robot_reuse_its_build_and_key_the_same(clean_scene, tmp_path):
    turned_robot(clean_scene, tmp_path)
    first, keys = bake_once()
    for _ in range(2):
        again, keys_again = bake_once()
        assert again is first
        np.testing.assert_array_equal(keys_again, keys)


def test_clearing_puts_every_value_back_exactly(clean_scene, tmp_path):
    objects = turned_robot(clean_scene, tmp_path)
    objects[0].rotation_mode = "QUATERNION"
    objects[1].rotation_mode = "XZY"  # an Euler mode: the bake keys quaternions
    before = pose_values(objects)
    for _ in range(3):
        bake_once()
    assert clear_bake(clean_scene) == 2
    assert pose_values(objects) == before


def test_a_record_holding_only_the_basis_still_puts_the_body_back(clean_scene, tmp_path):
    objects = turned_robot(clean_scene, tmp_path)
    before = [np.array(o.matrix_basis) for o in objects]
    bake_once()
    for obj in objects:  # as a bake of an earlier version recorded it
        record = obj[PREBAKE].to_dict()
        del record["location"], record["rotation"]
        obj[PREBAKE] = record
    clear_bake(clean_scene)
    for obj, basis in zip(objects, before):
        np.testing.assert_allclose(np.array(obj.matrix_basis), basis, atol=1e-6)


def test_clearing_a_recorded_live_simulation_puts_every_value_back_exactly(clean_scene, tmp_path):
    objects = turned_robot(clean_scene, tmp_path)
    objects[1].rotation_mode = "XZY"
    clean_scene.articula.solver = "MUJOCO"
    before = pose_values(objects)
    for _ in range(2):  # Simulate with Record, three frames, Stop & Keep
        recording = LiveRecording(bpy.context)
        for _ in range(3):
            recording.session.advance_frame()
            recording.record()
        recording.finish()
    assert clear_bake(clean_scene) == 2
    assert pose_values(objects) == before
