"""A floating root's free joint (MuJoCo's damping, armature, frictionloss, stiffness) in Blender: imported
from MJCF onto the body, shown in its panel, edited, exported to MJCF and USD and back."""

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
from articula.panels import physics  # noqa: E402
from tests.core.test_free_joint_dynamics import FLOATING  # noqa: E402


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


@pytest.fixture
def puck(tmp_path, clean_scene):
    reset_scene_settings(clean_scene)
    path = tmp_path / "floating.xml"
    path.write_text(FLOATING)
    assert bpy.ops.articula.import_mjcf(filepath=str(path)) == {"FINISHED"}
    return next(o for o in clean_scene.objects if o.articula.body.enabled and o.name.startswith("puck"))


def _free_joint(model) -> tuple:
    return (model.dof_damping[0], model.dof_armature[0], model.dof_frictionloss[0], model.jnt_stiffness[0])


def test_import_puts_it_on_the_body_and_the_panel_shows_it(puck, capfd):
    props = puck.articula.body
    assert (props.free_joint_damping, props.free_joint_armature, props.free_joint_friction,
            props.free_joint_stiffness) == pytest.approx((2.0, 0.25, 0.5, 5.0))
    polled, log = draw_panel(physics.ARTICULA_PT_body, puck)
    assert polled
    assert {"free_joint_damping", "free_joint_stiffness"} <= drawn_props(log)
    assert_clean_output(capfd)


def test_an_edit_shows_in_the_mjcf_export(puck, tmp_path):
    puck.articula.body.free_joint_damping = 3.5
    out = str(tmp_path / "out.xml")
    assert bpy.ops.articula.export_mjcf(filepath=out) == {"FINISHED"}
    assert _free_joint(mujoco.MjModel.from_xml_path(out)) == pytest.approx((3.5, 0.25, 0.5, 5.0))


def test_usd_export_and_import_keep_it(puck, tmp_path, clean_scene):
    out = str(tmp_path / "puck.usda")
    assert bpy.ops.articula.export_usd(filepath=out) == {"FINISHED"}
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    assert bpy.ops.articula.import_usd(filepath=out) == {"FINISHED"}
    body = next(o for o in clean_scene.objects if o.articula.body.enabled)
    props = body.articula.body
    assert (props.free_joint_damping, props.free_joint_armature, props.free_joint_friction,
            props.free_joint_stiffness) == pytest.approx((2.0, 0.25, 0.5, 5.0))
