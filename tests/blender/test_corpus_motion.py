"""Real robots move in Blender as their simulators move them: converted MJCF robots (``make corpus``)
imported with ``articula.import_usd`` and baked 1 s with ``articula.bake``, contacts off, end with every
body within 1 mm of the reference: on Featherstone Newton 1.8 simulating the converted file by itself
(add_usd, the same solver and step); on MuJoCo (MuJoCo's C library on the MJCF export) MuJoCo itself
running gymnasium's original MJCF (its planar roots slide freely, without the armature Newton's one D6
per body gives them). Stacked planar roots, 3-DOF hips, joint springs, armature and damping all take part.

Newton reads the original file on Blender 5.2's USD 26.03 only (4.5's USD 25.02 lacks
``UsdPhysics.Axis`` for ``add_usd``): the 4.5 tier skips, test_corpus_bake.py bakes there.
"""

import glob
import os
import warnings

import bpy
import numpy as np
import pytest

from articula.addon.pxr_runtime import ensure_blender_pxr

ensure_blender_pxr()
from pxr import UsdPhysics  # noqa: E402

from articula.core.usd.reader import read_usd  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(UsdPhysics, "Axis"),
                                reason="Newton's add_usd needs UsdPhysics.Axis (USD 25.05+), 4.5 has 25.02")
CORPUS = os.environ.get("ARTICULA_CORPUS", os.path.expanduser("~/.cache/articula/corpus"))
FPS = 24


def _robot(key: str) -> str:
    files = glob.glob(os.path.join(CORPUS, key, "*.usda"))
    if not files:
        pytest.skip(f"{key} not converted: run `make corpus`")
    return files[0]


def newton_own_positions(path: str, steps: int, dt: float) -> dict[str, np.ndarray]:
    """Newton's Featherstone alone on add_usd of the file, collisions off: body positions after ``steps``."""
    import newton
    from newton.usd import SchemaResolverMjc, SchemaResolverNewton, SchemaResolverPhysx

    builder = newton.ModelBuilder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        resolvers = [SchemaResolverNewton(), SchemaResolverPhysx(), SchemaResolverMjc()]
        builder.add_usd(path, schema_resolvers=resolvers)
    for shape in range(builder.shape_count):
        builder.shape_flags[shape] &= ~newton.ShapeFlags.COLLIDE_SHAPES
    model = builder.finalize(device="cpu")
    stepper = newton.solvers.SolverFeatherstone(model)  # MUJOCO's reference is MuJoCo on the original MJCF
    state_0, state_1, control = model.state(), model.state(), model.control()
    newton.eval_fk(model, model.joint_q, model.joint_qd, state_0)
    for _ in range(steps):
        state_0.clear_forces()
        stepper.step(state_0, state_1, control, None, dt)
        state_0, state_1 = state_1, state_0
    q = state_0.body_q.numpy()
    return {label: q[i, :3] for i, label in enumerate(model.body_label)}


def mujoco_own_positions(key: str, steps: int, dt: float) -> dict[str, np.ndarray]:
    """MuJoCo alone on gymnasium's original MJCF of ``key``, contacts off: body positions after ``steps``."""
    import mujoco

    assets = os.path.join(os.path.dirname(__file__), "..", "..", ".venv-converter", "lib", "python3.*",
                          "site-packages", "gymnasium", "envs", "mujoco", "assets")
    files = glob.glob(os.path.join(assets, key.removeprefix("gym_") + ".xml"))
    if not files:
        pytest.skip("gymnasium's MJCF files come with `make corpus`")
    spec = mujoco.MjSpec.from_file(files[0])
    for geom in spec.geoms:
        geom.contype = geom.conaffinity = 0
    model = spec.compile()
    model.opt.timestep = dt
    data = mujoco.MjData(model)
    mujoco.mj_step(model, data, steps)
    mujoco.mj_kinematics(model, data)
    return {model.body(b).name: data.xpos[b].copy() for b in range(1, model.nbody)}


@pytest.mark.parametrize("solver", ["MUJOCO", "FEATHERSTONE"])
@pytest.mark.parametrize("key", ["gym_hopper", "gym_walker2d"])
def test_baked_robot_follows_newtons_own_simulation(clean_scene, key, solver, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo's log, if any
    path = _robot(key)
    assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}
    scene = clean_scene
    scene.render.fps, scene.render.fps_base = FPS, 1.0  # MuJoCo's options: the file's, as imported
    for obj in scene.objects:
        if obj.articula.collider.enabled:
            obj.articula.collider.collision_group = 0  # contact-free, as on Newton's side
    bodies = [o for o in scene.objects if o.articula.body.enabled]
    rest = {o.name: np.array(o.matrix_world.translation) for o in bodies}
    assert bpy.ops.articula.bake(frame_start=1, frame_end=1 + FPS, solver=solver) == {"FINISHED"}
    scene.frame_set(1 + FPS)
    ours = {o.name: np.array(o.matrix_world.translation) for o in bodies}
    steps_per_second = scene.articula.steps_per_second
    steps = int(round(steps_per_second))  # one second of the scene's steps
    if solver == "MUJOCO":
        reference = mujoco_own_positions(key, steps, 1.0 / steps_per_second)
        names = {}
    else:
        reference = newton_own_positions(path, steps, 1.0 / steps_per_second)
        names = {p: k.split(":", 1)[1] for k, p in read_usd(path).prim_paths.items()}
    assert max(np.linalg.norm(ours[n] - rest[n]) for n in ours) > 0.5  # it fell and swung: simulated
    for label, position in reference.items():
        name = names.get(label, label.rsplit("/", 1)[-1])
        assert np.linalg.norm(ours[name] - position) < 1e-3, (name, ours[name], position)
