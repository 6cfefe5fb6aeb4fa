"""MuJoCo's sites, cameras, lights, sensors, keyframes, equalities, contact pairs, spatial tendons, options,
contact parameters and names as Blender objects and settings, both ways through the adapters."""

import math
from dataclasses import asdict, fields

import bpy
import pytest

from articula.addon.adapters.blender_to_description import scene_from_blender
from articula.addon.adapters.description_to_blender import build_scene
from articula.core import samples
from articula.core.model import (Actuator, Camera, CameraMode, ContactPair, ContactParams, Equality,
                                 EqualityKind, Keyframe, Light, LightKind, Pose, Sensor, Site, SiteKind,
                                 SpatialTendon, TendonEquality, TendonWrap, WrapKind)

TURNED = (math.cos(0.3), 0.0, math.sin(0.3), 0.0)


def mujoco_finger():
    """The finger with one of everything MuJoCo adds to a robot."""
    scene = samples.robotic_finger()
    scene.settings.mujoco.integrator, scene.settings.mujoco.cone = "implicitfast", "elliptic"
    scene.settings.mujoco.iterations, scene.settings.mujoco.wind = 40, (0.5, 0.0, 0.0)
    scene.settings.mujoco.disabled = ("warmstart",)
    scene.shapes[2].contact = ContactParams(condim=4, priority=1, solref=(0.01, 0.8),
                                            solimp=(0.8, 0.9, 0.002, 0.4, 3.0), solmix=0.5)
    scene.joints[1].dofs[0].name = "mcp_own"
    scene.bodies[0].free_joint_name = "palm_free"
    scene.sites = [Site("tip", "distal", Pose((0.0, 0.0, 0.02), TURNED), SiteKind.BOX, (0.01, 0.02, 0.03),
                        (1.0, 0.0, 0.0, 1.0), group=3),
                   Site("palm_site", "palm", Pose((0.01, 0.0, 0.0)))]
    scene.cameras = [Camera("eye", "palm", Pose((0.0, -0.1, 0.05), TURNED), fovy=math.radians(60.0),
                            mode=CameraMode.TARGETBODY, target="distal", resolution=(640, 480),
                            clip_start=0.02, clip_end=20.0)]
    scene.lights = [Light("lamp", "palm", Pose((0.0, 0.0, 0.3)), LightKind.SPOT, (0.9, 0.8, 0.7),
                          cutoff=math.radians(30.0), exponent=4.0, attenuation=(1.0, 0.1, 0.0),
                          cast_shadow=False),
                    Light("sun", None, Pose((0.0, 0.0, 3.0)), LightKind.DIRECTIONAL)]
    scene.sensors = [Sensor("tip_pos", "framepos", "tip", "site", "palm_site", "site", noise=0.01,
                            cutoff=2.0),
                     Sensor("mcp_pos", "jointpos", "metacarpophalangeal", "joint"),
                     Sensor("touch", "contact", "distal_collider", "geom",
                            settings={"data": "found", "num": "2"}),
                     Sensor("act_force", "actuatorfrc", "site_motor", "actuator")]
    scene.keyframes = [Keyframe("bent", time=0.5, joint_positions={("metacarpophalangeal", "rotZ"): 0.4},
                                joint_velocities={("rotational", "rotZ"): -1.0},
                                root_poses={"palm": Pose((0.0, 0.0, 0.1), TURNED)},
                                controls={"site_motor": 0.25})]
    scene.equalities = [Equality("hold", EqualityKind.WELD, "palm", "distal", anchor=(0.0, 0.0, 0.01),
                                 relative_pose=Pose((0.0, 0.0, 0.1)), torque_scale=2.0,
                                 solref=(0.05, 1.0)),
                        Equality("pin", EqualityKind.CONNECT, None, "middle", anchor=(0.1, 0.0, 0.2),
                                 site0="palm_site", site1="tip", active=False)]
    scene.contact_pairs = [ContactPair("rub", "palm_collider", "distal_collider", condim=1,
                                       friction=(0.5, 0.5, 0.01, 0.001, 0.001), margin=0.002, gap=0.001)]
    scene.spatial_tendons = [SpatialTendon("string", [TendonWrap(WrapKind.SITE, "palm_site"),
                                                      TendonWrap(WrapKind.GEOM, "middle_collider", "tip"),
                                                      TendonWrap(WrapKind.SITE, "tip")],
                                           [Actuator.motor("pull", ctrl_range=(0.0, 1.0))],
                                           lower=0.01, upper=0.2, stiffness=3.0, width=0.002)]
    scene.tendon_equalities = [TendonEquality("keep", "string", polycoef=(0.01, 0.5, 0.0, 0.0, 0.0),
                                              active=False, solref=(0.03, 0.9),
                                              solimp=(0.8, 0.9, 0.002, 0.4, 3.0))]
    scene.frame_actuators = [Actuator.motor("site_motor", target_kind="site", target="tip",
                                            reference_site="palm_site", gear_vector=(0, 0, 1, 0, 0, 0))]
    return scene


