"""Export: the stage structure of the nested-bodies proposal, dialects, units, atomic writes."""

import math
import os

import pytest
from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics, UsdShade, UsdValidation

from articula.core import samples
from articula.core.collision import should_collide
from articula.core.mass import mass_properties
from articula.core.model import DofMotion, MassProperties
from articula.core.usd import dialect as D
from articula.core.usd.errors import UsdWriteError
from articula.core.usd.writer import build_stage, write_usd

FINGER_CHAIN = ["palm", "index_finger_base", "proximal", "middle", "distal"]
FINGER_JOINTS = {"index_finger_base": "metacarpophalangeal", "proximal": "rotational",
                 "middle": "proximal_interphalangeal", "distal": "distal_interphalangeal"}


@pytest.fixture(scope="module")
def finger_nested():
    return build_stage(samples.robotic_finger(), "NESTED")


def _authored_api_schemas(prim):
    """apiSchemas as authored: GetAppliedSchemas() hides schemas this USD does not know."""
    return list(prim.GetMetadata("apiSchemas").GetAppliedItems())


def _xform_ops(prim):
    return [op.GetOpName() for op in UsdGeom.Xformable(prim).GetOrderedXformOps()]


def test_stage_metadata_and_physics_scene(finger_nested):
    stage = finger_nested
    assert UsdGeom.GetStageUpAxis(stage) == "Z"
    assert UsdGeom.GetStageMetersPerUnit(stage) == 1.0
    assert UsdPhysics.GetStageKilogramsPerUnit(stage) == 1.0
    assert stage.GetDefaultPrim().GetName() == "robotic_finger"
    scenes = [p for p in stage.Traverse() if p.IsA(UsdPhysics.Scene)]
    assert len(scenes) == 1
    scene = UsdPhysics.Scene(scenes[0])
    assert tuple(scene.GetGravityDirectionAttr().Get()) == (0.0, 0.0, -1.0)
    assert scene.GetGravityMagnitudeAttr().Get() == pytest.approx(9.81)


def test_finger_nested_matches_the_proposal(finger_nested):
    """palm -> index_finger_base -> proximal -> middle -> distal, each body under its parent,
    each joint under its child body pointing to parent (body0) and child (body1)."""
    stage = finger_nested
    base = stage.GetPrimAtPath("/robotic_finger/palm_articulation")
    assert base.HasAPI(UsdPhysics.ArticulationRootAPI) and not base.HasAPI(UsdPhysics.RigidBodyAPI)
    path = base.GetPath()
    for name in FINGER_CHAIN:
        path = path.AppendChild(name)
        body = stage.GetPrimAtPath(path)
        assert body and body.HasAPI(UsdPhysics.RigidBodyAPI), path
        assert _xform_ops(body) == ["xformOp:translate", "xformOp:orient"]  # no scale on bodies
        joint_name = FINGER_JOINTS.get(name, "palm_to_world")
        joint = UsdPhysics.Joint(stage.GetPrimAtPath(path.AppendChild(joint_name)))
        assert joint, f"joint {joint_name} not under {path}"
        assert joint.GetBody1Rel().GetTargets() == [path]
        assert joint.GetBody0Rel().GetTargets() == ([] if name == "palm" else [path.GetParentPath()])
    index = stage.GetPrimAtPath("/robotic_finger/palm_articulation/palm/index_finger_base")
    translate = index.GetAttribute("xformOp:translate").Get()
    assert tuple(translate) == pytest.approx((-0.007, 0.023, -0.0187), abs=1e-9)  # parent space
    orient = index.GetAttribute("xformOp:orient").Get()
    expected = Gf.Quatd(0.500003, 0.5, 0.5, -0.499997).GetNormalized()
    assert abs(Gf.Dot(orient, expected)) == pytest.approx(1.0, abs=1e-9)


def test_flat_layout_puts_bodies_side_by_side_in_world_space():
    scene = samples.robotic_finger()
    stage = build_stage(scene, "FLAT")
    container = stage.GetPrimAtPath("/robotic_finger/palm_articulation")
    bodies = [c for c in container.GetChildren() if c.HasAPI(UsdPhysics.RigidBodyAPI)]
    assert [b.GetName() for b in bodies] == FINGER_CHAIN
    cache = UsdGeom.XformCache()
    for prim in bodies:
        world = cache.GetLocalToWorldTransform(prim).ExtractTranslation()
        assert tuple(world) == pytest.approx(scene.body(prim.GetName()).pose.pos, abs=1e-9)
        assert UsdGeom.Xformable(prim).GetLocalTransformation() == cache.GetLocalToWorldTransform(prim)
    joints = stage.GetPrimAtPath("/robotic_finger/Joints").GetChildren()
    assert sorted(j.GetName() for j in joints) == sorted([*FINGER_JOINTS.values(), "palm_to_world"])


