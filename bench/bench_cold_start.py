"""From "Bake" to the first frame with the MuJoCo solver on the CPU: an empty Warp cache against a warm
one, and against MuJoCo's own compile and first frame of the same robot, in one run.

Each Articula start runs in its own process (imports done first, not timed: Blender has them loaded
when Bake is pressed, and an installed add-on's bytecode compiled): ``Simulation(scene,
solver="MUJOCO")`` (the MJCF export compiled in memory), one frame (``advance(1 / 24)``) and its poses (``body_poses()``), with ``WARP_CACHE_PATH`` a fresh
empty folder (cold: a first run on a new machine) or one an earlier run filled (warm).

RATIO cold_start_mujoco_<robot> = warm time / cold time. Aim >= 0.667 (cold at most 1.5x warm: no Warp
kernel to build on this path).
RATIO warm_start_mujoco_<robot> = MuJoCo's own time / Articula's warm time, MuJoCo's being
``MjModel.from_xml_path`` of the original file, ``MjData``, the frame's ``mj_step`` calls and
``mj_kinematics``, also the first in a fresh process (``import mujoco`` done first, not timed), best of as
many processes: both sides pay what a first call costs in a new process. Aim >= 0.2. (An INFO line gives
MuJoCo's best of the same repeated in one process, for comparison.)
RATIO cold_bake_mujoco_<robot> = the same in Blender (bpy): the robot imported with *Import MJCF* and
the extension enabled (not timed), then ``articula.bake`` of the first frame, click to keys, with an
empty Warp cache against a warm one. Aim >= 0.667.
RATIO warm_bake_mujoco_<robot> = MuJoCo's own time / that Bake's warm time. Aim >= 0.2.
INFO lines: each run's seconds, and the imports' (not in the ratios).

Robots: gymnasium's humanoid (``make corpus``), else Newton's ``nv_humanoid.xml``: primitives only, which
MuJoCo compiles in about 4 ms; and Unitree's G1 as mjlab ships it (``make mujoco-robots``), a humanoid with
meshes, as MuJoCo's model collections ship robots, when that corpus is there.
"""

import glob
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FPS = 24
COLD_RUNS, WARM_RUNS, MUJOCO_RUNS = 3, 3, 5

START = """
import json, sys, time
started = time.perf_counter()
from articula.core.mjcf.reader import read_mjcf
from articula.sim.simulation import Simulation
import articula.core.mjcf.writer, articula.sim.mujoco_spec  # the path's modules, compiled once installed
scene = read_mjcf(sys.argv[1]).scene
imported = time.perf_counter()
sim = Simulation(scene, solver="MUJOCO")
sim.advance(1.0 / {fps})
sim.body_poses()
done = time.perf_counter()
print(json.dumps({{"start": done - imported, "imports": imported - started, "kind": type(sim).__name__}}))
""".format(fps=FPS)


BAKE = """
import json, os, sys, tempfile, time
os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp())
import bpy
from articula.addon.pxr_runtime import ensure_blender_pxr
ensure_blender_pxr()
import articula
articula.register()
bpy.ops.articula.import_mjcf(filepath=sys.argv[1])
scene = bpy.context.scene
scene.articula.solver = "MUJOCO"
started = time.perf_counter()
result = bpy.ops.articula.bake(frame_start=scene.frame_start, frame_end=scene.frame_start + 1)
done = time.perf_counter()
print(json.dumps({"start": done - started, "imports": 0.0, "kind": sorted(result)[0],
                  "loaded": [name for name in ("newton", "warp") if name in sys.modules]}))
"""


MUJOCO_ROBOTS = os.environ.get("ARTICULA_MUJOCO_ROBOTS", os.path.expanduser("~/.cache/articula/mujoco_robots"))
G1 = os.path.join(MUJOCO_ROBOTS, "mjlab/mjlab/asset_zoo/robots/unitree_g1/xmls/g1.xml")


def robot_files() -> list[tuple[str, str]]:
    """(name, MJCF path) of each robot timed: a humanoid of primitives, and a humanoid with meshes if
    `make mujoco-robots` extracted one."""
    gymnasium = ".venv-converter/lib/python3.*/site-packages/gymnasium/envs/mujoco/assets/humanoid.xml"
    found = sorted(glob.glob(str(ROOT / gymnasium)))
    if found:
        robots = [("humanoid", found[0])]
    else:
        found = sorted(glob.glob(str(ROOT / ".venv/lib/python3.*/site-packages/newton/examples/assets/"
                                           "nv_humanoid.xml")))
        if not found:
            raise SystemExit("no humanoid MJCF: gymnasium's comes with `make corpus`, Newton's with the dev venv")
        robots = [("nv_humanoid", found[0])]
    if os.path.isfile(G1):
        robots.append(("g1", G1))
    else:
        print("INFO no Unitree G1 (`make mujoco-robots`): only the humanoid of primitives timed")
    return robots


