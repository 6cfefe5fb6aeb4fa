"""A site (``core.model.Site``): an Empty on its body, a named frame where sensors read, tendons pass and
end effectors sit. Its body is the nearest body up its parent chain; its pose is the Empty's."""

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatVectorProperty, IntProperty

from ...core.model import SiteKind
from .common import UNBOUNDED, enum_items

_KIND_DESCRIPTIONS = {
    "SPHERE": "Size: its radius",
    "CAPSULE": "Size: radius and half-length along Z",
    "ELLIPSOID": "Size: the three radii",
    "CYLINDER": "Size: radius and half-length along Z",
    "BOX": "Size: the three half-extents",
}

#: How an Empty draws each kind of site.
EMPTY_DISPLAY = {"SPHERE": "SPHERE", "ELLIPSOID": "SPHERE", "CAPSULE": "SINGLE_ARROW",
                 "CYLINDER": "SINGLE_ARROW", "BOX": "CUBE"}


def is_site_object(_self, obj) -> bool:
    return obj.articula.site.enabled


def _show_size(self, _context):
    obj = self.id_data
    if isinstance(obj, bpy.types.Object) and obj.type == "EMPTY":
        obj.empty_display_type = EMPTY_DISPLAY[self.kind]
        obj.empty_display_size = max(max(self.size), 1e-4)


class ArticulaSiteProps(bpy.types.PropertyGroup):
    enabled: BoolProperty(name="Site", description="This Empty is a site: a named frame on its body "
                          "(MuJoCo site) where sensors read and tendons pass; it never collides")
    kind: EnumProperty(name="Kind", items=enum_items(SiteKind, descriptions=_KIND_DESCRIPTIONS),
                       default=SiteKind.SPHERE.value, update=_show_size)
    size: FloatVectorProperty(name="Size", size=3, subtype="XYZ_LENGTH", unit="LENGTH", soft_min=0.0,
                              default=(0.005, 0.005, 0.005), **UNBOUNDED, update=_show_size)
    color: FloatVectorProperty(name="Color", size=4, subtype="COLOR", min=0.0, max=1.0,
                               default=(0.5, 0.5, 0.5, 1.0))
    group: IntProperty(name="Group", description="MuJoCo's visibility group", min=0, max=5)


classes = (ArticulaSiteProps,)
