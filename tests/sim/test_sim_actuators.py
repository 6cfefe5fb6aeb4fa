"""Actuators, fixed tendons and coupled joints in the simulation (issue 16), against MuJoCo's own
C library where MuJoCo defines the answer."""

import math
from pathlib import Path

import mujoco
import numpy as np
import pytest

from articula.core.mjcf import read_mjcf
from articula.core.model import (
    Actuator, Body, DofMotion, JointType, MassProperties, Mimic, PhysicsScene, Pose, SceneSettings,
    make_joint,
)
from articula.sim.simulation import Simulation

ARM_GRIPPER = Path(__file__).resolve().parents[1] / "data" / "arm_gripper.xml"
#: Controls that move every actuator of arm_gripper.xml (the gripper's through its tendon).
ARM_CONTROLS = {"arm/shoulder_yaw": 0.5, "arm/shoulder_pitch": -0.3, "arm/elbow": 0.6, "gripper": 0.02}


def arm_gripper() -> PhysicsScene:
    return read_mjcf(str(ARM_GRIPPER)).scene


def mujoco_body_positions(steps: int, controls: dict[str, float] | None = None) -> dict[str, np.ndarray]:
    """Each body's world position after ``steps`` of MuJoCo's own simulation of the original MJCF."""
    model = mujoco.MjModel.from_xml_path(str(ARM_GRIPPER))
    data = mujoco.MjData(model)
    for name, value in (controls or {}).items():
        data.ctrl[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_ACTUATOR, name)] = value
    for _ in range(steps):
        mujoco.mj_step(model, data)
    return {mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, b): data.xpos[b].copy()
            for b in range(1, model.nbody)}


def body_errors(sim: Simulation, reference: dict[str, np.ndarray]) -> dict[str, float]:
    poses = dict(zip(sim.body_names, sim.body_poses()))
    assert set(poses) == set(reference)
    return {name: float(np.linalg.norm(poses[name][:3] - reference[name])) for name in reference}


# --- the arm with a tendon-coupled gripper, MuJoCo against MuJoCo ---------------------------------


def test_arm_gripper_with_no_control_stays_within_1cm_of_mujoco():
    """ctrl = 0 for 1 s at the file's timestep: the servos hold the arm against gravity as MuJoCo's."""
    scene = arm_gripper()
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    assert sim.dt == pytest.approx(0.002)  # the file's timestep
    sim.advance(1.0)
    assert sim.steps == 500
    errors = body_errors(sim, mujoco_body_positions(sim.steps))
    assert {"left_finger", "right_finger", "tool/frame", "camera_mount"} <= errors.keys()
    assert max(errors.values()) < 0.01, errors
    assert max(errors.values()) < 1e-4, errors  # measured: micrometres
    # Gravity does pull on the arm: without its servos it would fall (so the match means something).
    assert sim.joint_positions()[("shoulder_pitch", "rotY")] > 0.005


def test_arm_gripper_controls_move_arm_and_fingers_as_mujoco():
    """Every actuator driven, the gripper through its fixed tendon, the right finger through the
    joint equality: every body within 1 mm of MuJoCo's own run with the same ctrl."""
    sim = Simulation(arm_gripper(), device="cpu", solver="MUJOCO")
    sim.set_controls(ARM_CONTROLS)
    sim.advance(1.0)
    errors = body_errors(sim, mujoco_body_positions(sim.steps, ARM_CONTROLS))
    assert max(errors.values()) < 1e-3, errors
    q = sim.joint_positions()
    # The tendon servo opened both fingers to its target length (0.5 * left + 0.5 * right = 0.02).
    assert q[("left_finger_slide", "transY")] == pytest.approx(0.02, abs=1e-3)
    assert q[("right_finger_slide", "transX")] == pytest.approx(q[("left_finger_slide", "transY")], abs=1e-4)