def test_floating_robot_gets_root_api_on_its_root_body():
    stage = build_stage(samples.quadruped(), "NESTED")
    torso = stage.GetPrimAtPath("/quadruped/torso")
    assert torso.HasAPI(UsdPhysics.ArticulationRootAPI) and torso.HasAPI(UsdPhysics.RigidBodyAPI)
    assert stage.GetPrimAtPath("/quadruped/torso/front_left_thigh/front_left_shin").HasAPI(UsdPhysics.RigidBodyAPI)


def test_mass_properties_are_authored_together():
    scene = samples.robotic_finger()
    stage = build_stage(scene, "NESTED")
    for prim in stage.Traverse():
        if not prim.HasAPI(UsdPhysics.RigidBodyAPI):
            continue
        mass = UsdPhysics.MassAPI(prim)
        expected = mass_properties(scene, prim.GetName())
        for attr in (mass.GetMassAttr(), mass.GetCenterOfMassAttr(), mass.GetDiagonalInertiaAttr(),
                     mass.GetPrincipalAxesAttr()):
            assert attr.HasAuthoredValue(), attr.GetPath()
        assert mass.GetMassAttr().Get() == pytest.approx(expected.mass, rel=1e-6)
        assert tuple(mass.GetDiagonalInertiaAttr().Get()) == pytest.approx(expected.diagonal_inertia, rel=1e-5)


def test_revolute_units_are_degrees_and_per_degree_gains(finger_nested):
    scene = samples.robotic_finger()
    dof = scene.joint("rotational").dofs[0]
    prim = finger_nested.GetPrimAtPath(
        "/robotic_finger/palm_articulation/palm/index_finger_base/proximal/rotational")
    assert prim.GetAttribute(D.LOWER_LIMIT).Get() == pytest.approx(math.degrees(dof.lower), rel=1e-6)
    assert prim.GetAttribute(D.UPPER_LIMIT).Get() == pytest.approx(math.degrees(dof.upper), rel=1e-6)
    assert prim.HasAPI(UsdPhysics.DriveAPI, "angular")
    stiffness = prim.GetAttribute(D.drive_attr("angular", "stiffness")).Get()
    assert stiffness == pytest.approx(dof.drive_stiffness * math.pi / 180.0, rel=1e-6)
    assert prim.GetAttribute(D.drive_attr("angular", "maxForce")).Get() == pytest.approx(dof.max_effort)
    # Per-DOF PhysX axis attributes and the Newton scalar (one DOF: always "all agree").
    assert prim.GetAttribute(D.physx_axis_attr("angular", "armature")).Get() == pytest.approx(dof.armature)
    assert prim.GetAttribute("newton:armature").Get() == pytest.approx(dof.armature)
    assert prim.GetAttribute("newton:velocityLimit").Get() == pytest.approx(math.degrees(dof.velocity_limit), rel=1e-6)
    assert "NewtonJointAPI" in _authored_api_schemas(prim)


def test_d6_limits_on_every_axis_locked_limited_free():
    stage = build_stage(samples.d6_sampler(), "NESTED")
    prim = next(p for p in stage.Traverse() if p.GetName() == "d6_joint")
    assert prim.GetTypeName() == "PhysicsJoint"
    joint = samples.d6_sampler().joint("d6_joint")
    for dof in joint.dofs:
        axis = dof.axis.value
        assert prim.HasAPI(UsdPhysics.LimitAPI, axis), axis
        low = prim.GetAttribute(D.limit_attr(axis, "low")).Get()
        high = prim.GetAttribute(D.limit_attr(axis, "high")).Get()
        if dof.motion == DofMotion.LOCKED:
            assert low > high
        elif dof.motion == DofMotion.FREE:
            assert (low, high) == (-math.inf, math.inf)
        else:
            scale = 180.0 / math.pi if dof.axis.is_angular else 1.0
            assert (low, high) == pytest.approx((dof.lower * scale, dof.upper * scale), rel=1e-6)
    # rotX (armature 0.01) and the others differ: no Newton scalar, per-axis PhysX only.
    assert not prim.GetAttribute("newton:armature")
    assert prim.GetAttribute(D.physx_axis_attr("rotX", "armature")).Get() == pytest.approx(0.01)
    assert prim.HasAPI(UsdPhysics.DriveAPI, "rotY") and not prim.HasAPI(UsdPhysics.DriveAPI, "rotX")
    assert prim.GetAttribute(D.physx_limit_attr("rotY", "stiffness")).Get() == pytest.approx(100.0 * math.pi / 180.0)


