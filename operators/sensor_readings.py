"""Export the baked sensor readings as CSV (``addon.adapters.readings_to_keyframes`` reads the keys)."""

import bpy
from bpy.props import StringProperty
from bpy_extras.io_utils import ExportHelper


class ARTICULA_OT_export_readings(bpy.types.Operator, ExportHelper):
    """Write the baked sensor readings as CSV: one row per frame, one column per sensor channel"""

    bl_idname = "articula.export_readings"
    bl_label = "Export Readings (.csv)"
    bl_options = {"REGISTER"}

    filename_ext = ".csv"
    filter_glob: StringProperty(default="*.csv", options={"HIDDEN"})

    def execute(self, context):
        from ..addon.adapters.readings_to_keyframes import NoReadingsError, write_readings_csv

        try:
            rows = write_readings_csv(context.scene, self.filepath)
        except (NoReadingsError, OSError) as error:
            self.report({"ERROR"}, f"{error}; nothing written to {self.filepath}")
            return {"CANCELLED"}
        self.report({"INFO"}, f"Exported {rows} frames of sensor readings to {self.filepath}")
        return {"FINISHED"}


classes = (ARTICULA_OT_export_readings,)

register, unregister = bpy.utils.register_classes_factory(classes)
