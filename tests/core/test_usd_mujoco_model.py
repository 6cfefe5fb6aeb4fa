"""MuJoCo's model beyond bodies and joints through USD (core/usd/mujoco_model.py): sites, cameras,
lights, sensors, keyframes, weld/connect equalities, spatial tendons, contact pairs, options,
contact parameters, DOF and free joint names come back equal from ``write_usd``/``read_usd``, in the
MuJoCo dialect NVIDIA's converter writes."""

import math

import pytest
from pxr import Usd, UsdGeom, UsdPhysics

from articula.core import samples
from articula.core.model import (
    Actuator, Body, Camera, CameraMode, ContactPair, ContactParams, Dof, DofAxis, DofMotion, Equality,
    EqualityKind, Joint, JointType, Keyframe, Light, LightKind, Pose, Sensor, Shape, ShapeKind, Site,
    SiteKind, SpatialTendon, TendonWrap, WrapKind,
)
from articula.core.usd.compare import scene_differences
from articula.core.usd.reader import read_usd
from articula.core.usd.writer import build_stage, write_usd

TILT = (math.cos(0.2), math.sin(0.2), 0.0, 0.0)


def _every_item_scene():
    """The quadruped with a ball-jointed head, a tail on a D6 with named DOFs and one of each new item."""
    scene = samples.quadruped()
    torso = scene.body("torso")
    torso.free_joint_name = "floating_base"
    head_pose = Pose(pos=(torso.pose.pos[0] + 0.3, torso.pose.pos[1], torso.pose.pos[2] + 0.1))
    tail_pose = Pose(pos=(torso.pose.pos[0] - 0.3, torso.pose.pos[1], torso.pose.pos[2]))
    scene.bodies += [Body(name="head", pose=head_pose, parent="torso"),
                     Body(name="tail", pose=tail_pose, parent="torso")]
    scene.shapes += [Shape(name="head_collider", kind=ShapeKind.SPHERE, body="head", radius=0.05,
                           density=500.0,
                           contact=ContactParams(condim=6, priority=2, solref=(0.01, 0.5),
                                                 solimp=(0.8, 0.9, 0.002, 0.4, 3.0), solmix=0.5),
                           contact_margin=0.002, contact_gap=0.001),
                     Shape(name="tail_collider", kind=ShapeKind.CYLINDER, body="tail", radius=0.02,
                           half_height=0.1, density=500.0)]
    scene.joints.append(Joint(name="neck", type=JointType.SPHERICAL, body0="torso", body1="head",
                              local_pose0=Pose(pos=(0.3, 0.0, 0.1)), dofs=[Dof(axis=a) for a in (
                                  DofAxis.ROT_X, DofAxis.ROT_Y, DofAxis.ROT_Z)]))
    tail_dofs = [Dof(axis=a, motion=DofMotion.LOCKED) for a in DofAxis]
    tail_dofs[3].motion, tail_dofs[3].name = DofMotion.FREE, "tail_roll"  # rotX
    tail_dofs[4].motion, tail_dofs[4].name = DofMotion.FREE, "tail_pitch"  # rotY
    scene.joints.append(Joint(name="tail_joint", type=JointType.D6, body0="torso", body1="tail",
                              local_pose0=Pose(pos=(-0.3, 0.0, 0.0)), dofs=tail_dofs))
    scene.joint("front_left_hip").dofs[0].actuators.append(Actuator(name="hip_motor", gear=20.0,
                                                                    ctrl_range=(-1.0, 1.0)))
    scene.sites += [
        Site(name="imu", body="torso", pose=Pose(pos=(0.05, 0.0, 0.02), rot=TILT), size=(0.01, 0.005, 0.005)),
        Site(name="nose", body="head", pose=Pose(pos=(0.05, 0.0, 0.0)), kind=SiteKind.BOX,
             size=(0.01, 0.02, 0.03), color=(1.0, 0.0, 0.0, 0.5), group=3),
        Site(name="tail_tip", body="tail", pose=Pose(pos=(0.0, 0.0, -0.1)), kind=SiteKind.CAPSULE,
             size=(0.01, 0.04, 0.005)),
        Site(name="shin_mark", body="front_left_shin", kind=SiteKind.ELLIPSOID, size=(0.01, 0.02, 0.03)),
        Site(name="anchor", body=None, pose=Pose(pos=(0.0, 0.0, 1.0)), kind=SiteKind.CYLINDER,
             size=(0.02, 0.01, 0.005)),
    ]
    scene.cameras += [Camera(name="head_cam", body="head", pose=Pose(pos=(0.06, 0.0, 0.0), rot=TILT),
                             fovy=math.radians(60.0), mode=CameraMode.TARGETBODY, target="torso",
                             resolution=(640, 480), clip_start=0.02, clip_end=50.0),
                      Camera(name="world_cam", body=None, pose=Pose(pos=(2.0, 0.0, 1.0)))]
    scene.lights += [Light(name="head_lamp", body="head", kind=LightKind.SPOT, cutoff=math.radians(30.0),
                           exponent=5.0, attenuation=(1.0, 0.1, 0.0), cast_shadow=False,
                           color=(0.9, 0.8, 0.7)),
                     Light(name="sun", body=None, kind=LightKind.DIRECTIONAL, active=False),
                     Light(name="bulb", body="torso", kind=LightKind.POINT, pose=Pose(pos=(0.0, 0.0, 0.2)))]
    scene.sensors += [
        Sensor(name="accel", kind="accelerometer", target="imu", target_kind="site", noise=0.01),
        Sensor(name="hip_pos", kind="jointpos", target="front_left_hip", target_kind="joint", cutoff=3.0),
        Sensor(name="roll_pos", kind="jointpos", target="tail_roll", target_kind="joint"),
        Sensor(name="nose_in_torso", kind="framepos", target="nose", target_kind="site", reference="torso",
               reference_kind="body"),
        Sensor(name="head_touch", kind="contact", target="head_collider", target_kind="geom",
               settings={"data": "found force", "reduce": "netforce", "num": "2"}),
        Sensor(name="motor_force", kind="actuatorfrc", target="hip_motor", target_kind="actuator"),
        Sensor(name="string_length", kind="tendonpos", target="string", target_kind="tendon"),
        Sensor(name="cam_pos", kind="framepos", target="head_cam", target_kind="camera"),
    ]
    scene.equalities += [
        Equality(name="tail_weld", kind=EqualityKind.WELD, body0="torso", body1="tail",
                 anchor=(0.0, 0.0, 0.05), relative_pose=Pose(pos=(-0.3, 0.01, 0.0), rot=TILT),
                 torque_scale=2.0, solref=(0.05, 1.0)),
        Equality(name="tail_rest_weld", kind=EqualityKind.WELD, body0="torso", body1="tail", active=False),
        Equality(name="head_connect", kind=EqualityKind.CONNECT, body0="torso", body1="head",
                 anchor=(0.3, 0.0, 0.1), solimp=(0.95, 0.99, 0.001, 0.5, 2.0)),
        Equality(name="world_weld", kind=EqualityKind.WELD, body0=None, body1="head",
                 anchor=(0.01, 0.0, 0.0)),
        Equality(name="site_weld", kind=EqualityKind.WELD, body0="torso", body1=None, site0="imu",
                 site1="anchor"),
    ]
    scene.spatial_tendons.append(SpatialTendon(
        name="string", lower=0.1, upper=0.9, stiffness=10.0, damping=0.5, width=0.005,
        color=(0.1, 0.2, 0.3, 1.0),
        path=[TendonWrap(WrapKind.SITE, "imu"), TendonWrap(WrapKind.GEOM, "head_collider", side_site="nose"),
              TendonWrap(WrapKind.SITE, "nose"), TendonWrap(WrapKind.PULLEY, divisor=2.0),
              TendonWrap(WrapKind.SITE, "imu"), TendonWrap(WrapKind.SITE, "tail_tip")]))
    scene.frame_actuators += [
        Actuator(name="thruster", target_kind="site", target="imu", reference_site="anchor", gear=0.0,
                 gear_vector=(0.0, 0.0, 1.0, 0.0, 0.0, 0.5), ctrl_range=(0.0, 5.0)),
        Actuator(name="pull", target_kind="tendon", target="string", gain=(100.0,), bias=(0.0, -100.0, -10.0),
                 gear_vector=(1.0, 0.0, 0.0, 0.0, 0.0, 0.0)),
        Actuator(name="lift", target_kind="body", target="head", gear=2.0,
                 gear_vector=(2.0, 0.0, 0.0, 0.0, 0.0, 0.0)),
        Actuator(name="neck_motor", target_kind="joint", target="neck", gear=0.0,
                 gear_vector=(0.0, 1.0, 0.0, 0.0, 0.0, 0.0)),
        Actuator(name="base_push", target_kind="joint", target="floating_base", gear=3.0,
                 gear_vector=(3.0, 0.0, 0.0, 0.0, 0.0, 0.0)),
    ]
    scene.keyframes += [
        Keyframe(name="crouch", time=1.5, joint_positions={("front_left_knee", "rotY"): -0.5,
                                                             ("tail_joint", "rotY"): 0.25},
                 joint_velocities={("rear_right_hip", "rotY"): 0.1},
                 ball_rotations={"neck": (math.cos(0.1), 0.0, math.sin(0.1), 0.0)},
                 root_poses={"torso": Pose(pos=(0.0, 0.1, 0.3), rot=TILT)},
                 root_velocities={"torso": ((0.5, 0.0, 0.0), (0.0, 0.0, 0.2))},
                 controls={"hip_motor": 0.3, "thruster": 1.0}),
        Keyframe(name="home"),
    ]
    scene.contact_pairs.append(ContactPair(name="head_tail", shape0="head_collider", shape1="tail_collider",
                                           condim=4, friction=(0.8, 0.8, 0.01, 0.001, 0.001),
                                           solref=(0.03, 1.0), margin=0.01, gap=0.002))
    options = scene.settings.mujoco
    options.integrator, options.cone = "implicitfast", "elliptic"
    options.impratio, options.iterations = 10.0, 50
    options.tolerance, options.wind, options.override_solref = 1e-10, (0.0, 1.0, 0.0), (0.01, 0.8)
    options.disabled, options.enabled = ("contact", "warmstart"), ("energy", "override")
    return scene


