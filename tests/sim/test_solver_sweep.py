"""Real MuJoCo robots nobody here wrote (`make mujoco-robots`), imported from MJCF and left untouched,
floating robots on a ground plane: each simulates 1 s at its file's step without blowing up on every
solver, or is refused up front with the reason; a limp fixed-base arm's end falls as far as on MuJoCo
(within a factor of two). The whole sweep, with substep counts and Newton's own solvers, is
bench/bench_solver_sweep.py (docs/simulation.md, "Which solver holds which robot")."""

import sys
from pathlib import Path

import numpy as np
import pytest

from articula.core.model import PhysicsScene
from articula.sim import Simulation
from articula.sim import SimulationDiverged
from articula.sim.builder import mass_matrix_blocks
from articula.sim.preflight import (MAX_SPLIT, SolverRefusal, armature_for_coupled_modes, effective_inertia,
                                    explicit_gains, floating_robots, refuse_unheld_robot, split_steps,
                                    stiffest_mode)

sys.path.insert(0, str(Path(__file__).parent.parent))
from robot_files import MUJOCO_ROBOT_FILES, mujoco_robot_scene as corpus_scene  # noqa: E402

#: Further than this from its start after 1 s untouched, a body was flung away.
FLUNG = 3.0
#: Featherstone and XPBD are slow on the CPU (5-20 s a robot): one robot per cause the sweep found.
NEWTON_SET = {
    "FEATHERSTONE": ["go1", "jaco", "gr1", "shadow_hand", "robotiq_gripper_140"],
    "XPBD": ["go1", "jaco", "gr1", "inspire_left_hand", "spot_arm", "yam"],
}


def holds_one_second(scene: PhysicsScene, solver: str):
    """Simulates 1 s untouched (SimulationDiverged fails the test) and checks nothing was flung away;
    returns the notes, or the refusal when the solver refused up front."""
    try:
        sim = Simulation(scene, device="cpu", solver=solver)
    except SolverRefusal as refusal:
        assert "needs MuJoCo" in str(refusal)
        return refusal
    start = sim.body_poses()
    for _ in range(25):
        sim.advance(0.04)
    poses = sim.body_poses()
    assert np.isfinite(poses).all()
    moved = np.linalg.norm(poses[:, :3] - start[:, :3], axis=1)
    assert moved.max() < FLUNG, f"{sim.body_names[int(moved.argmax())]} flung {moved.max():.1f} m"
    notes = sim.notes
    sim.close()
    return notes


@pytest.mark.parametrize("name", sorted(MUJOCO_ROBOT_FILES))
def test_every_corpus_robot_holds_one_second_on_mujoco(name):
    assert isinstance(holds_one_second(corpus_scene(name), "MUJOCO"), list)


@pytest.mark.parametrize("solver,name", [(s, n) for s, names in NEWTON_SET.items() for n in names])
def test_corpus_robots_hold_one_second_on_featherstone_and_xpbd_or_are_refused(solver, name):
    holds_one_second(corpus_scene(name), solver)


def test_floating_robots_are_split_into_short_solver_steps_at_most_eight():
    scene = corpus_scene("go1")
    assert split_steps(scene, "FEATHERSTONE", 0.002)[0] == 4
    assert split_steps(scene, "XPBD", 0.002)[0] == 2
    assert split_steps(scene, "XPBD", 0.001) == (1, [])
    assert split_steps(scene, "MUJOCO", 0.01) == (1, [])
    split, (note,) = split_steps(scene, "XPBD", 0.01)  # past eight: split into eight, and said what to do
    assert split == MAX_SPLIT and "floating robot 'trunk'" in note and "MuJoCo, or with 10 substeps" in note
    fixed = corpus_scene("xarm7")
    assert not floating_robots(fixed) and split_steps(fixed, "XPBD", 0.002 * MAX_SPLIT * 2)[0] == 1


def test_featherstone_repairs_light_links_and_out_of_limit_starts_with_a_note():
    scene = corpus_scene("jaco")
    sim = Simulation(scene, device="cpu", solver="FEATHERSTONE")
    assert any("armature added" in n and "'j2s7s300_joint_7'" in n for n in sim.notes), sim.notes
    outside = [n for n in sim.notes if "starts it at its nearest limit" in n]
    assert len(outside) == 3 and "'j2s7s300_joint_2'" in outside[0]
    q = sim.joint_positions()
    assert q[("j2s7s300_joint_2", "rotZ")] == pytest.approx(0.820305, abs=1e-5)  # its lower limit