def test_arm_gripper_converted_to_usd_moves_as_mujoco():
    """The same robot through NVIDIA's converter (MjcActuator, MjcTendon and NewtonMimicAPI prims)
    and Articula's USD reader: with every actuator driven, every body within 1 mm of MuJoCo's own run
    of the original MJCF (ctrl = 0 alone would hold still and prove little)."""
    import os

    from articula.core.usd.reader import read_usd

    path = os.path.expanduser("~/.cache/articula/corpus/articula_arm_gripper/arm_gripper.usda")
    if not os.path.exists(path):
        pytest.skip("the converted corpus comes with `make corpus`")
    scene = read_usd(path).scene
    assert sorted(a.name for a, *_ in scene.actuators()) == sorted(ARM_CONTROLS)
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    sim.set_controls(ARM_CONTROLS)
    sim.advance(1.0)
    errors = body_errors(sim, mujoco_body_positions(sim.steps, ARM_CONTROLS))
    assert max(errors.values()) < 1e-3, errors  # measured: 0.2 micrometres


def test_arm_gripper_becomes_drives_and_a_tendon_force_on_featherstone():
    """On Featherstone the arm's servos are joint drives and the gripper's tendon servo MuJoCo's force
    law through joint_f, the fingers coupled by Newton's mimic: the same motion as MuJoCo's."""
    scene = arm_gripper()
    for shape in scene.shapes:  # MuJoCo skips finger-forearm contacts (welded hand); compare free motion
        shape.collision_group = 0
    sim = Simulation(scene, device="cpu", solver="FEATHERSTONE")
    routes = {slot.actuator.name: slot.route for slot in sim.built.actuators}
    assert routes == {"arm/shoulder_yaw": "drive", "arm/shoulder_pitch": "drive", "arm/elbow": "drive",
                      "gripper": "kernel"}
    sim.set_controls(ARM_CONTROLS)
    sim.advance(1.0)
    errors = body_errors(sim, mujoco_body_positions(sim.steps, ARM_CONTROLS))
    assert max(errors.values()) < 0.01, errors
    q = sim.joint_positions()
    assert q[("left_finger_slide", "transY")] == pytest.approx(0.02, abs=1e-3)
    assert q[("right_finger_slide", "transX")] == pytest.approx(q[("left_finger_slide", "transY")], abs=1e-5)


# --- one servo, one motor ------------------------------------------------------------------------

LINK_LENGTH = 0.5
LINK_MASS = 1.0


def hinge_arm(actuator: Actuator, gravity: bool = True, armature: float = 0.0) -> PhysicsScene:
    """A 1 kg, 0.5 m rod on a hinge about Y at the world origin, lying along +X at q = 0."""
    settings = SceneSettings(gravity=(0.0, 0.0, -9.81 if gravity else 0.0), steps_per_second=600.0)
    scene = PhysicsScene(name="hinge_arm", settings=settings)
    rod = LINK_MASS * LINK_LENGTH ** 2 / 12.0
    scene.bodies.append(Body("rod", Pose((0.0, 0.0, 1.0)), mass=MassProperties(
        LINK_MASS, center_of_mass=(LINK_LENGTH / 2, 0.0, 0.0), diagonal_inertia=(1e-3, rod, rod))))
    hinge = make_joint("hinge", JointType.REVOLUTE, None, "rod", axis="Y", local_pose0=Pose((0.0, 0.0, 1.0)))
    hinge.dofs[0].armature = armature
    hinge.dofs[0].actuators.append(actuator)
    scene.joints.append(hinge)
    return scene


def rod_inertia_about_hinge(armature: float = 0.0) -> float:
    return LINK_MASS * LINK_LENGTH ** 2 / 3.0 + armature


@pytest.mark.parametrize("solver", ["MUJOCO", "FEATHERSTONE"])
def test_position_servo_follows_a_45_degree_ramp(solver):
    """The control keyed 0 -> 45 degrees over 1 s, fed each frame at 60 fps: the joint ends within
    2 degrees of 45 (a negative hinge angle about Y lifts the rod; the ramp lifts it against gravity)."""
    servo = Actuator.position("lift", kp=1000.0, kv=20.0, ctrl_range=(-math.pi, math.pi),
                              force_range=(-50.0, 50.0))
    sim = Simulation(hinge_arm(servo), device="cpu", solver=solver)
    goal = -math.radians(45.0)
    for frame in range(1, 61):
        sim.set_controls({"lift": goal * frame / 60})
        sim.advance(1.0 / 60.0)
    angle = sim.joint_positions()[("hinge", "rotY")]
    assert math.degrees(abs(angle - goal)) < 2.0, math.degrees(angle)
    assert sim.actuator_controls == {"lift": pytest.approx(goal)}


