"""XPBD and a joint limit past a half turn: XPBD reads a one-angle joint's angle only within a half turn
either way of Newton's zero, so a limit past it (pybullet's A1 thighs: -1.05..4.19 rad) was met on the
wrong side once the joint turned that far. On XPBD such a DOF's Newton zero is the middle of its limits
(sim.builder.zero_shift); every coordinate the description sees stays its own."""

import math

import numpy as np
import pytest

from articula.core.model import (Actuator, Body, Dof, DofAxis, DofMotion, Joint, JointType, MassProperties,
                                 Mimic, PhysicsScene, Pose, Shape, ShapeKind)
from articula.core.transforms import quat_from_axis_angle, quat_mul, quat_rotate
from articula.sim import Simulation
from articula.sim.builder import build_model, zero_shift

LOWER, UPPER = -0.5, 4.0  # rad: the upper limit 0.86 rad past the half turn
HANGS_AT = 4.4  # rad: where the pendulum would hang, past its upper limit: gravity holds it on the limit
#: XPBD and Featherstone both rest within 1 mrad of the limit (4.00003, 4.001); the swing overshot it by
#: 2.8 mrad on XPBD at 5.5 rad/s.
AT_THE_LIMIT = 0.01
ARM = MassProperties(mass=1.0, center_of_mass=(0.25, 0.0, 0.0), diagonal_inertia=(0.005, 0.005, 0.005))


def wide_hinge(**values) -> Dof:
    return Dof(axis=DofAxis.ROT_Y, motion=DofMotion.LIMITED, lower=LOWER, upper=UPPER, **values)


def pendulum(start: float) -> PhysicsScene:
    """A 1 kg arm hinged to the world about Y, its centre of mass 0.25 m away, hanging at HANGS_AT."""
    scene = PhysicsScene()
    centre = quat_rotate(quat_from_axis_angle((0.0, 1.0, 0.0), -HANGS_AT), (0.0, 0.0, -0.25))
    mass = MassProperties(mass=1.0, center_of_mass=centre, diagonal_inertia=(0.005,) * 3)
    scene.bodies.append(Body(name="arm", pose=Pose(pos=(0.0, 0.0, 1.0)), mass=mass))
    hinge = wide_hinge(initial_position=start, viscous_damping=0.2)
    scene.joints.append(Joint(name="hinge", type=JointType.REVOLUTE, body0=None, body1="arm",
                              dofs=[hinge]))
    return scene


@pytest.mark.parametrize("solver", ["XPBD", "FEATHERSTONE"])
def test_a_pendulum_swung_past_a_half_turn_rests_on_its_upper_limit(solver):
    # Released at 2 rad, gravity swings it up through pi onto its 4 rad limit. Unshifted, XPBD read the arm
    # past pi as below its lower limit, threw it back the long way round and it came to rest at 0.125 rad
    # (reported as -6.16).
    sim = Simulation(pendulum(start=2.0), device="cpu", solver=solver)
    angles = []
    for _ in range(15):
        sim.advance(0.1)
        angles.append(sim.joint_positions()[("hinge", "rotY")])
    sim.close()
    assert LOWER - AT_THE_LIMIT < min(angles) and max(angles) < UPPER + AT_THE_LIMIT
    assert angles[-1] == pytest.approx(UPPER, abs=AT_THE_LIMIT)


def floating_arm(hinge: Dof) -> PhysicsScene:
    """A free 1 kg base and a 1 kg arm hinged to it about Y (turned to X on XPBD: angle_as_twist),
    no gravity."""
    scene = PhysicsScene()
    scene.settings.gravity = (0.0, 0.0, 0.0)
    base = MassProperties(mass=1.0, diagonal_inertia=(0.01, 0.01, 0.01))
    scene.bodies += [Body(name="base", pose=Pose(pos=(0.0, 0.0, 1.0)), mass=base),
                     Body(name="arm", pose=Pose(pos=(0.0, 0.0, 1.0)), parent="base", mass=ARM)]
    scene.shapes.append(Shape(name="rod", body="arm", kind=ShapeKind.BOX, half_extents=(0.25, 0.02, 0.02)))
    scene.joints.append(Joint(name="hinge", type=JointType.REVOLUTE, body0="base", body1="arm", dofs=[hinge]))
    return scene


def relative_turn(sim: Simulation) -> float:
    """The arm's turn about Y relative to the base, from the body poses: -pi..pi."""
    poses = sim.body_poses()
    base, arm = (poses[sim.body_names.index(name), 3:] for name in ("base", "arm"))
    w, x, y, z = quat_mul((base[0], -base[1], -base[2], -base[3]), tuple(arm))
    assert abs(x) < 1e-3 and abs(z) < 1e-3
    return math.remainder(2.0 * math.atan2(y, w), 2.0 * math.pi)


