"""Driving a robot's actuators frame by frame: Articula's ``Simulation.set_controls`` + ``advance``
vs raw Newton stepping the same model with the controls written straight into its arrays, in one run.

The robot: tests/data/arm_gripper.xml (3 position servos, a gripper servo on a fixed tendon, fingers
coupled by a joint equality), contacts off, at its own 2 ms step, 60 frames of 1/60 s with a new
control for every actuator each frame.

RATIO sim_actuators_mujoco = raw MuJoCo time / Articula time on MuJoCo (the CPU path: MuJoCo's C
library on the MJCF export; raw: ``ctrl`` written by actuator and ``mj_step`` of the same compiled
model each frame). Aim: >= 0.85.
RATIO sim_actuators_featherstone = the same on Featherstone (raw: the servo targets assigned to
``control.joint_target_q`` each frame and Newton's step of the same model, which lacks what Articula
adds through ``joint_f`` with its kernels: the servos' drives clamped to their force range and the
gripper's tendon force; the ratio is what those kernels and the control API cost). Aim: >= 0.85.
"""

import math
import os
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_usd_export import load_articula  # noqa: E402

FRAMES, RUNS, FPS = 60, 3, 60.0


def controls(frame: int) -> dict[str, float]:
    s = math.sin(frame / 10.0)
    return {"arm/shoulder_yaw": 0.5 * s, "arm/shoulder_pitch": -0.3 * s, "arm/elbow": 0.6 * s,
            "gripper": 0.015 + 0.01 * s}


def bench(solver_kind: str):
    from articula.core.mjcf import read_mjcf
    from articula.sim.simulation import Simulation

    scene = read_mjcf(str(ROOT / "tests" / "data" / "arm_gripper.xml")).scene
    for shape in scene.shapes:
        shape.collision_group = 0
    sim = Simulation(scene, device="cpu", solver=solver_kind)
    steps = sim.steps_per_frame(1.0 / FPS)

    def articula():
        sim.reset()
        started = time.perf_counter()
        for frame in range(FRAMES):
            sim.set_controls(controls(frame))
            sim.advance(1.0 / FPS, check=False)
        sim.body_poses()
        return time.perf_counter() - started

    if solver_kind == "MUJOCO":  # MuJoCo's C library on the MJCF export: the raw loop is mj_step on its model
        raw = raw_mujoco(sim, steps)
    else:
        raw = raw_newton(sim, steps, scene, solver_kind)
    articula(), raw()  # warm
    ours = min(articula() for _ in range(RUNS))
    base = min(raw() for _ in range(RUNS))
    total = FRAMES * steps
    print(f"RATIO sim_actuators_{solver_kind.lower()} {base / ours:.3f} 0.85 arm_gripper on cpu: "
          f"{FRAMES} frames x {steps} steps, raw solver {base * 1000 / total:.3f} ms/step, "
          f"Articula with set_controls {ours * 1000 / total:.3f} ms/step")


def raw_mujoco(sim, steps: int):
    import mujoco

    model, data = sim.mj_model, mujoco.MjData(sim.mj_model)
    rows = {name: sim.layout.actuators[name] for name in controls(0)}

    def raw():
        sim.reset()
        data.qpos[:], data.qvel[:], data.ctrl[:] = sim.mj_data.qpos, sim.mj_data.qvel, sim.mj_data.ctrl
        started = time.perf_counter()
        for frame in range(FRAMES):
            for name, value in controls(frame).items():
                data.ctrl[rows[name]] = value
            mujoco.mj_step(model, data, steps)
        mujoco.mj_kinematics(model, data)
        data.xpos.copy()
        return time.perf_counter() - started

    return raw


def raw_newton(sim, steps: int, scene, solver_kind: str):
    import numpy as np

    from articula.sim.simulation import _make_solver

    model = sim.model
    solver = _make_solver(model, sim.solver_kind, sim.device, scene.settings.solver_iterations)
    state_0, state_1, control = model.state(), model.state(), model.control()
    slots = {s.actuator.name: s for s in sim.built.actuators}

    def raw():
        nonlocal state_0, state_1
        state_0.assign(sim.start)
        started = time.perf_counter()
        for frame in range(FRAMES):
            values = controls(frame)
            if solver_kind == "MUJOCO":
                ctrl = np.zeros(len(slots), dtype=np.float32)
                for name, value in values.items():
                    ctrl[slots[name].index] = value
                control.mujoco.ctrl.assign(ctrl)
            else:
                target = sim._targets.copy()
                for name, value in values.items():
                    if slots[name].route == "drive":
                        target[slots[name].index] = value
                control.joint_target_q.assign(target)
            for _ in range(steps):
                state_0.clear_forces()
                solver.step(state_0, state_1, control, None, sim.dt)
                state_0, state_1 = state_1, state_0
        state_0.body_q.numpy()
        return time.perf_counter() - started

    return raw


def main():
    load_articula()
    warnings.simplefilter("ignore")
    os.chdir(os.environ.get("TMPDIR", "/tmp"))  # MuJoCo may write MUJOCO_LOG.TXT into the working folder
    for solver_kind in ("MUJOCO", "FEATHERSTONE"):
        bench(solver_kind)


if __name__ == "__main__":
    main()
