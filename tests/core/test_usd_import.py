"""Import: world transforms first, units and up axis, re-nesting, every per-DOF dialect, groups."""

import math

import pytest
from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics

from articula.core import samples
from articula.core.collision import should_collide
from articula.core.mass import mass_properties
from articula.core.model import DofAxis, DofMotion, JointType, ShapeKind
from articula.core.transforms import poses_close
from articula.core.usd.compare import scene_differences
from articula.core.usd.reader import read_usd
from articula.core.usd.writer import build_stage


def _explicit_mass(scene):
    for body in scene.bodies:
        body.mass = mass_properties(scene, body.name)
    return scene


@pytest.mark.parametrize("layout", ["NESTED", "FLAT"])
@pytest.mark.parametrize("name", sorted(samples.SAMPLES))
def test_description_survives_export_and_import(name, layout):
    scene = _explicit_mass(samples.SAMPLES[name]())  # the reader always returns explicit masses
    result = read_usd(build_stage(scene, layout))
    assert scene_differences(scene, result.scene) == []
    assert result.warnings == []


def test_a_chain_deeper_than_python_recursion_survives_export_and_import():
    """A 1,100-link cable nests 1,100 prims deep: writer and reader walk it in loops."""
    scene = _explicit_mass(samples.hanging_chain(1100))
    result = read_usd(build_stage(scene, "NESTED"))
    assert scene_differences(scene, result.scene) == []
    assert result.scene.bodies[-1].parent == result.scene.bodies[-2].name


def test_flat_import_without_renest_keeps_bodies_unparented():
    stage = build_stage(samples.robotic_finger(), "FLAT")
    assert all(b.parent is None for b in read_usd(stage, renest=False).scene.bodies)
    renested = read_usd(stage).scene
    assert renested.body("distal").parent == "middle" and renested.body("palm").parent is None


def test_file_round_trip_keeps_names_that_are_not_identifiers(tmp_path):
    scene = samples.pendulum()
    scene.bodies[0].name = "Pendulum Link.001"
    for item in (*scene.shapes, *scene.visuals):
        item.body = "Pendulum Link.001"
    scene.joints[0].body1 = "Pendulum Link.001"
    path = tmp_path / "p.usda"
    from articula.core.usd.writer import write_usd
    write_usd(scene, str(path))
    read = read_usd(str(path))
    assert [b.name for b in read.scene.bodies] == ["Pendulum Link.001"]
    assert read.prim_paths["body:Pendulum Link.001"].endswith("/Pendulum_Link_001")


def _stage_with_units(up_axis, meters_per_unit):
    """The pendulum authored in another unit and up axis, by hand-converting the Z-up meter stage."""
    stage = build_stage(samples.pendulum(), "FLAT")
    UsdGeom.SetStageUpAxis(stage, up_axis)
    UsdGeom.SetStageMetersPerUnit(stage, meters_per_unit)
    root = stage.GetDefaultPrim()
    # Undo the conversion the reader will apply: world' = (Rx(-90) if Y-up) then / meters.
    xform = UsdGeom.Xformable(root)
    ops = []
    if up_axis == "Y":
        op = xform.AddRotateXOp(opSuffix="toYUp")
        op.Set(-90.0)
        ops.append(op)
    op = xform.AddScaleOp(opSuffix="toUnits")
    op.Set(Gf.Vec3f(1.0 / meters_per_unit))
    xform.SetXformOpOrder([*ops, op])
    return stage


@pytest.mark.parametrize("up_axis,meters", [("Y", 1.0), ("Z", 0.01), ("Y", 0.01)])
def test_y_up_and_centimeter_stages_come_in_z_up_meters(up_axis, meters):
    expected = samples.pendulum()
    scene = read_usd(_stage_with_units(up_axis, meters)).scene
    body = scene.body("pendulum_link")
    assert poses_close(body.pose, expected.bodies[0].pose, pos_tol=1e-6, rot_tol=1e-9)
    bob = scene.shapes[0]
    assert bob.radius == pytest.approx(0.05, rel=1e-6)
    assert bob.pose.pos == pytest.approx((0.5, 0.0, 0.0), abs=1e-6)