def test_colliders_visuals_and_materials():
    stage = build_stage(samples.robotic_finger(), "NESTED")
    collider = next(p for p in stage.Traverse() if p.GetName() == "palm_collider")
    assert collider.GetTypeName() == "Cube" and collider.HasAPI(UsdPhysics.CollisionAPI)
    assert UsdGeom.Imageable(collider).GetPurposeAttr().Get() == "guide"
    assert tuple(collider.GetAttribute("xformOp:scale").Get()) == pytest.approx((0.03, 0.04, 0.008))
    material, _ = UsdShade.MaterialBindingAPI(collider).ComputeBoundMaterial("physics")
    assert material.GetPrim().GetName() == "finger_skin"
    assert UsdPhysics.MaterialAPI(material.GetPrim()).GetStaticFrictionAttr().Get() == pytest.approx(1.0)
    assert collider.GetAttribute(D.COLLISION_GROUP_ATTR).Get() == 1
    capsule = next(p for p in stage.Traverse() if p.GetName() == "distal_collider")
    assert capsule.GetTypeName() == "Capsule" and capsule.GetAttribute("axis").Get() == "Y"
    visual = next(p for p in stage.Traverse() if p.GetName() == "palm_collider_visual")
    assert visual.GetTypeName() == "Mesh" and not visual.HasAPI(UsdPhysics.CollisionAPI)
    assert UsdGeom.Imageable(visual).GetPurposeAttr().Get() == "render"
    bound, _ = UsdShade.MaterialBindingAPI(visual).ComputeBoundMaterial()
    shader = bound.ComputeSurfaceSource()[0]
    assert shader.GetIdAttr().Get() == "UsdPreviewSurface"
    assert tuple(shader.GetInput("diffuseColor").Get()) == pytest.approx((0.7, 0.7, 0.75))


def test_collision_groups_filter_exactly_what_newton_rules_filter():
    scene = samples.collision_showcase()
    stage = build_stage(scene, "NESTED")
    table = UsdPhysics.CollisionGroup.ComputeCollisionGroupTable(stage)
    groups = [p for p in stage.Traverse() if p.IsA(UsdPhysics.CollisionGroup)]
    group_of = {}
    for prim in groups:
        query = UsdPhysics.CollisionGroup(prim).GetCollidersCollectionAPI().ComputeMembershipQuery()
        for shape in scene.shapes:
            path = next(p.GetPath() for p in stage.Traverse() if p.GetName() == shape.name)
            if query.IsPathIncluded(path):
                assert shape.name not in group_of, "a collider in two groups"
                group_of[shape.name] = prim.GetPath()
    assert set(group_of) == {s.name for s in scene.shapes}
    checked = 0
    for a in scene.shapes:
        for b in scene.shapes:
            usd = table.IsCollisionEnabled(group_of[a.name], group_of[b.name])
            assert usd == should_collide(a.world, b.world, a.collision_group, b.collision_group), (a.name, b.name)
            checked += 1
    assert checked == len(scene.shapes) ** 2
    ground = next(p for p in stage.Traverse() if p.GetName() == "ground")
    assert (ground.GetAttribute(D.COLLISION_GROUP_ATTR).Get(), ground.GetAttribute(D.WORLD_ATTR).Get()) == (-2, -1)


def _physics_validation_errors(stage):
    registry = UsdValidation.ValidationRegistry()
    validators = [v for v in registry.GetOrLoadAllValidators()
                  if "UsdPhysicsValidators" in v.GetMetadata().GetKeywords()]
    assert len(validators) >= 4
    return [e.GetMessage() for e in UsdValidation.ValidationContext(validators).Validate(stage)
            if not e.HasNoError()]


@pytest.mark.parametrize("layout", ["NESTED", "FLAT"])
@pytest.mark.parametrize("name", sorted(samples.SAMPLES))
def test_usd_physics_validators_report_no_error(name, layout):
    assert _physics_validation_errors(build_stage(samples.SAMPLES[name](), layout)) == []


def test_usd_physics_validators_do_catch_a_broken_stage():
    """The validator check above can fail: a joint pointing to a missing body is reported."""
    stage = build_stage(samples.pendulum(), "NESTED")
    joint = next(p for p in stage.Traverse() if p.IsA(UsdPhysics.Joint))
    UsdPhysics.Joint(joint).GetBody1Rel().SetTargets([Sdf.Path("/nowhere")])
    assert _physics_validation_errors(stage)


