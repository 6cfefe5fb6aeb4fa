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
