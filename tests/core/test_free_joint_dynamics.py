"""A floating root's free joint as MuJoCo gives it (damping, armature, frictionloss, stiffness) is read
from MJCF, written back and carried through USD (its simulation: tests/sim/test_free_joint_dynamics.py)."""

import mujoco
import pytest

from articula.core.mjcf import read_mjcf
from articula.core.mjcf.writer import write_mjcf
from articula.core.usd.reader import read_usd
from articula.core.usd.writer import build_stage

FLOATING = """<mujoco><default><joint stiffness="5"/></default><worldbody>
  <body name="puck" pos="0 0 1"><joint name="root" type="free" damping="2" armature="0.25"
        frictionloss="0.5"/><geom size="0.1"/></body></worldbody></mujoco>"""


@pytest.fixture
def floating(tmp_path):
    path = tmp_path / "floating.xml"
    path.write_text(FLOATING)
    return str(path)


def test_mjcf_free_joint_is_read_and_written_back(floating, tmp_path):
    read = read_mjcf(floating)
    puck = read.scene.body("puck")
    assert puck.free_joint_dynamics == (2.0, 0.25, 0.5, 5.0)  # stiffness from the default class
    assert not any("free joint" in w for w in read.warnings)
    out = tmp_path / "written.xml"
    write_mjcf(read.scene, str(out))
    model = mujoco.MjModel.from_xml_path(str(out))
    assert model.dof_damping.tolist() == [2.0] * 6 and model.dof_armature.tolist() == [0.25] * 6
    assert model.dof_frictionloss.tolist() == [0.5] * 6 and model.jnt_stiffness.tolist() == [5.0]


@pytest.mark.parametrize("layout, parser", [("NESTED", "usd"), ("FLAT", "usd"), ("FLAT", "python")])
def test_usd_carries_the_free_joint(floating, layout, parser):
    stage = build_stage(read_mjcf(floating).scene, layout)
    prim = next(p for p in stage.Traverse() if p.HasAttribute("mjc:freejoint:damping"))
    assert prim.GetAttribute("mjc:freejoint:stiffness").Get() == 5.0
    assert read_usd(stage, parser=parser).scene.body("puck").free_joint_dynamics == (2.0, 0.25, 0.5, 5.0)