def test_per_dof_values_in_centimeter_gram_stages_come_in_si():
    """Lengths scale by metersPerUnit, masses by kilogramsPerUnit, forces and torques by both."""
    stage = build_stage(samples.d6_sampler(), "NESTED")
    UsdGeom.SetStageMetersPerUnit(stage, 0.01)
    UsdPhysics.SetStageKilogramsPerUnit(stage, 0.001)
    m, kg = 0.01, 0.001
    f = Sdf.ValueTypeNames.Float
    slider = _joint_prim(stage, "slider_joint")
    slider.GetAttribute("physics:lowerLimit").Set(-10.0)  # cm
    slider.GetAttribute("physics:upperLimit").Set(20.0)
    drive = UsdPhysics.DriveAPI.Apply(slider, "linear")
    drive.CreateStiffnessAttr(5.0)  # g/s^2 (force per length)
    drive.CreateMaxForceAttr(1000.0)  # g*cm/s^2
    drive.CreateTargetPositionAttr(3.0)  # cm
    _set(slider, "physxJointAxis:linear:armature", f, 2.0)  # g
    _set(slider, "physxJointAxis:linear:staticFrictionEffort", f, 300.0)  # g*cm/s^2
    _set(slider, "physxJointAxis:linear:maxJointVelocity", f, 50.0)  # cm/s
    d6 = _joint_prim(stage, "d6_joint")
    rot_drive = UsdPhysics.DriveAPI.Apply(d6, "rotX")
    rot_drive.CreateStiffnessAttr(1.0)  # g*cm^2/s^2 per degree
    _set(d6, "physxJointAxis:rotX:armature", f, 4.0)  # g*cm^2
    _set(d6, "physxJointAxis:rotX:maxJointVelocity", f, 90.0)  # deg/s: no stage unit in it

    scene = read_usd(stage).scene
    linear = scene.joint("slider_joint").dofs[0]
    assert (linear.lower, linear.upper) == pytest.approx((-10 * m, 20 * m))
    assert linear.drive_stiffness == pytest.approx(5.0 * kg)
    assert linear.max_effort == pytest.approx(1000.0 * kg * m)
    assert linear.target_position == pytest.approx(3.0 * m)
    assert linear.armature == pytest.approx(2.0 * kg)
    assert linear.static_friction == pytest.approx(300.0 * kg * m)
    assert linear.velocity_limit == pytest.approx(50.0 * m)
    rot_x = scene.joint("d6_joint").dof("rotX")
    assert rot_x.drive_stiffness == pytest.approx(1.0 * kg * m * m * 180.0 / math.pi)
    assert rot_x.armature == pytest.approx(4.0 * kg * m * m)
    assert rot_x.velocity_limit == pytest.approx(math.pi / 2)


def test_non_uniform_body_scale_moves_to_colliders_with_a_warning():
    stage = build_stage(samples.pendulum(), "NESTED")
    body = next(p for p in stage.Traverse() if p.HasAPI(UsdPhysics.RigidBodyAPI))
    xform = UsdGeom.Xformable(body)
    scale = xform.AddScaleOp(UsdGeom.XformOp.PrecisionDouble)
    scale.Set(Gf.Vec3d(2.0, 1.0, 1.0))
    xform.SetXformOpOrder([*xform.GetOrderedXformOps()])
    result = read_usd(stage)
    assert any(str(body.GetPath()) in w and "non-uniform scale" in w for w in result.warnings)
    read_body = result.scene.bodies[0]
    assert poses_close(read_body.pose, samples.pendulum().bodies[0].pose)  # the pose is unscaled
    bob = result.scene.shapes[0]
    assert bob.pose.pos == pytest.approx((1.0, 0.0, 0.0), abs=1e-9)  # the offset scales
    assert result.scene.visuals[0].scale == pytest.approx((2.0, 1.0, 1.0))


def _joint_prim(stage, name):
    return next(p for p in stage.Traverse() if p.GetName() == name)


def _set(prim, name, type_name, value, custom=True):
    prim.CreateAttribute(name, type_name, custom).Set(value)


def test_per_dof_dialects_in_precedence_order():
    """PhysxJointAxisAPI per axis > seed per-DOF arrays > NewtonJointAPI > physxJoint > mjc."""
    stage = build_stage(samples.d6_sampler(), "NESTED")
    prim = _joint_prim(stage, "d6_joint")
    f, fa = Sdf.ValueTypeNames.Float, Sdf.ValueTypeNames.FloatArray
    for attr in list(prim.GetAttributes()):  # start clean: remove what we exported
        if attr.GetName().startswith(("physxJointAxis:", "newton:")):
            prim.RemoveProperty(attr.GetName())
    _set(prim, "mjc:armature", f, 0.5)
    _set(prim, "mjc:damping", f, 2.0)  # MuJoCo damping is per radian already
    _set(prim, "mjc:frictionloss", f, 0.3)
    joint = read_usd(stage).scene.joint("d6_joint")
    rot_y = joint.dof("rotY")
    assert (rot_y.armature, rot_y.viscous_damping) == pytest.approx((0.5, 2.0))
    assert (rot_y.static_friction, rot_y.dynamic_friction) == pytest.approx((0.3, 0.3))
    assert joint.dof("transY").motion == DofMotion.LOCKED and joint.dof("transY").armature == 0.0

    _set(prim, "physxJoint:armature", f, 0.6)
    _set(prim, "newton:damping", f, 1.0, custom=False)  # per degree
    assert read_usd(stage).scene.joint("d6_joint").dof("rotY").armature == pytest.approx(0.6)
    assert read_usd(stage).scene.joint("d6_joint").dof("rotY").viscous_damping == pytest.approx(180 / math.pi)
    assert read_usd(stage).scene.joint("d6_joint").dof("transX").viscous_damping == pytest.approx(1.0)

    _set(prim, "newton:armature", f, 0.7, custom=False)
    assert read_usd(stage).scene.joint("d6_joint").dof("rotX").armature == pytest.approx(0.7)

    # The seed's per-DOF arrays override the scalars, DOF by DOF.
    prim.RemoveProperty("newton:armature")
    _set(prim, "newton:dofs", Sdf.ValueTypeNames.TokenArray, ["rotX", "rotY"])
    _set(prim, "newton:armature", fa, [0.11, 0.22], custom=False)
    _set(prim, "newton:staticFrictionEffort", fa, [1.5, 2.5])
    seeded = read_usd(stage).scene.joint("d6_joint")
    assert seeded.dof("rotX").armature == pytest.approx(0.11) and seeded.dof("rotY").armature == pytest.approx(0.22)
    assert seeded.dof("rotY").static_friction == pytest.approx(2.5)

    _set(prim, "physxJointAxis:rotY:armature", f, 0.33)
    _set(prim, "physxJointAxis:rotY:maxJointVelocity", f, 90.0)  # deg/s
    top = read_usd(stage).scene.joint("d6_joint").dof("rotY")
    assert top.armature == pytest.approx(0.33) and top.velocity_limit == pytest.approx(math.pi / 2)