@pytest.fixture(scope="module")
def every_item():
    return _every_item_scene()


@pytest.mark.parametrize("layout", ["NESTED", "FLAT"])
def test_every_mujoco_item_round_trips_equal(every_item, layout):
    back = read_usd(build_stage(every_item, layout))
    assert not [w for w in back.warnings if "skipped" in w], back.warnings
    # the read gives every body its computed mass properties; everything else comes back as written
    assert [d for d in scene_differences(every_item, back.scene) if ".mass: None != " not in d] == []
    assert scene_differences(back.scene, read_usd(build_stage(back.scene, layout)).scene) == []
    assert len(back.scene.sites) == 5 and len(back.scene.equalities) == 5 and len(back.scene.sensors) == 8


def test_the_round_trip_compares_the_new_items(every_item):
    """The comparison the round trip rests on sees a change in each new list."""
    back = read_usd(build_stage(every_item)).scene
    back.site("imu").size = (0.02, 0.005, 0.005)
    back.keyframe("crouch").controls["hip_motor"] = 0.4
    back.settings.mujoco.cone = "pyramidal"
    found = "\n".join(scene_differences(every_item, back))
    assert "site imu.size" in found and "keyframe crouch.controls" in found and "settings" in found


def test_converter_dialect_on_the_prims(every_item, tmp_path):
    """What the converter writes for the same things: Gprim sites with MjcSiteAPI, MjcSceneAPI options,
    MjcCollisionAPI, equality joints excluded from the articulation, spatial MjcTendon, MjcKeyframe."""
    path = tmp_path / "robot.usda"
    write_usd(every_item, str(path))
    stage = Usd.Stage.Open(str(path))
    by_name = {p.GetName(): p for p in stage.Traverse()}

    def schemas(prim):
        return set(prim.GetMetadata("apiSchemas").ApplyOperations([]))

    nose = by_name["nose"]
    assert nose.GetTypeName() == "Cube" and {"MjcSiteAPI", "NewtonSiteAPI"} <= schemas(nose)
    assert UsdGeom.Imageable(nose).GetPurposeAttr().Get() == "guide"
    assert nose.GetParent().GetName() == "head"
    scene_prim = by_name["PhysicsScene"]
    assert "MjcSceneAPI" in schemas(scene_prim)
    assert scene_prim.GetAttribute("mjc:option:cone").Get() == "elliptic"
    assert scene_prim.GetAttribute("mjc:flag:contact").Get() is False
    assert scene_prim.GetAttribute("mjc:flag:energy").Get() is True
    assert "MjcCollisionAPI" in schemas(by_name["head_collider"])
    assert by_name["head_collider"].GetAttribute("mjc:condim").Get() == 6
    weld = by_name["tail_weld"]
    assert weld.GetTypeName() == "PhysicsFixedJoint" and "MjcEqualityWeldAPI" in schemas(weld)
    assert UsdPhysics.Joint(weld).GetExcludeFromArticulationAttr().Get() is True
    assert by_name["head_connect"].GetTypeName() == "PhysicsSphericalJoint"
    assert by_name["string"].GetTypeName() == "MjcTendon"
    assert by_name["string"].GetAttribute("mjc:path:segments").Get() == [0, 0, 0, 1, 1]
    assert by_name["crouch"].GetTypeName() == "MjcKeyframe"
    head_cam = by_name["head_cam"]
    assert head_cam.GetTypeName() == "Camera" and head_cam.GetParent().GetName() == "head"
    assert by_name["sun"].GetTypeName() == "DistantLight"
    assert by_name["accel"].GetAttribute("mjc:sensor:type").Get() == "accelerometer"


