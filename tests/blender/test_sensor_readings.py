"""Sensor readings in Blender, through the operators: a MuJoCo bake keys MuJoCo's own ``sensordata`` of
the file as named custom properties of the sensor objects; Featherstone's IMU at rest reads gravity's
reaction; Export Readings writes one row per frame; a failed bake leaves the earlier readings; the panel
lists a running simulation's readings and names what a solver cannot read."""

import csv
import sys
from pathlib import Path

import bpy
import mujoco
import numpy as np
import pytest

from articula.addon.adapters.readings_to_keyframes import READINGS
from articula.addon.adapters.simulation_to_keyframes import BakeJob, bake_action
from articula.addon.sensor_readings import live_readings
from articula.operators import simulate
from articula.panels.sensor_readings import ARTICULA_PT_sensor_readings

sys.path.insert(0, str(Path(__file__).parent))
from test_panels_draw import draw_panel  # noqa: E402

SENSING = """<mujoco model="sensing">
  <option timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="box" pos="0 0 0.1">
      <freejoint name="box_free"/>
      <geom name="box_geom" type="box" size="0.1 0.1 0.1" mass="1"/>
      <site name="imu" pos="0 0 0.05"/>
    </body>
    <body name="arm" pos="1 0 1">
      <joint name="swing" type="hinge" axis="0 1 0"/>
      <geom name="rod" type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="0.5"/>
      <site name="ft" pos="0.05 0 0"/>
    </body>
    <body name="foot" pos="-1 0 0.1">
      <freejoint name="foot_free"/>
      <geom name="foot_geom" type="sphere" size="0.05" mass="0.2"/>
      <site name="sole" pos="0 0 -0.05" type="sphere" size="0.02"/>
    </body>
  </worldbody>
  <sensor>
    <accelerometer name="acc" site="imu"/>
    <gyro name="gyro" site="imu"/>
    <force name="ft_force" site="ft"/>
    <torque name="ft_torque" site="ft"/>
    <touch name="foot_touch" site="sole"/>
    <jointpos name="swing_pos" joint="swing"/>
    <rangefinder name="range" site="imu"/>
  </sensor>
</mujoco>
"""
FPS, SUBSTEPS, LAST = 25, 20, 13  # the file's 2 ms step, half a second


@pytest.fixture
def sensing(clean_scene, tmp_path):
    path = tmp_path / "sensing.xml"
    path.write_text(SENSING)
    assert bpy.ops.articula.import_mjcf(filepath=str(path)) == {"FINISHED"}
    clean_scene.render.fps, clean_scene.render.fps_base = FPS, 1.0
    clean_scene.frame_start, clean_scene.frame_end = 1, LAST
    clean_scene.frame_set(1)
    return path


def sensor_object(scene, name):
    return next(o for o in scene.objects if o.get(READINGS, {}).get("sensor") == name)


def keyed(scene, name, last=LAST) -> np.ndarray:
    """The keyed reading of sensor ``name`` at every frame (frames x channels), from its F-curves."""
    obj = sensor_object(scene, name)
    props = list(obj[READINGS]["properties"].values())
    values = []
    for frame in range(1, last + 1):
        scene.frame_set(frame)
        values.append([obj[p] for p in props])
    return np.array(values)


def file_sensordata(path) -> dict[str, np.ndarray]:
    """MuJoCo run on the file itself: each sensor's data at every frame (the start, then per frame)."""
    model = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    frames = [data.sensordata.copy()]
    for _ in range(LAST - 1):
        for _ in range(SUBSTEPS):
            mujoco.mj_step(model, data)
        frames.append(data.sensordata.copy())
    frames = np.array(frames)
    return {model.sensor(i).name: frames[:, model.sensor_adr[i]:model.sensor_adr[i] + model.sensor_dim[i]]
            for i in range(model.nsensor)}


def test_a_mujoco_bake_keys_the_files_sensordata_and_exports_it(sensing, clean_scene, tmp_path):
    assert bpy.ops.articula.bake(solver="MUJOCO", substeps=SUBSTEPS) == {"FINISHED"}
    expected = file_sensordata(sensing)
    acc = sensor_object(clean_scene, "acc")
    assert list(acc[READINGS]["properties"].values()) == [f"accelerometer.{axis}" for axis in "xyz"]
    assert acc.animation_data.action == bake_action()  # the bake's own action: one transaction
    for name, data in expected.items():
        assert keyed(clean_scene, name) == pytest.approx(data, rel=1e-3, abs=1e-3), name
    anim = acc.animation_data  # what the Graph Editor lists: the sensor's group of named properties
    bag = anim.action.layers[0].strips[0].channelbag(anim.action_slot)
    assert [(c.group.name, c.data_path) for c in bag.fcurves] == \
        [("acc", f'["accelerometer.{axis}"]') for axis in "xyz"]
    assert all(isinstance(acc.path_resolve(c.data_path), float) for c in bag.fcurves)
    assert np.ptp(expected["swing_pos"]) > 0.1 and expected["foot_touch"].max() > 0.5  # it moved, touched

    out = tmp_path / "readings.csv"
    assert bpy.ops.articula.export_readings(filepath=str(out)) == {"FINISHED"}
    with open(out, newline="") as file:
        rows = list(csv.reader(file))
    assert rows[0][:2] == ["frame", "time"]
    assert "acc.x" in rows[0] and "foot_touch.value" in rows[0] and "ft_torque.z" in rows[0]
    assert [int(r[0]) for r in rows[1:]] == list(range(1, LAST + 1))
    column = rows[0].index("swing_pos.value")
    assert [float(r[column]) for r in rows[1:]] == pytest.approx(expected["swing_pos"][:, 0], abs=1e-4)