def assert_close(a, b, where=""):
    """Equal up to Blender's float32 storage."""
    if isinstance(a, float) or isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6), f"{where}: {a} != {b}"
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), f"{where}: {a.keys()} != {b.keys()}"
        for key in a:
            assert_close(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), f"{where}: {a} != {b}"
        for k, (x, y) in enumerate(zip(a, b)):
            assert_close(x, y, f"{where}[{k}]")
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def shape(desc, name):
    return next(s for s in desc.shapes if s.name == name)


NEW_LISTS = ("sites", "cameras", "lights", "sensors", "keyframes", "equalities", "contact_pairs",
             "spatial_tendons", "tendon_equalities", "frame_actuators")


@pytest.fixture
def finger(clean_scene):
    desc = mujoco_finger()
    objects = build_scene(bpy.context, desc)
    return clean_scene, desc, objects


def test_everything_reads_back_as_it_was_built(finger):
    scene, desc, _ = finger
    back = scene_from_blender(scene)
    for name in NEW_LISTS:
        assert_close([asdict(i) for i in getattr(back, name)], [asdict(i) for i in getattr(desc, name)], name)
    assert_close(asdict(back.settings.mujoco), asdict(desc.settings.mujoco), "mujoco")
    assert_close(asdict(shape(back, "proximal_collider").contact), asdict(desc.shapes[2].contact), "contact")
    assert shape(back, "palm_collider").contact is None
    assert back.joint("metacarpophalangeal").dofs[0].name == "mcp_own"
    assert back.joint("rotational").dofs[0].name is None
    assert back.body("palm").free_joint_name == "palm_free"


def test_each_is_an_ordinary_blender_object_on_its_body(finger):
    _, _, objects = finger
    tip, eye, lamp, sun = (bpy.data.objects[n] for n in ("tip", "eye", "lamp", "sun"))
    assert tip.type == "EMPTY" and tip.parent == objects["distal"] and tip.empty_display_type == "CUBE"
    assert tip.empty_display_size == pytest.approx(0.03)
    assert eye.type == "CAMERA" and eye.parent == objects["palm"]
    assert eye.data.sensor_fit == "VERTICAL" and eye.data.angle_y == pytest.approx(math.radians(60.0))
    assert eye.articula.camera.target == objects["distal"]
    assert lamp.type == "LIGHT" and lamp.data.type == "SPOT" and lamp.parent == objects["palm"]
    assert lamp.data.spot_size == pytest.approx(math.radians(60.0)) and not lamp.data.use_shadow
    assert sun.data.type == "SUN" and sun.parent is None
    tip_pos, mcp_pos = bpy.data.objects["tip_pos"], bpy.data.objects["mcp_pos"]
    assert tip_pos.parent == tip and tip_pos.articula.sensor.reference == bpy.data.objects["palm_site"]
    assert mcp_pos.parent == objects["metacarpophalangeal"]
    assert bpy.data.objects["act_force"].articula.sensor.target_name == "site_motor"
    weld = bpy.context.scene.articula.equalities["hold"]
    assert weld.body0 == objects["palm"] and weld.body1 == objects["distal"]


def test_edits_in_blender_show_in_the_description(finger):
    scene, _, objects = finger
    bpy.data.objects["tip"].articula.site.size = (0.05, 0.05, 0.05)
    bpy.data.objects["eye"].data.angle_y = math.radians(30.0)
    bpy.data.objects["lamp"].data.color = (0.1, 0.2, 0.3)
    bpy.data.objects["lamp"].data.spot_size = math.radians(90.0)
    bpy.data.objects["tip_pos"].articula.sensor.noise = 0.5
    scene.articula.equalities["pin"].active = True
    scene.articula.mujoco.solver = "cg"
    objects["distal_collider"].articula.collider.condim = 6
    objects["distal_collider"].articula.collider.has_contact = True
    back = scene_from_blender(scene)
    assert back.site("tip").size == pytest.approx((0.05, 0.05, 0.05))
    assert back.camera("eye").fovy == pytest.approx(math.radians(30.0))
    lamp = next(light for light in back.lights if light.name == "lamp")
    assert lamp.color == pytest.approx((0.1, 0.2, 0.3)) and lamp.cutoff == pytest.approx(math.radians(45.0))
    assert back.sensor("tip_pos").noise == pytest.approx(0.5)
    assert next(e for e in back.equalities if e.name == "pin").active
    assert back.settings.mujoco.solver == "cg"
    assert shape(back, "distal_collider").contact.condim == 6


def test_a_renamed_target_keeps_its_link(finger):
    scene, _, objects = finger
    bpy.data.objects["tip"].name = "fingertip"
    objects["distal"].name = "tip_link"
    back = scene_from_blender(scene)
    assert back.sensor("tip_pos").target == "fingertip"
    assert next(e for e in back.equalities if e.name == "hold").body1 == "tip_link"
    assert [w.target for w in back.spatial_tendons[0].path] == ["palm_site", "middle_collider", "fingertip"]


