"""Real robots from other tools: MJCF robots converted by NVIDIA's mujoco-usd-converter.

The converted files are test data made by ``make corpus`` (its own venv, ``.venv-converter``:
mujoco-usd-converter 0.8.0 needs mujoco>=3.16,<3.17) and cached under ~/.cache/articula/corpus
(``ARTICULA_CORPUS`` overrides). Sources: gymnasium's ``envs/mujoco/assets`` (ant, half cheetah,
hopper, humanoid, walker, reacher, pusher...) and Newton's ``examples/assets`` (nv_ant, nv_humanoid):
legged robots, humanoids, arms. What they exercise: payload + sublayers (Atomic Component),
several joints between the same two bodies (one per MuJoCo joint), materials with only a dynamic
friction, MJC schema attributes, masses from geom densities.

For each robot:
- read_usd -> write NESTED and FLAT -> Newton's add_usd equals Newton's add_usd of the original
  (body poses, joint types, DOFs and frames, limits, gains, armature, masses, inertias; MuJoCo
  actuators, fixed tendons and joint couplings, with SolverMuJoCo's custom attributes registered);
- Articula's own Newton model (sim.builder) has the joints, DOF axes and frames add_usd gives;
- 1 s on MuJoCo and Featherstone through sim/ never blows up where Newton's own solver on
  add_usd of the file stays finite.

The same 1 s check runs on every USD robot Newton ships (tests/core/test_usd_newton.py's list).
"""

import glob
import os
import warnings

import numpy as np
import pytest

newton = pytest.importorskip("newton")
pytest.importorskip("newton_usd_schemas")
pytest.importorskip("scipy")

from articula.core.model import MuJoCoOptions  # noqa: E402
from articula.core.usd.reader import read_usd  # noqa: E402
from articula.core.usd.writer import build_stage  # noqa: E402
from articula.core.validation import ERROR, validate  # noqa: E402
from articula.sim.builder import build_model  # noqa: E402
from articula.sim.simulation import Simulation  # noqa: E402

from .robot_models import actuator_rows, coupling_rows, load_usd_mujoco, row_differences, tendon_rows  # noqa: E402
from .test_usd_newton import ALL_RESOLVERS, _compare_models, load_newton  # noqa: E402

CORPUS = os.environ.get("ARTICULA_CORPUS", os.path.expanduser("~/.cache/articula/corpus"))
ROBOTS = ["gym_ant", "gym_half_cheetah", "gym_hopper", "gym_humanoid", "gym_humanoidstandup",
          "gym_inverted_double_pendulum", "gym_inverted_pendulum", "gym_pusher", "gym_reacher",
          "gym_swimmer", "gym_walker2d", "newton_nv_ant", "newton_nv_humanoid", "articula_arm_gripper"]
#: Written reasons for what does not compare equal.
ROUND_TRIP_EXCEPTIONS: dict[str, str] = {}  # none left (gym_reacher's mjc:ref is read as Newton does)
#: Per-DOF arrays that differ by design, with the reason (checked on their own in test_usd_actuators.py).
NEWTON_ARRAY_EXCEPTIONS = {
    "articula_arm_gripper": {
        "joint_effort_limit": "a servo's PhysicsDriveAPI for PhysX carries the actuator's force limit as "
                              "maxForce, which Newton reads as the joint's effort limit (the original: 1e6); "
                              "MuJoCo clamps the actuator at the same force either way"},
}
#: Files Newton 1.8 cannot load with SolverMuJoCo's custom attributes registered: compared without them.
MUJOCO_ATTRIBUTES_UNLOADABLE = {
    key: "Newton 1.8 parses mjc:option:solver and knows no \"pgs\" (ValueError: invalid literal for int())"
    for key in ("gym_humanoid", "gym_humanoidstandup")
}
#: Heaviest: simulated on one solver only, to keep the tier fast (same joints as gym_humanoid).
SIM_SKIPPED = {("gym_humanoidstandup", "FEATHERSTONE"): "same robot as gym_humanoid"}


