"""MuJoCo Warp fed Articula's own MjModel against Newton's conversion (what ships), on CUDA, in one run.

For Newton's ant (``bench_device_crossover``'s, 1 ms steps) and gymnasium's humanoid (where gymnasium
is not found, as on the device kit's machine: MuJoCo Warp's benchmark humanoid) and N worlds in
``REPLICAS``, milliseconds per step of all N worlds:

- (a) fed: a copy of the very ``MjModel`` MuJoCo's C library steps on the CPU
  (``sim.mujoco_spec.MuJoCoSimulation``'s, built by ``core.mjcf.writer.build_spec``), with its start
  state (its ``MjData``), put on the GPU
  (``mujoco_warp.put_model``, ``put_data(nworld=N)``) and stepped by ``mujoco_warp.step`` launched as
  a captured CUDA graph;
- (b) shipped: ``Simulation(scene, device="cuda:0", solver="MUJOCO")`` with ``replicas = N``:
  Newton's model of the robot, converted by Newton's ``SolverMuJoCo`` to MuJoCo Warp, stepped
  through ``Simulation.advance``.

Both are warmed (kernels built, the graph captured) before timing. Where Articula's model asks for
what MuJoCo Warp lacks (gymnasium's humanoid asks for the PGS solver), the fed model gets the nearest
that MuJoCo Warp has, said on an INFO line; the options each side steps with are printed too (Newton's
conversion applies its own defaults, e.g. the implicitfast integrator where gymnasium's humanoid asks
for RK4, four evaluations a step: that humanoid's ratio includes the difference; ``like-newton`` below
removes it).

Same motion: each robot from the same start, 0.2 s on (a), on MuJoCo's C library stepping (a)'s model
as fed, and on (b): the root body's height within ``MOTION_TOLERANCE`` of each other, and (a)'s worlds
alike. A mismatch exits 1.

RATIO mujoco_warp_feed_<robot>_<N> = (a)'s ms / (b)'s ms per step: the baseline is MuJoCo Warp on
Articula's own model, Articula's time is what ships. Aim 1: below it, feeding the MjModel is faster
and should replace Newton's conversion on CUDA. INFO lines say which is faster at each N.

Without CUDA: a CPU smoke (``CPU_WORLDS`` worlds on Warp's CPU device, no timing, no RATIO): the
same motion check, (b) being Newton's conversion on MuJoCo Warp on the CPU; then "no CUDA: GPU part
skipped", exit 0 (1 on a motion mismatch). Measured on 2 busy cores: the CPU mode takes 35 s with
Warp's kernel cache warm; MuJoCo Warp's first CPU build for the humanoid adds about 40 s. A smoke that
outlasts ``CPU_SMOKE_LIMIT`` is stopped and only the models are checked (built, and (a)'s accepted by
``mujoco_warp.put_model``).

Each robot's motion check, then its sizes from the smallest: no measurement starts after ``BUDGET_S``
(the device kit's cap for this check is 180 s; cold, MuJoCo Warp's CUDA kernels alone can take longer:
run it again on the warm machine).

Arguments (optional): robots (``ROBOTS``) and world counts to run, e.g. ``humanoid 64 1024``;
``budget=SECONDS``; ``like-newton``: the fed model takes Newton's conversion's solver options
(``NEWTONS_OPTIONS``), to time the feed itself like for like (RATIO names end in ``_like_newton``).
"""

import copy
import glob
import importlib.util
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from bench_device_crossover import ant_scene  # noqa: E402

ROBOTS = ("ant", "humanoid", "mjwarp_humanoid")
#: Run when none is named: the ant first (Newton's own asset, found wherever Newton is), then gymnasium's
#: humanoid, or where gymnasium is not found MuJoCo Warp's benchmark humanoid (in its wheel).
DEFAULT_ROBOTS = ("ant", "humanoid")
REPLICAS = (64, 256, 1024, 4096)
STEPS = 50  # timed steps at each size, after the warm-up
ROOT_BODY = "torso"  # both robots' root
MOTION_SECONDS = 0.2
#: How far the root's height may differ between the three runs after 0.2 s (m): test_sim_cuda's gap
#: for MuJoCo Warp against MuJoCo's C library.
MOTION_TOLERANCE = 2e-2
WORLDS_TOLERANCE = 1e-3  # m: the fed worlds, started alike on one device, stay alike
CPU_WORLDS = 2
#: No measurement starts after this many seconds (s): the device kit gives this check 180 s.
BUDGET_S = 160
#: The solver options the fed model takes from Newton's conversion with ``like-newton``.
NEWTONS_OPTIONS = ("integrator", "solver", "cone", "iterations", "ls_iterations", "tolerance", "ls_tolerance")
CPU_SMOKE_LIMIT = 600  # s


