"""File > Import > USD in real Blender (4.5 and 5.2): a mass authored on a collider counts (UsdPhysics:
the body weighs the sum of its colliders', density x volume where a collider has no mass or 0)."""

import math

import bpy
import pytest

from articula.addon.adapters.blender_to_description import scene_from_blender

STAGE = """#usda 1.0
(
    metersPerUnit = 1
    upAxis = "Z"
)

def PhysicsScene "physicsScene"
{
}

def Xform "robot"
{
    def Xform "body" (
        prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsArticulationRootAPI"]
    )
    {
        def Cube "heavy" (
            prepend apiSchemas = ["PhysicsCollisionAPI", "PhysicsMassAPI"]
        )
        {
            float physics:mass = 2
            double size = 0.2
            double3 xformOp:translate = (0.3, 0, 0)
            uniform token[] xformOpOrder = ["xformOp:translate"]
        }

        def Sphere "decor" (
            prepend apiSchemas = ["PhysicsCollisionAPI", "PhysicsMassAPI"]
        )
        {
            float physics:mass = 0
            double radius = 0.1
        }
    }
}
"""


def test_a_colliders_own_mass_counts(clean_scene, tmp_path):
    path = tmp_path / "collider_mass.usda"
    path.write_text(STAGE)
    assert bpy.ops.articula.import_usd(filepath=str(path)) == {"FINISHED"}
    sphere = 1000.0 * 4.0 / 3.0 * math.pi * 0.1 ** 3  # mass 0: density x volume, the default density
    body = scene_from_blender(clean_scene).body("body")
    assert body.mass.mass == pytest.approx(2.0 + sphere, rel=1e-5)  # the cube's 2 kg, not 8 kg of density
    assert body.mass.center_of_mass[0] == pytest.approx(2.0 * 0.3 / (2.0 + sphere), abs=1e-5)