def test_a_start_past_the_half_turn_and_a_drive_to_a_target_there_round_trip_on_xpbd():
    hinge = wide_hinge(initial_position=3.5, drive_enabled=True, drive_stiffness=50.0, drive_damping=5.0,
                       target_position=3.8)
    sim = Simulation(floating_arm(hinge), device="cpu", solver="XPBD")
    assert sim.built.dofs[("hinge", "rotY", 0)].zero == pytest.approx(0.5 * (LOWER + UPPER))
    assert sim.joint_positions()[("hinge", "rotY")] == pytest.approx(3.5, abs=1e-4)
    # The bodies where 3.5 rad places them.
    assert relative_turn(sim) == pytest.approx(math.remainder(3.5, 2.0 * math.pi), abs=1e-3)
    sim.advance(0.5)
    assert sim.joint_positions()[("hinge", "rotY")] == pytest.approx(3.8, abs=0.01)
    assert relative_turn(sim) == pytest.approx(math.remainder(3.8, 2.0 * math.pi), abs=0.01)
    sim.set_drive_targets({"hinge": 3.3})
    sim.advance(0.5)
    assert sim.joint_positions()[("hinge", "rotY")] == pytest.approx(3.3, abs=0.01)
    sim.close()


def test_a_position_servo_past_the_half_turn_holds_its_control_on_xpbd():
    hinge = wide_hinge(initial_position=3.5)
    servo = Actuator.position("servo", kp=50.0, kv=5.0)
    servo.control = 3.8
    hinge.actuators.append(servo)
    sim = Simulation(floating_arm(hinge), device="cpu", solver="XPBD")
    sim.advance(0.5)
    assert sim.joint_positions()[("hinge", "rotY")] == pytest.approx(3.8, abs=0.01)
    sim.set_controls({"servo": 3.3})
    sim.advance(0.5)
    assert sim.joint_positions()[("hinge", "rotY")] == pytest.approx(3.3, abs=0.01)
    sim.close()


def test_which_dofs_get_their_zero_moved():
    a1_thigh = Dof(axis=DofAxis.ROT_Y, motion=DofMotion.LIMITED, lower=-1.0471975512, upper=4.18879020479)
    a1_knee = Dof(axis=DofAxis.ROT_Y, motion=DofMotion.LIMITED, lower=-2.69653369433, upper=-0.916297857297)
    assert zero_shift(a1_thigh) == pytest.approx(math.pi / 2)
    assert zero_shift(a1_knee) == pytest.approx(-1.806, abs=1e-3)  # 0.45 rad from the half turn
    assert zero_shift(wide_hinge(reference=1.0)) == pytest.approx(0.75)  # limits count from the reference
    for kept in (Dof(axis=DofAxis.ROT_Y, motion=DofMotion.LIMITED, lower=-1.0, upper=1.0),
                 Dof(axis=DofAxis.ROT_Y, motion=DofMotion.LIMITED, lower=-2.9, upper=2.9),  # centred already
                 Dof(axis=DofAxis.ROT_Y, motion=DofMotion.LIMITED, lower=-0.2, upper=6.0),  # nearly a turn
                 Dof(axis=DofAxis.ROT_Y, lower=-0.5, upper=4.0)):  # not limited
        assert zero_shift(kept) == 0.0


def chain(solver: str):
    """A fixed arm: a wide hinge, a normal one (with a reference) and one centred near the half turn."""
    scene = PhysicsScene()
    names, parents = ("upper", "lower", "hand"), (None, "upper", "lower")
    scene.bodies += [Body(name=name, pose=Pose(pos=(0.5 * i, 0.0, 1.0)), parent=parent, mass=ARM)
                     for i, (name, parent) in enumerate(zip(names, parents))]
    dofs = [wide_hinge(initial_position=1.0),
            Dof(axis=DofAxis.ROT_Z, motion=DofMotion.LIMITED, lower=-1.0, upper=1.5, reference=0.2,
                initial_position=0.7, drive_enabled=True, drive_stiffness=10.0, target_position=0.4),
            Dof(axis=DofAxis.ROT_X, motion=DofMotion.LIMITED, lower=-2.9, upper=2.9, initial_position=0.3)]
    for name, parent, dof in zip(names, parents, dofs):
        anchor = Pose(pos=(0.5, 0.0, 0.0)) if parent else Pose(pos=(0.0, 0.0, 1.0))
        scene.joints.append(Joint(name=f"{name}_hinge", type=JointType.REVOLUTE, body0=parent, body1=name,
                                  local_pose0=anchor, dofs=[dof]))
    return scene, build_model(scene, solver, device="cpu")