def robot_file(key: str) -> str:
    files = glob.glob(os.path.join(CORPUS, key, "*.usda"))
    if not files:
        pytest.skip(f"{key} not converted: run `make corpus` (needs .venv-converter)")
    return files[0]


@pytest.fixture(scope="module")
def reads():
    cache = {}

    def read(key):
        if key not in cache:
            cache[key] = read_usd(robot_file(key))
        return cache[key]
    return read


@pytest.mark.parametrize("key", ROBOTS)
def test_converted_robot_reads_without_errors(key, reads):
    """Stacked joints, massless frames and dynamic-only friction are no errors."""
    read = reads(key)
    assert read.scene.bodies and read.scene.joints
    assert [str(p) for p in validate(read.scene) if p.severity == ERROR] == []


@pytest.mark.parametrize("layout", ["NESTED", "FLAT"])
@pytest.mark.parametrize("key", ROBOTS)
def test_converted_robot_exports_to_the_same_newton_model(key, layout, reads):
    """Loaded as Newton's MuJoCo solver sees them (its custom attributes registered): the same bodies
    and joints, and the same MuJoCo actuators, fixed tendons and joint couplings."""
    read = reads(key)
    if key in MUJOCO_ATTRIBUTES_UNLOADABLE:
        with pytest.raises(ValueError, match="pgs"):
            load_usd_mujoco(robot_file(key))
        original, ours = load_newton(robot_file(key)), load_newton(build_stage(read.scene, layout))
        _compare_models(original, ours, read)
        return
    original = load_usd_mujoco(robot_file(key))
    ours = load_usd_mujoco(build_stage(read.scene, layout))
    by_path = {path: key.split(":", 1)[1] for key, path in read.prim_paths.items() if key.startswith("body:")}
    kept = {prim: name for name, prim in read.scene.prim_names.items()}

    def original_body(label):  # the body's name in the description
        return by_path[label]

    def our_body(label):  # our prim names are the description's, or the ones the file gave
        return kept.get(label.rsplit("/", 1)[-1], label.rsplit("/", 1)[-1])

    for rows in (actuator_rows, tendon_rows, coupling_rows):
        assert row_differences(rows(original, original_body), rows(ours, our_body), rows.__name__) == []
    if key in ROUND_TRIP_EXCEPTIONS:
        with pytest.raises(AssertionError):
            _compare_models(original, ours, read)
        pytest.xfail(ROUND_TRIP_EXCEPTIONS[key])
    _compare_models(original, ours, read, skip=tuple(NEWTON_ARRAY_EXCEPTIONS.get(key, ())))


@pytest.mark.parametrize("key", ROBOTS)
def test_mass_from_colliders_is_newtons(key, reads):
    """core.mass on the colliders alone (the rule a Blender body with automatic mass uses) gives
    the mass, center of mass and inertia Newton's add_usd derives from geom densities."""
    from articula.core.mass import mass_properties

    from .test_usd_newton import _inertia_tensor
    from pxr import Usd, UsdPhysics
    read = reads(key)
    stage = Usd.Stage.Open(robot_file(key))
    original = load_newton(robot_file(key))
    names = {path: k.split(":", 1)[1] for k, path in read.prim_paths.items()}
    mass, com, inertia = original.body_mass.numpy(), original.body_com.numpy(), original.body_inertia.numpy()
    compared = 0
    for i, label in enumerate(original.body_label):
        body = read.scene.body(names.get(label, label.rsplit("/", 1)[-1]))
        if body is None or not read.scene.shapes_of(body.name):
            continue  # no colliders: its mass comes from non-colliding geoms, kept as authored
        if UsdPhysics.MassAPI(stage.GetPrimAtPath(label)).GetMassAttr().HasAuthoredValue():
            continue  # an authored body mass wins over densities, in Newton as in core.mass
        saved, body.mass = body.mass, None
        try:
            props = mass_properties(read.scene, body.name)
        finally:
            body.mass = saved
        assert props.mass == pytest.approx(mass[i], rel=1e-4), body.name
        assert np.allclose(props.center_of_mass, com[i], atol=1e-5), body.name
        assert np.allclose(_inertia_tensor(props), inertia[i], rtol=1e-3, atol=1e-7), body.name
        compared += 1
    if not compared:
        pytest.skip("every body has an authored mass or no colliders")


