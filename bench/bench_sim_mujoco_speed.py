"""Bakes on the CPU with the MuJoCo solver vs MuJoCo's C library on the same compiled model, one run.

RATIO mujoco_bake_<robot> = MuJoCo time / Articula time for the same frames: MuJoCo's C library
(``mujoco.mj_step`` on the compiled model Articula's simulation uses, its MJCF export, with a fresh ``MjData`` from
the same start, reading ``xpos``/``xquat`` every frame) against Articula's ``Simulation.advance``
and ``body_poses()`` every frame (the arm's drive targets also change every frame). Aim >= 0.5.
RATIO mujoco_blender_bake_humanoid = the same MuJoCo time / Blender's whole bake of the humanoid built
in Blender (``simulation_to_keyframes.bake``: the animation followed, poses recorded every frame, the
keys written). Aim >= 0.5.
RATIO mujoco_start_<robot> = MuJoCo's own compile of the robot's MJCF (``MjModel.from_xml_path`` +
``MjData``; the arm's MJCF is Articula's export of it) / the time from ``Simulation(...)`` to the end
of its first frame, built cold (nothing in ``sim.model_cache``). Aim >= 0.5 (at most twice MuJoCo's
compile).
RATIO mujoco_restart_<robot> = the same compile / the same time for a re-bake of the unchanged robot
(the last simulation of it closed: its compiled model comes from ``sim.model_cache``). Aim >= 0.5.
INFO lines: where the cold start's time goes (the MJCF export compiled, the rest).

Robots: gymnasium's humanoid (MJCF read by ``core.mjcf.reader``; falls and lies on its floor) and
an 11-body fixed-base arm of revolute links with PD drives (``bench_usd_export.chain_scene``).
Also printed (INFO lines) for the record: the cost per step of every solver on this CPU, Newton's
own MuJoCo path (``mujoco_direct=False``: Newton converts the state around every step) included.
"""

import glob
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_usd_export import ROOT, chain_scene, load_articula  # noqa: E402

FPS, SECONDS, RUNS = 24, 20.0, 3
ARM_SECONDS = 5.0


def humanoid_file() -> str:
    found = sorted(glob.glob(str(ROOT / ".venv-converter/lib/python3.*/site-packages/gymnasium/envs/mujoco/assets/"
                                       "humanoid.xml")))
    if not found:
        raise SystemExit("gymnasium's humanoid.xml comes with `make corpus` (.venv-converter)")
    return found[0]


def arm_targets(frame: int) -> dict:
    return {f"robot00_link{k:02d}_joint": 0.5 * math.sin(0.2 * frame + k) for k in range(1, 11)}


def articula_run(sim_factory, frames: int, targets=None) -> tuple[float, float, object]:
    """(seconds from construction to the end of the first frame, built cold; seconds for the frames; sim)."""
    from articula.sim import model_cache

    model_cache.clear()
    started = time.perf_counter()
    sim = sim_factory()
    frame_dt = 1.0 / FPS
    if targets:
        sim.set_drive_targets(targets(0))
    sim.advance(frame_dt)
    sim.body_poses()
    first = time.perf_counter() - started
    return first, timed_frames(sim, frames, targets), sim


def timed_frames(sim, frames: int, targets=None) -> float:
    """Seconds for ``frames`` frames of ``sim`` from its start, poses read (and targets set) every frame."""
    sim.reset()
    started = time.perf_counter()
    for f in range(frames):
        if targets:
            sim.set_drive_targets(targets(f))
        sim.advance(1.0 / FPS)
        sim.body_poses()
    return time.perf_counter() - started


def mujoco_run(sim, frames: int) -> float:
    """MuJoCo's C library on ``sim``'s compiled model from ``sim``'s start: steps, xpos/xquat each frame."""
    import mujoco

    model = sim.mj_model
    data = mujoco.MjData(model)
    sim.reset()
    d = sim.mj_data
    data.qpos[:], data.qvel[:], data.ctrl[:] = d.qpos, d.qvel, d.ctrl
    data.mocap_pos[:], data.mocap_quat[:] = d.mocap_pos, d.mocap_quat
    steps = sim.steps_per_frame(1.0 / FPS)
    started = time.perf_counter()
    for _ in range(frames):
        mujoco.mj_step(model, data, steps)
        data.xpos.copy(), data.xquat.copy()
    return time.perf_counter() - started


def mujoco_compile(path: str) -> float:
    import mujoco

    started = time.perf_counter()
    model = mujoco.MjModel.from_xml_path(path)
    mujoco.MjData(model)
    return time.perf_counter() - started


def restart_seconds(make, targets=None) -> float:
    """Simulation() to the end of its first frame when the last simulation of the robot was closed."""
    make().close()
    started = time.perf_counter()
    sim = make()
    if targets:
        sim.set_drive_targets(targets(0))
    sim.advance(1.0 / FPS)
    sim.body_poses()
    seconds = time.perf_counter() - started
    assert sim.mj_model is not None
    sim.close()
    return seconds


def start_pieces(scene) -> str:
    """Where a cold start's time goes: the MJCF export compiled (``build_spec``), the rest (ms)."""
    from articula.sim import model_cache, mujoco_spec, simulation

    spent = {}
    build = mujoco_spec.build_spec  # patched where MuJoCo's simulation looks it up

    def timed(*args, **kwargs):
        started = time.perf_counter()
        result = build(*args, **kwargs)
        spent["export"] = spent.get("export", 0.0) + time.perf_counter() - started
        return result

    mujoco_spec.build_spec = timed
    try:
        model_cache.clear()
        started = time.perf_counter()
        simulation.Simulation(scene, device="cpu", solver="MUJOCO").advance(1.0 / FPS)
        total = time.perf_counter() - started
    finally:
        mujoco_spec.build_spec = build
    return f"the MJCF export compiled {spent['export'] * 1e3:.1f} ms, the rest {(total - spent['export']) * 1e3:.1f} ms"


