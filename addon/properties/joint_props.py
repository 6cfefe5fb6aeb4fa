"""A joint Empty's settings: every field of ``core.model.Joint`` except what the scene implies.

The joint's name is the Empty's name; its frame is the Empty's world matrix (scale ignored);
``local_pose1`` follows from body1's world pose, ``local_pose0`` from body0's world pose and
``body0_frame_offset`` (identity when the two frames agree at the authored pose).
"""

import math
from contextlib import contextmanager

import bpy
from bpy.props import BoolProperty, CollectionProperty, EnumProperty, FloatVectorProperty, IntProperty
from bpy.props import PointerProperty

from ...core.model import DofAxis, JointType, dof_axes_for
from ..property_snapshot import restore, snapshot
from .common import AXIS_ITEMS, UNBOUNDED, enum_items, float_prop, is_body_object, unit_view
from .dof_props import ArticulaDofProps
from .tendon_props import is_joint_object

INFINITE_WHEN_OFF = {
    "cone_limit0": ("has_cone_limit0", math.inf),
    "cone_limit1": ("has_cone_limit1", math.inf),
}

_TYPE_DESCRIPTIONS = {
    "FIXED": "Welds the two bodies together",
    "REVOLUTE": "Rotates about one axis",
    "PRISMATIC": "Slides along one axis",
    "SPHERICAL": "Rotates about every axis, optionally inside a cone",
    "D6": "Each of the six axes is free, limited or locked",
}


def sync_dofs(joint) -> None:
    """Make ``joint.dofs`` the DOFs of its type and axis, keeping the settings of kept axes.

    A single-DOF joint whose axis changes keeps its settings (actuators included) on the new axis.
    """
    wanted = [a.value for a in dof_axes_for(JointType(joint.type), joint.axis)]
    old = [snapshot(d) for d in joint.dofs]
    if [v["axis"] for v in old] == wanted:
        return
    by_axis = {v["axis"]: v for v in old}
    joint.dofs.clear()
    for axis in wanted:
        values = by_axis.get(axis)
        if values is None and len(wanted) == 1 and len(old) == 1 \
                and DofAxis(old[0]["axis"]).is_angular == DofAxis(axis).is_angular:
            values = old[0]
        dof = joint.dofs.add()
        restore(dof, values or {})
        dof.axis = axis
    joint.active_dof_index = min(joint.active_dof_index, max(len(joint.dofs) - 1, 0))


_unsynced = False  # while True, type/axis updates leave ``dofs`` to the caller


@contextmanager
def dofs_unsynced():
    """Set a joint's type and axis without rebuilding its DOFs each time; the caller writes
    ``dofs`` itself (an import writes every DOF field, so two rebuilds would be thrown away)."""
    global _unsynced
    previous, _unsynced = _unsynced, True
    try:
        yield
    finally:
        _unsynced = previous


def _sync(self, _context):
    if not _unsynced:
        sync_dofs(self)


class ArticulaJointProps(bpy.types.PropertyGroup):
    enabled: BoolProperty(name="Joint", description="This Empty is a joint; its world matrix is the joint frame")
    type: EnumProperty(name="Type", items=enum_items(JointType, {"D6": "D6"}, _TYPE_DESCRIPTIONS),
                       default=JointType.REVOLUTE.value, update=_sync)
    body0: PointerProperty(name="Body 0", type=bpy.types.Object, poll=is_body_object,
                           description="Parent-side body; empty: the world")
    body1: PointerProperty(name="Body 1", type=bpy.types.Object, poll=is_body_object,
                           description="Child-side body; the joint Empty is parented to it")
    axis: EnumProperty(name="Axis", items=AXIS_ITEMS, default="X", update=_sync,
                       description="Revolute/prismatic/spherical axis in the joint frame")
    dofs: CollectionProperty(type=ArticulaDofProps, name="Degrees of Freedom")
    active_dof_index: IntProperty(name="Active DOF", min=0)
    has_cone_limit0: BoolProperty(name="Cone Limit 0", description="Spherical: limit the swing about the "
                                  "first perpendicular axis; off: no limit")
    cone_limit0: float_prop("Cone Angle 0", "Spherical: cone half-angle about the first perpendicular axis",
                            default=math.radians(45.0), subtype="ANGLE", soft_min=0.0, soft_max=math.pi)
    has_cone_limit1: BoolProperty(name="Cone Limit 1", description="Spherical: limit the swing about the "
                                  "second perpendicular axis; off: no limit")
    cone_limit1: float_prop("Cone Angle 1", "Spherical: cone half-angle about the second perpendicular axis",
                            default=math.radians(45.0), subtype="ANGLE", soft_min=0.0, soft_max=math.pi)
    active: BoolProperty(name="Active", default=True,
                         description="The joint constrains its bodies (off: authored but disabled)")
    collide_bodies: BoolProperty(
        name="Collide Bodies",
        description="Body 0 and body 1 may collide (a parent and its child body still do not while the "
                    "scene's Filter Parent Collisions is on)")
    exclude_from_articulation: BoolProperty(
        name="Exclude from Articulation",
        description="A loop-closing joint, solved as a constraint outside the articulation tree")
    body0_frame_offset_location: FloatVectorProperty(
        name="Body 0 Frame Offset", size=3, subtype="TRANSLATION", unit="LENGTH", **UNBOUNDED,
        description="Body 0's joint frame relative to the Empty (zero when both frames agree)")
    body0_frame_offset_rotation: FloatVectorProperty(
        name="Body 0 Frame Rotation", size=4, subtype="QUATERNION", default=(1.0, 0.0, 0.0, 0.0),
        **UNBOUNDED, description="Body 0's joint frame rotation relative to the Empty")
    # A coupled joint (core.model.Mimic): this joint's position = offset + gear * the leader's.
    has_mimic: BoolProperty(name="Mimic", description="This joint follows another joint (URDF mimic, "
                            "MuJoCo joint equality): position = offset + gear * the leader's position")
    mimic_leader: PointerProperty(name="Leader", type=bpy.types.Object, poll=is_joint_object,
                                  description="The joint this one follows")
    mimic_gear: float_prop("Gear", "Multiplier of the leader's position", default=1.0)
    mimic_offset: float_prop("Offset", "Added to gear * the leader's position (rad or m)")
    mimic_offset_angle: unit_view("mimic_offset", "Offset", "Added to gear * the leader's angle",
                                  subtype="ANGLE", unit="ROTATION")
    mimic_higher_terms: FloatVectorProperty(
        name="Polynomial Terms", size=3, **UNBOUNDED,
        description="Coefficients of the leader's position squared, cubed and to the 4th power, added to "
                    "the position (MuJoCo joint equality polycoef; simulated on MuJoCo only)")
    # Blender keeps no order among objects; a file's joint order matters where joints stack on one body
    # (MuJoCo hips, planar roots): Newton merges them into one D6 in that order.
    file_order: IntProperty(name="File Order", default=-1, min=-1, options={"HIDDEN"},
                            description="A joint stacked with others on one body: its place among the "
                                        "joints of the file it came from (-1: made in Blender); export "
                                        "writes stacked joints in this order")


classes = (ArticulaJointProps,)