def articula_start(path: str, cache: str, code: str = START) -> dict:
    env = dict(os.environ, WARP_CACHE_PATH=cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed extension's modules load from bytecode
    done = subprocess.run([sys.executable, "-c", code, path], env=env, capture_output=True, text=True,
                          cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"the start failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


MUJOCO = """
import json, sys, time
import mujoco
started = time.perf_counter()
model = mujoco.MjModel.from_xml_path(sys.argv[1])
data = mujoco.MjData(model)
mujoco.mj_step(model, data, max(1, round(1.0 / {fps} / model.opt.timestep)))
mujoco.mj_kinematics(model, data)
print(json.dumps({{"start": time.perf_counter() - started}}))
""".format(fps=FPS)


def mujoco_first(path: str) -> float:
    """MuJoCo's own compile and first frame, the first in a fresh process: best of MUJOCO_RUNS processes."""
    with tempfile.TemporaryDirectory() as cache:
        return min(articula_start(path, cache, MUJOCO)["start"] for _ in range(MUJOCO_RUNS))


def mujoco_repeated(path: str) -> float:
    """The same repeated in this process (its files and code warm): best of MUJOCO_RUNS."""
    import mujoco

    best = float("inf")
    for _ in range(MUJOCO_RUNS):
        started = time.perf_counter()
        model = mujoco.MjModel.from_xml_path(path)
        data = mujoco.MjData(model)
        mujoco.mj_step(model, data, max(1, round(1.0 / FPS / model.opt.timestep)))
        mujoco.mj_kinematics(model, data)
        best = min(best, time.perf_counter() - started)
    return best


def files_in(folder: str) -> int:
    return sum(len(files) for _, _, files in os.walk(folder))


def cold_and_warm(path: str, code: str, label: str) -> tuple[float, float]:
    """Best cold and warm start of ``code`` on ``path``, each in a fresh process."""
    with tempfile.TemporaryDirectory() as scratch:
        warm_cache = os.path.join(scratch, "warm")
        os.mkdir(warm_cache)
        articula_start(path, warm_cache, code)  # fills the cache if this path used one
        colds, warms = [], []
        for k in range(max(COLD_RUNS, WARM_RUNS)):  # taken in turns: the machine's load falls on both alike
            if k < COLD_RUNS:
                cache = os.path.join(scratch, f"cold{k}")
                os.mkdir(cache)
                colds.append(articula_start(path, cache, code))
                run = colds[-1]
                print(f"INFO {label} cold run {k}: {run['start']:.4f} s to the first frame ({run['kind']}), "
                      f"imports {run['imports']:.2f} s, {files_in(cache)} files in the Warp cache after it"
                      + (f", loaded: {run['loaded']}" if "loaded" in run else ""))
            if k < WARM_RUNS:
                warms.append(articula_start(path, warm_cache, code))
                print(f"INFO {label} warm run {k}: {warms[-1]['start']:.4f} s to the first frame, "
                      f"imports {warms[-1]['imports']:.2f} s")
    return min(r["start"] for r in colds), min(r["start"] for r in warms)


def main() -> None:
    for name, path in robot_files():
        time_robot(name, path)


def time_robot(name: str, path: str) -> None:
    cold, warm = cold_and_warm(path, START, "Simulation()")
    own = mujoco_first(path)
    print(f"INFO MuJoCo's own compile and first frame of {Path(path).name}: {own:.4f} s, the first in a "
          f"fresh process (best of {MUJOCO_RUNS} processes); {mujoco_repeated(path):.4f} s repeated in one "
          f"process (best of {MUJOCO_RUNS})")
    print(f"RATIO cold_start_mujoco_{name} {warm / cold:.3f} 0.667 warm {warm:.4f} s / cold {cold:.4f} s "
          f"(best of {WARM_RUNS} and {COLD_RUNS}, empty WARP_CACHE_PATH each cold run)")
    print(f"RATIO warm_start_mujoco_{name} {own / warm:.3f} 0.2 MuJoCo's own {own:.4f} s / Articula's warm "
          f"{warm:.4f} s (Simulation() + first frame + poses)")
    try:
        import bpy  # noqa: F401
    except ImportError:
        print("INFO no bpy in this Python: Blender's Bake not timed")
        return
    cold, warm = cold_and_warm(path, BAKE, "Bake")
    print(f"RATIO cold_bake_mujoco_{name} {warm / cold:.3f} 0.667 warm {warm:.4f} s / cold {cold:.4f} s "
          f"(articula.bake of the first frame, click to keys, in bpy)")
    print(f"RATIO warm_bake_mujoco_{name} {own / warm:.3f} 0.2 MuJoCo's own {own:.4f} s / Blender's warm "
          f"Bake {warm:.4f} s")


if __name__ == "__main__":
    main()