def _same_rotations(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float).copy()
    b[:, 3:] *= np.sign(np.sum(a[:, 3:] * b[:, 3:], axis=1, keepdims=True) + 1e-12)
    return np.allclose(a, b, atol=1e-5)


@pytest.mark.parametrize("key", ROBOTS)
def test_simulation_model_has_newtons_joints(key, reads):
    """Stacked joints become one D6 in sim.builder, with add_usd's DOF order, axes and frames."""
    read = reads(key)
    original = load_newton(robot_file(key))
    ours = build_model(read.scene, "FEATHERSTONE", device="cpu").model
    assert ours.joint_count == original.joint_count and ours.joint_dof_count == original.joint_dof_count
    names = {path: key.split(":", 1)[1] for key, path in read.prim_paths.items()}
    ours_index = {label: i for i, label in enumerate(ours.joint_label)}
    types_a, types_b = original.joint_type.numpy(), ours.joint_type.numpy()
    qd_a, qd_b = original.joint_qd_start.numpy(), ours.joint_qd_start.numpy()
    axis_a, axis_b = original.joint_axis.numpy(), ours.joint_axis.numpy()
    compared = 0
    for i, label in enumerate(original.joint_label):
        if types_a[i] == newton.JointType.FREE:
            continue  # Newton labels the free joint it adds its own way
        j = ours_index[names.get(label, label.rsplit("/", 1)[-1])]
        assert types_a[i] == types_b[j], label
        assert np.allclose(axis_a[qd_a[i]:qd_a[i + 1]], axis_b[qd_b[j]:qd_b[j + 1]], atol=1e-5), label
        for attr in ("joint_X_p", "joint_X_c"):
            assert _same_rotations(getattr(original, attr).numpy()[[i]], getattr(ours, attr).numpy()[[j]]), \
                f"{label} {attr}"
        compared += 1
    assert compared


def _start_at(model, start: dict) -> None:
    """Sets the joints named in ``start`` (by the last part of Newton's label) to their positions."""
    q = model.joint_q.numpy()
    for j, label in enumerate(model.joint_label):
        name = label.rsplit("/", 1)[-1]
        if name in start:
            q[model.joint_q_start.numpy()[j]] = start[name]
    model.joint_q.assign(q)


def newton_own_stays_finite(path: str, solver: str, steps_per_second: float) -> bool:
    """Newton alone on add_usd of the file: 1 s with contacts; True when every body stays finite
    and near (the criterion Articula's own divergence check applies)."""
    builder = newton.ModelBuilder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder.add_usd(path, schema_resolvers=[r() for r in ALL_RESOLVERS])
    model = builder.finalize(device="cpu")
    if solver == "FEATHERSTONE":
        stepper = newton.solvers.SolverFeatherstone(model)
    else:
        stepper = newton.solvers.SolverMuJoCo(model, use_mujoco_cpu=True, separate_worlds=False)
    state_0, state_1, control = model.state(), model.state(), model.control()
    newton.eval_fk(model, model.joint_q, model.joint_qd, state_0)
    contacts = model.contacts()
    dt = 1.0 / steps_per_second
    for _ in range(int(round(steps_per_second))):
        state_0.clear_forces()
        model.collide(state_0, contacts)
        stepper.step(state_0, state_1, control, contacts, dt)
        state_0, state_1 = state_1, state_0
    q, qd = state_0.body_q.numpy(), state_0.body_qd.numpy()
    data = getattr(stepper, "mj_data", None)
    if data is not None:  # MuJoCo's C library resets a blown-up state by itself
        import mujoco
        w = mujoco.mjtWarning
        if any(data.warning[int(k)].number for k in (w.mjWARN_BADQACC, w.mjWARN_BADQVEL, w.mjWARN_BADQPOS)):
            return False
    return bool(np.isfinite(q).all() and np.isfinite(qd).all() and np.abs(q[:, :3]).max() < 1e4)


