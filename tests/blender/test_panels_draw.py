"""Every panel's draw() on real objects into a real ``UILayout``, for every joint type.

The bpy module has a window manager and a screen but no event loop. A popup's layout
(``popover_begin__internal``) is a real ``UILayout``: Blender creates every item, and reports a
misspelled property or operator on stderr. Ending the popup needs a real window (it crashes
headless), so it is left open: a few KB that Blender reports as not freed at exit.
A recorder in front of the layout notes what was drawn, so the tests can assert that a joint
type shows only its own fields.
"""

import sys
from pathlib import Path

import bpy
import pytest

from articula.addon.adapters.description_to_blender import build_scene
from articula.core import samples
from articula.panels import mujoco, physics, sidebar

sys.path.insert(0, str(Path(__file__).parent))
from authoring_helpers import reset_scene_settings  # noqa: E402

PHYSICS_PANELS = [c for c in (*physics.classes, *mujoco.classes) if issubclass(c, bpy.types.Panel)]
BLENDER_UI_ERRORS = ("property not found", "unknown operator", "not found", "Traceback", "rna_ui")


@pytest.fixture(autouse=True)
def fresh_scene_settings(clean_scene):
    reset_scene_settings(clean_scene)
    yield


class Recorder:
    """Forwards to a real ``UILayout`` and logs (call, struct, property or operator)."""

    LOGGED = ("prop", "prop_enum", "prop_search", "template_list", "operator", "operator_menu_enum", "label")

    def __init__(self, layout, log):
        object.__setattr__(self, "_layout", layout)
        object.__setattr__(self, "_log", log)

    def __getattr__(self, name):
        attr = getattr(self._layout, name)
        if not callable(attr):
            return attr

        def call(*args, **kwargs):
            result = attr(*args, **kwargs)
            if name in ("prop", "prop_enum", "prop_search"):
                self._log.append((name, args[0].bl_rna.identifier, args[1]))
            elif name == "template_list":
                self._log.append((name, args[0], args[3]))
            elif name in ("operator", "operator_menu_enum"):
                self._log.append((name, args[0], kwargs.get("text", "")))
            elif name == "label":
                self._log.append((name, "", kwargs.get("text", "")))
            return Recorder(result, self._log) if isinstance(result, bpy.types.UILayout) else result

        return call

    def __setattr__(self, name, value):
        setattr(self._layout, name, value)


class PanelSelf:
    """What a panel's draw functions use of ``self``."""

    def __init__(self, layout):
        self.layout = layout


def draw_panel(panel_cls, obj, area_type="PROPERTIES"):
    """Poll and draw ``panel_cls`` (header too) with ``obj`` active; returns (polled, log)."""
    wm = bpy.context.window_manager
    window = wm.windows[0]
    area = next(a for a in window.screen.areas if a.type == area_type)
    region = next(r for r in area.regions if r.type == panel_cls.bl_region_type)
    log = []
    with bpy.context.temp_override(window=window, area=area, region=region, object=obj, active_object=obj):
        context = bpy.context
        if hasattr(panel_cls, "poll") and not panel_cls.poll(context):
            return False, log
        popup = wm.popover_begin__internal(ui_units_x=20)
        panel = PanelSelf(Recorder(popup.layout, log))
        if hasattr(panel_cls, "draw_header"):
            panel_cls.draw_header(panel, context)
        panel_cls.draw(panel, context)
    return True, log


def drawn_props(log, struct=None):
    return {entry[2] for entry in log if entry[0].startswith("prop") and (struct is None or entry[1] == struct)}


def assert_clean_output(capfd):
    out, err = capfd.readouterr()
    bad = [line for line in (out + err).splitlines() if any(e in line for e in BLENDER_UI_ERRORS)
           and "icon" not in line]
    assert bad == []


JOINT_TYPES = ["FIXED", "REVOLUTE", "PRISMATIC", "SPHERICAL", "D6"]


def make_joint(scene, joint_type, motion="LIMITED"):
    body0 = bpy.data.objects.new("base", None)
    body1 = bpy.data.objects.new("link", None)
    joint = bpy.data.objects.new("pin", None)
    for obj in (body0, body1, joint):
        scene.collection.objects.link(obj)
    body0.articula.body.enabled = body1.articula.body.enabled = True
    joint.parent = body1
    props = joint.articula.joint
    props.enabled, props.body0, props.body1, props.type = True, body0, body1, joint_type
    for dof in props.dofs:
        dof.motion = motion
        dof.drive_enabled = True
    return joint


