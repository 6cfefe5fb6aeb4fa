"""Replicas on the CPU with the MuJoCo solver vs ``mujoco.rollout`` of the same compiled model, one run.

RATIO mujoco_replicas_<robot> = MuJoCo time / Articula time for the same replicas and frames:
``mujoco.rollout.Rollout(nthread=os.cpu_count())`` steps the compiled model Articula's simulation
uses (the MJCF export of one replica) for every replica from the same start, and every frame
each replica's ``xpos``/``xquat`` are read (``mj_setState`` + ``mj_kinematics`` on the frame's last
state). Two ways, the faster one is the baseline: one rollout per frame (each frame's end state the
next one's start) and one rollout of all the frames at once (warmstart continuous, the frames' states
read afterwards). Against Articula's ``Simulation.advance`` and ``body_poses()`` every frame (the arm's
drive targets also change every frame, for both). Aim >= 0.5.

Robots: 64 replicas of gymnasium's humanoid (MJCF read by ``core.mjcf.reader``; they fall and lie on
the floor) and of an 11-body fixed-base arm of revolute links with PD drives
(``bench_usd_export.chain_scene``). Also printed (INFO lines) for the record: today's other path,
MuJoCo Warp on the CPU (``mujoco_direct=False``), per step, when it runs within ``WARP_LIMIT`` seconds
(its kernels' first build can take longer: then it says so).
"""

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_sim_mujoco_speed import arm_targets, humanoid_file, timed_frames  # noqa: E402
from bench_usd_export import ROOT, chain_scene, load_articula  # noqa: E402

FPS, SECONDS, RUNS, REPLICAS = 24, 2.0, 3, 64
WARP_LIMIT = 300


def make_scene(robot: str, replicas: int = REPLICAS):
    from articula.core.mjcf.reader import read_mjcf

    scene = read_mjcf(humanoid_file()).scene if robot == "humanoid" else chain_scene(robots=1, links=11)
    if robot != "humanoid":  # its stiff drives on light links need MuJoCo's implicit damping (Newton's default)
        scene.settings.mujoco.integrator = "implicitfast"
    scene.settings.replicas = replicas
    return scene


def starts_and_controls(sim, frames: int, targets=None):
    """Every replica's start (mjSTATE_FULLPHYSICS) and each frame's ``ctrl`` (replicas, frames, nu),
    as Articula's simulation writes them into MuJoCo."""
    import mujoco

    model, spec = sim.mj_model, mujoco.mjtState.mjSTATE_FULLPHYSICS
    sim.reset()
    starts = np.zeros((sim.replicas, mujoco.mj_stateSize(model, spec)))
    for r, data in enumerate(sim.datas):
        mujoco.mj_getState(model, data, starts[r], spec)
    controls = np.zeros((sim.replicas, frames, model.nu))
    for f in range(frames):
        if targets:
            sim.set_drive_targets(targets(f))
        controls[:, f] = [data.ctrl for data in sim.datas]
    sim.reset()
    return starts, controls


def read_poses(model, data, states: np.ndarray) -> None:
    """Every replica's ``xpos``/``xquat`` at these states (one row per replica)."""
    import mujoco

    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    for state in states:
        mujoco.mj_setState(model, data, state, spec)
        mujoco.mj_kinematics(model, data)
        data.xpos.copy(), data.xquat.copy()


def rollout_per_frame(pool, model, thread_data, reader, starts, controls, steps: int) -> float:
    state, frames = starts.copy(), controls.shape[1]
    started = time.perf_counter()
    for f in range(frames):
        out, _ = pool.rollout(model, thread_data, state, controls[:, f:f + 1], nstep=steps)
        state = out[:, -1]
        read_poses(model, reader, state)
    return time.perf_counter() - started


def rollout_whole(pool, model, thread_data, reader, starts, controls, steps: int) -> float:
    frames = controls.shape[1]
    per_step = np.repeat(controls, steps, axis=1)
    started = time.perf_counter()
    out, _ = pool.rollout(model, thread_data, starts, per_step, nstep=frames * steps)
    for f in range(frames):
        read_poses(model, reader, out[:, (f + 1) * steps - 1])
    return time.perf_counter() - started


def warp_per_step_us(robot: str) -> str:
    """Today's MuJoCo Warp path on the CPU, per step, in a child process bounded by WARP_LIMIT."""
    code = ("import sys, time; sys.path.insert(0, 'bench'); import bench_sim_mujoco_replicas as b; "
            "b.load_articula(); from articula.sim.simulation import Simulation; "
            f"sim = Simulation(b.make_scene({robot!r}), device='cpu', solver='MUJOCO', mujoco_direct=False); "
            "sim.advance(1 / b.FPS); n = 4; t = time.perf_counter(); "
            "[sim.advance(1 / b.FPS) for _ in range(n)]; "
            "print((time.perf_counter() - t) / (n * sim.steps_per_frame(1 / b.FPS)) * 1e6)")
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                              timeout=WARP_LIMIT)
    except subprocess.TimeoutExpired:
        return f"not measured: its kernel build and first frame took over {WARP_LIMIT} s"
    if done.returncode:
        return f"not measured: it failed ({done.stderr.strip().splitlines()[-1:]})"
    return f"{float(done.stdout.strip().splitlines()[-1]):.1f} us per step (all {REPLICAS} replicas)"


def bench(robot: str, targets=None):
    import mujoco
    from mujoco import rollout

    from articula.sim.mujoco_spec import MuJoCoSimulation
    from articula.sim.simulation import Simulation

    frames = int(SECONDS * FPS)
    sim = Simulation(make_scene(robot), device="cpu", solver="MUJOCO")
    assert isinstance(sim, MuJoCoSimulation) and len(sim.datas) == REPLICAS
    sim.advance(1.0 / FPS)  # warm
    steps = sim.steps_per_frame(1.0 / FPS)
    model = sim.mj_model
    starts, controls = starts_and_controls(sim, frames, targets)
    threads = os.cpu_count() or 1
    pool = rollout.Rollout(nthread=threads)
    thread_data = [mujoco.MjData(model) for _ in range(threads)]
    reader = mujoco.MjData(model)
    ours, per_frame, whole = [], [], []
    for _ in range(RUNS):  # interleaved, so a busy spell of the machine hits all alike
        ours.append(timed_frames(sim, frames, targets))
        per_frame.append(rollout_per_frame(pool, model, thread_data, reader, starts, controls, steps))
        whole.append(rollout_whole(pool, model, thread_data, reader, starts, controls, steps))
    pool.close()
    ours, per_frame, whole = min(ours), min(per_frame), min(whole)
    base = min(per_frame, whole)
    total = frames * steps * REPLICAS
    print(f"RATIO mujoco_replicas_{robot} {base / ours:.3f} 0.5 {REPLICAS} replicas x {model.nbody - 1} bodies, "
          f"{frames} frames x {steps} steps on {threads} cpu threads: mujoco.rollout {base:.3f} s "
          f"(per frame {per_frame:.3f} s, all frames at once {whole:.3f} s), Articula {ours:.3f} s "
          f"({ours / total * 1e6:.2f} us per replica-step, {len(sim._chunks)} threads)")
    print(f"INFO {robot} MuJoCo Warp on the CPU (today's other path): {warp_per_step_us(robot)}; "
          f"Articula {ours / (frames * steps) * 1e6:.1f} us per step (all {REPLICAS} replicas)")


def main():
    load_articula()
    bench("humanoid")
    bench("arm11", targets=arm_targets)


if __name__ == "__main__":
    main()
