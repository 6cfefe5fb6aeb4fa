"""core/usd/isaac.py: the Isaac robot schema, physics material bindings and model kind that
NVIDIA's robot checks ask for, on both export paths (core writer NESTED/FLAT and
physics_author onto someone else's prims), and kept through import -> export.

NVIDIA's validators themselves run in tests/nvidia (their own venv)."""

import dataclasses

import pytest
from pxr import Sdf, Usd, UsdPhysics, UsdShade

from articula.core import samples
from articula.core.model import Body, JointType, PhysicsMaterial, PhysicsScene, Pose, Shape, ShapeKind, make_joint
from articula.core.usd import isaac
from articula.core.usd.reader import read_usd
from articula.core.usd.writer import build_layer, write_usd

LAYOUTS = ("NESTED", "FLAT")


def _applied(prim):
    """API schema names as authored (Isaac's schema is not registered outside Isaac Sim, so
    ``GetAppliedSchemas`` leaves them out)."""
    op = prim.GetMetadata("apiSchemas")
    return list(op.GetAddedOrExplicitItems()) if op else []


def _stage(scene, layout="NESTED", **kwargs):
    layer = build_layer(scene, layout, **kwargs)
    return Usd.Stage.Open(layer), layer


def _names(stage, rel_name):
    robot = stage.GetDefaultPrim()
    return [stage.GetPrimAtPath(p).GetDisplayName() or p.name for p in robot.GetRelationship(rel_name).GetTargets()]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_robot_schema_as_isaacsim_robot_schema_spells_it(layout):
    scene = samples.SAMPLES["quadruped"]()
    stage, layer = _stage(scene, layout)
    robot = stage.GetDefaultPrim()
    assert "IsaacRobotAPI" in _applied(robot)
    assert Usd.ModelAPI(robot).GetKind() == "component"
    assert robot.GetAttribute("isaac:robotType").Get() == "Quadruped"
    assert robot.GetAttribute("isaac:robotType").GetTypeName() == Sdf.ValueTypeNames.Token
    # relationships as Isaac's utils author them: custom, prepended (stronger layers can add)
    for name in ("isaac:physics:robotLinks", "isaac:physics:robotJoints"):
        spec = layer.GetRelationshipAtPath(robot.GetPath().AppendProperty(name))
        assert spec.custom and not spec.targetPathList.isExplicit and spec.targetPathList.prependedItems
    bodies = [p for p in stage.Traverse() if p.HasAPI(UsdPhysics.RigidBodyAPI)]
    joints = [p for p in stage.Traverse() if p.IsA(UsdPhysics.Joint)]
    assert all("IsaacLinkAPI" in _applied(p) for p in bodies)
    assert all("IsaacJointAPI" in _applied(p) for p in joints)
    links = robot.GetRelationship("isaac:physics:robotLinks").GetTargets()
    assert sorted(links) == sorted(p.GetPath() for p in bodies)
    assert len(robot.GetRelationship("isaac:physics:robotJoints").GetTargets()) == len(joints)


def test_kinematic_order_is_isaacs_depth_first_walk():
    scene = samples.SAMPLES["quadruped"]()
    links, joints = isaac.kinematic_order(scene)
    assert links == ["torso", "front_left_thigh", "front_left_shin", "front_right_thigh", "front_right_shin",
                     "rear_left_thigh", "rear_left_shin", "rear_right_thigh", "rear_right_shin"]
    # a body's joints are listed when the walk reaches it (PopulateRobotSchemaFromArticulation)
    assert joints == ["front_left_hip", "front_right_hip", "rear_left_hip", "rear_right_hip",
                      "front_left_knee", "front_right_knee", "rear_left_knee", "rear_right_knee"]
    for layout in LAYOUTS:
        stage, _ = _stage(scene, layout)
        assert _names(stage, "isaac:physics:robotLinks") == links
        assert _names(stage, "isaac:physics:robotJoints") == joints


def _arm(world_joint_last=False):
    scene = PhysicsScene(name="arm")
    scene.bodies = [Body("base", Pose((0, 0, 0.1))), Body("link", Pose((0, 0, 0.5)), parent="base")]
    scene.shapes = [Shape("base_box", ShapeKind.BOX, body="base", half_extents=(0.1, 0.1, 0.1)),
                    Shape("link_box", ShapeKind.BOX, body="link", half_extents=(0.05, 0.05, 0.3))]
    joints = [make_joint("mount", JointType.FIXED, None, "base"),
              make_joint("elbow", JointType.REVOLUTE, "base", "link")]
    scene.joints = joints[::-1] if world_joint_last else joints
    return scene