@pytest.mark.parametrize("solver", ["MUJOCO", "FEATHERSTONE"])
def test_motor_torque_is_gear_times_control(solver):
    """A free hinge, no gravity: a motor with gear 2 and ctrl 0.75 accelerates it at 1.5 N m / I."""
    motor = Actuator.motor("spin", gear=2.0, control=0.75)
    armature = 0.05
    sim = Simulation(hinge_arm(motor, gravity=False, armature=armature), device="cpu", solver=solver)
    sim.advance(0.1)
    inertia = rod_inertia_about_hinge(armature)
    speed = sim.joint_velocities()[("hinge", "rotY")]
    assert speed == pytest.approx(2.0 * 0.75 / inertia * sim.time, rel=0.02)
    sim.set_controls({"spin": -0.75})  # reverses: the same deceleration brings it back to rest
    sim.advance(0.1)
    assert abs(sim.joint_velocities()[("hinge", "rotY")]) < 0.02 * speed


def test_motor_on_xpbd_is_the_joint_effort_gear_times_control():
    """XPBD turns joint efforts into body wrenches its own way (1.5 N m gives ~1.5x the rigid-body
    answer there): the motor must give exactly what the same effort applied directly gives."""
    speeds = []
    for control, effort in ((0.75, 0.0), (0.0, 1.5)):
        sim = Simulation(hinge_arm(Actuator.motor("spin", gear=2.0, control=control), gravity=False),
                         device="cpu", solver="XPBD")
        sim.set_joint_efforts({"hinge": effort})
        sim.advance(0.1)
        speeds.append(sim.joint_velocities()[("hinge", "rotY")])
    assert speeds[0] > 0.5
    assert speeds[0] == pytest.approx(speeds[1], rel=1e-4)


@pytest.mark.parametrize("solver", ["MUJOCO", "FEATHERSTONE"])
def test_controls_outside_ctrl_range_are_clamped(solver):
    motor = Actuator.motor("spin", gear=1.0, ctrl_range=(-0.5, 0.5))
    sim = Simulation(hinge_arm(motor, gravity=False), device="cpu", solver=solver)
    sim.set_controls({"spin": 4.0})
    assert sim.actuator_controls["spin"] == 0.5
    sim.advance(0.1)
    speed = sim.joint_velocities()[("hinge", "rotY")]
    assert speed == pytest.approx(0.5 / rod_inertia_about_hinge() * sim.time, rel=0.02)


@pytest.mark.parametrize("solver", ["MUJOCO", "FEATHERSTONE"])
def test_force_range_limits_the_motor_torque(solver):
    motor = Actuator.motor("spin", gear=2.0, force_range=(-0.25, 0.25), control=3.0)
    sim = Simulation(hinge_arm(motor, gravity=False), device="cpu", solver=solver)
    sim.advance(0.1)
    speed = sim.joint_velocities()[("hinge", "rotY")]
    assert speed == pytest.approx(2.0 * 0.25 / rod_inertia_about_hinge() * sim.time, rel=0.02)


def test_servo_gear_scales_the_target_as_mujoco_does():
    """A position servo with gear 2 drives the actuator length gear * q to ctrl: q = ctrl / 2 on
    MuJoCo and on Featherstone's drive alike."""
    ends = {}
    for solver in ("MUJOCO", "FEATHERSTONE"):
        servo = Actuator.position("lift", kp=250.0, kv=5.0, gear=2.0, control=-0.6)
        sim = Simulation(hinge_arm(servo, gravity=False), device="cpu", solver=solver)
        sim.advance(1.5)
        ends[solver] = sim.joint_positions()[("hinge", "rotY")]
    assert ends["MUJOCO"] == pytest.approx(-0.3, abs=2e-3)
    assert ends["FEATHERSTONE"] == pytest.approx(ends["MUJOCO"], abs=2e-3)


