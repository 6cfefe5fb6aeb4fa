"""Sensor readings of a bake -> animated custom properties of the sensor objects, and back out as CSV.

Each channel of a sensor's reading is one float custom property of its Empty, named
``<kind>.<channel>`` (``accelerometer.x``, ``touch.value``, ``framequat.w``), keyed at every frame the
solver gave a reading (never a made-up zero) in the bake's own layered action (a slot per sensor
object, beside the bodies' slots): the Graph Editor plots them by those names, grouped by sensor.
They are written by the bake's :meth:`finish`, so a bake that fails or is cancelled leaves the earlier
readings, and the bake's replacement of its action replaces them. ``READINGS`` on the object records
the sensor's name and its channels' properties, or why the solver gave it no reading (what
:func:`clear_readings`, the panel and the CSV export read).
"""

from __future__ import annotations

import csv
import os
import tempfile

import bpy
import numpy as np

from .blender_to_description import BAKE_MARK

#: On a baked sensor object: {"sensor": name, "properties": {channel: property}, "action": its own action's
#: name ("" if none), "unavailable": why the solver gave no reading (only then)}.
READINGS = "articula_readings"
LINEAR = 1  # Keyframe.interpolation enum index: CONSTANT, LINEAR, BEZIER


def property_name(obj, channel: str) -> str:
    return f"{obj.articula.sensor.kind}.{channel}"


def write_readings(scene, action: bpy.types.Action, readings, first_frame: int) -> int:
    """Key ``readings.history`` (:class:`addon.sensor_readings.SessionReadings`, one entry per frame
    from ``first_frame``) into the bake ``action``, then drop the earlier readings' properties; a sensor
    with no reading keeps the reason. On an error the sensor objects keep their earlier readings.
    Returns the sensors keyed."""
    strip = action.layers[0].strips[0]
    earlier = {obj: obj[READINGS].to_dict() for obj in scene.objects if obj.get(READINGS) is not None}
    records, slots, added = {}, {}, []
    try:
        for name, obj in readings.objects.items():
            series = _series(readings, name)
            if series:
                slots[obj], records[obj] = _key_sensor(obj, name, series, action, strip, first_frame, added)
            elif name in readings.unavailable:
                records[obj] = {"sensor": name, "properties": {}, "unavailable": readings.unavailable[name]}
    except BaseException:
        for obj, prop in added:
            obj.pop(prop, None)
        raise
    for obj, record in earlier.items():  # what the new bake does not key any more
        kept = records.get(obj, {}).get("properties", {}).values()
        for prop in set(record.get("properties", {}).values()) - set(kept):
            obj.pop(prop, None)
        if obj not in records:
            del obj[READINGS]
        if obj not in slots and obj.animation_data is not None:
            obj.animation_data.action = bpy.data.actions.get(record.get("action", "")) or None
    for obj, record in records.items():
        record["action"] = earlier[obj].get("action", "") if obj in earlier else _own_action(obj)
        obj[READINGS] = record
    for obj, slot in slots.items():
        anim = obj.animation_data or obj.animation_data_create()
        anim.action = action
        anim.action_slot = slot
    return len(slots)


def _own_action(obj) -> str:
    """The name of ``obj``'s own (not baked) action, "" if none."""
    action = obj.animation_data.action if obj.animation_data is not None else None
    return action.name if action is not None and not action.get(BAKE_MARK) else ""


def _series(readings, name: str) -> dict[str, list[tuple[int, float]]]:
    """Channel -> [(frame offset, value)] over the frames that read ``name``, in channel order."""
    series: dict[str, list[tuple[int, float]]] = {c: [] for c in readings.channel_names(name)}
    for offset, frame in enumerate(readings.history):
        for channel, value in frame.get(name, {}).items():
            series.setdefault(channel, []).append((offset, value))
    return {channel: keys for channel, keys in series.items() if keys}


def _key_sensor(obj, name: str, series: dict, action, strip, first_frame: int, added: list) -> tuple:
    """Key ``obj``'s channels in a new slot of ``action`` (its properties made, new ones noted in
    ``added``); the object is moved onto the slot once every sensor is keyed. Returns (slot, record)."""
    slot = action.slots.new(id_type="OBJECT", name=obj.name)
    bag = strip.channelbag(slot, ensure=True)
    group = bag.groups.new(name)
    properties = {}
    for channel, keys in series.items():
        prop = properties[channel] = property_name(obj, channel)
        if prop not in obj:
            added.append((obj, prop))
            obj[prop] = float(keys[0][1])
        curve = bag.fcurves.new(f'["{prop}"]')
        curve.group = group
        co = np.array([(first_frame + offset, value) for offset, value in keys], dtype=np.float32)
        curve.keyframe_points.add(len(keys))
        curve.keyframe_points.foreach_set("co", co.ravel())
        curve.keyframe_points.foreach_set("interpolation", np.full(len(keys), LINEAR, dtype=np.int32))
        curve.update()
    return slot, {"sensor": name, "properties": properties}


def clear_readings(scene) -> int:
    """Remove the baked readings' properties from every sensor object and give it back the action it
    had before. Returns the sensor objects cleared."""
    cleared = 0
    for obj in scene.objects:
        record = obj.get(READINGS)
        if record is None:
            continue
        for prop in record.get("properties", {}).values():
            obj.pop(prop, None)
        if obj.animation_data is not None:
            obj.animation_data.action = bpy.data.actions.get(record.get("action", "")) or None
        del obj[READINGS]
        cleared += 1
    return cleared


def baked_readings(scene) -> tuple[list[str], dict[int, dict[str, float]]]:
    """The baked readings as a table: its columns (``sensor.channel``, by sensor name) and, per keyed
    frame, the value of each column keyed there."""
    columns, rows = [], {}
    baked = [o for o in scene.objects if o.get(READINGS) is not None]
    for obj in sorted(baked, key=lambda o: o[READINGS]["sensor"]):
        name = obj[READINGS]["sensor"]
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
                writer.writerow([frame, f"{(frame - frames[0]) / fps:.9g}",  # keys are float32: 9 digits
                                 *(f"{row[c]:.9g}" if c in row else "" for c in columns)])
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
    return len(frames)