@pytest.mark.parametrize("world_joint_last", [False, True])
def test_fixed_base_robot_is_a_manipulator_with_its_world_joint_first(world_joint_last):
    """RC.009: a Manipulator's first joint is pinned to the world; the world joint comes first
    whatever the scene's joint order."""
    scene = _arm(world_joint_last)
    stage, _ = _stage(scene, "FLAT")
    assert stage.GetDefaultPrim().GetAttribute("isaac:robotType").Get() == "Manipulator"
    assert _names(stage, "isaac:physics:robotJoints") == ["mount", "elbow"]


def test_floating_robot_types_and_the_users_type_wins():
    assert isaac.robot_type(samples.SAMPLES["quadruped"]()) == "Quadruped"
    scene = _arm()
    scene.joints = scene.joints[1:]  # no world joint: floating two-body robot
    assert isaac.robot_type(scene) == "Humanoid"
    scene.robot_type = "Wheeled"
    stage, _ = _stage(scene)
    assert stage.GetDefaultPrim().GetAttribute("isaac:robotType").Get() == "Wheeled"


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_collider_bound_own_material_else_default(layout):
    scene = _arm()
    scene.materials = [PhysicsMaterial("rubber", 0.9, 0.8)]
    scene.shapes[0].material = "rubber"
    stage, _ = _stage(scene, layout)
    colliders = [p for p in stage.Traverse() if p.HasAPI(UsdPhysics.CollisionAPI)]
    assert len(colliders) == 2
    bound = {}
    for prim in colliders:
        rel = prim.GetRelationship("material:binding:physics")  # on the collider itself (PMT.001)
        assert rel and len(rel.GetTargets()) == 1
        assert prim.HasAPI(UsdShade.MaterialBindingAPI)
        bound[prim.GetDisplayName() or prim.GetName()] = stage.GetPrimAtPath(rel.GetTargets()[0])
    assert bound["base_box"].GetName() == "rubber"
    default = bound["link_box"]
    assert default.IsA(UsdShade.Material) and default.HasAPI(UsdPhysics.MaterialAPI)
    assert default.GetName() == isaac.DEFAULT_MATERIAL_NAME
    # Newton's own defaults for a collider without a material: the binding changes no simulation
    assert default.GetAttribute("physics:dynamicFriction").Get() == pytest.approx(1.0)
    assert default.GetAttribute("physics:restitution").Get() == 0.0
    assert default.GetAttribute("newton:torsionalFriction").Get() == pytest.approx(0.005)


def test_default_material_values_are_newtons_shape_defaults():
    newton = pytest.importorskip("newton")
    cfg = newton.ModelBuilder.ShapeConfig()
    assert (cfg.mu, cfg.restitution, cfg.mu_torsional, cfg.mu_rolling) == pytest.approx(
        (isaac.DEFAULT_FRICTION, isaac.DEFAULT_RESTITUTION, isaac.DEFAULT_TORSIONAL_FRICTION,
         isaac.DEFAULT_ROLLING_FRICTION))


def test_collider_takes_its_bodys_material_binding():
    """A binding on the body prim (inherited by UsdShade) is written onto the collider itself."""
    from articula.core.usd.isaac import _bind_physics_materials
    layer = Sdf.Layer.CreateAnonymous("bodies.usda")
    stage = Usd.Stage.Open(layer)
    stage.DefinePrim("/robot", "Xform")
    material = UsdShade.Material.Define(stage, "/robot/Looks/steel")
    UsdPhysics.MaterialAPI.Apply(material.GetPrim())
    body = stage.DefinePrim("/robot/body", "Xform")
    UsdShade.MaterialBindingAPI.Apply(body).Bind(material, materialPurpose="physics")
    collider = stage.DefinePrim("/robot/body/box", "Cube")
    UsdPhysics.CollisionAPI.Apply(collider)
    _bind_physics_materials(layer, Sdf.Path("/robot"), [collider.GetPath()])
    assert collider.GetRelationship("material:binding:physics").GetTargets() == [material.GetPath()]
    assert not stage.GetPrimAtPath("/robot/PhysicsMaterials")


def test_a_scene_without_bodies_is_no_robot_but_its_colliders_are_bound():
    scene = PhysicsScene(name="ground", shapes=[Shape("floor", ShapeKind.PLANE)])
    stage, _ = _stage(scene, "FLAT")
    assert "IsaacRobotAPI" not in _applied(stage.GetDefaultPrim())
    floor = [p for p in stage.Traverse() if p.HasAPI(UsdPhysics.CollisionAPI)]
    assert floor and floor[0].GetRelationship("material:binding:physics").GetTargets()