# ----------------------------------------------------------------------------- files, atomicity
def test_write_usd_writes_a_file_usd_can_open(tmp_path):
    target = tmp_path / "finger.usda"
    assert write_usd(samples.robotic_finger(), str(target)) == []
    stage = Usd.Stage.Open(str(target))
    assert stage.GetPrimAtPath("/robotic_finger/palm_articulation/palm/index_finger_base")
    assert os.listdir(tmp_path) == ["finger.usda"]  # no temporary file left


def test_exported_file_gets_ordinary_permissions_and_keeps_a_replaced_files(tmp_path):
    fresh = tmp_path / "fresh.usda"
    write_usd(samples.pendulum(), str(fresh))
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(fresh).st_mode & 0o777 == 0o666 & ~umask  # not the temporary file's 0600

    shared = tmp_path / "shared.usda"
    shared.write_text("#usda 1.0\n")
    os.chmod(shared, 0o640)
    write_usd(samples.pendulum(), str(shared))
    assert os.stat(shared).st_mode & 0o777 == 0o640


def test_binary_usdc_export(tmp_path):
    target = tmp_path / "finger.usdc"
    write_usd(samples.robotic_finger(), str(target), layout="FLAT")
    assert open(target, "rb").read(8) == b"PXR-USDC"


def test_invalid_scene_is_refused_and_the_existing_file_untouched(tmp_path):
    target = tmp_path / "robot.usda"
    target.write_text("keep me")
    scene = samples.robotic_finger()
    scene.joints[1].body1 = "no_such_body"
    with pytest.raises(UsdWriteError) as raised:
        write_usd(scene, str(target))
    assert "no_such_body" in str(raised.value) and raised.value.problems
    assert target.read_text() == "keep me"
    assert os.listdir(tmp_path) == ["robot.usda"]


def test_failed_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "robot.usda"
    target.write_text("keep me")
    monkeypatch.setattr(Sdf.Layer, "Export", lambda self, path: False)
    with pytest.raises(UsdWriteError):
        write_usd(samples.pendulum(), str(target))
    assert target.read_text() == "keep me"
    assert os.listdir(tmp_path) == ["robot.usda"]


def test_warnings_are_written_then_reported(tmp_path):
    """Write first, warn after: plausibility problems never refuse a file consumers load."""
    scene = samples.robotic_finger()
    scene.joints = [j for j in scene.joints if j.name != "distal_interphalangeal"]  # a weld: WARNING
    scene.materials[0].dynamic_friction = scene.materials[0].static_friction + 1.0  # the converter's
    scene.bodies[-1].mass = MassProperties(0.0)  # a massless frame body: Newton loads it (mass 0)
    target = tmp_path / "a.usda"
    warnings = write_usd(scene, str(target))
    assert target.exists()
    assert any("welded" in w for w in warnings)
    assert any("exceeds static friction" in w for w in warnings)
    assert any("mass must be positive" in w for w in warnings)
    scene.bodies[-1].mass = MassProperties(math.nan)  # non-finite: cannot be loaded, refused
    with pytest.raises(UsdWriteError, match="finite"):
        write_usd(scene, str(tmp_path / "c.usda"))
    assert not (tmp_path / "c.usda").exists()


def test_unknown_layout_is_rejected():
    with pytest.raises(ValueError):
        build_stage(samples.pendulum(), "SIDEWAYS")


def test_solver_pgs_is_written_with_a_warning_that_newton_cannot_read_it(tmp_path):
    """MuJoCo reads solver pgs, so the export keeps what the user has; Newton 1.8's add_usd, reading the
    MuJoCo solver's attributes, stops on it, which the export's warnings say."""
    import newton
    from newton.usd import SchemaResolverMjc, SchemaResolverNewton

    scene = samples.pendulum()
    target = tmp_path / "pgs.usda"
    assert not any("pgs" in w for w in write_usd(scene, str(target)))
    scene.settings.mujoco.solver = "pgs"
    warnings = write_usd(scene, str(target))
    assert [w for w in warnings if "Newton 1.8" in w and "'pgs'" in w]
    stage = Usd.Stage.Open(str(target))
    [physics_scene] = [p for p in stage.Traverse() if p.IsA(UsdPhysics.Scene)]
    assert physics_scene.GetAttribute("mjc:option:solver").Get() == "pgs"
    builder = newton.ModelBuilder()
    newton.solvers.SolverMuJoCo.register_custom_attributes(builder)
    with pytest.raises(ValueError, match="pgs"):
        builder.add_usd(str(target), schema_resolvers=[SchemaResolverNewton(), SchemaResolverMjc()])