@pytest.mark.parametrize("solver", ["MUJOCO", "FEATHERSTONE", "XPBD"])
def test_velocity_servo_reaches_its_speed(solver):
    """A velocity servo (gear 2) spins a free hinge up to ctrl / gear and holds it there."""
    servo = Actuator.velocity("spin", kv=5.0, gear=2.0, control=3.0)
    sim = Simulation(hinge_arm(servo, gravity=False), device="cpu", solver=solver)
    sim.advance(1.0)
    assert sim.joint_velocities()[("hinge", "rotY")] == pytest.approx(1.5, rel=0.02)


@pytest.mark.parametrize("solver", ["MUJOCO", "FEATHERSTONE"])
def test_servo_and_motor_on_one_dof_add_up(solver):
    """A position servo (the DOF's drive on Featherstone) and a motor (MuJoCo's force law through
    joint_f there) on one hinge: the rod settles where the servo's pull balances the motor,
    q = ctrl + motor / kp."""
    servo = Actuator.position("hold", kp=100.0, kv=10.0, control=0.1)
    scene = hinge_arm(servo, gravity=False)
    scene.joint("hinge").dofs[0].actuators.append(Actuator.motor("push", control=5.0))
    sim = Simulation(scene, device="cpu", solver=solver)
    if solver == "MUJOCO":  # MuJoCo's own actuators, as the MJCF export writes them
        assert [sim.mj_model.actuator(a).name for a in range(sim.mj_model.nu)] == ["hold", "push"]
    else:
        assert {s.actuator.name: s.route for s in sim.built.actuators} == {"hold": "drive", "push": "kernel"}
    sim.advance(2.0)
    assert sim.joint_positions()[("hinge", "rotY")] == pytest.approx(0.1 + 5.0 / 100.0, abs=1e-3)


# --- the control API -----------------------------------------------------------------------------


@pytest.mark.parametrize("solver", ["MUJOCO", "FEATHERSTONE"])
def test_reset_restores_the_initial_controls(solver):
    servo = Actuator.position("lift", kp=400.0, kv=10.0, control=-0.2)
    sim = Simulation(hinge_arm(servo, gravity=False), device="cpu", solver=solver)
    sim.set_controls({"lift": -0.8})
    sim.advance(0.5)
    sim.reset()
    assert sim.actuator_controls == {"lift": pytest.approx(-0.2)}
    sim.advance(1.0)
    assert sim.joint_positions()[("hinge", "rotY")] == pytest.approx(-0.2, abs=5e-3)


def test_unknown_actuator_and_bad_value_are_named():
    sim = Simulation(hinge_arm(Actuator.motor("spin"), gravity=False), device="cpu", solver="FEATHERSTONE")
    with pytest.raises(KeyError, match="'wheel'.*'spin'"):
        sim.set_controls({"wheel": 1.0})
    with pytest.raises(ValueError, match="'spin'"):
        sim.set_controls({"spin": float("nan")})


def test_every_replica_gets_the_controls():
    scene = hinge_arm(Actuator.motor("spin", gear=1.0), gravity=False)
    scene.settings.replicas = 3
    sim = Simulation(scene, device="cpu", solver="FEATHERSTONE")
    sim.set_controls({"spin": 0.5})
    sim.advance(0.1)
    speeds = [sim.joint_velocities(replica)[("hinge", "rotY")] for replica in range(3)]
    assert speeds == pytest.approx([0.5 / rod_inertia_about_hinge() * sim.time] * 3, rel=0.02)


def test_mujoco_rows_for_every_replica():
    """One MuJoCo actuator row per replica, each on its own world's DOF; set_controls writes all."""
    from articula.sim.builder import build_model

    scene = arm_gripper()
    scene.settings.replicas = 2
    built = build_model(scene, "MUJOCO", device="cpu")
    rows = {(s.actuator.name, s.replica): s.index for s in built.actuators}
    assert sorted(rows.values()) == list(range(8))
    trnid = built.model.mujoco.actuator_trnid.numpy()
    world = built.model.mujoco.actuator_world.numpy()
    elbow = {r: built.dofs[("elbow", "rotY", r)].qd_index for r in (0, 1)}
    for replica in (0, 1):
        assert trnid[rows[("arm/elbow", replica)]][0] == elbow[replica]
        assert world[rows[("arm/elbow", replica)]] == replica
    assert elbow[0] != elbow[1]


# --- coupled joints ------------------------------------------------------------------------------