def exported_mjcf(scene) -> str:
    """Articula's MJCF export of ``scene`` (a temporary file) for MuJoCo's own compile of it."""
    import tempfile

    from articula.core.mjcf.writer import write_mjcf

    path = str(Path(tempfile.mkdtemp(prefix="articula-bench-")) / f"{scene.name or 'robot'}.xml")
    write_mjcf(scene, path)
    return path


def per_step_us(make, steps_wanted: int = 400) -> float:
    sim = make()
    sim.advance(1.0 / FPS)  # warm
    frames = max(1, steps_wanted // sim.steps_per_frame(1.0 / FPS))
    started = time.perf_counter()
    for _ in range(frames):
        sim.advance(1.0 / FPS)
        sim.body_poses()
    return (time.perf_counter() - started) / (frames * sim.steps_per_frame(1.0 / FPS)) * 1e6


def blender_bake(scene, frames: int, substeps: int) -> float:
    """Seconds for Blender's bake of ``scene`` (built in an empty Blender scene), best of RUNS."""
    import bpy

    from articula.addon.adapters.description_to_blender import build_scene
    from articula.addon.adapters.simulation_to_keyframes import bake

    context = bpy.context
    bpy.ops.wm.read_homefile(use_empty=True)
    context.scene.render.fps, context.scene.render.fps_base = FPS, 1.0
    build_scene(context, scene)
    from articula.sim import model_cache

    times = []
    for _ in range(RUNS):
        model_cache.clear()  # each bake from cold, as the first bake of a robot
        started = time.perf_counter()
        session, _ = bake(context, 1, frames + 1, "MUJOCO", substeps)
        times.append(time.perf_counter() - started)
    return min(times)


def bench(name: str, scene, seconds: float, compile_path=None, targets=None, in_blender=False):
    from articula.sim.simulation import Simulation

    frames = int(seconds * FPS)
    make = lambda: Simulation(scene, device="cpu", solver="MUJOCO")  # noqa: E731
    make().advance(1.0 / FPS)  # warm: MuJoCo's plugins, the path's modules
    runs, bases = [], []
    for _ in range(RUNS):  # interleaved, so a busy spell of the machine hits both alike
        runs.append(articula_run(make, frames, targets))
        assert hasattr(runs[-1][2], "mj_model")  # MuJoCo's C library on the MJCF export
        bases.append(mujoco_run(runs[-1][2], frames))
    first, ours, base = min(r[0] for r in runs), min(r[1] for r in runs), min(bases)
    sim = runs[0][2]
    steps = frames * sim.steps_per_frame(1.0 / FPS)
    bodies = len(scene.bodies)
    if in_blender:
        baked = blender_bake(scene, frames, steps // frames)
        print(f"RATIO mujoco_blender_bake_{name} {base / baked:.3f} 0.5 {bodies} bodies built in Blender, "
              f"{frames} frames x {steps // frames} steps baked to keys in {baked:.3f} s; MuJoCo C {base:.3f} s")
    print(f"RATIO mujoco_bake_{name} {base / ours:.3f} 0.5 {bodies} bodies, {frames} frames x "
          f"{steps // frames} steps on cpu: MuJoCo C {base:.3f} s ({base / steps * 1e6:.1f} us/step), "
          f"Articula {ours:.3f} s ({ours / steps * 1e6:.1f} us/step)")
    compile_path = compile_path or exported_mjcf(scene)
    compiled = min(mujoco_compile(compile_path) for _ in range(RUNS))
    print(f"RATIO mujoco_start_{name} {compiled / first:.3f} 0.5 MuJoCo's compile of the MJCF "
          f"{compiled:.4f} s, Articula from Simulation() to the first frame done, built cold, {first:.4f} s")
    again = min(restart_seconds(make, targets) for _ in range(RUNS))
    print(f"RATIO mujoco_restart_{name} {compiled / again:.3f} 0.5 MuJoCo's compile of the MJCF "
          f"{compiled:.4f} s, Articula's re-bake of the unchanged robot (sim.model_cache) to the first "
          f"frame done {again:.4f} s")
    print(f"INFO {name} cold start: {start_pieces(scene)}")
    for label, solver, direct in (("MuJoCo (MJCF export)", "MUJOCO", True), ("MuJoCo (Newton)", "MUJOCO", False),
                                  ("Featherstone", "FEATHERSTONE", True), ("XPBD", "XPBD", True)):
        us = per_step_us(lambda: Simulation(scene, device="cpu", solver=solver, mujoco_direct=direct))
        print(f"INFO {name} {label}: {us:.1f} us per step")


def main():
    load_articula()
    from articula.core.mjcf.reader import read_mjcf

    path = humanoid_file()
    bench("humanoid", read_mjcf(path).scene, SECONDS, compile_path=path, in_blender=True)
    arm = chain_scene(robots=1, links=11)
    arm.settings.mujoco.integrator = "implicitfast"  # stiff drives on light links: MuJoCo's implicit damping
    bench("arm11", arm, ARM_SECONDS, targets=arm_targets)


if __name__ == "__main__":
    main()
