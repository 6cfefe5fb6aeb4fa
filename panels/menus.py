"""File > Import / Export entries for Articula's UsdPhysics files."""

import bpy

LABEL = "Articula Physics (.usd)"


def draw_import(self, context):
    self.layout.operator("articula.import_usd", text=LABEL)


def draw_import_robot_formats(self, context):
    self.layout.operator("articula.import_urdf", text="Articula Robot (.urdf)")
    self.layout.operator("articula.import_mjcf", text="Articula MuJoCo Robot (.xml)")


def draw_export(self, context):
    self.layout.operator("articula.export_usd", text=LABEL)
    self.layout.operator("articula.export_mjcf", text="Articula MuJoCo Robot (.xml)")
    self.layout.operator("articula.export_urdf", text="Articula Robot (.urdf)")


def draw_object(self, context):
    self.layout.operator("articula.delete_body", icon="TRASH")
    self.layout.operator_menu_enum("articula.add_sensor", "kind", text="Add Articula Sensor")
    self.layout.operator("articula.add_site", text="Add Articula Site")
    self.layout.operator("articula.add_robot_camera", text="Add Articula Robot Camera")


_MENUS = (("TOPBAR_MT_file_import", draw_import), ("TOPBAR_MT_file_import", draw_import_robot_formats),
          ("TOPBAR_MT_file_export", draw_export),
          ("VIEW3D_MT_object", draw_object))


def register():
    for menu, draw in _MENUS:
        getattr(bpy.types, menu).append(draw)


def unregister():
    for menu, draw in reversed(_MENUS):
        getattr(bpy.types, menu).remove(draw)