def test_d6_axes_without_limit_are_free_as_usd_physics_says():
    stage = build_stage(samples.d6_sampler(), "NESTED")
    prim = _joint_prim(stage, "d6_joint")
    for attr in ("limit:rotZ:physics:low", "limit:rotZ:physics:high"):
        prim.RemoveProperty(attr)
    prim.RemoveAPI(UsdPhysics.LimitAPI, "rotZ")
    joint = read_usd(stage).scene.joint("d6_joint")
    assert joint.dof("rotZ").motion == DofMotion.FREE
    assert joint.dof("transY").motion == DofMotion.LOCKED


def test_root_api_on_an_ancestor_and_kinematic_bodies():
    scene = samples.six_dof_arm()
    scene.bodies[0].kinematic = True
    read = read_usd(build_stage(scene, "NESTED")).scene
    assert read.body("arm_base").kinematic and not read.body("elbow_link").kinematic
    assert read.joint("arm_base_to_world").body0 is None and read.joint("arm_base_to_world").type == JointType.FIXED


def test_collision_groups_without_custom_ints_become_newton_groups():
    scene = samples.collision_showcase()
    stage = build_stage(scene, "NESTED")
    for prim in stage.Traverse():
        prim.RemoveProperty("newton:collision_group")
    read = read_usd(stage).scene
    original = {s.name: s for s in scene.shapes}
    assert {s.collision_group for s in read.shapes} != {1}  # the groups were found again
    for a in read.shapes:
        for b in read.shapes:
            oa, ob = original[a.name], original[b.name]
            assert should_collide(a.world, b.world, a.collision_group, b.collision_group) == \
                should_collide(oa.world, ob.world, oa.collision_group, ob.collision_group), (a.name, b.name)


def test_mesh_colliders_keep_their_approximation():
    scene = samples.pendulum()
    shape = scene.shapes[0]
    shape.kind, shape.mesh = ShapeKind.CONVEX_HULL, samples.box_mesh((0.05, 0.05, 0.05))
    shape.scale = (1.0, 2.0, 1.0)
    read = read_usd(build_stage(scene)).scene.shapes[0]
    assert read.kind == ShapeKind.CONVEX_HULL and read.scale == pytest.approx((1.0, 2.0, 1.0))
    assert len(read.mesh.triangles) == 12
    assert [c for v in read.mesh.vertices for c in v] == pytest.approx([c for v in shape.mesh.vertices for c in v])


def test_unknown_attributes_and_prims_are_ignored():
    stage = build_stage(samples.robotic_finger(), "NESTED")
    prim = _joint_prim(stage, "rotational")
    _set(prim, "vendor:mysteryGain", Sdf.ValueTypeNames.String, "anything")
    stage.DefinePrim("/robotic_finger/SomethingElse", "BasisCurves")  # (a Camera is read: a camera)
    assert scene_differences(read_usd(stage).scene, read_usd(build_stage(samples.robotic_finger())).scene) == []


def test_revolute_dof_axis_follows_the_joint_axis():
    joint = read_usd(build_stage(samples.robotic_finger())).scene.joint("rotational")
    assert [d.axis for d in joint.dofs] == [DofAxis.ROT_Z]
    assert joint.dofs[0].motion == DofMotion.LIMITED


def test_read_result_unpacks_to_scene_and_warnings():
    scene, warnings = read_usd(build_stage(samples.pendulum()))
    assert scene.bodies and warnings == []


def test_stage_from_usd_open(tmp_path):
    path = tmp_path / "a.usda"
    stage = build_stage(samples.quadruped())  # keep the stage alive while its layer exports
    stage.GetRootLayer().Export(str(path))
    assert len(read_usd(Usd.Stage.Open(str(path))).scene.bodies) == 9
