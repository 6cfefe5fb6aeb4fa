"""3D View sidebar, tab "Articula": every sensor's reading while a simulation runs (named channels; what
the solver cannot give is named with its reason, never shown as zero), and the baked readings' export."""

import bpy

from ..addon.adapters.readings_to_keyframes import READINGS
from ..addon.sensor_readings import live_readings
from .sidebar import _SidebarPanel


def _has_sensors(scene) -> bool:
    return any(o.type == "EMPTY" and o.articula.sensor.enabled for o in scene.objects)


class ARTICULA_PT_sensor_readings(_SidebarPanel, bpy.types.Panel):
    bl_label = "Sensor Readings"
    bl_options = {"DEFAULT_CLOSED"}

    @classmethod
    def poll(cls, context):
        return live_readings() is not None or _has_sensors(context.scene)

    def draw(self, context):
        layout = self.layout
        readings = live_readings()
        if readings is not None:
            draw_live(layout, readings)
            return
        baked = [o for o in context.scene.objects if o.get(READINGS) is not None]
        if not baked:
            layout.label(text="Simulate to read the sensors live; a bake keys them", icon="INFO")
            return
        draw_baked(layout, sorted(baked, key=lambda o: o[READINGS]["sensor"]))
        row = layout.row()
        row.enabled = any(o[READINGS]["properties"] for o in baked)
        row.operator("articula.export_readings", icon="EXPORT")


def draw_baked(layout, objects: list) -> None:
    """The baked readings at the current frame, one box per sensor (or why the bake has none)."""
    layout.label(text="Baked readings at this frame", icon="GRAPH")
    for obj in objects:
        record = obj[READINGS]
        box = layout.box().column(align=True)
        box.label(text=record["sensor"], icon="OUTLINER_OB_EMPTY")
        if "unavailable" in record:
            box.label(text=f"Not read: {record['unavailable']}", icon="ERROR")
            continue
        grid = box.grid_flow(columns=2, align=True)
        for channel, prop in record["properties"].items():
            grid.label(text=f"{channel}: {obj.get(prop, float('nan')):.4g}")


def draw_live(layout, readings) -> None:
    """One box per sensor: its channels' values, or why there is none."""
    for name in readings.names:
        box = layout.box().column(align=True)
        box.label(text=name, icon="OUTLINER_OB_EMPTY")
        if name in readings.unavailable:
            box.label(text=f"Not read: {readings.unavailable[name]}", icon="ERROR")
            continue
        values = readings.latest.get(name)
        if values is None:
            box.label(text="No reading yet (the first step gives it)", icon="TIME")
        else:
            grid = box.grid_flow(columns=2, align=True)
            for channel, value in values.items():
                grid.label(text=f"{channel}: {value:.4g}")
        if name in readings.notes:
            box.label(text=readings.notes[name], icon="INFO")


classes = (ARTICULA_PT_sensor_readings,)

register, unregister = bpy.utils.register_classes_factory(classes)
