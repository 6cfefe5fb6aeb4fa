"""1024 worlds of Newton's ant on CUDA: Articula's Simulation vs raw Newton, in one run.

RATIO sim_ant_1024_cuda = raw Newton time / Articula time for the same steps (MuJoCo Warp, ground
plane, dt = 1/600, 600 steps; Articula also reads every body pose back each 1/60 s frame, as the
write-back needs). Aim: >= 0.85. Without a CUDA device it prints a SKIP line instead.
Articula's side reads the ant through its own USD reader, raw Newton through ``add_usd``.
"""

import importlib.util
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORLDS, STEPS_PER_SECOND, FRAMES, SUBSTEPS = 1024, 600, 60, 10


def load_package():
    spec = importlib.util.spec_from_file_location("articula", ROOT / "__init__.py",
                                                  submodule_search_locations=[str(ROOT)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["articula"] = module
    spec.loader.exec_module(module)


def main():
    import warp as wp

    wp.config.quiet = True
    wp.init()
    if not wp.is_cuda_available():
        print(f"SKIP sim_ant_{WORLDS}_cuda: no CUDA device on this machine")
        return
    import newton
    import newton.examples

    load_package()
    from articula.core.usd.reader import read_usd
    from articula.sim.simulation import Simulation

    path = newton.examples.get_asset("ant.usda")
    scene = read_usd(path).scene
    scene.settings.replicas, scene.settings.replica_spacing = WORLDS, 2.0
    scene.settings.ground_plane, scene.settings.steps_per_second = True, STEPS_PER_SECOND
    sim = Simulation(scene, device="cuda", solver="MUJOCO")
    sim.advance(1.0 / 60.0)
    wp.synchronize()
    started = time.perf_counter()
    for _ in range(FRAMES):
        sim.advance(1.0 / 60.0, check=False)
        sim.body_poses()
    ours = time.perf_counter() - started

    ant = newton.ModelBuilder()
    ant.add_usd(path)
    builder = newton.ModelBuilder()
    builder.add_ground_plane()
    builder.replicate(ant, WORLDS, spacing=(2.0, 2.0, 0.0))
    model = builder.finalize(device="cuda")
    solver = newton.solvers.SolverMuJoCo(model, iterations=scene.settings.solver_iterations)
    state_0, state_1, control = model.state(), model.state(), model.control()
    newton.eval_fk(model, model.joint_q, model.joint_qd, state_0)
    dt = 1.0 / STEPS_PER_SECOND

    def run(frames):
        nonlocal state_0, state_1
        for _ in range(frames * SUBSTEPS):
            state_0.clear_forces()
            solver.step(state_0, state_1, control, None, dt)
            state_0, state_1 = state_1, state_0
        wp.synchronize()

    run(1)
    started = time.perf_counter()
    run(FRAMES)
    state_0.body_q.numpy()
    base = time.perf_counter() - started
    steps = FRAMES * SUBSTEPS
    print(f"RATIO sim_ant_{WORLDS}_cuda {base / ours:.3f} 0.85 {steps} steps of {WORLDS} ants: raw Newton "
          f"{base * 1000 / steps:.3f} ms/step, Articula {ours * 1000 / steps:.3f} ms/step incl. pose read-back")


if __name__ == "__main__":
    main()
