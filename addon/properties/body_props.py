"""A body's settings: every stored field of ``core.model.Body`` (pose and parent come from Blender),
and its rest pose.

The rest pose is the robot as authored (what export, validation and the joint zeros use); the
object's current pose may be a simulated state (Simulate's Stop & Keep sets ``posed``) or a baked
frame. ``rest_location``/``rest_rotation`` are captured when the body leaves its rest (a simulation
or bake starts while it is at rest) and by Apply Pose as Rest; while the body is at rest (not
``posed``, not animated by the bake) its rest is simply its current pose.
"""

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatVectorProperty, IntProperty, StringProperty

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
    fixed_base: BoolProperty(name="Fixed Base", description="Anchor this body (an articulation's root) to the "
                             "world: a fixed joint to the world, written to USD as a fixed joint with only "
                             "body 1")
    free_joint_name: StringProperty(name="Free Joint Name", description="The name the file gives this "
                                    "floating body's free joint (empty: unnamed)")
    free_joint_damping: float_prop("Damping", "MuJoCo: passive damping on each of the floating body's 6 "
                                   "free-joint DOFs (N*s/m, N*m*s/rad)", min=0.0)
    free_joint_armature: float_prop("Armature", "MuJoCo: added inertia on each free-joint DOF (kg, kg*m^2)",
                                    min=0.0)
    free_joint_friction: float_prop("Friction", "MuJoCo: dry friction (frictionloss) on each free-joint DOF "
                                    "(N, N*m)", min=0.0)
    free_joint_stiffness: float_prop("Stiffness", "MuJoCo: a spring holding the floating body to its start "
                                     "pose (N/m, N*m/rad)", min=0.0)
    posed: BoolProperty(name="Posed", description="The body shows a simulated state, away from its rest pose "
                        "(Apply Pose as Rest or Reset to Rest ends it)")
    rest_location: FloatVectorProperty(name="Rest Location", size=3, subtype="TRANSLATION", unit="LENGTH",
                                       description="World location at rest (kept while posed or baked)",
                                       **UNBOUNDED)
    rest_rotation: FloatVectorProperty(name="Rest Rotation", size=4, subtype="QUATERNION",
                                       default=(1.0, 0.0, 0.0, 0.0), **UNBOUNDED,
                                       description="World rotation at rest (w, x, y, z)")


classes = (ArticulaBodyProps,)
