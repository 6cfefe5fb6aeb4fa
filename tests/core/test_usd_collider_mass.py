"""Masses as authored on colliders (UsdPhysics MassAPI rules): a body's mass is the sum of its
colliders', each its own authored mass or, where it has none (or 0), density x volume; centre of
mass and inertia combine accordingly; a mass authored on the body itself still wins."""

import math
import os
import subprocess

import numpy as np
import pytest
from pxr import Gf, Usd, UsdGeom, UsdPhysics

from articula.core.usd.reader import read_usd
from articula.core.usd.writer import write_usd

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONVERTER = os.path.join(ROOT, ".venv-converter", "bin", "mujoco_usd_converter")


def body_with_colliders(body_mass=None, body_density=None):
    """A body with a 0.2 m cube of mass 2 at x=0.3, a 0.1 m-radius sphere with mass 0 (so density
    x volume, 1000 kg/m^3 by default) at the origin, and a 0.1 m cube with density 500 and mass 1 (the
    mass wins) at x=-0.3."""
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    UsdPhysics.Scene.Define(stage, "/physicsScene")
    body = UsdGeom.Xform.Define(stage, "/robot/body").GetPrim()
    UsdPhysics.RigidBodyAPI.Apply(body)
    UsdPhysics.ArticulationRootAPI.Apply(body)
    if body_mass is not None:
        UsdPhysics.MassAPI.Apply(body).CreateMassAttr(body_mass)
    if body_density is not None:
        UsdPhysics.MassAPI.Apply(body).CreateDensityAttr(body_density)

    def collider(name, shape, x, mass=None, density=None):
        prim = shape.Define(stage, f"/robot/body/{name}")
        prim.AddTranslateOp().Set(Gf.Vec3d(x, 0.0, 0.0))
        UsdPhysics.CollisionAPI.Apply(prim.GetPrim())
        if mass is not None or density is not None:
            api = UsdPhysics.MassAPI.Apply(prim.GetPrim())
            if mass is not None:
                api.CreateMassAttr(mass)
            if density is not None:
                api.CreateDensityAttr(density)
        return prim

    collider("heavy", UsdGeom.Cube, 0.3, mass=2.0).CreateSizeAttr(0.2)
    collider("plain", UsdGeom.Sphere, 0.0, mass=0.0).CreateRadiusAttr(0.1)
    collider("light", UsdGeom.Cube, -0.3, mass=1.0, density=500.0).CreateSizeAttr(0.1)
    return stage


SPHERE = 1000.0 * 4.0 / 3.0 * math.pi * 0.1 ** 3  # 4.19 kg


def test_collider_masses_add_up_with_density_where_none_is_authored():
    mass = read_usd(body_with_colliders()).scene.body("body").mass
    assert mass.mass == pytest.approx(2.0 + SPHERE + 1.0, rel=1e-6)
    assert mass.center_of_mass == pytest.approx(((2.0 * 0.3 - 1.0 * 0.3) / mass.mass, 0.0, 0.0), abs=1e-6)
    # About the centre of mass: each part's own inertia plus its mass times its offset squared.
    parts = [(2.0, 0.3, 2.0 * 0.2 ** 2 / 6.0), (SPHERE, 0.0, 0.4 * SPHERE * 0.1 ** 2), (1.0, -0.3, 0.1 ** 2 / 6.0)]
    com = mass.center_of_mass[0]
    about_x = sum(own for _, _, own in parts)
    about_y = sum(own + m * (x - com) ** 2 for m, x, own in parts)
    assert sorted(mass.diagonal_inertia) == pytest.approx(sorted([about_x, about_y, about_y]), rel=1e-5)


def test_a_mass_authored_on_the_body_wins():
    """UsdPhysics: the body's own mass overrides the colliders' sum; its centre of mass and inertia
    still come from the colliders (the inertia scaled to the body's mass)."""
    colliders = read_usd(body_with_colliders()).scene.body("body").mass
    mass = read_usd(body_with_colliders(body_mass=10.0)).scene.body("body").mass
    assert mass.mass == pytest.approx(10.0)
    assert mass.center_of_mass == pytest.approx(colliders.center_of_mass, abs=1e-6)
    assert mass.diagonal_inertia == pytest.approx([i * 10.0 / colliders.mass for i in colliders.diagonal_inertia],
                                                  rel=1e-5)


def test_a_density_authored_on_the_body_fills_only_colliders_without_their_own():
    """UsdPhysics: the body's density stands in for colliders with no mass and no density of their own."""
    mass = read_usd(body_with_colliders(body_density=2000.0)).scene.body("body").mass
    assert mass.mass == pytest.approx(2.0 + 2.0 * SPHERE + 1.0, rel=1e-6)


def test_collider_masses_survive_export_and_import(tmp_path):
    read = read_usd(body_with_colliders())
    write_usd(read.scene, str(tmp_path / "again.usda"))
    again = read_usd(str(tmp_path / "again.usda")).scene.body("body").mass
    assert again.mass == pytest.approx(read.scene.body("body").mass.mass, rel=1e-6)


GEOM_MASSES = """<mujoco model="geom_masses">
  <worldbody>
    <body name="base" pos="0 0 1">
      <freejoint/>
      <geom name="main" type="capsule" size="0.05 0.2" mass="1.98" pos="0.1 0 0"/>
      <geom name="decor" type="box" size="0.1 0.1 0.02" mass="0" contype="0" conaffinity="0" pos="0 0 0.1"/>
      <body name="finger" pos="0.3 0 0">
        <joint name="hinge" type="hinge" axis="0 1 0"/>
        <geom name="pad" type="sphere" size="0.03" mass="0.056" pos="0.05 0 0"/>
        <geom name="pad_decor" type="cylinder" size="0.02 0.05" mass="0" contype="0" conaffinity="0"/>
        <geom name="nail" type="box" size="0.02 0.02 0.02" density="500" pos="0 0 0.05"/>
      </body>
    </body>
  </worldbody>
</mujoco>"""


def test_converted_robot_has_mujocos_body_masses(tmp_path):
    """NVIDIA's mujoco-usd-converter writes a geom's ``mass`` as the collider's MassAPI mass (and a
    density-only geom as its density): the bodies weigh what MuJoCo compiles the original to."""
    if not os.path.exists(CONVERTER):
        pytest.skip("NVIDIA's mujoco-usd-converter comes with `make corpus` (.venv-converter)")
    mujoco = pytest.importorskip("mujoco")
    mjcf = tmp_path / "geom_masses.xml"
    mjcf.write_text(GEOM_MASSES)
    subprocess.run([CONVERTER, str(mjcf), str(tmp_path / "usd")], check=True, capture_output=True)
    scene = read_usd(str(tmp_path / "usd" / "geom_masses.usda")).scene
    model = mujoco.MjModel.from_xml_string(GEOM_MASSES)
    for name in ("base", "finger"):
        i = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)
        mass = scene.body(name).mass
        assert mass.mass == pytest.approx(model.body_mass[i], rel=1e-6), name  # 1.98 kg, not 3.66 kg
        assert mass.center_of_mass == pytest.approx(model.body_ipos[i], abs=1e-6), name
        assert sorted(mass.diagonal_inertia) == pytest.approx(sorted(model.body_inertia[i]), rel=1e-5), name
    assert np.isclose(scene.body("base").mass.mass, 1.98)