@pytest.mark.parametrize("solver", ["XPBD", "FEATHERSTONE"])
def test_only_the_wide_hinge_on_xpbd_is_built_otherwise(solver):
    scene, built = chain(solver)
    model = built.model
    assert not built.notes
    x_p, lower, upper = (array.numpy() for array in (model.joint_X_p, model.joint_limit_lower,
                                                     model.joint_limit_upper))
    joint_q, target_q = model.joint_q.numpy(), model.joint_target_q.numpy()
    for joint in scene.joints:
        dof, info = joint.dofs[0], built.dofs[(joint.name, joint.dofs[0].axis.value, 0)]
        newton_joint = int(np.searchsorted(model.joint_qd_start.numpy(), info.qd_index, side="right")) - 1
        pos, (w, x, y, z) = joint.local_pose0.pos, joint.local_pose0.rot
        shift = zero_shift(dof) if solver == "XPBD" else 0.0
        assert info.zero == dof.reference + shift
        if shift:
            w, x, y, z = quat_mul((w, x, y, z), quat_from_axis_angle((0.0, 1.0, 0.0), shift))
        assert x_p[newton_joint].tolist() == np.array([*pos, x, y, z, w], dtype=np.float32).tolist()
        assert (lower[info.qd_index], upper[info.qd_index]) == (np.float32(dof.lower - info.zero),
                                                                np.float32(dof.upper - info.zero))
        assert joint_q[info.q_index] == np.float32(dof.initial_position - info.zero)
        target = dof.target_position - info.zero if dof.drive_enabled else 0.0
        assert target_q[info.q_index] == np.float32(target)
    assert [zero_shift(j.dofs[0]) != 0.0 for j in scene.joints] == [True, False, False]


def coupled_pair(lead: Dof, follow: Dof) -> PhysicsScene:
    """Two arms hinged to a base welded to the world, no gravity: follow = 0.1 + 0.5 * lead."""
    scene = PhysicsScene()
    scene.settings.gravity = (0.0, 0.0, 0.0)
    layout = (("base", 0.0, None), ("lead", 0.0, "base"), ("follow", 0.5, "base"))
    scene.bodies += [Body(name=name, pose=Pose(pos=(0.0, y, 1.0)), parent=parent, mass=ARM)
                     for name, y, parent in layout]
    scene.joints += [Joint(name="weld", type=JointType.FIXED, body0=None, body1="base"),
                     Joint(name="lead", type=JointType.REVOLUTE, body0="base", body1="lead", dofs=[lead]),
                     Joint(name="follow", type=JointType.REVOLUTE, body0="base", body1="follow",
                           local_pose0=Pose(pos=(0.0, 0.5, 0.0)), dofs=[follow],
                           mimic=Mimic(leader="lead", gear=0.5, offset=0.1))]
    return scene


def normal_hinge(**values) -> Dof:
    return Dof(axis=DofAxis.ROT_Y, motion=DofMotion.LIMITED, lower=-1.0, upper=2.5, **values)


@pytest.mark.parametrize("solver", ["XPBD", "FEATHERSTONE"])
def test_a_coupling_to_a_wide_hinge_counts_its_offset_from_newtons_zeros(solver):
    built = build_model(coupled_pair(wide_hinge(), normal_hinge()), solver, device="cpu")
    assert not built.notes
    lead, follow = (built.dofs[(name, "rotY", 0)].zero for name in ("lead", "follow"))
    assert (lead, follow) == ((1.75, 0.0) if solver == "XPBD" else (0.0, 0.0))
    offset = 0.1 + 0.5 * lead - follow  # Newton's follow = offset + 0.5 * Newton's lead
    coupled = built.model.joint_mimic_joint.numpy() >= 0
    assert built.model.joint_mimic_coeffs.numpy()[coupled].tolist() == [[np.float32(offset), 0.5]]


def test_a_joint_coupled_to_a_wide_hinge_follows_it_on_xpbd():
    # The offset left as the description's, the follower went to 0.975 (1.75 rad * 0.5 short).
    lead = wide_hinge(initial_position=3.5, drive_enabled=True, drive_stiffness=50.0, drive_damping=5.0,
                      target_position=3.5)
    sim = Simulation(coupled_pair(lead, normal_hinge(initial_position=1.0)), device="cpu", solver="XPBD")
    sim.advance(0.3)
    positions = sim.joint_positions()
    sim.close()
    assert positions[("lead", "rotY")] == pytest.approx(3.5, abs=0.01)
    assert positions[("follow", "rotY")] == pytest.approx(0.1 + 0.5 * 3.5, abs=0.01)
