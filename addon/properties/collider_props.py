"""A collider's settings: every stored field of ``core.model.Shape``.

Sizes are in the object's own frame; the adapter multiplies them by the object's world scale
(box: per axis; sphere: the largest; capsule/cylinder: radius by the largest perpendicular
scale, half height by the scale along the axis), as ``core.model.Shape`` wants final sizes.
"""

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatVectorProperty, IntProperty, StringProperty

from ...core.model import DEFAULT_SOLIMP, DEFAULT_SOLREF, ShapeKind
from .common import AXIS_ITEMS, UNBOUNDED, enum_items, float_prop

MESH_KINDS = (ShapeKind.MESH.value, ShapeKind.CONVEX_HULL.value)


def size_factors(kind: str, axis: str, scale) -> tuple[tuple[float, float, float], float, float]:
    """(half extents, radius, half height) factors that turn property sizes into final sizes.

    Mesh shapes keep their scale separately (``Shape.scale``), so their factors are 1.
    """
    if kind in MESH_KINDS:
        return (1.0, 1.0, 1.0), 1.0, 1.0
    s = tuple(abs(c) for c in scale)
    along = "XYZ".index(axis)
    across = max(c for i, c in enumerate(s) if i != along)
    radius = max(s) if kind == ShapeKind.SPHERE.value else across
    return s, radius, s[along]

_SHAPE_LABELS = {"CONVEX_HULL": "Convex Hull", "MESH": "Triangle Mesh", "HEIGHT_FIELD": "Height Field"}
_SHAPE_DESCRIPTIONS = {
    "BOX": "A box of the given half extents",
    "SPHERE": "A sphere of the given radius",
    "CAPSULE": "A cylinder with hemispherical caps along the axis",
    "CYLINDER": "A cylinder along the axis",
    "CONVEX_HULL": "The convex hull of the object's mesh",
    "MESH": "The object's mesh as triangles",
    "PLANE": "An infinite plane through the origin, normal along +Z",
    "HEIGHT_FIELD": "Terrain: the mesh's surface (modifiers applied) as an elevation grid over its XY "
                    "bounds, static",
}


class ArticulaColliderProps(bpy.types.PropertyGroup):
    enabled: BoolProperty(name="Collider", description="This object collides: the body object itself or "
                          "a child of a body (static when under no body)")
    shape: EnumProperty(name="Shape", items=enum_items(ShapeKind, _SHAPE_LABELS, _SHAPE_DESCRIPTIONS),
                        default=ShapeKind.BOX.value)
    half_extents: FloatVectorProperty(name="Half Extents", size=3, subtype="XYZ_LENGTH", unit="LENGTH",
                                      default=(0.5, 0.5, 0.5), soft_min=0.0, **UNBOUNDED)
    radius: float_prop("Radius", default=0.5, subtype="DISTANCE", unit="LENGTH", soft_min=0.0)
    half_height: float_prop("Half Height", "Half length of the straight part along the axis", default=0.5,
                            subtype="DISTANCE", unit="LENGTH", soft_min=0.0)
    axis: EnumProperty(name="Axis", items=AXIS_ITEMS, default="Z", description="Capsule/cylinder axis")
    collider_only: BoolProperty(name="Collider Only",
                                description="The mesh is not rendered as a visual (child colliders never are)")
    material: StringProperty(name="Physics Material", description="A material of the scene's list; "
                             "empty: default friction")
    has_density: BoolProperty(name="Density", description="Own density; off: the material's (or the default)")
    density: float_prop("Density", "kg/m^3", default=1000.0, soft_min=0.0)
    collision_group: IntProperty(name="Collision Group", default=1, description="0: collides with nothing; "
                                 "positive: same group and negatives; negative: all but the same negative")
    world: IntProperty(name="World", description="Simulation world index; -1: global (static ground)")
    contact_margin: float_prop("Contact Margin", "Broad phase expansion", subtype="DISTANCE", unit="LENGTH",
                               soft_min=0.0)
    contact_gap: float_prop("Contact Gap", "Contacts are generated below this separation", subtype="DISTANCE",
                            unit="LENGTH", soft_min=0.0)
    # A height field's grid (core.model.HeightField); its sizes come from the evaluated mesh.
    hfield_rows: IntProperty(name="Rows", min=0, soft_max=1024, description="Samples along Y; 0: the "
                             "mesh's own grid (sampled where the mesh is no regular grid)")
    hfield_columns: IntProperty(name="Columns", min=0, soft_max=1024, description="Samples along X; 0: the "
                                "mesh's own grid (sampled where the mesh is no regular grid)")
    hfield_base: float_prop("Base", "Depth of the solid below the lowest point; 0: 10% of the larger "
                            "half size", subtype="DISTANCE", unit="LENGTH", soft_min=0.0)
    hfield_elevation: float_prop("Elevation", "The file's elevation, kept for a flat surface (whose "
                                 "mesh has none)", subtype="DISTANCE", unit="LENGTH", soft_min=0.0)
    hfield_half_size: FloatVectorProperty(name="Half Size", size=2, subtype="XYZ_LENGTH", unit="LENGTH",
                                          soft_min=0.0, **UNBOUNDED,
                                          description="The file's half sizes in X and Y (export reads "
                                          "the mesh's)")
    hfield_name: StringProperty(name="Height Field Name", description="The elevation asset's name "
                                "(empty: the object's)")
    # MuJoCo's contact model of this collider (core.model.ContactParams); off: MuJoCo's defaults.
    has_contact: BoolProperty(name="MuJoCo Contact", description="Own MuJoCo contact parameters (condim, "
                              "priority, solref, solimp, solmix); off: MuJoCo's defaults")
    condim: IntProperty(name="Condim", default=3, min=1, max=6,
                        description="1 frictionless, 3 sliding, 4 and torsional, 6 and rolling friction")
    priority: IntProperty(name="Priority", description="The higher priority collider's parameters win")
    solref: FloatVectorProperty(name="Solref", size=2, default=DEFAULT_SOLREF, **UNBOUNDED,
                                description="MuJoCo's solver reference: time constant, damping ratio")
    solimp: FloatVectorProperty(name="Solimp", size=5, default=DEFAULT_SOLIMP, **UNBOUNDED,
                                description="MuJoCo's solver impedance: dmin, dmax, width, midpoint, power")
    solmix: float_prop("Solmix", "Weight of this collider's parameters in a contact", default=1.0,
                       soft_min=0.0)


classes = (ArticulaColliderProps,)
