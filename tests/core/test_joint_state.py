"""A state written as initial joint positions: Newton starts from it, the robot's joint frames stay.

The posed body poses come from Newton's own forward kinematics, not from Articula's math.
"""

import math
import warnings

import numpy as np
import pytest

newton = pytest.importorskip("newton")
pytest.importorskip("newton_usd_schemas")

from newton.usd import SchemaResolverMjc, SchemaResolverNewton, SchemaResolverPhysx  # noqa: E402

from articula.core import samples  # noqa: E402
from articula.core.joint_state import with_state  # noqa: E402
from articula.core.model import JointType, Pose  # noqa: E402
from articula.core.usd.reader import read_usd  # noqa: E402
from articula.core.usd.writer import build_stage, write_usd  # noqa: E402

ARM_ANGLES = {"joint_1": 0.7, "joint_2": -0.4, "joint_3": 1.1, "joint_4": -2.9, "joint_5": 0.25, "joint_6": 3.0}


def _newton(source):
    builder = newton.ModelBuilder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder.add_usd(source, schema_resolvers=[SchemaResolverNewton(), SchemaResolverPhysx(), SchemaResolverMjc()])
    return builder.finalize(device="cpu")


def _leaf(label):
    return label.rsplit("/", 1)[-1]


def _posed_by_newton(scene, angles):
    """World poses of the bodies with ``angles`` set on Newton's model of the rest export."""
    model = _newton(build_stage(scene))
    q = model.joint_q.numpy().copy()
    for i, label in enumerate(model.joint_label):
        if _leaf(label) in angles:
            q[model.joint_q_start.numpy()[i]] = angles[_leaf(label)]
    state = model.state()
    newton.eval_fk(model, _wp_array(q), model.joint_qd, state)
    body_q = state.body_q.numpy()
    return {_leaf(label): Pose(pos=tuple(map(float, body_q[i][:3])),
                               rot=(float(body_q[i][6]), *map(float, body_q[i][3:6])))
            for i, label in enumerate(model.body_label)}


def _wp_array(values):
    import warp as wp

    return wp.array(values, dtype=wp.float32, device="cpu")


def _joint_positions(model):
    starts = model.joint_q_start.numpy()
    q = model.joint_q.numpy()
    return {_leaf(label): float(q[starts[i]]) for i, label in enumerate(model.joint_label)}


def test_state_becomes_newtons_initial_joint_positions():
    rest = samples.six_dof_arm()
    posed, notes = with_state(rest, _posed_by_newton(rest, ARM_ANGLES))
    assert notes == []
    model = _newton(build_stage(posed))
    positions = _joint_positions(model)
    for name, angle in ARM_ANGLES.items():
        assert positions[name] == pytest.approx(angle, abs=1e-4), name
    # the rest description itself is untouched
    assert all(d.initial_position == 0.0 for j in rest.joints for d in j.dofs)


def test_joint_frames_stay_the_rest_frames(tmp_path):
    rest = samples.six_dof_arm()
    posed, _ = with_state(rest, _posed_by_newton(rest, ARM_ANGLES))
    path = str(tmp_path / "posed.usda")
    write_usd(posed, path)
    scene, _ = read_usd(path)
    for joint in rest.joints:
        read = scene.joint(joint.name)
        for a, b in ((joint.local_pose0, read.local_pose0), (joint.local_pose1, read.local_pose1)):
            assert np.allclose(a.pos, b.pos, atol=1e-5)
            assert abs(abs(np.dot(a.rot, b.rot)) - 1.0) < 1e-6
        if joint.type == JointType.REVOLUTE:
            assert read.dofs[0].initial_position == pytest.approx(ARM_ANGLES[joint.name], abs=1e-5)


def test_at_rest_nothing_is_written():
    rest = samples.six_dof_arm()
    posed, _ = with_state(rest, {b.name: b.pose for b in rest.bodies})
    text = build_stage(posed).GetRootLayer().ExportToString()
    assert "JointStateAPI" not in text and "state:" not in text


def test_spherical_joint_state_is_named_not_guessed():
    scene = samples.d6_sampler()
    spherical = [j for j in scene.joints if j.type == JointType.SPHERICAL]
    poses = {b.name: Pose(pos=b.pose.pos, rot=(math.cos(0.2), math.sin(0.2), 0.0, 0.0)) for b in scene.bodies}
    _, notes = with_state(scene, poses)
    assert any(spherical[0].name in note for note in notes)


def test_simulation_starts_from_a_files_initial_joint_positions():
    """Newton's ant_mixed.usda starts its legs at 10-40 degrees (JointStateAPI): Articula's simulation
    starts where Newton's forward kinematics of add_usd puts the bodies."""
    import os

    from articula.sim.simulation import Simulation

    path = os.path.join(os.path.dirname(newton.__file__), "tests", "assets", "ant_mixed.usda")
    scene = read_usd(path).scene
    assert any(abs(d.initial_position) > 0.1 for j in scene.joints for d in j.dofs)
    model = _newton(path)
    state = model.state()
    newton.eval_fk(model, model.joint_q, model.joint_qd, state)
    reference = {_leaf(label): state.body_q.numpy()[i][:3] for i, label in enumerate(model.body_label)}
    # MuJoCo: Featherstone starts the feet this file starts outside their limits at the limits (sim.builder)
    sim = Simulation(scene, device="cpu", solver="MUJOCO")
    ours = dict(zip(sim.body_names, sim.body_poses()[:, :3]))
    moved = max(np.linalg.norm(reference[n] - np.array(scene.body(n).pose.pos)) for n in reference)
    assert moved > 0.01  # the written state is not the written body poses
    for name, position in reference.items():
        assert np.allclose(ours[name], position, atol=1e-5), name
