"""A re-bake of an unchanged robot reuses its built model and MuJoCo solver (sim.model_cache): on the
MuJoCo path the MJCF export's compiled model, on Newton's (``mujoco_direct=False``) Newton's model and solver.

The poses are exactly those of a fresh build; any change to the physics, the step or the solver
builds afresh; two simulations alive at once never share a solver.
"""

import copy

import numpy as np
import pytest

from articula.core import samples
from articula.core.model import Pose
from articula.sim import model_cache
from articula.sim.mujoco_spec import MuJoCoSimulation
from articula.sim.simulation import Simulation

from .test_sim_kinematic import carried_arm_scene
from .test_sim_mujoco_fast_path import one_second

FPS = 60


@pytest.fixture(autouse=True)
def empty_cache():
    model_cache.clear()
    yield
    model_cache.clear()


def kept(sim):
    """What the cache keeps of a simulation: the compiled model on the MuJoCo path, Newton's solver else."""
    return sim.mj_model if isinstance(sim, MuJoCoSimulation) else sim.solver


def slide_base(sim, frame):
    sim.set_kinematic_poses({"base": Pose((frame / FPS, 0.0, 1.0))})


@pytest.mark.parametrize("make, each_frame, direct", [
    (samples.quadruped, None, True),
    (samples.six_dof_arm, None, True),
    (carried_arm_scene, slide_base, True),
    (samples.quadruped, None, False),
])
def test_a_rebake_from_the_cache_gives_the_poses_of_a_fresh_build(make, each_frame, direct):
    fresh = Simulation(make(), device="cpu", solver="MUJOCO", mujoco_direct=direct)
    expected = one_second(fresh, each_frame)
    fresh.close()
    assert model_cache.size() == 1
    again = Simulation(make(), device="cpu", solver="MUJOCO", mujoco_direct=direct)
    assert kept(again) is kept(fresh) and model_cache.size() == 0
    np.testing.assert_array_equal(one_second(again, each_frame), expected)


def first_dof(scene):
    return next(j for j in scene.joints if j.dofs).dofs[0]


def test_every_change_to_the_physics_misses_the_cache():
    scene = samples.six_dof_arm()
    first = Simulation(scene, device="cpu", solver="MUJOCO")
    first.close()
    changes = []
    for edit in (lambda s: setattr(s.shapes[1], "density", 500.0),
                 lambda s: setattr(first_dof(s), "drive_damping", 3.0),
                 lambda s: setattr(first_dof(s), "static_friction", 0.3),
                 lambda s: setattr(s.shapes[0], "pose", Pose((0.0, 0.0, 0.001))),
                 lambda s: setattr(s.settings, "gravity", (0.0, 0.0, -9.0)),
                 lambda s: setattr(s.settings.mujoco, "iterations", 7),
                 lambda s: setattr(s.settings.mujoco, "cone", "elliptic")):
        changed = copy.deepcopy(scene)
        edit(changed)
        changes.append(model_cache.fingerprint(changed, "MUJOCO", "cpu", first.dt, 100))
    assert len(set(changes)) == len(changes)
    assert model_cache.fingerprint(scene, "MUJOCO", "cpu", first.dt, 100) not in changes
    other_step = Simulation(scene, device="cpu", solver="MUJOCO", substeps=2)
    assert kept(other_step) is not kept(first)
    changed = copy.deepcopy(scene)
    first_dof(changed).drive_stiffness += 1.0
    assert kept(Simulation(changed, device="cpu", solver="MUJOCO")) is not kept(first)
    assert kept(Simulation(scene, device="cpu", solver="MUJOCO")) is kept(first)  # still kept


@pytest.mark.parametrize("option, value", [("iterations", 7), ("cone", "elliptic")])
def test_a_change_to_mujocos_options_builds_afresh(option, value):
    scene = samples.six_dof_arm()
    first = Simulation(scene, device="cpu", solver="MUJOCO")
    first.close()
    changed = copy.deepcopy(scene)
    setattr(changed.settings.mujoco, option, value)
    rebuilt = Simulation(changed, device="cpu", solver="MUJOCO")
    assert kept(rebuilt) is not kept(first)
    assert rebuilt.mj_model.opt.iterations == changed.settings.mujoco.iterations
    assert rebuilt.mj_model.opt.cone == (1 if changed.settings.mujoco.cone == "elliptic" else 0)


def test_newtons_iterations_keep_mujocos_compiled_model():
    """``solver_iterations`` is Newton's (Featherstone, XPBD): the MJCF export never reads it."""
    scene = samples.six_dof_arm()
    first = Simulation(scene, device="cpu", solver="MUJOCO")
    first.close()
    changed = copy.deepcopy(scene)
    changed.settings.solver_iterations += 5
    assert kept(Simulation(changed, device="cpu", solver="MUJOCO")) is kept(first)


def test_equal_descriptions_have_one_fingerprint():
    """Read twice (no shared objects), or after a simulation used one (lookup caches filled)."""
    one, two = samples.quadruped(), samples.quadruped()
    Simulation(one, device="cpu", solver="MUJOCO")
    assert model_cache.fingerprint(one, "MUJOCO", "cpu", 0.002, 100) == \
        model_cache.fingerprint(two, "MUJOCO", "cpu", 0.002, 100)
    assert model_cache.fingerprint(one, "MUJOCO", "cpu", 0.002, 100) != \
        model_cache.fingerprint(one, "MUJOCO", "cpu", 0.001, 100)


def test_two_simulations_alive_at_once_do_not_share():
    first = Simulation(samples.quadruped(), device="cpu", solver="MUJOCO")
    first.close()
    live = Simulation(samples.quadruped(), device="cpu", solver="MUJOCO")
    bake = Simulation(samples.quadruped(), device="cpu", solver="MUJOCO")
    assert kept(live) is kept(first) and kept(bake) is not kept(live)
    expected = one_second(live)
    np.testing.assert_array_equal(one_second(bake), expected)
    live.close()
    bake.close()
    assert model_cache.size() == 1  # one entry per robot: the last one back


def test_a_closed_simulation_keeps_its_last_poses_readable():
    sim = Simulation(samples.pendulum(), device="cpu", solver="MUJOCO")
    sim.advance(0.5)
    poses, angle = sim.body_poses().copy(), sim.joint_positions()
    sim.close()
    sim.close()  # idempotent
    other = Simulation(samples.pendulum(), device="cpu", solver="MUJOCO")
    other.advance(0.2)
    np.testing.assert_allclose(sim.body_poses(), poses, atol=1e-6)  # its own data
    assert sim.joint_positions() == pytest.approx(angle, abs=1e-6)
    with pytest.raises(RuntimeError, match="closed"):  # its solver may be stepping `other`
        sim.advance(0.1)
    with pytest.raises(RuntimeError, match="closed"):
        sim.step()


def test_only_a_few_robots_are_kept():
    for links in range(model_cache.CAPACITY + 2):
        Simulation(samples.hanging_chain(links=links + 2), device="cpu", solver="MUJOCO").close()
    assert model_cache.size() == model_cache.CAPACITY


@pytest.mark.parametrize("solver", ["FEATHERSTONE", "XPBD"])
def test_other_solvers_are_not_kept(solver):
    Simulation(samples.pendulum(), device="cpu", solver=solver).close()
    assert model_cache.size() == 0