def test_option_off_writes_none_of_it():
    stage, _ = _stage(samples.SAMPLES["quadruped"](), isaac_schema=False)
    robot = stage.GetDefaultPrim()
    assert "IsaacRobotAPI" not in _applied(robot) and not Usd.ModelAPI(robot).GetKind()
    assert not any("IsaacLinkAPI" in _applied(p) for p in stage.Traverse())


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", ["quadruped", "six_dof_arm", "four_bar", "collision_showcase"])
def test_import_keeps_type_and_order_and_second_export_is_identical(tmp_path, name, layout):
    scene = samples.SAMPLES[name]()
    first, second = tmp_path / "first.usda", tmp_path / "second.usda"
    write_usd(scene, str(first), layout)
    read = read_usd(str(first)).scene
    stage = Usd.Stage.Open(str(first))
    assert read.robot_type == stage.GetDefaultPrim().GetAttribute("isaac:robotType").Get()
    assert read.robot_links == isaac.kinematic_order(scene)[0]
    assert read.robot_joints == isaac.kinematic_order(scene)[1]
    # the generated default material stands for "no material": not read back as one
    assert [m.name for m in read.materials] == [m.name for m in scene.materials]
    assert {s.name: s.material for s in read.shapes} == {s.name: s.material for s in scene.shapes}
    write_usd(read, str(second), layout)
    # (the whole files still differ elsewhere: float rounding of read-back poses, render colors,
    # NESTED collision-group member order; not the robot schema's doing)
    assert _isaac_parts(second) == _isaac_parts(first)


def _isaac_parts(path):
    """Everything core/usd/isaac.py authors, by prim path."""
    stage = Usd.Stage.Open(str(path))
    robot = stage.GetDefaultPrim()
    parts = {"kind": Usd.ModelAPI(robot).GetKind(), "type": robot.GetAttribute("isaac:robotType").Get()}
    for name in ("isaac:physics:robotLinks", "isaac:physics:robotJoints"):
        parts[name] = list(robot.GetRelationship(name).GetTargets())
    for prim in stage.Traverse():
        apis = [a for a in _applied(prim) if a.startswith("Isaac")]
        rel = prim.GetRelationship("material:binding:physics")
        if apis or rel:
            parts[str(prim.GetPath())] = (apis, list(rel.GetTargets()) if rel else None)
        if prim.HasAPI(UsdPhysics.MaterialAPI):
            parts[str(prim.GetPath())] = {a.GetName(): a.Get() for a in prim.GetAttributes()}
    return parts


def test_order_and_type_from_a_file_are_kept_over_the_computed_ones(tmp_path):
    scene = samples.SAMPLES["quadruped"]()
    links, joints = isaac.kinematic_order(scene)
    given = dataclasses.replace(scene, robot_type="Mobile Manipulators", robot_links=links[::-1],
                                robot_joints=joints[::-1] + ["gone"])
    path = tmp_path / "given.usda"
    write_usd(given, str(path), "FLAT")
    read = read_usd(str(path)).scene
    assert read.robot_type == "Mobile Manipulators"
    assert read.robot_links == links[::-1] and read.robot_joints == joints[::-1]


def test_physics_author_path_carries_schema_and_bindings():
    """The hook's path (author_physics on prims Blender wrote) gets the same schema."""
    from articula.core.usd.physics_author import author_physics
    scene = samples.SAMPLES["quadruped"]()
    stage = Usd.Stage.CreateInMemory()
    root = stage.DefinePrim("/root", "Xform")
    stage.SetDefaultPrim(root)
    paths = {}
    for body in scene.bodies:  # flat Xforms named like Blender objects, as Blender writes them
        paths[body.name] = stage.DefinePrim(f"/root/{body.name}", "Xform").GetPath()
    author_physics(stage, scene, paths)
    robot = stage.GetDefaultPrim()
    assert "IsaacRobotAPI" in _applied(robot) and Usd.ModelAPI(robot).GetKind() == "component"
    assert _names(stage, "isaac:physics:robotLinks") == isaac.kinematic_order(scene)[0]
    assert len(robot.GetRelationship("isaac:physics:robotJoints").GetTargets()) == len(scene.joints)
    for prim in stage.Traverse():
        if prim.HasAPI(UsdPhysics.CollisionAPI):
            assert prim.GetRelationship("material:binding:physics").GetTargets()
