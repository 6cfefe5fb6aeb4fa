"""Articula's live step loop (step + write-back to Blender objects) vs the raw solver stepping the
same model, in one run.

RATIO sim_steploop_120 = raw Newton time / Articula time for the same frames and steps (best of
RUNS), 10 arms x 12 links = 120 bodies built in Blender, the scene's default solver and step.
Aim: >= 0.85. Raw Newton is the loop of Newton's examples: clear forces, collide (when the
solver uses Newton's contacts), step, swap; raw MuJoCo (the MUJOCO solver on the CPU, MuJoCo's C
library on the MJCF export) ``mj_step`` on the same compiled model, ``xpos`` read each frame.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_usd_export import chain_scene, load_articula  # noqa: E402

FRAMES, RUNS = 24, 3


def main():
    import bpy

    load_articula()
    from articula.addon.adapters.description_to_blender import build_scene
    from articula.addon.simulation_session import BlenderSimulation

    context = bpy.context
    context.scene.render.fps, context.scene.render.fps_base = 24, 1.0
    arms = chain_scene(robots=10, links=12)
    arms.settings.mujoco.integrator = "implicitfast"  # stiff drives on light links: MuJoCo's implicit damping
    build_scene(context, arms)
    session = BlenderSimulation(context)
    sim = session.sim
    session.advance_frame()  # warm

    def articula():
        started = time.perf_counter()
        for _ in range(FRAMES):
            session.advance_frame()
        return time.perf_counter() - started

    steps = FRAMES * round(session.frame_dt / sim.dt)
    raw = raw_mujoco(sim, steps) if hasattr(sim, "mj_model") else raw_newton(sim, steps, context)
    raw()
    ours = min(articula() for _ in range(RUNS))
    base = min(raw() for _ in range(RUNS))
    bodies = len(session.objects)
    print(f"RATIO sim_steploop_{bodies} {base / ours:.3f} 0.85 {sim.solver_kind.value} on {sim.device}: "
          f"{FRAMES} frames x {steps // FRAMES} steps, raw solver {base * 1000 / steps:.3f} ms/step, "
          f"Articula with write-back {ours * 1000 / steps:.3f} ms/step")


def raw_mujoco(sim, steps: int):
    import mujoco

    model, data = sim.mj_model, mujoco.MjData(sim.mj_model)
    data.qpos[:], data.ctrl[:] = sim.mj_data.qpos, sim.mj_data.ctrl
    per_frame = steps // FRAMES

    def raw():
        started = time.perf_counter()
        for _ in range(FRAMES):
            mujoco.mj_step(model, data, per_frame)
            mujoco.mj_kinematics(model, data)
            data.xpos.copy()
        return time.perf_counter() - started

    return raw


def raw_newton(sim, steps: int, context):
    from articula.sim.simulation import _make_solver

    model = sim.model
    solver = _make_solver(model, sim.solver_kind, sim.device, context.scene.articula.solver_iterations)
    state_0, state_1, control = model.state(), model.state(), model.control()
    state_0.assign(sim.start)
    pipeline, contacts = sim.pipeline, sim.contacts

    def raw():
        nonlocal state_0, state_1
        started = time.perf_counter()
        for _ in range(steps):
            state_0.clear_forces()
            if pipeline is not None:
                pipeline.collide(state_0, contacts)
            solver.step(state_0, state_1, control, contacts, sim.dt)
            state_0, state_1 = state_1, state_0
        state_0.body_q.numpy()  # the result reaches the host, as Articula's does
        return time.perf_counter() - started

    return raw


if __name__ == "__main__":
    main()
