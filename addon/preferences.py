"""Add-on preferences: where the simulation runs, what Blender's own USD I/O adds, ROS package paths."""

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty

# The extension's top-level package: ``bl_ext.<repo>.articula`` when installed, ``articula`` in tests.
ADDON_ID = __package__.rpartition(".")[0]

DEVICES = [
    ("AUTO", "Automatic", "CUDA when a CUDA GPU is available, else the CPU"),
    ("CPU", "CPU", "Always simulate on the CPU"),
    ("CUDA", "CUDA", "Simulate on the CUDA GPU (fails when none is available)"),
]


class ArticulaPreferences(bpy.types.AddonPreferences):
    bl_idname = ADDON_ID

    device: EnumProperty(name="Simulation Device", items=DEVICES, default="AUTO")
    usd_export_physics: BoolProperty(
        name="Physics in File > Export > USD", default=True,
        description="Blender's own USD export also writes Articula's rigid bodies, joints and colliders")
    usd_import_physics: BoolProperty(
        name="Physics in File > Import > USD", default=True,
        description="Blender's own USD import also brings the file's UsdPhysics rigid bodies, joints and "
                    "colliders as Articula physics")

    usd_isaac_schema: BoolProperty(
        name="Isaac Robot Schema in File > Export > USD", default=True,
        description="Blender's own USD export also writes the Isaac robot schema (robot type, links and joints "
                    "in kinematic order), a physics material on every collider and kind = component")

    package_paths: StringProperty(
        name="Package Paths", default="",
        description="Folders searched for ROS packages (package:// meshes, xacro's $(find pkg)) by the URDF "
                    "importer, separated by ';'; the last ones used there are kept here")

    def draw(self, _context):
        self.layout.prop(self, "device")
        self.layout.prop(self, "usd_export_physics")
        self.layout.prop(self, "usd_isaac_schema")
        self.layout.prop(self, "usd_import_physics")
        self.layout.prop(self, "package_paths")


def preferences(context=None):
    """The add-on's preferences, or ``None`` when the add-on is not enabled under its id."""
    addon = (context or bpy.context).preferences.addons.get(ADDON_ID)
    return addon.preferences if addon else None


classes = (ArticulaPreferences,)

register, unregister = bpy.utils.register_classes_factory(classes)