def test_camera_field_of_view_is_the_vertical_aperture_over_the_focal_length(every_item):
    stage = build_stage(every_item)
    camera = next(UsdGeom.Camera(p) for p in stage.Traverse() if p.GetName() == "head_cam")
    aperture, focal = camera.GetVerticalApertureAttr().Get(), camera.GetFocalLengthAttr().Get()
    assert math.degrees(2.0 * math.atan(aperture / (2.0 * focal))) == pytest.approx(60.0, abs=1e-4)
    assert camera.GetHorizontalApertureAttr().Get() / aperture == pytest.approx(640 / 480, rel=1e-6)


def test_keyframe_arrays_follow_mujocos_layout(every_item):
    """qpos: the torso's free joint (7), then each body's joints depth first; a ball joint 4 numbers."""
    stage = build_stage(every_item)
    key = next(p for p in stage.Traverse() if p.GetName() == "crouch")
    qpos = list(key.GetAttribute("mjc:qpos").Get())
    assert len(qpos) == 7 + 8 + 4 + 2 and qpos[:3] == [0.0, 0.1, 0.3]
    assert len(key.GetAttribute("mjc:qvel").Get()) == 6 + 8 + 3 + 2
    assert list(key.GetAttribute("mjc:ctrl").Get()) == [0.3, 1.0, 0.0, 0.0, 0.0, 0.0]


