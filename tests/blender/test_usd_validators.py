"""USD's own UsdPhysics validators, run with Blender's bundled USD on files exported from Blender.

Blender 5.2 LTS bundles USD 26.03, whose validators know nested rigid bodies (the UsdPhysics
amendment): every example robot, built in Blender and exported NESTED or FLAT with
``articula.export_usd``, passes them. Blender 4.5 (USD 25.02) is skipped: its USD predates the
amendment (USD 25.08 in Blender 5.0 flags every nested body, shared/FACTS.md).
"""

import bpy
import pytest
from pxr import Sdf, Usd, UsdPhysics

from articula.addon.adapters.description_to_blender import build_scene
from articula.core import samples

pytestmark = pytest.mark.skipif(Usd.GetVersion() < (0, 26, 0),
                                reason=f"Blender's USD {Usd.GetVersion()} predates the nested-bodies validators")


def physics_validation_errors(stage) -> list[str]:
    from pxr import UsdValidation

    registry = UsdValidation.ValidationRegistry()
    validators = [v for v in registry.GetOrLoadAllValidators()
                  if "UsdPhysicsValidators" in v.GetMetadata().GetKeywords()]
    assert len(validators) >= 4
    return [e.GetMessage() for e in UsdValidation.ValidationContext(validators).Validate(stage)
            if not e.HasNoError()]


@pytest.mark.parametrize("layout", ["NESTED", "FLAT"])
@pytest.mark.parametrize("name", ["robotic_finger", "quadruped", "four_bar"])
def test_exports_from_blender_pass_usd_physics_validators(clean_scene, tmp_path, name, layout):
    build_scene(bpy.context, samples.SAMPLES[name]())
    path = str(tmp_path / f"{name}.usda")
    assert bpy.ops.articula.export_usd(filepath=path, layout=layout) == {"FINISHED"}
    assert physics_validation_errors(Usd.Stage.Open(path)) == []


def test_the_validators_do_catch_a_broken_export(clean_scene, tmp_path):
    build_scene(bpy.context, samples.pendulum())
    path = str(tmp_path / "pendulum.usda")
    assert bpy.ops.articula.export_usd(filepath=path) == {"FINISHED"}
    stage = Usd.Stage.Open(path)
    joint = next(p for p in stage.Traverse() if p.IsA(UsdPhysics.Joint))
    UsdPhysics.Joint(joint).GetBody1Rel().SetTargets([Sdf.Path("/nowhere")])
    assert physics_validation_errors(stage)