def load_articula():
    """The repository as the package ``articula`` (its bpy-free layers; nothing is registered)."""
    if "articula" in sys.modules:
        return
    spec = importlib.util.spec_from_file_location("articula", ROOT / "__init__.py",
                                                  submodule_search_locations=[str(ROOT)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["articula"] = module
    spec.loader.exec_module(module)


def humanoid_file() -> Optional[str]:
    """gymnasium's humanoid.xml: from the converter's venv (``make corpus``) or an installed gymnasium."""
    found = sorted(glob.glob(str(ROOT / ".venv*/lib/python3.*/site-packages/gymnasium/envs/mujoco/assets/"
                                        "humanoid.xml")))
    gymnasium = importlib.util.find_spec("gymnasium")
    if not found and gymnasium is not None and gymnasium.origin:
        found = glob.glob(str(Path(gymnasium.origin).parent / "envs/mujoco/assets/humanoid.xml"))
    return found[0] if found else None


def mujoco_warp_humanoid_file() -> str:
    import mujoco_warp

    return str(Path(mujoco_warp.__file__).parent / "test_data" / "humanoid" / "humanoid.xml")


def available(robots: list[str]) -> list[str]:
    if "humanoid" in robots and humanoid_file() is None:
        print("INFO no gymnasium humanoid.xml here (`make corpus`, or install gymnasium): MuJoCo Warp's "
              "benchmark humanoid (mjwarp_humanoid) instead")
        return list(dict.fromkeys("mjwarp_humanoid" if robot == "humanoid" else robot for robot in robots))
    return robots


def robot_scene(robot: str, replicas: int):
    from articula.core.mjcf.reader import read_mjcf

    if robot == "ant":
        return ant_scene(replicas)
    scene = read_mjcf(humanoid_file() if robot == "humanoid" else mujoco_warp_humanoid_file()).scene
    scene.settings.replicas = replicas
    return scene


# --- (a) Articula's MjModel on MuJoCo Warp -----------------------------------------------------------

def cpu_path(robot: str):
    """The simulation MuJoCo's C library runs for one ``robot``: its ``mj_model`` and ``mj_data`` (the
    start) are what the fed path puts on the device."""
    from articula.sim.mujoco_spec import MuJoCoSimulation
    from articula.sim.simulation import Simulation

    sim = Simulation(robot_scene(robot, 1), device="cpu", solver="MUJOCO")
    assert isinstance(sim, MuJoCoSimulation), type(sim)
    return sim


def feed(robot: str, like_newton: bool = False):
    """The CPU path's simulation of ``robot``, its model as fed to MuJoCo Warp, and the changes made."""
    cpu = cpu_path(robot)
    like = shipped(robot, 1, "cpu").solver.mj_model if like_newton else None
    return (cpu, *fed_model(cpu.mj_model, like))


def fed_model(mj_model, like=None) -> tuple[object, list[str]]:
    """A copy of ``mj_model`` that ``mujoco_warp.put_model`` takes: each option MuJoCo Warp lacks set to
    the nearest it has, and with ``like`` (Newton's conversion) its solver options (the changes, in
    words)."""
    import mujoco
    import mujoco_warp as mjw

    model, changes = copy.copy(mj_model), []
    for field in NEWTONS_OPTIONS if like is not None else ():
        if getattr(model.opt, field) != getattr(like.opt, field):
            setattr(model.opt, field, getattr(like.opt, field))
            changes.append(f"{field} as Newton's conversion")
    solver, integrator, cone = mujoco.mjtSolver, mujoco.mjtIntegrator, mujoco.mjtCone
    nearest = (("solver", mjw.SolverType, solver, solver.mjSOL_NEWTON),
               ("integrator", mjw.IntegratorType, integrator, integrator.mjINT_IMPLICITFAST),
               ("cone", mjw.ConeType, cone, cone.mjCONE_PYRAMIDAL))
    for field, supported, names, replacement in nearest:
        value = getattr(model.opt, field)
        if value not in set(supported):
            setattr(model.opt, field, replacement)
            changes.append(f"{field} {names(value).name} -> {names(replacement).name}")
    for field, bits in (("disableflags", mjw.DisableBit), ("enableflags", mjw.EnableBit)):
        unsupported = int(getattr(model.opt, field)) & ~int(np.bitwise_or.reduce([int(b) for b in bits]))
        if unsupported:
            setattr(model.opt, field, int(getattr(model.opt, field)) & ~unsupported)
            changes.append(f"{field} without bits {unsupported:#x}")
    return model, changes


class Fed:
    """``nworld`` copies of a model and its start state on MuJoCo Warp; on CUDA each step is one launch
    of a captured graph."""

    def __init__(self, model, start, nworld: int, device: str):
        import mujoco_warp as mjw
        import warp as wp

        self.mjw, self.wp, self.device = mjw, wp, device
        with wp.ScopedDevice(device):
            self.m = mjw.put_model(model)
            self.d = mjw.put_data(model, start, nworld=nworld)
        self.graph = None

    def step(self, count: int = 1):
        wp = self.wp
        with wp.ScopedDevice(self.device):
            if self.graph is None and wp.get_device(self.device).is_cuda:
                self.mjw.step(self.m, self.d)  # builds the kernels before capturing them
                with wp.ScopedCapture() as capture:
                    self.mjw.step(self.m, self.d)
                self.graph, count = capture.graph, count - 1  # capturing runs nothing
            for _ in range(max(0, count)):
                if self.graph is not None:
                    wp.capture_launch(self.graph)
                else:
                    self.mjw.step(self.m, self.d)
            wp.synchronize_device(self.device)

    def qpos(self) -> np.ndarray:
        return self.d.qpos.numpy()


def root_height(model, qpos: np.ndarray) -> float:
    """The root body's world height at joint positions ``qpos`` (MuJoCo's forward kinematics)."""
    import mujoco

    data = mujoco.MjData(model)
    data.qpos[:] = qpos
    mujoco.mj_kinematics(model, data)
    return float(data.xpos[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, ROOT_BODY), 2])


# --- (b) what ships: Newton's conversion -------------------------------------------------------------

def shipped(robot: str, replicas: int, device: str):
    from articula.sim.simulation import Simulation

    return Simulation(robot_scene(robot, replicas), device=device, solver="MUJOCO", mujoco_direct=False)


def options(model) -> str:
    import mujoco

    o = model.opt
    return (f"{mujoco.mjtIntegrator(o.integrator).name[6:].lower()}, {mujoco.mjtSolver(o.solver).name[6:]} "
            f"solver, {mujoco.mjtCone(o.cone).name[7:].lower()} cone, iterations {o.iterations}/"
            f"{o.ls_iterations}")


# --- same motion --------------------------------------------------------------------------------------

def same_motion(robot: str, device: str, nworld: int, like_newton: bool = False) -> bool:
    """0.2 s from the same start on (a), MuJoCo's C library on (a)'s model and (b): the root's height."""
    import mujoco

    cpu, model, changes = feed(robot, like_newton)
    steps = round(MOTION_SECONDS / model.opt.timestep)
    fed = Fed(model, cpu.mj_data, nworld, device)
    fed.step(steps)
    heights = [root_height(model, q) for q in fed.qpos()]
    reference = mujoco.MjData(model)
    mujoco.mj_copyData(reference, cpu.mj_model, cpu.mj_data)
    for _ in range(steps):
        mujoco.mj_step(model, reference)
    c_height = root_height(model, reference.qpos)
    sim = shipped(robot, nworld, device)
    assert abs(sim.dt - model.opt.timestep) < 1e-9, (sim.dt, model.opt.timestep)
    for _ in range(steps):
        sim.step()
    row = sim.body_keys.index((ROOT_BODY, 0))
    shipped_height = float(sim.body_poses()[row, 2])
    start = root_height(cpu.mj_model, cpu.mj_data.qpos)
    changed = f" (changed for MuJoCo Warp: {'; '.join(changes)})" if changes else ""
    print(f"INFO {robot} fed options: {options(model)}, timestep {model.opt.timestep:g}{changed}")
    print(f"INFO {robot} shipped options (Newton's conversion): {options(sim.solver.mj_model)}, "
          f"timestep {sim.dt:g} in {sim.split} solver step(s)")
    print(f"INFO {robot} root height {start:.4f} m, after {steps} steps ({MOTION_SECONDS} s): "
          f"fed {heights[0]:.4f} (worlds {min(heights):.4f}..{max(heights):.4f}), MuJoCo C on the fed model "
          f"{c_height:.4f}, shipped {shipped_height:.4f}", flush=True)
    gaps = {"fed - MuJoCo C": (heights[0] - c_height, MOTION_TOLERANCE),
            "fed - shipped": (heights[0] - shipped_height, MOTION_TOLERANCE),
            "fed worlds": (max(heights) - min(heights), WORLDS_TOLERANCE)}
    far = {name: (gap, limit) for name, (gap, limit) in gaps.items() if not abs(gap) <= limit}
    for name, (gap, limit) in far.items():
        print(f"INFO {robot} MOTION MISMATCH {name}: {gap:.4f} m (tolerance {limit} m)")
    return not far


# --- timing --------------------------------------------------------------------------------------------

def fed_ms(robot: str, replicas: int, device: str, like_newton: bool = False) -> float:
    cpu, model, _ = feed(robot, like_newton)
    fed = Fed(model, cpu.mj_data, replicas, device)
    fed.step(3)  # kernels built, the graph captured and launched
    started = time.perf_counter()
    fed.step(STEPS)
    return (time.perf_counter() - started) / STEPS * 1e3


def shipped_ms(robot: str, replicas: int, device: str) -> float:
    import warp as wp

    sim = shipped(robot, replicas, device)
    sim.advance(3 * sim.dt, check=False)  # kernels built
    wp.synchronize_device(device)
    started, steps = time.perf_counter(), sim.steps
    sim.advance(STEPS * sim.dt, check=False)
    wp.synchronize_device(device)
    return (time.perf_counter() - started) / max(1, sim.steps - steps) * 1e3


def gpu(robots, sizes, device: str = "cuda:0", like_newton: bool = False, budget: float = BUDGET_S) -> int:
    """Each robot's motion check, then its sizes from the smallest, while ``budget`` seconds last."""
    started, alike = time.perf_counter(), True

    def may_start(what: str) -> bool:
        spent = time.perf_counter() - started
        if spent > budget:
            print(f"INFO {what}: not run, {spent:.0f} s of the {budget:g} s budget spent (budget=SECONDS "
                  f"gives more)", flush=True)
        return spent <= budget

    for robot in robots:
        if may_start(f"{robot} motion check"):
            alike = same_motion(robot, device, sizes[0], like_newton) and alike
        for n in sizes:
            if may_start(f"{robot} {n} worlds"):
                report_times(robot, n, device, like_newton)
    return 0 if alike else 1


def report_times(robot: str, n: int, device: str, like_newton: bool):
    fed, ours = fed_ms(robot, n, device, like_newton), shipped_ms(robot, n, device)
    faster = "fed MjModel" if fed < ours else "shipped (Newton's conversion)"
    print(f"INFO {robot} {n} worlds: fed {fed:.3f} ms/step, shipped {ours:.3f} ms/step: {faster} is faster",
          flush=True)
    suffix = "_like_newton" if like_newton else ""
    print(f"RATIO mujoco_warp_feed_{robot}_{n}{suffix} {fed / ours:.3f} 1.0 MuJoCo Warp fed Articula's "
          f"MjModel (CUDA graph) {fed:.3f} ms/step vs Simulation (Newton's conversion) {ours:.3f} ms/step, "
          f"{n} worlds, {STEPS} steps", flush=True)


# --- without CUDA ----------------------------------------------------------------------------------------

def cpu_smoke(robots) -> bool:
    for robot in robots:
        started = time.perf_counter()
        if not same_motion(robot, "cpu", CPU_WORLDS):
            return False
        print(f"INFO {robot} CPU smoke ({CPU_WORLDS} worlds on Warp's CPU device): "
              f"{time.perf_counter() - started:.1f} s", flush=True)
    return True


def models_only(robots) -> bool:
    """(a)'s model put on MuJoCo Warp and (b) built, on the CPU, nothing stepped."""
    import mujoco_warp as mjw
    import warp as wp

    for robot in robots:
        cpu, model, changes = feed(robot)
        with wp.ScopedDevice("cpu"):
            mjw.put_model(model)
        sim = shipped(robot, 1, "cpu")
        converted = sim.solver.mj_model
        print(f"INFO {robot}: the fed model ({model.nbody - 1} bodies, nq {model.nq}) goes on MuJoCo Warp "
              f"({'; '.join(changes) or 'unchanged'}); Newton's conversion has {converted.nbody - 1} bodies, "
              f"nq {converted.nq}")
    return True


def without_cuda(robots) -> int:
    code = (f"import sys; sys.path.insert(0, {str(ROOT / 'bench')!r}); import bench_mujoco_warp_feed as b; "
            f"b.load_articula(); sys.exit(0 if b.cpu_smoke({list(robots)!r}) else 1)")
    try:
        done = subprocess.run([sys.executable, "-c", code], timeout=CPU_SMOKE_LIMIT, cwd=ROOT)
    except subprocess.TimeoutExpired:
        print(f"INFO the CPU smoke outlasted {CPU_SMOKE_LIMIT} s (MuJoCo Warp's CPU kernels building): "
              f"the models only")
        models_only(robots)
        done = None
    print("no CUDA: GPU part skipped")
    return 1 if done is not None and done.returncode else 0


def main(argv: list[str]) -> int:
    import warp as wp

    load_articula()
    wp.config.quiet = True
    wp.init()
    robots = available([a for a in argv if a in ROBOTS] or list(DEFAULT_ROBOTS))
    sizes = [int(a) for a in argv if a.isdigit()] or list(REPLICAS)
    budget = next((float(a.split("=", 1)[1]) for a in argv if a.startswith("budget=")), BUDGET_S)
    if not wp.is_cuda_available():
        return without_cuda(robots)
    return gpu(robots, sizes, like_newton="like-newton" in argv, budget=budget)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