def test_featherstone_imu_at_rest_reads_gravity_up(sensing, clean_scene):
    """The box rests on the floor: its accelerometer reads the floor's push, +9.81 up, every frame."""
    assert bpy.ops.articula.bake(frame_start=1, frame_end=8, solver="FEATHERSTONE", substeps=SUBSTEPS) \
        == {"FINISHED"}
    acc = keyed(clean_scene, "acc", last=8)
    assert acc[2:] == pytest.approx(np.tile([0.0, 0.0, 9.81], (6, 1)), abs=0.3)


def test_a_failed_bake_leaves_the_earlier_readings_and_clear_bake_removes_them(sensing, clean_scene,
                                                                              tmp_path):
    kept = tmp_path / "kept.csv"
    kept.write_text("earlier\n")
    with pytest.raises(RuntimeError, match="no baked sensor readings"):
        bpy.ops.articula.export_readings(filepath=str(kept))
    assert kept.read_text() == "earlier\n"  # untouched, and no temporary file left beside it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.csv", "sensing.xml"]
    assert bpy.ops.articula.bake(frame_start=1, frame_end=4, solver="MUJOCO", substeps=SUBSTEPS) \
        == {"FINISHED"}
    before = keyed_first(clean_scene)
    clean_scene.articula.steps_per_second = 0  # refused by validation
    with pytest.raises(RuntimeError):
        bpy.ops.articula.bake(frame_start=1, frame_end=6, solver="MUJOCO", substeps=0)
    clean_scene.articula.property_unset("steps_per_second")
    assert keyed_first(clean_scene) == before
    job = BakeJob(bpy.context, 1, 6, "MUJOCO", SUBSTEPS)  # a bake cancelled half-way
    job.run(budget=0.0)
    job.cancel()
    assert keyed_first(clean_scene) == before
    assert bpy.ops.articula.clear_bake() == {"FINISHED"}
    assert not any(o.get(READINGS) for o in clean_scene.objects)
    assert not any("accelerometer.x" in o.keys() for o in clean_scene.objects)


def keyed_first(scene):
    """Every sensor object's keys: {object: {data path: [(frame, value)...]}}."""
    found = {}
    for obj in scene.objects:
        anim = obj.animation_data
        if obj.get(READINGS) is None or anim is None or anim.action is None:
            continue
        bag = anim.action.layers[0].strips[0].channelbag(anim.action_slot)
        found[obj.name] = {c.data_path: [tuple(k.co) for k in c.keyframe_points] for c in bag.fcurves}
    assert found
    return found


def panel_labels() -> list[str]:
    drawn, log = draw_panel(ARTICULA_PT_sensor_readings, None, area_type="VIEW_3D")
    assert drawn
    return [entry[2] for entry in log if entry[0] == "label"]


def test_while_simulating_the_panel_lists_each_frames_readings_and_recording_keys_them(sensing, clean_scene):
    """The modal Simulate operator's loop (Record on): each frame the panel shows that frame's readings;
    a reading Newton cannot give is named with its reason, never shown as a value; Stop & Keep keys
    what was read."""
    loop = simulate.start_loop(bpy.context, "FEATHERSTONE", record=True)
    try:
        readings = live_readings()
        assert readings is loop.session.readings
        assert "range" in readings.unavailable  # Newton gives no rangefinder
        shown = []
        for _ in range(3):
            assert loop.handle("TIMER") == "RUNNING"
            labels = panel_labels()
            assert f"Not read: {readings.unavailable['range']}" in labels
            swing = readings.latest["swing_pos"]["value"]
            assert f"value: {swing:.4g}" in labels
            shown.append(swing)
        assert len(set(shown)) == 3  # updated every frame: the pendulum swings
        assert loop.handle("RET") == "FINISHED"
    finally:
        if loop.recording is not None and not loop.recording.done:
            loop.recording.cancel()
    assert live_readings() is None
    labels = panel_labels()  # the baked readings now, and what was not read
    assert labels[0] == "Baked readings at this frame"
    assert f"Not read: {readings.unavailable['range']}" in labels
    clean_scene.frame_set(3)
    assert f"value: {sensor_object(clean_scene, 'swing_pos')['jointpos.value']:.4g}" in panel_labels()
    keys = keyed_first(clean_scene)
    swing = keys[sensor_object(clean_scene, "swing_pos").name]['["jointpos.value"]']
    assert [frame for frame, _ in swing] == [1, 2, 3, 4]
    assert [value for _, value in swing][1:] == pytest.approx(shown, abs=1e-6)
    ranger = sensor_object(clean_scene, "range")
    assert ranger[READINGS]["unavailable"] == readings.unavailable["range"]
    assert not ranger[READINGS]["properties"] and ranger.animation_data is None  # nothing keyed