@pytest.mark.parametrize("joint_type", JOINT_TYPES)
def test_every_panel_draws_for_every_joint_type(clean_scene, capfd, joint_type):
    joint = make_joint(clean_scene, joint_type)
    drawn = {}
    for obj in (joint, joint.articula.joint.body1):
        for panel_cls in PHYSICS_PANELS:
            polled, log = draw_panel(panel_cls, obj)
            drawn[(obj.name, panel_cls.__name__)] = polled
    polled, _ = draw_panel(sidebar.ARTICULA_PT_sidebar, joint, "VIEW_3D")
    assert polled
    assert_clean_output(capfd)
    assert drawn[("pin", "ARTICULA_PT_joint")] and not drawn[("link", "ARTICULA_PT_joint")]
    assert drawn[("link", "ARTICULA_PT_body")] and not drawn[("pin", "ARTICULA_PT_body")]


@pytest.mark.parametrize("joint_type,shown,hidden", [
    ("FIXED", {"type", "body0", "body1"}, {"axis", "cone_limit0", "motion", "lower_angle", "lower_length"}),
    ("REVOLUTE", {"axis", "lower_angle", "upper_angle", "target_position_angle", "motion"},
     {"cone_limit0", "lower_length", "dofs"}),
    ("PRISMATIC", {"axis", "lower_length", "upper_length", "target_velocity_length", "velocity_limit_length"},
     {"cone_limit0", "lower_angle"}),
    ("SPHERICAL", {"axis", "cone_limit0", "cone_limit1", "has_cone_limit0", "dofs", "target_position_angle"},
     {"lower_angle", "upper_angle", "motion", "has_lower_limit"}),
    ("D6", {"dofs", "motion", "lower_length", "has_lower_limit"}, {"axis", "cone_limit0"}),
])
def test_joint_panel_shows_only_its_types_fields(clean_scene, capfd, joint_type, shown, hidden):
    joint = make_joint(clean_scene, joint_type)
    _, log = draw_panel(physics.ARTICULA_PT_joint, joint)
    names = drawn_props(log) | {entry[2] for entry in log if entry[0] == "template_list"}
    assert shown <= names and not (hidden & names)
    assert_clean_output(capfd)


def test_d6_locked_axis_hides_its_settings(clean_scene, capfd):
    joint = make_joint(clean_scene, "D6", motion="LOCKED")
    _, log = draw_panel(physics.ARTICULA_PT_joint, joint)
    assert not drawn_props(log, "ArticulaDofProps") - {"motion"}
    assert any("Locked" in entry[2] for entry in log if entry[0] == "label")
    assert_clean_output(capfd)


def test_active_d6_dof_is_the_one_drawn(clean_scene, capfd):
    joint = make_joint(clean_scene, "D6")
    joint.articula.joint.active_dof_index = 4  # rotY
    _, log = draw_panel(physics.ARTICULA_PT_joint, joint)
    assert "lower_angle" in drawn_props(log) and "lower_length" not in drawn_props(log)
    assert_clean_output(capfd)


@pytest.mark.parametrize("shape,sizes", [("BOX", {"half_extents"}), ("SPHERE", {"radius"}),
                                         ("CAPSULE", {"radius", "half_height", "axis"}),
                                         ("CYLINDER", {"radius", "half_height", "axis"}),
                                         ("CONVEX_HULL", set()), ("MESH", set()), ("PLANE", set())])
def test_collider_panel_shows_the_shapes_sizes(clean_scene, capfd, shape, sizes):
    obj = bpy.data.objects.new("c", bpy.data.meshes.new("c"))
    clean_scene.collection.objects.link(obj)
    obj.articula.collider.enabled, obj.articula.collider.shape = True, shape
    _, log = draw_panel(physics.ARTICULA_PT_collider, obj)
    collider_props = drawn_props(log, "ArticulaColliderProps")
    assert sizes <= collider_props
    assert not ({"half_extents", "radius", "half_height", "axis"} - sizes) & collider_props
    for panel_cls in (physics.ARTICULA_PT_collision, physics.ARTICULA_PT_material):
        assert draw_panel(panel_cls, obj)[0]
    assert_clean_output(capfd)


@pytest.mark.parametrize("name", sorted(samples.SAMPLES))
def test_panels_draw_on_every_object_of_every_sample(clean_scene, capfd, name):
    objects = build_scene(bpy.context, samples.SAMPLES[name]())
    bpy.ops.articula.validate()
    capfd.readouterr()  # the validation report
    clean_scene.articula.materials[0].has_density = True
    drawn = 0
    for obj in set(objects.values()):
        for panel_cls in PHYSICS_PANELS:
            drawn += draw_panel(panel_cls, obj)[0]
        assert draw_panel(sidebar.ARTICULA_PT_sidebar, obj, "VIEW_3D")[0]
    assert drawn >= len(set(objects.values()))
    assert_clean_output(capfd)


