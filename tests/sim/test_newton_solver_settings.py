"""Each Newton solver gets settings of its own (sim.builder): a body welded to the world needs no
mass, massless bodies on a moving chain get what Featherstone and XPBD need to move, and joint damping
is applied in a form XPBD keeps stable."""

import numpy as np

from articula.core import samples
from articula.core.model import (Body, DofMotion, JointType, MassProperties, PhysicsScene, Pose, SceneSettings,
                                 make_joint)
from articula.sim.builder import FALLBACK_MASS, build_model
from articula.sim.simulation import Simulation


def test_a_base_welded_to_the_world_needs_no_mass_and_gets_no_note():
    scene = samples.six_dof_arm()
    scene.body("arm_base").mass = MassProperties(0.0)  # as an MJCF import of a massless base reads it
    built = build_model(scene, "FEATHERSTONE", device="cpu")
    assert not [n for n in built.notes if "arm_base" in n]
    assert built.model.body_mass.numpy()[built.model.body_label.index("arm_base")] == 0.0
    sim = Simulation(scene, device="cpu", solver="FEATHERSTONE")
    sim.advance(0.2)
    assert np.isfinite(sim.body_poses()).all()


def limp_arm(massless_link: bool = True, upper_mass: float = 1.0) -> PhysicsScene:
    """A fixed-base arm held out horizontally, no drives: a massless base welded to the world, an
    ``upper_mass`` kg upper arm, a massless mount welded to it, a massless wrist on its own hinge (when
    ``massless_link``) and a 0.5 kg forearm, with a massless tool frame at the end."""
    scene = PhysicsScene(name="limp_arm", settings=SceneSettings(ground_plane=False))

    def link(name, parent, x, mass=None):
        scene.bodies.append(Body(name, Pose((x, 0.0, 1.0)), parent=parent, mass=mass))

    def rod(mass):
        return MassProperties(mass, center_of_mass=(0.2, 0.0, 0.0),
                              diagonal_inertia=(1e-3 * mass, mass * 0.16 / 12, mass * 0.16 / 12))

    link("base", None, 0.0, MassProperties(0.0))
    link("upper", "base", 0.0, rod(upper_mass))
    link("mount", "upper", 0.4, MassProperties(0.0))
    link("wrist" if massless_link else "forearm", "mount", 0.4,
         MassProperties(0.0) if massless_link else rod(0.5))
    if massless_link:
        link("forearm", "wrist", 0.4, rod(0.5))
    link("tool", "forearm", 0.8, MassProperties(0.0))
    scene.joints += [make_joint("base_to_world", JointType.FIXED, None, "base",
                                local_pose0=Pose((0.0, 0.0, 1.0))),
                     make_joint("shoulder", JointType.REVOLUTE, "base", "upper", axis="Y"),
                     make_joint("mount_weld", JointType.FIXED, "upper", "mount",
                                local_pose0=Pose((0.4, 0.0, 0.0)))]
    if massless_link:
        scene.joints += [make_joint("wrist_roll", JointType.REVOLUTE, "mount", "wrist", axis="X"),
                         make_joint("elbow", JointType.REVOLUTE, "wrist", "forearm", axis="Y")]
    else:
        scene.joints.append(make_joint("elbow", JointType.REVOLUTE, "mount", "forearm", axis="Y"))
    scene.joints.append(make_joint("tool_weld", JointType.FIXED, "forearm", "tool",
                                   local_pose0=Pose((0.4, 0.0, 0.0))))
    return scene


def tip_drop(solver: str, scene: PhysicsScene, seconds: float = 0.5) -> float:
    sim = Simulation(scene, device="cpu", solver=solver)
    row = [key[0] for key in sim.body_keys].index("tool")
    start = sim.body_poses()[row, 2]
    sim.advance(seconds)
    poses = sim.body_poses()
    assert np.isfinite(poses).all(), solver
    return float(start - poses[row, 2])


