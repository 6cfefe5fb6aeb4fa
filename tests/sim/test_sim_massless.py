"""Massless frame bodies (no colliders, no mass: end-effector frames, mounts) never block export
or simulation: welded ones get Newton's mass 0 (their parent carries them), moving ones a tiny mass."""

import numpy as np
import pytest

from articula.core import samples
from articula.core.model import Body, JointType, MassProperties, Pose, make_joint
from articula.core.transforms import pose_mul
from articula.sim.builder import FALLBACK_MASS, build_model
from articula.sim.simulation import Simulation


def pendulum_with_frame(joint_type: JointType, explicit_zero: bool = False):
    scene = samples.pendulum()
    link = scene.bodies[0]
    tip = Pose(pos=(0.0, 0.0, -0.3))
    frame = Body(name="tool_frame", pose=pose_mul(link.pose, tip), parent=link.name,
                 mass=MassProperties(0.0) if explicit_zero else None)
    scene.bodies.append(frame)
    scene.joints.append(make_joint("tool_mount", joint_type, link.name, "tool_frame", axis="X",
                                   local_pose0=tip, local_pose1=Pose()))
    return scene


@pytest.mark.parametrize("explicit_zero", [False, True])  # authored by hand / as an import reads it
def test_welded_massless_frame_has_newtons_mass_zero_and_simulates(explicit_zero):
    scene = pendulum_with_frame(JointType.FIXED, explicit_zero)
    built = build_model(scene, "MUJOCO", device="cpu")
    frame = built.model.body_label.index("tool_frame")
    assert built.model.body_mass.numpy()[frame] == 0.0
    assert not [n for n in built.notes if "tool_frame" in n]
    for solver in ("MUJOCO", "FEATHERSTONE"):
        sim = Simulation(scene, device="cpu", solver=solver)
        sim.advance(1.0)
        assert np.isfinite(sim.body_poses()).all()


def test_moving_massless_body_gets_a_tiny_mass_and_a_note():
    scene = pendulum_with_frame(JointType.REVOLUTE, explicit_zero=True)
    built = build_model(scene, "FEATHERSTONE", device="cpu")
    frame = built.model.body_label.index("tool_frame")
    assert built.model.body_mass.numpy()[frame] == pytest.approx(FALLBACK_MASS)
    assert any("tool_frame" in n for n in built.notes)
    sim = Simulation(scene, device="cpu", solver="FEATHERSTONE")
    sim.advance(0.5)
    assert np.isfinite(sim.body_poses()).all()


def test_massless_frame_is_exported_with_mass_zero(tmp_path):
    from pxr import Usd, UsdPhysics

    from articula.core.usd.writer import write_usd
    scene = pendulum_with_frame(JointType.FIXED)
    problems = write_usd(scene, str(tmp_path / "p.usda"))
    assert any("tool_frame" in p and "no colliders" in p for p in problems)
    stage = Usd.Stage.Open(str(tmp_path / "p.usda"))
    prim = next(p for p in stage.Traverse() if p.GetName() == "tool_frame")
    assert UsdPhysics.MassAPI(prim).GetMassAttr().Get() == 0.0