@pytest.mark.parametrize("solver", ["MUJOCO", "FEATHERSTONE"])
@pytest.mark.parametrize("key", ROBOTS)
def test_simulates_one_second_where_newton_does(key, solver, reads, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder
    if (key, solver) in SIM_SKIPPED:
        pytest.skip(SIM_SKIPPED[(key, solver)])
    scene = read_usd(robot_file(key)).scene
    sim = Simulation(scene, device="cpu", solver=solver)
    try:
        sim.advance(1.0)  # raises SimulationDiverged naming the body
    except Exception:
        if newton_own_stays_finite(robot_file(key), solver, scene.settings.steps_per_second):
            raise
        pytest.xfail("Newton's own solver blows up on this file too")
    assert np.isfinite(sim.body_poses()).all()


# ------------------------------------------------------------------ Newton's own USD robots

from .test_usd_newton import COMPARED_ASSETS, INITIAL_STATE_ASSETS, JOINT_STATE_ASSETS, _asset  # noqa: E402

#: Kept out of the 1 s simulation check, each for a written reason.
NEWTON_SIM_SKIPPED = {
    ("tests/assets/ant_multi.usda", "MUJOCO"): "64 ants (576 bodies): the same ant as "
                                               "tests/assets/ant.usda, too slow for the tier on 2 cores",
    ("tests/assets/ant_multi.usda", "FEATHERSTONE"): "same as on MUJOCO",
    ("tests/assets/negative_scale_mesh_pair.usda", "FEATHERSTONE"): "two touching triangle meshes: "
        "~45 s of mesh contacts on 2 CPU cores; the same file runs on MUJOCO",
}
_UNSIMULATED_BY_NEWTON = (
    "Newton's add_usd gives this one-joint-to-world file no articulation (articulation_start [1], "
    "body in world -1), so Newton's Featherstone never moves the body: its 'finite' is no reference. "
    "Articula simulates it, and the body's inertia about the hinge (4e-4 kg m^2, Ixx authored 0) "
    "against Newton's default hard-limit stiffness 1e4 is explicit-unstable at 600 Hz")
for _kind in ("revolute_actuated", "revolute_passive", "universal_actuated", "universal_passive"):
    NEWTON_SIM_SKIPPED[(f"tests/assets/kamino/testing/joints/test_joint_{_kind}_unary.usda",
                        "FEATHERSTONE")] = _UNSIMULATED_BY_NEWTON


@pytest.mark.parametrize("solver", ["MUJOCO", "FEATHERSTONE"])
@pytest.mark.parametrize("rel", COMPARED_ASSETS + JOINT_STATE_ASSETS + INITIAL_STATE_ASSETS)
def test_newton_asset_simulates_one_second_where_newton_does(rel, solver, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    if (rel, solver) in NEWTON_SIM_SKIPPED:
        pytest.skip(NEWTON_SIM_SKIPPED[(rel, solver)])
    path = _asset(rel)
    scene = read_usd(path).scene
    sim = Simulation(scene, device="cpu", solver=solver)
    try:
        sim.advance(1.0)
    except Exception:
        if newton_own_stays_finite(path, solver, scene.settings.steps_per_second):
            raise
        pytest.xfail("Newton's own solver blows up on this file too")
    assert np.isfinite(sim.body_poses()).all()


# ------------------------------------------------------------------ same motion as Newton's own

def newton_own_positions(path: str, solver: str, steps_per_second: float,
                         start: dict[str, float] = {}) -> dict[str, np.ndarray]:
    """Newton alone on add_usd of the file, collisions off: body positions after 1 s; ``start``: the
    hinges (by name) that start elsewhere than the file says."""
    builder = newton.ModelBuilder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder.add_usd(path, schema_resolvers=[r() for r in ALL_RESOLVERS])
    for shape in range(builder.shape_count):
        builder.shape_flags[shape] &= ~newton.ShapeFlags.COLLIDE_SHAPES
    if solver == "MUJOCO":  # hard limits as MuJoCo solves them (limit gains 0: its own solref), as Articula
        builder.joint_limit_ke = [0.0] * len(builder.joint_limit_ke)  # and the original MJCF do
        builder.joint_limit_kd = [0.0] * len(builder.joint_limit_kd)
    model = builder.finalize(device="cpu")
    if start:
        _start_at(model, start)
    if solver == "FEATHERSTONE":
        stepper = newton.solvers.SolverFeatherstone(model)
    else:
        stepper = newton.solvers.SolverMuJoCo(model, use_mujoco_cpu=True, separate_worlds=False, iterations=10)
    state_0, state_1, control = model.state(), model.state(), model.control()
    newton.eval_fk(model, model.joint_q, model.joint_qd, state_0)
    for _ in range(int(round(steps_per_second))):
        state_0.clear_forces()
        stepper.step(state_0, state_1, control, None, 1.0 / steps_per_second)
        state_0, state_1 = state_1, state_0
    q = state_0.body_q.numpy()
    return {label: q[i, :3] for i, label in enumerate(model.body_label)}


@pytest.mark.parametrize("solver", ["MUJOCO", "FEATHERSTONE"])
@pytest.mark.parametrize("key", ["gym_hopper", "gym_walker2d", "gym_humanoid"])
def test_contact_free_robot_moves_like_newtons_own_simulation(key, solver, reads, tmp_path, monkeypatch):
    """Stacked joints (planar roots, 3-DOF hips), MuJoCo joint springs, armature and damping: with
    contacts off, every body within 1 mm of Newton simulating the original file after 1 s."""
    monkeypatch.chdir(tmp_path)
    path = robot_file(key)
    read = read_usd(path)
    scene = read.scene
    for shape in scene.shapes:
        shape.collision_group = 0  # contact-free, as on Newton's side
    # Like with like: the file's MuJoCo options (rk4, pgs) are read and Articula's MuJoCo applies them, but
    # Newton's run below registers no MuJoCo attributes, so its SolverMuJoCo runs its own defaults:
    # implicitfast, the newton solver, MuJoCo's numbers, 10 iterations as it is told.
    scene.settings.mujoco = MuJoCoOptions(integrator="implicitfast", solver="newton", iterations=10)
    sim = Simulation(scene, device="cpu", solver=solver)
    # Featherstone starts knees that the file starts outside their limits at the limit (sim.builder), and
    # splits a floating robot's steps (sim.preflight): Newton's own run is given the same start and step
    moved_start = {j: q for (j, _), q in sim.joint_positions().items() if len(scene.joint(j).dofs) == 1
                   and abs(q - scene.joint(j).dofs[0].initial_position) > 1e-9}
    sim.advance(1.0)
    ours = dict(zip(sim.body_names, sim.body_poses()[:, :3]))
    names = {p: k.split(":", 1)[1] for k, p in read.prim_paths.items()}
    reference = newton_own_positions(path, solver, scene.settings.steps_per_second * getattr(sim, "split", 1),
                                     moved_start)
    moved = max(np.linalg.norm(ours[n] - np.array(scene.body(n).pose.pos)) for n in ours)
    assert moved > 0.5  # real motion (it falls, limbs swing)
    for label, position in reference.items():
        name = names.get(label, label.rsplit("/", 1)[-1])
        assert np.linalg.norm(ours[name] - position) < 1e-3, name