def test_scene_panel_lists_problems_after_validate(clean_scene, capfd):
    objects = build_scene(bpy.context, samples.pendulum())
    clean_scene.articula.materials[0].dynamic_friction = 9.0
    bpy.ops.articula.validate()
    capfd.readouterr()  # the validation report
    _, log = draw_panel(physics.ARTICULA_PT_scene, objects["pendulum_link"])
    assert ("template_list", "ARTICULA_UL_problems", "problems") in log
    assert any(e[:2] == ("operator", "articula.select_problem_object") for e in log)
    assert_clean_output(capfd)


def test_recorder_sees_a_misspelled_property(clean_scene, capfd):
    """The output check is live: Blender reports a property that does not exist."""
    obj = bpy.data.objects.new("x", None)
    clean_scene.collection.objects.link(obj)

    class Broken(physics.ARTICULA_PT_body):
        def draw(self, context):
            self.layout.prop(context.object.articula.body, "no_such_property")

    draw_panel(Broken, obj)
    with pytest.raises(AssertionError):
        assert_clean_output(capfd)


SIMULATION_PANELS = [(physics.ARTICULA_PT_simulation, "PROPERTIES"), (sidebar.ARTICULA_PT_sidebar_simulation, "VIEW_3D")]


def drawn_operators(log) -> list[tuple[str, str]]:
    return [(entry[1], entry[2]) for entry in log if entry[0] == "operator"]


@pytest.mark.parametrize("panel_cls,area", SIMULATION_PANELS)
def test_simulation_panels_offer_simulate_bake_and_the_settings(clean_scene, capfd, panel_cls, area):
    objects = build_scene(bpy.context, samples.pendulum())
    clean_scene.articula.replicas = 4
    polled, log = draw_panel(panel_cls, objects["pendulum_link"], area)
    operators = {name for name, _ in drawn_operators(log)}
    assert polled and {"articula.simulate", "articula.bake", "articula.clear_bake"} <= operators
    assert "articula.simulate_control" not in operators  # nothing runs
    assert {"solver", "steps_per_second", "replicas", "replica_spacing", "frame_start", "frame_end"} <= \
        drawn_props(log)
    assert any("25 substeps" in entry[2] for entry in log if entry[0] == "label")  # 600 steps/s at 24 fps
    assert_clean_output(capfd)


@pytest.mark.parametrize("panel_cls,area", SIMULATION_PANELS)
def test_simulation_panels_show_the_controls_while_running(clean_scene, capfd, monkeypatch, panel_cls, area):
    from articula.addon.simulation_session import BlenderSimulation
    from articula.operators import simulate

    objects = build_scene(bpy.context, samples.pendulum())
    loop = simulate.ModalLoop(BlenderSimulation(bpy.context, "FEATHERSTONE"))
    monkeypatch.setattr(simulate, "_RUNNING", loop)  # what invoke() sets while the modal loop runs
    _, log = draw_panel(panel_cls, objects["pendulum_link"], area)
    loop.handle("ESC")
    controls = [text for name, text in drawn_operators(log) if name == "articula.simulate_control"]
    assert controls == [text for _, text, _ in physics.SIMULATION_CONTROLS]
    assert "articula.simulate" not in {name for name, _ in drawn_operators(log)}
    assert_clean_output(capfd)


def test_the_add_sensor_site_and_camera_buttons_draw_for_a_body_site_and_joint(clean_scene, capfd):
    joint = make_joint(clean_scene, "REVOLUTE")
    body = joint.articula.joint.body1
    bpy.context.view_layer.objects.active = body
    assert bpy.ops.articula.add_sensor(kind="FORCE_TORQUE") == {"FINISHED"}
    site = next(o for o in body.children if o.articula.site.enabled)
    buttons = {}
    for obj in (body, site, joint):
        polled, log = draw_panel(mujoco.ARTICULA_PT_sensing, obj)
        assert polled, obj.name
        buttons[obj.name] = {entry[1] for entry in log if entry[0].startswith("operator")}
        listed = {entry[2] for entry in log if entry[0] == "label"}
        assert ({"link_site_force: force", "link_site_torque: torque"} <= listed) == (obj != joint)
    assert buttons["link"] == {"articula.add_sensor", "articula.add_site", "articula.add_robot_camera"}
    assert buttons["link_site"] == buttons["pin"] == {"articula.add_sensor"}
    _, log = draw_panel(sidebar.ARTICULA_PT_sidebar, body, "VIEW_3D")
    assert ("operator_menu_enum", "articula.add_sensor", "Add Sensor") in log
    assert_clean_output(capfd)
