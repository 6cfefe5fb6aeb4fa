"""Robot files the Blender and the bpy-free tiers both import, made from real files that ship in
packages on the index (pybullet's ``pybullet_data``, extracted by `make urdf-corpus`)."""

import os
import shutil

import pytest

PYBULLET_DATA = os.environ.get("ARTICULA_PYBULLET_DATA", os.path.expanduser("~/.cache/articula/pybullet_data"))


def duck_mjcf(folder) -> str:
    """pybullet's duck (an OBJ with UVs, without its .mtl) drawn with its image as an MJCF 2D texture
    found through the compiler's texturedir; a checker floor (a builtin texture) and a box with the duck's texture."""
    if not os.path.isfile(os.path.join(PYBULLET_DATA, "duck.obj")):
        pytest.skip("pybullet's files come with `make urdf-corpus`")
    (folder / "textures").mkdir()
    shutil.copy(os.path.join(PYBULLET_DATA, "duckCM.png"), folder / "textures")
    with open(os.path.join(PYBULLET_DATA, "duck.obj")) as f:
        (folder / "duck.obj").write_text("".join(line for line in f if not line.startswith(("mtllib", "usemtl"))))
    path = folder / "duck.xml"
    path.write_text("""<mujoco model="duck"><compiler texturedir="textures"/>
  <asset><mesh name="duck" file="duck.obj" scale="0.1 0.1 0.1"/>
    <texture name="duck" type="2d" file="duckCM.png"/><material name="duck" texture="duck"/>
    <texture name="grid" type="2d" builtin="checker" width="8" height="8" rgb1="0 0 0" rgb2="1 1 1"/>
    <material name="grid" texture="grid"/><material name="crate" texture="duck"/></asset>
  <worldbody><geom type="plane" size="1 1 0.1" material="grid"/>
    <body name="duck" pos="0 0 0.2"><freejoint/><geom type="mesh" mesh="duck" material="duck"/></body>
    <body name="crate" pos="1 0 0.2"><freejoint/><geom type="box" size="0.1 0.1 0.1" material="crate"/></body>
  </worldbody></mujoco>""")
    return str(path)


MUJOCO_ROBOTS = os.environ.get("ARTICULA_MUJOCO_ROBOTS",
                               os.path.expanduser("~/.cache/articula/mujoco_robots"))
_ROBOSUITE = "robosuite/robosuite/models/assets"
_GYM_ROBOTICS = "gymnasium-robotics/gymnasium_robotics/envs/assets"
_DM_CONTROL = "dm_control/dm_control"

#: name -> (kind, entry XML under MUJOCO_ROBOTS): real MuJoCo robots nobody here wrote, each an entry that
#: MuJoCo 3.17 compiles standalone. Left out: robosuite's robotiq_gripper_85 (MuJoCo refuses its repeated
#: mesh name 'robotiq_arg2f_base_link'), xarm7_gripper (a `group` attribute on <default>, a schema error),
#: gymnasium-robotics' kitchen_franka (a kitchen scene of furniture more than a robot), rethink_gripper
#: and dm_control's jaco_hand (the same two-/three-finger grippers as panda_gripper and
#: jaco_three_finger_gripper).
MUJOCO_ROBOT_FILES = {
    "go1": ("quadruped", "mjlab/mjlab/asset_zoo/robots/unitree_go1/xmls/go1.xml"),
    "g1": ("humanoid", "mjlab/mjlab/asset_zoo/robots/unitree_g1/xmls/g1.xml"),
    "yam": ("arm", "mjlab/mjlab/asset_zoo/robots/i2rt_yam/xmls/yam.xml"),
    **{name: ("arm", f"{_ROBOSUITE}/robots/{name}/robot.xml")
       for name in ("panda", "iiwa", "jaco", "kinova3", "sawyer", "ur5e", "xarm7", "baxter", "tiago",
                    "spot_arm")},
    "spot": ("quadruped", f"{_ROBOSUITE}/robots/spot/robot.xml"),
    "gr1": ("humanoid", f"{_ROBOSUITE}/robots/gr1/robot.xml"),
    **{name: ("hand", f"{_ROBOSUITE}/grippers/{name}.xml")
       for name in ("inspire_left_hand", "fourier_left_hand", "robotiq_gripper_140", "panda_gripper",
                    "jaco_three_finger_gripper")},
    "shadow_hand": ("hand", f"{_GYM_ROBOTICS}/hand/reach.xml"),
    "adroit_hand": ("hand", f"{_GYM_ROBOTICS}/adroit_hand/adroit_door.xml"),
    "fetch": ("arm", f"{_GYM_ROBOTICS}/fetch/reach.xml"),
    "dog": ("quadruped", f"{_DM_CONTROL}/suite/dog.xml"),
    "quadruped": ("quadruped", f"{_DM_CONTROL}/suite/quadruped.xml"),
    "humanoid_CMU": ("humanoid", f"{_DM_CONTROL}/suite/humanoid_CMU.xml"),
    "cheetah": ("planar", f"{_DM_CONTROL}/suite/cheetah.xml"),
    "jaco_arm": ("arm", f"{_DM_CONTROL}/third_party/kinova/jaco_arm.xml"),
}


def mujoco_robot(name: str) -> str:
    """The entry XML of corpus robot ``name`` (:data:`MUJOCO_ROBOT_FILES`); skips when `make mujoco-robots`
    has not extracted the corpus."""
    path = os.path.join(MUJOCO_ROBOTS, MUJOCO_ROBOT_FILES[name][1])
    if not os.path.isfile(path):
        pytest.skip("the MuJoCo robot corpus comes with `make mujoco-robots`")
    return path


def mujoco_robot_scene(name: str):
    """Corpus robot ``name`` read with ``read_mjcf``, as the solver sweep simulates it: a floating robot
    without a floor of its own stands on a ground plane, lifted where its colliders start below it
    (robosuite's spot and gr1 are authored around their base, feet under z = 0)."""
    import mujoco

    from articula.core.mjcf.reader import read_mjcf
    from articula.core.model import Pose
    from articula.sim.preflight import floating_robots

    path = mujoco_robot(name)
    scene = read_mjcf(path).scene
    model = mujoco.MjModel.from_xml_path(path)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    world_planes = [g for g in range(model.ngeom)
                    if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_PLANE and model.geom_bodyid[g] == 0]
    if world_planes or not floating_robots(scene):
        return scene
    scene.settings.ground_plane = True
    colliding = [g for g in range(model.ngeom) if model.geom_bodyid[g] != 0
                 and (model.geom_contype[g] or model.geom_conaffinity[g])]
    lowest = min((_lowest_point(model, data, g) for g in colliding), default=0.0)
    if lowest < 0.0:
        for body in scene.bodies:
            (x, y, z), rotation = body.pose.pos, body.pose.rot
            body.pose = Pose((x, y, z - lowest + 0.01), rotation)
    return scene


def _lowest_point(model, data, geom: int) -> float:
    """The lowest world z of a geom's bounding box (MuJoCo's geom_aabb: centre and half sizes, geom frame)."""
    import numpy as np

    centre, half = model.geom_aabb[geom][:3], model.geom_aabb[geom][3:]
    up = data.geom_xmat[geom].reshape(3, 3)[2]  # world z in the geom's frame
    return float(data.geom_xpos[geom][2] + up @ centre - np.abs(up) @ half)