def test_an_item_naming_what_does_not_exist_is_reported_and_left_out(every_item, tmp_path):
    import copy
    scene = copy.deepcopy(every_item)
    scene.equalities.append(Equality(name="lost_weld", kind=EqualityKind.WELD, body0="torso",
                                     body1="no_body"))
    scene.contact_pairs.append(ContactPair(name="lost_pair", shape0="head_collider", shape1="no_collider"))
    problems = write_usd(scene, str(tmp_path / "robot.usda"))
    assert "equality 'lost_weld': body 'no_body' does not exist; left out of the file" in problems
    assert "contact pair 'lost_pair': collider 'no_collider' does not exist; left out of the file" in problems
    back = read_usd(str(tmp_path / "robot.usda")).scene
    assert back.equalities and not [e for e in back.equalities if e.name == "lost_weld"]
    assert [p.name for p in back.contact_pairs] == ["head_tail"]


def test_a_keyframe_of_another_layout_is_read_as_far_as_it_matches_with_a_warning(every_item):
    stage = build_stage(every_item)
    key = next(p for p in stage.Traverse() if p.GetName() == "crouch")
    qpos = list(key.GetAttribute("mjc:qpos").Get())
    key.GetAttribute("mjc:qpos").Set(qpos[:7])
    read = read_usd(stage)
    assert any("mjc:qpos has 7 numbers where the robot has 21" in w for w in read.warnings)
    assert read.scene.keyframe("crouch").root_poses["torso"].pos == pytest.approx((0.0, 0.1, 0.3))


def test_a_site_on_a_plain_xform_is_read(every_item):
    """``MjcSiteAPI`` (or Newton's ``NewtonSiteAPI``) on an Xform under a body: a site at its pose."""
    from pxr import Gf, Sdf
    stage = build_stage(every_item)
    head = next(p for p in stage.Traverse() if p.GetName() == "head")
    for name, schema in (("marker", "MjcSiteAPI"), ("newton_marker", "NewtonSiteAPI")):
        xform = UsdGeom.Xform.Define(stage, head.GetPath().AppendChild(name))
        xform.AddTranslateOp().Set(Gf.Vec3d(0.0, 0.02, 0.0))
        xform.GetPrim().SetMetadata("apiSchemas", Sdf.TokenListOp.Create(prependedItems=[schema]))
    scene = read_usd(stage).scene
    for name in ("marker", "newton_marker"):
        site = scene.site(name)
        assert site.body == "head" and site.kind == SiteKind.SPHERE
        assert site.pose.pos == pytest.approx((0.0, 0.02, 0.0), abs=1e-6)