def test_a_second_import_appends_to_the_scene_lists(finger):
    scene, desc, _ = finger
    build_scene(bpy.context, mujoco_finger(), merge=True)
    assert len(scene.articula.keyframes) == 2 and len(scene.articula.equalities) == 4


def test_mujoco_panels_draw_on_every_new_object(finger, capfd):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from test_panels_draw import BLENDER_UI_ERRORS, draw_panel

    from articula.panels import mujoco as mujoco_panels
    from articula.panels import physics

    panels = [c for c in (*physics.classes, *mujoco_panels.classes) if issubclass(c, bpy.types.Panel)]
    drawn = set()
    for name in ("tip", "eye", "lamp", "sun", "tip_pos", "act_force", "palm", "distal_collider",
                 "metacarpophalangeal"):
        for panel_cls in panels:
            if draw_panel(panel_cls, bpy.data.objects[name])[0]:
                drawn.add(panel_cls.__name__)
    assert {"ARTICULA_PT_site", "ARTICULA_PT_sensor", "ARTICULA_PT_camera", "ARTICULA_PT_light",
            "ARTICULA_PT_keyframes", "ARTICULA_PT_equalities", "ARTICULA_PT_contact_pairs",
            "ARTICULA_PT_spatial_tendons", "ARTICULA_PT_mujoco_options"} <= drawn
    from articula.panels import sidebar

    polled, log = draw_panel(sidebar.ARTICULA_PT_sidebar, bpy.data.objects["tip"], "VIEW_3D")
    assert polled and ("operator", "articula.apply_keyframe", "bent") in log
    err = capfd.readouterr().err
    assert not any(marker in err for marker in BLENDER_UI_ERRORS), err


def test_a_keyframe_value_typed_in_is_exactly_that_value(finger):
    scene, _, _ = finger
    value = scene.articula.keyframes["bent"].values[0]
    value.values[0] = 0.0
    assert scene_from_blender(scene).keyframe("bent").joint_positions[("metacarpophalangeal", "rotZ")] == 0.0


def test_look_through_a_robot_camera_renders_what_the_robot_sees(finger):
    scene, _, _ = finger
    eye = bpy.data.objects["eye"]
    with bpy.context.temp_override(object=eye, active_object=eye):
        assert bpy.ops.articula.look_through_robot_camera() == {"FINISHED"}
    assert scene.camera == eye
    assert (scene.render.resolution_x, scene.render.resolution_y) == (640, 480)


def test_welds_and_contact_pairs_are_added_from_the_selection(finger):
    scene, _, objects = finger
    for obj in scene.objects:
        obj.select_set(False)
    for name in ("palm", "middle"):
        objects[name].select_set(True)
    bpy.context.view_layer.objects.active = objects["middle"]
    assert bpy.ops.articula.equality_add() == {"FINISHED"}
    weld = scene.articula.equalities[scene.articula.active_equality_index]
    assert (weld.body0, weld.body1, weld.kind) == (objects["palm"], objects["middle"], "WELD")
    for name in ("palm", "middle"):
        objects[name].select_set(False)
    for name in ("palm_collider", "middle_collider"):
        objects[name].select_set(True)
    assert bpy.ops.articula.contact_pair_add() == {"FINISHED"}
    pair = scene.articula.contact_pairs[scene.articula.active_contact_pair_index]
    assert {pair.shape0, pair.shape1} == {objects["palm_collider"], objects["middle_collider"]}
    back = scene_from_blender(scene)
    assert any(e.body1 == "middle" and e.body0 == "palm" for e in back.equalities)
    assert len(back.contact_pairs) == 2


def test_a_sensor_whose_object_is_deleted_is_left_out(finger):
    scene, _, _ = finger
    bpy.data.objects.remove(bpy.data.objects["palm_site"])
    back = scene_from_blender(scene)
    assert "tip_pos" not in {s.name for s in back.sensors}  # it measured in the deleted site
    assert {"mcp_pos", "touch", "act_force"} <= {s.name for s in back.sensors}


def test_a_moved_site_reads_where_it_stands_an_unmoved_one_as_the_file_had_it(finger):
    scene, desc, _ = finger
    tip, palm_site = bpy.data.objects["tip"], bpy.data.objects["palm_site"]
    tip.location.x += 0.01
    bpy.context.view_layer.update()
    back = scene_from_blender(scene)
    assert back.site("tip").pose.pos[0] == pytest.approx(desc.site("tip").pose.pos[0] + 0.01, abs=1e-6)
    kept, file = back.site("palm_site").pose, desc.site("palm_site").pose  # float64, not float32
    assert kept.pos == pytest.approx(file.pos, abs=1e-12) and kept.rot == pytest.approx(file.rot, abs=1e-12)
    assert palm_site.articula.has_file_pose
