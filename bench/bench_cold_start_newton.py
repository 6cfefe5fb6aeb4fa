"""From "Bake" to the first frame on Featherstone and XPBD on the CPU with an empty Warp cache: with the
kernels built ahead of time (``make kernels``, shipped in the linux-x64 zip) and without them, in one run.

Each start runs in its own process with ``WARP_CACHE_PATH`` a fresh empty folder (a first run after
installing), imports done first, not timed (Blender has them loaded when Bake is pressed). Timed: what Bake
does from the click, ``warm_kernels(solver, "cpu")`` (the wait for the kernels), ``Simulation(scene,
solver=...)``, one frame (``advance(1 / 24)``) and its poses. "Without" hides the prebuilt set
(``sim.shipped_kernels.SEARCH_DIRS = ()``): Warp compiles every module, as before.

RATIO cold_start_<solver>_prebuilt = time without / time with. Aim >= 10 (the aim of issue 37: under
10 s from an empty cache, where compiling takes minutes).
INFO lines: each start's seconds, the modules Warp compiled and loaded from its cache, and whether the
prebuilt set was there.

Robot: gymnasium's humanoid (``make corpus``), else Newton's ``nv_humanoid.xml``.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_cold_start import robot_file  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SOLVERS = ("FEATHERSTONE", "XPBD")
FPS = 24

START = """
import contextlib, io, json, sys, time
from articula.core.mjcf.reader import read_mjcf
from articula.sim import shipped_kernels
from articula.sim.simulation import Simulation, warm_kernels
import articula.sim.kernel_warmup, articula.sim.picking  # what the warm-up imports, compiled once installed
if sys.argv[3] == "without":
    shipped_kernels.SEARCH_DIRS = ()
scene = read_mjcf(sys.argv[1]).scene
scene.settings.steps_per_second = 1000  # where Featherstone and XPBD hold a floating robot (sim.preflight)
log = io.StringIO()
started = time.perf_counter()
with contextlib.redirect_stdout(log):
    warm_kernels(sys.argv[2], "cpu")
    sim = Simulation(scene, device="cpu", solver=sys.argv[2])
    sim.advance(1.0 / {fps})
    sim.body_poses()
done = time.perf_counter()
loads = [line.rstrip().rsplit("(", 1)[-1].rstrip(")") for line in log.getvalue().splitlines()
         if line.startswith("Module ")]
print(json.dumps({{"start": done - started, "compiled": loads.count("compiled"),
                  "cached": loads.count("cached"), "prebuilt": shipped_kernels.seeded_set() is not None}}))
""".format(fps=FPS)


def start(path: str, solver: str, mechanism: str) -> dict:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, WARP_CACHE_PATH=cache)
        done = subprocess.run([sys.executable, "-c", START, path, solver, mechanism], env=env,
                              capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"the start failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(solvers: list[str]) -> None:
    name, path = robot_file()
    for solver in solvers or SOLVERS:
        runs = {}
        for mechanism in ("with", "without"):
            run = runs[mechanism] = start(path, solver, mechanism)
            print(f"INFO {solver} {mechanism} the prebuilt kernels: {run['start']:.2f} s to the first frame, "
                  f"{run['compiled']} modules compiled, {run['cached']} loaded from the cache "
                  f"(prebuilt set found: {run['prebuilt']})", flush=True)
        if not runs["with"]["prebuilt"]:
            print(f"INFO no prebuilt kernels for this platform: run `make kernels` first")
        with_s, without_s = runs["with"]["start"], runs["without"]["start"]
        print(f"RATIO cold_start_{solver.lower()}_prebuilt {without_s / with_s:.2f} 10 "
              f"{name}, empty Warp cache: without {without_s:.1f} s / with {with_s:.2f} s")


if __name__ == "__main__":
    main([s.upper() for s in sys.argv[1:]])  # the solvers (default: both)
