"""Sensor readings of a bake -> animated custom properties of the sensor objects, and back out as CSV.

Each channel of a sensor's reading is one float custom property of its Empty, named
``<kind>.<channel>`` (``accelerometer.x``, ``touch.value``, ``framequat.w``), keyed at every frame the
solver gave a reading (never a made-up zero) in the bake's own layered action (a slot per sensor
object, beside the bodies' slots): the Graph Editor plots them by those names, grouped by sensor.
They are written by the bake's :meth:`finish`, so a bake that fails or is cancelled leaves the earlier
readings, and the bake's replacement of its action replaces them. ``READINGS`` on the object records
the sensor's name and its channels' properties (what :func:`clear_readings` and the CSV export read).
"""

from __future__ import annotations

import csv
import os
import tempfile

import bpy
import numpy as np

from .blender_to_description import BAKE_MARK

READINGS = "articula_readings"  # on a sensor object: {"sensor": name, "properties": {channel: prop}}
LINEAR = 1  # Keyframe.interpolation enum index: CONSTANT, LINEAR, BEZIER


def property_name(obj, channel: str) -> str:
    return f"{obj.articula.sensor.kind}.{channel}"


def write_readings(scene, action: bpy.types.Action, readings, first_frame: int) -> int:
    """Key ``readings.history`` (:class:`addon.sensor_readings.SessionReadings`, one entry per frame
    from ``first_frame``) into the bake ``action``; earlier readings' properties are removed first.
    Returns the sensors keyed."""
    clear_readings(scene, keep_actions=True)
    strip = action.layers[0].strips[0]
    keyed = 0
    for name, obj in readings.objects.items():
        series = _series(readings, name)
        if not series:
            continue
        _key_sensor(obj, name, series, action, strip, first_frame)
        keyed += 1
    return keyed


def _series(readings, name: str) -> dict[str, list[tuple[int, float]]]:
    """Channel -> [(frame offset, value)] over the frames that read ``name``, in channel order."""
    series: dict[str, list[tuple[int, float]]] = {c: [] for c in readings.channel_names(name)}
    for offset, frame in enumerate(readings.history):
        for channel, value in frame.get(name, {}).items():
            series.setdefault(channel, []).append((offset, value))
    return {channel: keys for channel, keys in series.items() if keys}


def _key_sensor(obj, name: str, series: dict, action, strip, first_frame: int) -> None:
    anim = obj.animation_data or obj.animation_data_create()
    previous = anim.action.name if anim.action is not None and not anim.action.get(BAKE_MARK) else ""
    slot = action.slots.new(id_type="OBJECT", name=obj.name)
    bag = strip.channelbag(slot, ensure=True)
    group = bag.groups.new(name)
    properties = {}
    for channel, keys in series.items():
        prop = properties[channel] = property_name(obj, channel)
        obj[prop] = float(keys[0][1])
        curve = bag.fcurves.new(f'["{prop}"]')
        curve.group = group
        co = np.array([(first_frame + offset, value) for offset, value in keys], dtype=np.float32)
        curve.keyframe_points.add(len(keys))
        curve.keyframe_points.foreach_set("co", co.ravel())
        curve.keyframe_points.foreach_set("interpolation", np.full(len(keys), LINEAR, dtype=np.int32))
        curve.update()
    anim.action = action
    anim.action_slot = slot
    obj[READINGS] = {"sensor": name, "properties": properties, "action": previous}


def clear_readings(scene, keep_actions: bool = False) -> int:
    """Remove the baked readings' properties from every sensor object (and, unless ``keep_actions``,
    give it back the action it had before). Returns the sensor objects cleared."""
    cleared = 0
    for obj in scene.objects:
        record = obj.get(READINGS)
        if record is None:
            continue
        for prop in record.get("properties", {}).values():
            obj.pop(prop, None)
        anim = obj.animation_data
        if not keep_actions and anim is not None:
            anim.action = bpy.data.actions.get(record.get("action", "")) or None
        del obj[READINGS]
        cleared += 1
    return cleared


def baked_readings(scene) -> tuple[list[str], dict[int, dict[str, float]]]:
    """The baked readings as a table: its columns (``sensor.channel``, by sensor name) and, per keyed
    frame, the value of each column keyed there."""
    columns, rows = [], {}
    sensors = sorted((obj[READINGS]["sensor"], obj) for obj in scene.objects if obj.get(READINGS) is not None)
    for name, obj in sensors:
        curves = _curves(obj)
        for channel, prop in obj[READINGS]["properties"].items():
            curve = curves.get(f'["{prop}"]')
            if curve is None:
                continue
            column = f"{name}.{channel}"
            columns.append(column)
            co = np.empty(2 * len(curve.keyframe_points), dtype=np.float32)
            curve.keyframe_points.foreach_get("co", co)
            for frame, value in co.reshape(-1, 2):
                rows.setdefault(int(round(frame)), {})[column] = float(value)
    return columns, rows


def _curves(obj) -> dict:
    anim = obj.animation_data
    if anim is None or anim.action is None or anim.action_slot is None:
        return {}
    curves = {}
    for layer in anim.action.layers:
        for strip in layer.strips:
            bag = strip.channelbag(anim.action_slot)
            if bag is not None:
                curves.update((c.data_path, c) for c in bag.fcurves)
    return curves


class NoReadingsError(RuntimeError):
    """Nothing baked to export."""


def write_readings_csv(scene, path: str) -> int:
    """The baked readings as CSV: ``frame``, ``time`` (seconds from the first row), then one column
    per ``sensor.channel``; one row per keyed frame (empty where that sensor gave no reading).
    Written to a temporary file beside ``path`` and moved into place, so a failure leaves ``path`` as
    it was. Returns the rows written."""
    columns, rows = baked_readings(scene)
    if not rows:
        raise NoReadingsError("no baked sensor readings in this scene: bake a robot with sensors first")
    fps = scene.render.fps / scene.render.fps_base
    frames = sorted(rows)
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(suffix=".csv", dir=folder)
    try:
        with os.fdopen(handle, "w", newline="") as file:
            writer = csv.writer(file)
            writer.writerow(["frame", "time", *columns])
            for frame in frames:
                row = rows[frame]
                writer.writerow([frame, repr((frame - frames[0]) / fps),
                                 *(repr(row[c]) if c in row else "" for c in columns)])
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
    return len(frames)
