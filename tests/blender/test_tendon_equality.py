"""Tendon equalities in Blender (a gripper's finger coupling: a fixed tendon held at its start length):
through File > Import / Export MJCF and USD, the scene's list with its panel and operators, a robot
imported twice, and a bake on MuJoCo that keeps the finger coupled."""

import sys
from pathlib import Path

import bpy
import pytest

mujoco = pytest.importorskip("mujoco")

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from authoring_helpers import reset_scene_settings  # noqa: E402
from test_panels_draw import assert_clean_output, draw_panel, drawn_props  # noqa: E402
from articula.panels import mujoco as mujoco_panels  # noqa: E402
from tests.sim.test_tendon_equality import FINGER  # noqa: E402


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


@pytest.fixture
def finger_file(tmp_path, clean_scene):
    reset_scene_settings(clean_scene)
    path = tmp_path / "finger.xml"
    path.write_text(FINGER)
    return str(path)


def _tendon_equalities(model) -> list[tuple]:
    rows = []
    for e in range(model.neq):
        if int(model.eq_type[e]) != int(mujoco.mjtEq.mjEQ_TENDON):
            continue
        first, second = (mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_TENDON, int(i)) if i >= 0 else None
                         for i in (model.eq_obj1id[e], model.eq_obj2id[e]))
        rows.append((first, second, tuple(model.eq_solref[e].round(6)),
                     bool(model.eq_active0[e])))
    return rows


def test_import_holds_it_and_export_writes_it_back(finger_file, tmp_path):
    assert bpy.ops.articula.import_mjcf(filepath=finger_file) == {"FINISHED"}
    (item,) = bpy.context.scene.articula.tendon_equalities
    assert (item.name, item.tendon0, item.tendon1, item.active) == ("hold", "coupling", "", True)
    assert tuple(item.solref) == pytest.approx((0.005, 1.0))
    out = str(tmp_path / "finger_out.xml")
    assert bpy.ops.articula.export_mjcf(filepath=out) == {"FINISHED"}
    original = mujoco.MjModel.from_xml_path(finger_file)
    assert _tendon_equalities(mujoco.MjModel.from_xml_path(out)) == _tendon_equalities(original)


def test_an_edit_shows_in_the_export(finger_file, tmp_path):
    assert bpy.ops.articula.import_mjcf(filepath=finger_file) == {"FINISHED"}
    bpy.context.scene.articula.tendon_equalities[0].active = False
    out = str(tmp_path / "finger_out.xml")
    assert bpy.ops.articula.export_mjcf(filepath=out) == {"FINISHED"}
    assert _tendon_equalities(mujoco.MjModel.from_xml_path(out)) == [("coupling", None, (0.005, 1.0), False)]


def test_usd_export_and_import_keep_it(finger_file, tmp_path):
    assert bpy.ops.articula.import_mjcf(filepath=finger_file) == {"FINISHED"}
    path = str(tmp_path / "finger.usda")
    assert bpy.ops.articula.export_usd(filepath=path) == {"FINISHED"}
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    reset_scene_settings(bpy.context.scene)  # the tendons and the equality on the scene go too
    assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}
    (item,) = bpy.context.scene.articula.tendon_equalities
    assert (item.tendon0, item.tendon1) == ("coupling", "")
    assert tuple(item.solref) == pytest.approx((0.005, 1.0))
    assert "hold" not in bpy.data.objects  # a typeless prim: no stray object for it


def test_a_robot_imported_twice_keeps_each_equality_on_its_own_tendon(finger_file):
    for _ in range(2):
        assert bpy.ops.articula.import_mjcf(filepath=finger_file) == {"FINISHED"}
    props = bpy.context.scene.articula
    assert [t.name for t in props.tendons] == ["coupling", "coupling.001"]
    assert [(e.name, e.tendon0) for e in props.tendon_equalities] == [("hold", "coupling"),
                                                                      ("hold.001", "coupling.001")]


def test_the_panel_and_operators(finger_file, capfd):
    assert bpy.ops.articula.import_mjcf(filepath=finger_file) == {"FINISHED"}
    props = bpy.context.scene.articula
    assert bpy.ops.articula.tendon_equality_add() == {"FINISHED"}
    assert [e.tendon0 for e in props.tendon_equalities] == ["coupling", "coupling"]
    assert props.active_tendon_equality_index == 1
    polled, log = draw_panel(mujoco_panels.ARTICULA_PT_tendon_equalities, bpy.context.object)
    assert polled
    assert {"tendon0", "tendon1", "polycoef", "solref", "solimp"} <= drawn_props(log)
    assert_clean_output(capfd)
    assert bpy.ops.articula.tendon_equality_remove() == {"FINISHED"}
    assert len(props.tendon_equalities) == 1


def test_adding_without_a_tendon_says_what_to_select(clean_scene):
    reset_scene_settings(clean_scene)
    with pytest.raises(RuntimeError, match="Select a fixed tendon"):
        bpy.ops.articula.tendon_equality_add()
    assert len(clean_scene.articula.tendon_equalities) == 0


def test_a_bake_on_mujoco_keeps_the_finger_coupled(finger_file):
    assert bpy.ops.articula.import_mjcf(filepath=finger_file) == {"FINISHED"}
    scene = bpy.context.scene
    scene.articula.solver = "MUJOCO"
    scene.frame_start, scene.frame_end = 1, 13  # half a second at 24 fps
    assert bpy.ops.articula.bake() == {"FINISHED"}
    scene.frame_set(scene.frame_end)
    knuckle = bpy.data.objects["proximal"].matrix_world.to_euler().y
    distal = bpy.data.objects["distal"].matrix_world.to_euler().y  # knuckle + tip joint angles
    assert knuckle > 0.3  # the finger fell...
    assert distal == pytest.approx(2.0 * knuckle, abs=0.05)  # ...its tip joint turned as far as the knuckle