def test_coupled_dampers_each_held_alone_get_armature_for_the_mode_they_make_together():
    # Two stacked hinges on nearly the same axis, each damped, and a third DOF of its own, undamped.
    block = np.array([[1.0e-3, 0.9e-3, 0.0], [0.9e-3, 1.0e-3, 0.0], [0.0, 0.0, 1.0]])
    stiffness, damping, dt = np.zeros(3), np.array([1.0, 1.0, 0.0]), 1.5e-4
    alone = 1.0 / np.diagonal(np.linalg.inv(block))
    assert (damping * dt / alone).max() < 1.0  # each DOF alone holds the step
    assert stiffest_mode(block, stiffness, damping, dt) > 1.0  # together they make a mode that does not
    armature = armature_for_coupled_modes(block, stiffness, damping, dt, np.zeros(3))
    assert stiffest_mode(block + np.diag(armature), stiffness, damping, dt) == pytest.approx(1.0, abs=1e-6)
    assert armature[0] > 0.0 and armature[1] > 0.0 and armature[2] == 0.0
    calm = np.array([0.1, 0.1, 0.0])  # dampers the step holds together: nothing added
    assert (armature_for_coupled_modes(block, stiffness, calm, dt, np.zeros(3)) == 0.0).all()


def test_featherstone_holds_dm_controls_dog_whose_stacked_shoulder_hinges_outran_the_step():
    # Each damped hinge of its scapula and shoulder held the step alone; together they made a mode at
    # c * dt / I = 2.3 and the dog diverged in 0.04 s.
    sim = Simulation(corpus_scene("dog"), device="cpu", solver="FEATHERSTONE")
    repaired = next(n for n in sim.notes if "armature added" in n)
    assert "'shoulder_L_supinate' (rotX)" in repaired and "'scapula_R_extend' (rotX)" in repaired
    stiffness, damping = explicit_gains(sim.model, sim.built.dofs)
    blocks = list(mass_matrix_blocks(sim.model))
    assert max(stiffest_mode(b, stiffness[f:l], damping[f:l], sim.solver_dt) for f, l, b in blocks) \
        <= 1.0 + 1e-6
    assert effective_inertia(sim.model, blocks).min() > 0.0
    start = sim.body_poses()
    try:
        sim.advance(0.2)
    except SimulationDiverged as error:
        pytest.fail(f"diverged at {sim.time:.3f} s ({error.body})")
    assert np.abs(sim.body_poses()[:, :3] - start[:, :3]).max() < 0.5  # it settles, nothing flies off
    sim.close()


def end_drop(name: str, solver: str, seconds: float = 0.5) -> float:
    sim = Simulation(corpus_scene(name), device="cpu", solver=solver)
    start = sim.body_poses()[-1, 2]
    sim.advance(seconds)
    drop = float(start - sim.body_poses()[-1, 2])
    sim.close()
    return drop


@pytest.mark.parametrize("name", ["xarm7", "ur5e"])
def test_a_limp_fixed_base_arm_falls_as_far_as_on_mujoco(name):
    reference = end_drop(name, "MUJOCO")
    assert reference > 0.2  # a real fall, not a balanced arm
    for solver in ("FEATHERSTONE", "XPBD"):
        drop = end_drop(name, solver)
        assert reference / 2 < drop < reference * 2, \
            f"{solver}: {drop:.3f} m against MuJoCo's {reference:.3f} m"


def test_featherstone_refuses_a_gripper_whose_links_start_inside_each_other():
    with pytest.raises(SolverRefusal, match=r"needs MuJoCo, or XPBD: bodies 'right_inner_finger' and "
                                            r"'right_inner_knuckle' start 12 mm inside each other"):
        Simulation(corpus_scene("robotiq_gripper_140"), device="cpu", solver="FEATHERSTONE")


def test_xpbd_makes_a_link_lighter_than_a_gram_a_gram_with_a_note():
    sim = Simulation(corpus_scene("spot_arm"), device="cpu", solver="XPBD")
    light = [n for n in sim.notes if "lighter than 0.001 kg" in n]
    assert len(light) == 1 and "'arm_link_hr0' (1e-06 kg)" in light[0], sim.notes
    link = sim.model.body_label.index("arm_link_hr0")
    assert sim.model.body_mass.numpy()[link] == pytest.approx(1e-3)
    sim.close()


def test_xpbd_refuses_a_floating_robot_jointed_mostly_by_three_axis_joints_up_front():
    with pytest.raises(SolverRefusal, match=r"needs MuJoCo, or Featherstone: floating robot 'root' turns "
                                            r"10 of its 31 bodies about three axes each"):
        Simulation(corpus_scene("humanoid_CMU"), device="cpu", solver="XPBD")
    for name in ("dog", "adroit_hand", "go1"):  # one such body at most: not refused
        refuse_unheld_robot(corpus_scene(name), "XPBD")
