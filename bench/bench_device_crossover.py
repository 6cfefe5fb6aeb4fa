"""Where a CUDA GPU starts to beat the CPU: a step of one world and of N replicas, per solver and device.

For each solver (MuJoCo: its C library on the CPU, MuJoCo Warp on CUDA; Featherstone; XPBD) and each
replica count, ``Simulation(scene, device, solver)`` with ``scene.settings.replicas = N`` is stepped a
warm-up frame, then timed over ``STEPS`` steps (kernels built before timing: a first run's compile is
not a step). The crossover of a solver is the smallest N at which CUDA's step is faster than the CPU's;
``sim.device_choice`` holds it (``NEWTON_CUDA_CROSSOVER_REPLICAS``, ``sim.mujoco_spec`` for MuJoCo).

INFO lines: ms per step for each solver, device and N; then each solver's crossover.
RATIO device_crossover_<solver> = the smaller of (Auto's constant / the measured crossover) and its
inverse: 1 when they agree, aim 0.5 (within a factor of 2). Without a GPU only the CPU is timed and no
RATIO is printed.

Robot: Newton's ``nv_ant.xml`` (the ant of issue 37's 1024-ant bench).
"""

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPLICAS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
SOLVERS = ("MUJOCO", "FEATHERSTONE", "XPBD")
STEPS = 20
CPU_STEP_LIMIT_MS = 100.0  # larger N are not timed once a CPU step takes this long (a GPU wins there)


def ant_scene(replicas: int):
    import newton

    from articula.core.mjcf.reader import read_mjcf

    scene = read_mjcf(str(Path(newton.__file__).parent / "examples" / "assets" / "nv_ant.xml")).scene
    scene.settings.replicas = replicas
    scene.settings.steps_per_second = 1000  # the step Featherstone and XPBD hold a floating robot at
    return scene


def ms_per_step(solver: str, device: str, replicas: int) -> float:
    from articula.sim.simulation import Simulation

    sim = Simulation(ant_scene(replicas), device=device, solver=solver)
    sim.advance(1.0 / 24.0, check=False)  # warm-up: kernels loaded, graphs captured
    sim.body_poses()
    started, steps = time.perf_counter(), sim.steps
    sim.advance(STEPS * sim.dt, check=False)
    sim.body_poses()  # waits for the device
    return (time.perf_counter() - started) / max(1, sim.steps - steps) * 1e3


def crossover(cpu: dict[int, float], cuda: dict[int, float]) -> int | None:
    return next((n for n in REPLICAS if n in cpu and n in cuda and cuda[n] < cpu[n]), None)


def main() -> None:
    import warp as wp

    from articula.sim.device_choice import NEWTON_CUDA_CROSSOVER_REPLICAS
    from articula.sim.mujoco_spec import MUJOCO_CUDA_CROSSOVER_REPLICAS

    wp.init()
    devices = ("cpu", "cuda:0") if wp.is_cuda_available() else ("cpu",)
    if len(devices) == 1:
        print("INFO no CUDA GPU here: the CPU is timed, the crossover is not measured")
    constants = {"MUJOCO": MUJOCO_CUDA_CROSSOVER_REPLICAS}
    for solver in SOLVERS:
        times: dict[str, dict[int, float]] = {}
        for device in devices:
            times[device] = {}
            for n in REPLICAS:
                ms = times[device][n] = ms_per_step(solver, device, n)
                print(f"INFO {solver} {device} {n} replicas: {ms:.3f} ms/step", flush=True)
                if device == "cpu" and ms > CPU_STEP_LIMIT_MS:
                    break
        if "cuda:0" not in times:
            continue
        measured = crossover(times["cpu"], times["cuda:0"])
        constant = constants.get(solver, NEWTON_CUDA_CROSSOVER_REPLICAS)
        if measured is None:  # the CPU stayed faster as far as it was timed: the crossover lies beyond
            measured = 2 * max(times["cpu"])
            print(f"INFO {solver}: the CPU stayed faster up to {max(times['cpu'])} replicas")
        print(f"INFO {solver}: CUDA is faster from {measured} replicas on (Auto's constant: {constant})")
        agreement = min(constant / measured, measured / constant)
        print(f"RATIO device_crossover_{solver.lower()} {agreement:.2f} 0.5 "
              f"Auto's constant {constant} replicas, measured {measured}")


if __name__ == "__main__":
    sys.exit(main())
