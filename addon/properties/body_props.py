"""A body's settings: every stored field of ``core.model.Body`` (pose and parent come from Blender)."""

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatVectorProperty, IntProperty

from .common import UNBOUNDED, float_prop

MASS_MODES = [
    ("AUTO", "Auto", "Mass properties from the densities of the body's own colliders"),
    ("MANUAL", "Manual", "Mass, center of mass and inertia as entered"),
]


class ArticulaBodyProps(bpy.types.PropertyGroup):
    enabled: BoolProperty(name="Rigid Body", description="This object is a rigid body; its Blender parent "
                          "chain is the kinematic tree")
    kinematic: BoolProperty(name="Kinematic", description="Moved by its animation, not by forces")
    mass_mode: EnumProperty(name="Mass", items=MASS_MODES, default="AUTO")
    mass: float_prop("Mass", "Body mass", default=1.0, unit="MASS", soft_min=0.0)
    center_of_mass: FloatVectorProperty(name="Center of Mass", size=3, subtype="TRANSLATION", unit="LENGTH",
                                        description="In the body frame", **UNBOUNDED)
    diagonal_inertia: FloatVectorProperty(name="Diagonal Inertia", size=3, subtype="XYZ",
                                          description="Principal moments at the center of mass (kg*m^2)",
                                          **UNBOUNDED)
    principal_axes: FloatVectorProperty(name="Principal Axes", size=4, subtype="QUATERNION",
                                        default=(1.0, 0.0, 0.0, 0.0), **UNBOUNDED,
                                        description="Rotation of the inertia axes in the body frame (w, x, y, z)")
    world: IntProperty(name="World", description="Simulation world index; -1: global, collides with every world")
    self_collision: BoolProperty(name="Self Collision", default=True,
                                 description="On an articulation root: its links may collide with each other")
    linear_velocity: FloatVectorProperty(name="Linear Velocity", size=3, subtype="VELOCITY", unit="VELOCITY",
                                         description="Initial velocity (world frame)", **UNBOUNDED)
    angular_velocity: FloatVectorProperty(name="Angular Velocity", size=3, subtype="EULER", unit="ROTATION",
                                          description="Initial angular velocity (world frame, per second)",
                                          **UNBOUNDED)


classes = (ArticulaBodyProps,)
