"""Must show: for a contact-free articulation, simulating an imported file gives the same motion as
Newton simulating the same file through its own ``add_usd`` with the same solver and step
(body positions within 1 mm after 1 s)."""

import numpy as np
import pytest

pytest.importorskip("pxr")
newton = pytest.importorskip("newton")
import newton.examples  # noqa: E402

from articula.core.usd.reader import read_usd  # noqa: E402
from articula.sim.simulation import Simulation  # noqa: E402

STEPS_PER_SECOND = 600
KICK = {"cartPoleJoint": 1.0, "polePoleJoint": -0.5, "railCartJoint": 0.3}  # rad/s, m/s: start moving


def newton_add_usd_positions(path: str, solver: str) -> dict[str, np.ndarray]:
    """Newton alone: add_usd, collisions off, the same kick, 1 s of steps."""
    builder = newton.ModelBuilder()
    builder.add_usd(path)
    for shape in range(builder.shape_count):
        builder.shape_flags[shape] &= ~newton.ShapeFlags.COLLIDE_SHAPES
    model = builder.finalize(device="cpu")
    qd = model.joint_qd.numpy()
    for joint, speed in KICK.items():
        qd[model.joint_qd_start.numpy()[model.joint_label.index(f"/cartPole/{joint}")]] = speed
    model.joint_qd.assign(qd)
    if solver == "FEATHERSTONE":
        stepper = newton.solvers.SolverFeatherstone(model)
    else:
        stepper = newton.solvers.SolverMuJoCo(model, use_mujoco_cpu=True, separate_worlds=False, iterations=10)
    state_0, state_1, control = model.state(), model.state(), model.control()
    newton.eval_fk(model, model.joint_q, model.joint_qd, state_0)
    for _ in range(STEPS_PER_SECOND):
        state_0.clear_forces()
        stepper.step(state_0, state_1, control, None, 1.0 / STEPS_PER_SECOND)
        state_0, state_1 = state_1, state_0
    q = state_0.body_q.numpy()
    return {label.rsplit("/", 1)[-1]: q[i, :3] for i, label in enumerate(model.body_label)}


@pytest.mark.parametrize("solver", ["FEATHERSTONE", "MUJOCO"])
def test_imported_cartpole_moves_like_newton_add_usd(solver):
    path = newton.examples.get_asset("cartpole.usda")
    scene = read_usd(path).scene
    for shape in scene.shapes:
        shape.collision_group = 0  # contact-free, as on the add_usd side
    scene.settings.steps_per_second = STEPS_PER_SECOND
    scene.settings.mujoco.iterations = 10  # as the reference's SolverMuJoCo(iterations=10)
    sim = Simulation(scene, device="cpu", solver=solver)
    sim.set_joint_velocities(KICK)
    sim.advance(1.0)
    ours = dict(zip(sim.body_names, sim.body_poses()[:, :3]))
    reference = newton_add_usd_positions(path, solver)
    assert set(ours) == set(reference)
    moved = max(np.linalg.norm(ours[name] - scene.body(name).pose.pos) for name in ours)
    assert moved > 0.2  # the comparison is about real motion
    for name, position in ours.items():
        assert np.linalg.norm(position - reference[name]) < 1e-3, name