def test_a_limp_arm_with_massless_links_falls_on_every_solver_as_on_mujoco():
    scene = limp_arm()
    mujoco = tip_drop("MUJOCO", scene)
    assert mujoco > 0.3  # it falls
    drops = {solver: tip_drop(solver, scene) for solver in ("FEATHERSTONE", "XPBD")}
    for solver, drop in drops.items():
        assert mujoco / 2 < drop < mujoco * 2, f"{solver}: {drop:.3f} m against MuJoCo's {mujoco:.3f} m"


def test_xpbd_gives_massless_moving_bodies_a_small_mass_and_says_so():
    built = build_model(limp_arm(), "XPBD", device="cpu")
    mass = dict(zip(built.model.body_label, built.model.body_mass.numpy()))
    assert mass["base"] == 0.0  # the world holds it
    assert mass["mount"] == mass["wrist"] == mass["tool"] == FALLBACK_MASS
    note = next(n for n in built.notes if "XPBD" in n)
    assert "mount" in note and "wrist" in note and "tool" in note and "base" not in note
    featherstone = build_model(limp_arm(), "FEATHERSTONE", device="cpu")
    assert dict(zip(featherstone.model.body_label, featherstone.model.body_mass.numpy()))["mount"] == 0.0


def test_explicit_joint_damping_holds_on_xpbd_and_slows_the_arm_as_on_mujoco():
    # A light upper arm: applied as an explicit torque, the damper blew XPBD up in the first frame.
    scene = limp_arm(massless_link=False, upper_mass=0.3)
    scene.joint("shoulder").dofs[0].viscous_damping = 20.0  # N*m*s
    built = build_model(scene, "XPBD", device="cpu")
    shoulder = built.dofs[("shoulder", "rotY", 0)]
    assert built.model.joint_target_kd.numpy()[shoulder.qd_index] == 20.0  # XPBD's implicit damper
    assert shoulder.dof.viscous_damping == 0.0  # not applied twice
    mujoco, xpbd = tip_drop("MUJOCO", scene), tip_drop("XPBD", scene)
    assert 0.05 < mujoco < tip_drop("MUJOCO", limp_arm(False, upper_mass=0.3)) / 2  # the damper slows it
    assert mujoco / 2 < xpbd < mujoco * 2, f"XPBD: {xpbd:.3f} m against MuJoCo's {mujoco:.3f} m"


def test_a_joint_starting_outside_its_limits_is_said_before_simulating():
    scene = samples.pendulum()
    hinge = scene.joint("pendulum_hinge").dofs[0]
    hinge.motion, hinge.lower, hinge.upper = DofMotion.LIMITED, 1.0, 2.0  # it starts at 0
    for solver in ("FEATHERSTONE", "XPBD"):
        notes = build_model(scene, solver, device="cpu").notes
        assert any("'pendulum_hinge'" in n and "outside its limits" in n and "needs MuJoCo" in n
                   for n in notes), (solver, notes)
    assert not [n for n in build_model(scene, "MUJOCO", device="cpu").notes if "outside its limits" in n]
    hinge.lower = -1.0
    assert not [n for n in build_model(scene, "FEATHERSTONE", device="cpu").notes if "outside its limits" in n]


def test_mujocos_iterations_stay_mujocos_on_import(tmp_path):
    """An MJCF's ``iterations`` is MuJoCo's solver setting; XPBD's and Featherstone's stay their own
    (100 XPBD iterations pinned a limp arm where 10 let it fall)."""
    from articula.core.mjcf.reader import read_mjcf

    path = tmp_path / "arm.xml"
    path.write_text('<mujoco><option iterations="100"/><worldbody><body name="link" pos="0 0 1">'
                    '<joint name="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03"/>'
                    '</body></worldbody></mujoco>')
    settings = read_mjcf(str(path)).scene.settings
    assert settings.mujoco.iterations == 100
    assert settings.solver_iterations == SceneSettings().solver_iterations  # Newton's default