@pytest.mark.parametrize("solver", ["MUJOCO", "FEATHERSTONE", "XPBD"])
def test_mimic_joint_follows_its_leader(solver):
    """Two sliders on a fixed base, the second = 0.01 + 0.5 * first; a motor pushes the first."""
    scene = PhysicsScene(name="mimic", settings=SceneSettings(gravity=(0.0, 0.0, 0.0)))
    light = MassProperties(0.5, diagonal_inertia=(0.01,) * 3)
    base = MassProperties(1.0, diagonal_inertia=(0.1,) * 3)
    scene.bodies += [Body("base", Pose((0.0, 0.0, 1.0)), mass=base),
                     Body("a", Pose((0.0, 0.2, 1.0)), "base", mass=light),
                     Body("b", Pose((0.0, -0.2, 1.0)), "base", mass=light)]
    scene.joints.append(make_joint("weld", JointType.FIXED, None, "base", local_pose0=Pose((0.0, 0.0, 1.0))))
    for name, y in (("a", 0.2), ("b", -0.2)):
        joint = make_joint(f"{name}_slide", JointType.PRISMATIC, "base", name, axis="X",
                           local_pose0=Pose((0.0, y, 0.0)))
        joint.dofs[0].motion, joint.dofs[0].lower, joint.dofs[0].upper = DofMotion.LIMITED, -1.0, 1.0
        scene.joints.append(joint)
    scene.joint("b_slide").mimic = Mimic("a_slide", gear=0.5, offset=0.01)
    scene.joint("a_slide").dofs[0].actuators.append(Actuator.motor("push", control=0.4))
    sim = Simulation(scene, device="cpu", solver=solver)
    sim.advance(0.5)
    q = sim.joint_positions()
    assert q[("a_slide", "transX")] > 0.05
    assert q[("b_slide", "transX")] == pytest.approx(0.01 + 0.5 * q[("a_slide", "transX")], abs=2e-3)


def test_what_a_solver_cannot_simulate_is_noted():
    scene = hinge_arm(Actuator("muscle", gain_type="muscle", gain=(0.75, 1.05)), gravity=False)
    assert any("'muscle'" in note and "MUJOCO only" in note
               for note in Simulation(scene, device="cpu", solver="FEATHERSTONE").notes)
    scene = arm_gripper()
    scene.joint("elbow").dofs[0].drive_enabled = True
    notes = Simulation(scene, device="cpu", solver="MUJOCO", mujoco_direct=False).notes  # Newton's conversion
    assert any("'elbow'" in note and "drive is not applied" in note for note in notes)
    # MuJoCo on the CPU simulates the MJCF export: its notes are what the export could not say
    scene.joint("elbow").dofs[0].limit_stiffness = 1e4
    notes = Simulation(scene, device="cpu", solver="MUJOCO").notes
    assert any("MJCF cannot say" in note and "soft limit of elbow" in note for note in notes)


# --- the corpus: Newton's own MuJoCo rows ---------------------------------------------------------

from ..core.robot_models import actuator_rows, row_differences, tendon_rows  # noqa: E402
from ..core.test_mjcf_actuators import _by_axis as by_axis  # noqa: E402
from ..core.test_mjcf_corpus import CORPUS, corpus_file, newton_reference  # noqa: E402


@pytest.mark.parametrize("key", CORPUS + ["data/arm_gripper"])
def test_mujoco_rows_are_newtons_add_mjcf_rows(key, tmp_path, monkeypatch):
    """The model Simulation builds for MuJoCo holds the actuators and tendons Newton's own add_mjcf
    builds from the file (target DOF, types, gains, bias, gear, control and force ranges, ctrl). A
    MuJoCo body's several joints are one Newton D6 whose DOFs add_mjcf numbers in file order and
    Articula in name order (as add_usd): those rows name their DOF by its world axis."""
    from articula.sim.builder import build_model

    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder
    path = str(ARM_GRIPPER) if key == "data/arm_gripper" else corpus_file(key)
    reference = newton_reference(key, path, tmp_path, mujoco=True)
    built = build_model(read_mjcf(path).scene, "MUJOCO", device="cpu")
    ours = built.model
    assert len(actuator_rows(ours)) == len(mujoco.MjSpec.from_file(path).actuators)
    found = row_differences(by_axis(actuator_rows(reference), reference), by_axis(actuator_rows(ours), ours))
    expected = [row for row in tendon_rows(reference)
                if not _on_stacked_joints(row["name"], read_mjcf(path).scene, built.notes)]
    found += row_differences(expected, tendon_rows(ours), "tendon")
    assert found == [], "\n".join(found)


