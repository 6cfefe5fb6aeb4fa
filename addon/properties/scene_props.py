"""Scene-wide settings: ``core.model.SceneSettings``, the physics materials, filtered pairs, fixed
tendons and MuJoCo's scene lists (keyframes, equalities, contact pairs, spatial tendons), problems."""

import bpy
from bpy.props import BoolProperty, CollectionProperty, EnumProperty, FloatVectorProperty, IntProperty
from bpy.props import PointerProperty, StringProperty

from ...core.model import Solver
from .common import UNBOUNDED, enum_items, float_prop
from .actuator_props import ArticulaActuatorProps
from .contact_pair_props import ArticulaContactPairProps
from .equality_props import ArticulaEqualityProps
from .filtered_pair_props import ArticulaFilteredPairProps
from .keyframe_props import ArticulaKeyframeProps
from .mujoco_props import ArticulaMuJoCoProps
from .spatial_tendon_props import ArticulaSpatialTendonProps
from .material_props import ArticulaMaterialProps
from .problem_props import ArticulaProblemProps
from .tendon_equality_props import ArticulaTendonEqualityProps
from .tendon_props import ArticulaTendonProps

_SOLVER_LABELS = {"FEATHERSTONE": "Featherstone", "MUJOCO": "MuJoCo", "XPBD": "XPBD"}


class ArticulaSceneProps(bpy.types.PropertyGroup):
    world_name: StringProperty(name="World Name", default="World",
                               description="Name of the physics scene (the USD default prim)")
    robot_type: StringProperty(name="Robot Type", default="",
                               description="Isaac robot type (Manipulator, Quadruped, Humanoid, Wheeled...) "
                                           "written as isaac:robotType; empty: inferred on export")
    gravity: FloatVectorProperty(name="Gravity", size=3, subtype="ACCELERATION", unit="ACCELERATION",
                                 default=(0.0, 0.0, -9.81), **UNBOUNDED)
    steps_per_second: float_prop("Steps per Second", "Physics steps per second (time step = 1 / this)",
                                 default=600.0, soft_min=1.0, soft_max=10000.0)
    solver: EnumProperty(name="Solver", items=enum_items(Solver, _SOLVER_LABELS), default=Solver.MUJOCO.value)
    solver_iterations: IntProperty(name="Iterations", default=10, soft_min=1, soft_max=1000)
    collision_filter_parent: BoolProperty(name="Filter Parent Collisions", default=True,
                                          description="A body never collides with its parent body")
    replicas: IntProperty(name="Replicas", default=1, soft_min=1, soft_max=4096,
                          description="Copies of the robot worlds laid out on a grid")
    replica_spacing: float_prop("Replica Spacing", "Distance between grid cells", default=2.0,
                                subtype="DISTANCE", unit="LENGTH", soft_min=0.0)
    ground_plane: BoolProperty(name="Ground Plane", description="Add an infinite static ground at z = 0")
    # Playing with the live simulation (not part of the physics description)
    grab_stiffness: float_prop("Grab Stiffness",
                               "Pull of a grabbed point toward the mouse, as acceleration per metre (1/s², "
                               "times the inertia felt at the grabbed point)", default=500.0, min=0.0, soft_max=5000.0)
    grab_max_acceleration: float_prop("Grab Limit", "Largest pull, in g: the force is capped at this "
                                      "acceleration times the mass of the grabbed robot",
                                      default=5.0, min=0.0, soft_max=50.0)
    push_speed: float_prop("Push Speed", "Speed a Shift+click push gives the point it hits (m/s)",
                           default=1.0, min=0.0, soft_max=20.0)
    record_simulation: BoolProperty(
        name="Record", description="Write the live simulation into keyframes from the current frame on: "
                                   "Stop & Keep keeps them (replacing an earlier bake), Cancel or Esc leaves "
                                   "the scene as it was")
    materials: CollectionProperty(type=ArticulaMaterialProps, name="Physics Materials")
    active_material_index: IntProperty(name="Active Material", min=0)
    filtered_pairs: CollectionProperty(type=ArticulaFilteredPairProps, name="Filtered Pairs")
    active_filtered_pair_index: IntProperty(name="Active Filtered Pair", min=0)
    tendons: CollectionProperty(type=ArticulaTendonProps, name="Fixed Tendons")
    active_tendon_index: IntProperty(name="Active Tendon", min=0)
    keyframes: CollectionProperty(type=ArticulaKeyframeProps, name="Keyframes")
    active_keyframe_index: IntProperty(name="Active Keyframe", min=0)
    equalities: CollectionProperty(type=ArticulaEqualityProps, name="Welds and Connects")
    active_equality_index: IntProperty(name="Active Equality", min=0)
    contact_pairs: CollectionProperty(type=ArticulaContactPairProps, name="Contact Pairs")
    active_contact_pair_index: IntProperty(name="Active Contact Pair", min=0)
    spatial_tendons: CollectionProperty(type=ArticulaSpatialTendonProps, name="Spatial Tendons")
    active_spatial_tendon_index: IntProperty(name="Active Spatial Tendon", min=0)
    tendon_equalities: CollectionProperty(type=ArticulaTendonEqualityProps, name="Tendon Equalities")
    active_tendon_equality_index: IntProperty(name="Active Tendon Equality", min=0)
    frame_actuators: CollectionProperty(type=ArticulaActuatorProps, name="Frame Actuators",
                                        description="Actuators on sites, bodies, ball joints and spatial "
                                                    "tendons")
    active_frame_actuator_index: IntProperty(name="Active Frame Actuator", min=0)
    mujoco: PointerProperty(type=ArticulaMuJoCoProps, name="MuJoCo Options")
    problems: CollectionProperty(type=ArticulaProblemProps, name="Problems")
    active_problem_index: IntProperty(name="Active Problem", min=0)


classes = (ArticulaSceneProps,)