def _on_stacked_joints(tendon: str, scene, notes: list[str]) -> bool:
    """A tendon on one of a body's several joints (humanoid's hip_y): Newton's add_mjcf keeps its row,
    SolverMuJoCo then drops that entry ("invalid D6 joint type"); Articula leaves the tendon out and
    says so rather than simulate a different one."""
    bodies = [j.body1 for j in scene.joints]
    stacked = any(bodies.count(scene.joint(tj.joint).body1) > 1 for tj in scene.tendon(tendon).joints)
    if stacked:
        assert any(f"tendon {tendon!r}" in note and "not simulated" in note for note in notes)
    return stacked


def _mujoco_model_without_sensors(path: str):
    """MuJoCo's own model of a file; sensors (which do not act) removed, as the reader does: MuJoCo
    3.17 refuses nv_humanoid's touch sensors on sites it no longer finds."""
    spec = mujoco.MjSpec.from_file(path)
    for sensor in list(spec.sensors):
        spec.delete(sensor)
    return spec.compile()


@pytest.mark.parametrize("key", CORPUS)
def test_actuator_forces_are_mujocos_on_every_corpus_robot(key, tmp_path, monkeypatch):
    """Random controls inside each range, one step: each actuator's force (gain, bias, clamps) in the
    MuJoCo model Simulation drives is MuJoCo's own for the original file, and so are the joint forces
    they make (qfrc_actuator: transmission and gear), joint by joint where both models name the joint
    alike (a body's several joints become one Newton D6 with renamed axes), as a whole elsewhere."""
    monkeypatch.chdir(tmp_path)
    path = corpus_file(key)
    model = _mujoco_model_without_sensors(path)
    data = mujoco.MjData(model)
    low, high = model.actuator_ctrlrange.T
    data.ctrl[:] = np.random.default_rng(7).uniform(np.where(model.actuator_ctrllimited, low, -1.0),
                                                    np.where(model.actuator_ctrllimited, high, 1.0))
    names = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_ACTUATOR, a) or f"actuator_{a}"
             for a in range(model.nu)]
    sim = Simulation(read_mjcf(path).scene, device="cpu", solver="MUJOCO")
    sim.set_controls(dict(zip(names, data.ctrl)))
    sim.step()
    mujoco.mj_step(model, data)
    ours, our_data = sim.mj_model, sim.mj_data  # the MJCF export's model: actuators keep their names
    assert ours.nu == model.nu
    if not model.nu:  # tabletop: objects on a table, nothing to drive
        return
    for a, name in enumerate(names):
        k = mujoco.mj_name2id(ours, mujoco.mjtObj.mjOBJ_ACTUATOR, name)
        assert our_data.actuator_force[k] == pytest.approx(data.actuator_force[a], rel=1e-5), name
    moving = [j for j in range(model.njnt) if model.jnt_type[j] != mujoco.mjtJoint.mjJNT_FREE]
    theirs = data.qfrc_actuator[[model.jnt_dofadr[j] for j in moving]]
    ours_free = [j for j in range(ours.njnt) if ours.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE]
    free_dofs = [d for j in ours_free for d in range(ours.jnt_dofadr[j], ours.jnt_dofadr[j] + 6)]
    mine = np.delete(our_data.qfrc_actuator, free_dofs)
    assert np.sort(mine) == pytest.approx(np.sort(theirs), rel=1e-5, abs=1e-6)
    for j in moving:
        name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j)
        mine_j = mujoco.mj_name2id(ours, mujoco.mjtObj.mjOBJ_JOINT, name)
        if mine_j >= 0:
            assert our_data.qfrc_actuator[ours.jnt_dofadr[mine_j]] == pytest.approx(
                data.qfrc_actuator[model.jnt_dofadr[j]], rel=1e-5, abs=1e-6)
    assert np.abs(theirs).max() > 1e-3  # the controls did push
