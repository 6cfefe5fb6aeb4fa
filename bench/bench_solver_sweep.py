"""Which solver holds which robot: every robot of the MuJoCo corpus (`make mujoco-robots`,
tests/robot_files.py), imported with ``read_mjcf`` and left untouched (no controls), floating robots on a
ground plane, simulated 1 s at the file's step on MUJOCO, FEATHERSTONE and XPBD (CPU), and with Newton's
own solver on the original file (``ModelBuilder.add_mjcf``) for comparison.

A run holds when it does not diverge, every pose stays finite and no body is flung away. Featherstone and
XPBD are tried at 1, 2, 4, ... substeps until they hold: the sweep measures the substeps each needs.

    python bench/bench_solver_sweep.py                       # all robots, table on stdout
    python bench/bench_solver_sweep.py --robots go1,panda --table /tmp/sweep.md --jsonl /tmp/sweep.jsonl

Each robot runs in its own process (a hang or a crash costs one robot, not the sweep).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

SECONDS = 1.0
FRAME = 0.04
#: A body further than this from where it started after 1 s untouched was flung away (free fall is 4.9 m,
#: but fixed-base robots and robots on a ground plane cannot fall that far).
FLUNG = 3.0
SOLVERS = ("MUJOCO", "FEATHERSTONE", "XPBD")
NEWTON_SOLVERS = ("FEATHERSTONE", "XPBD")
_SHIPPED: dict = {}  # sim.preflight's step table as shipped, while raw runs empty it


def needs_ground(path: str) -> bool:
    """Newton's own run: a robot with a free joint and no floor of its own is put on a ground plane."""
    import mujoco

    model = mujoco.MjModel.from_xml_path(path)
    floating = bool((model.jnt_type == mujoco.mjtJoint.mjJNT_FREE).any())
    has_floor = any(model.geom_type[g] == mujoco.mjtGeom.mjGEOM_PLANE and model.geom_bodyid[g] == 0
                    for g in range(model.ngeom))
    return floating and not has_floor


def _outcome(start, poses, diverged_at=None, body=None) -> dict:
    import numpy as np

    if diverged_at is not None:
        return {"holds": False, "why": f"diverged at {diverged_at:.3f} s ({body})"}
    if not np.isfinite(poses).all():
        return {"holds": False, "why": "not finite"}
    moved = np.linalg.norm(poses[:, :3] - start[:, :3], axis=1)
    if moved.max() > FLUNG:
        return {"holds": False, "why": f"flung {moved.max():.1f} m", "moved": float(moved.max())}
    return {"holds": True, "moved": float(moved.max())}


def run_articula(name: str, solver: str, substeps: int, raw: bool = False) -> dict:
    """``raw``: without the step split Articula makes by itself (sim.preflight), to measure what the solver
    needs."""
    from robot_files import mujoco_robot_scene

    from articula.sim import Simulation, SimulationDiverged, preflight
    from articula.sim.builder import SimulationBuildError

    _SHIPPED.setdefault("steps", preflight.FLOATING_ON_CONTACT_STEP)
    preflight.FLOATING_ON_CONTACT_STEP = {} if raw else _SHIPPED["steps"]
    scene = mujoco_robot_scene(name)
    began = time.perf_counter()
    try:
        sim = Simulation(scene, device="cpu", solver=solver, substeps=substeps)
    except SimulationBuildError as refusal:
        return {"holds": False, "refused": str(refusal), "why": "refused"}
    start = sim.body_poses()
    result = None
    try:
        for _ in range(round(SECONDS / FRAME)):
            sim.advance(FRAME)
    except SimulationDiverged as error:
        result = _outcome(start, None, sim.time, error.body)
    if result is None:
        result = _outcome(start, sim.body_poses())
    result["seconds"] = round(time.perf_counter() - began, 2)
    result["notes"] = list(sim.notes)
    sim.close()
    return result


def run_newton(path: str, solver: str, substeps: int, ground: bool, dt: float) -> dict:
    import numpy as np
    import warp as wp

    import newton

    wp.config.quiet = True
    builder = newton.ModelBuilder()
    builder.add_mjcf(path)
    if ground:
        builder.add_ground_plane()
    model = builder.finalize(device="cpu")
    make = {"FEATHERSTONE": newton.solvers.SolverFeatherstone, "XPBD": newton.solvers.SolverXPBD}[solver]
    stepper = make(model)
    state_0, state_1, control = model.state(), model.state(), model.control()
    newton.eval_fk(model, model.joint_q, model.joint_qd, state_0)
    pipeline = newton.CollisionPipeline(model)
    contacts = pipeline.contacts()
    start = state_0.body_q.numpy().copy()
    h = dt / substeps
    began = time.perf_counter()
    steps_per_frame = max(1, round(FRAME / h))
    for frame in range(round(SECONDS / FRAME)):
        for _ in range(steps_per_frame):
            state_0.clear_forces()
            pipeline.collide(state_0, contacts)
            stepper.step(state_0, state_1, control, contacts, h)
            state_0, state_1 = state_1, state_0
        q = state_0.body_q.numpy()
        bad = ~np.isfinite(q).all(axis=1) | (np.abs(q[:, :3]).max(axis=1) > 1.0e4)
        if bad.any():
            result = _outcome(start, None, (frame + 1) * FRAME, model.body_label[int(np.flatnonzero(bad)[0])])
            break
    else:
        result = _outcome(start, state_0.body_q.numpy())
    result["seconds"] = round(time.perf_counter() - began, 2)
    return result


def sweep_robot(name: str, path: str, max_substeps: int, newton_own: bool, needs: bool = True) -> dict:
    """Every solver on one robot; Featherstone and XPBD at 1, 2, 4, ... substeps until they hold (without
    ``needs``: as shipped only, and Newton's own)."""
    import mujoco

    dt = mujoco.MjModel.from_xml_path(path).opt.timestep
    ground = needs_ground(path)
    row = {"robot": name, "dt": dt, "ground": ground}
    row["MUJOCO"] = _climb(lambda n: run_articula(name, "MUJOCO", n), 1)
    for solver in SOLVERS[1:]:
        if needs:
            row[solver] = _climb(lambda n: run_articula(name, solver, n, raw=True), max_substeps)
        shipped = _climb(lambda n: run_articula(name, solver, n), 1)
        row["shipped_" + solver] = shipped
    if newton_own:
        for solver in NEWTON_SOLVERS:
            row["newton_" + solver] = _climb(lambda n: run_newton(path, solver, n, ground, dt), max_substeps)
    return row


def _climb(run, max_substeps: int) -> dict:
    """The first substep count (1, 2, 4, ...) at which ``run`` holds, with what failed below it."""
    tried = []
    substeps = 1
    while True:
        try:
            result = run(substeps)
        except Exception as error:  # a crash in a solver is a result of the sweep, not its end
            result = {"holds": False, "why": f"{type(error).__name__}: {str(error)[:160]}"}
        result["substeps"] = substeps
        tried.append(result)
        if result["holds"] or result.get("refused") or substeps * 2 > max_substeps:
            break
        substeps *= 2
    final = dict(tried[-1])
    final["failed_below"] = [t["why"] for t in tried[:-1]]
    return final


def _cell(result: dict | None) -> str:
    if result is None:
        return "-"
    if result.get("refused"):
        return "refused"
    split = next((n for n in result.get("notes", []) if "split into" in n), None)
    if split and result["holds"]:
        return f"holds ({split.rsplit('split into ', 1)[1].split()[0]} solver steps a step)"
    if result["holds"]:
        return "holds" if result["substeps"] == 1 else f"holds at {result['substeps']} substeps"
    return f"no ({result['why']}, {result['substeps']} substeps)"


def table(rows: list[dict]) -> str:
    solvers = ["MUJOCO", "shipped_FEATHERSTONE", "shipped_XPBD", "FEATHERSTONE", "XPBD"] + \
        [f"newton_{s}" for s in NEWTON_SOLVERS]
    header = ["robot", "kind", "step", "MuJoCo", "Featherstone", "XPBD", "Featherstone needs", "XPBD needs",
              "Newton's Featherstone", "Newton's XPBD"]
    kept = [i for i, s in enumerate(solvers) if any(row.get(s) for row in rows)]  # --no-newton, --no-needs
    header = header[:3] + [header[3 + i] for i in kept]
    solvers = [solvers[i] for i in kept]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        lines.append("| " + " | ".join([row["robot"], row.get("kind", ""), f"{row['dt'] * 1000:g} ms"]
                                      + [_cell(row.get(s)) for s in solvers]) + " |")
    total = len(rows)
    lines.append("")
    for solver, title in zip(solvers, header[3:]):
        held = [r for r in rows if r.get(solver)]
        at_one = sum(1 for r in held if r[solver]["holds"] and r[solver]["substeps"] == 1)
        refused = sum(1 for r in held if r[solver].get("refused"))
        anywhere = sum(1 for r in held if r[solver]["holds"])
        if held:
            lines.append(f"- {title}: {at_one}/{total} hold as asked, {anywhere}/{total} at some substep "
                         f"count, {refused} refused up front")
    return "\n".join(lines) + "\n"


def main() -> int:
    from robot_files import MUJOCO_ROBOT_FILES, MUJOCO_ROBOTS

    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--robots", help="comma-separated names (default: all)")
    parser.add_argument("--max-substeps", type=int, default=8)
    parser.add_argument("--no-newton", action="store_true", help="skip Newton's own solvers on the file")
    parser.add_argument("--no-needs", action="store_true",
                        help="Featherstone and XPBD as shipped only (skip the substep climb without the split)")
    parser.add_argument("--table", help="write the Markdown table here after every robot")
    parser.add_argument("--jsonl", help="append each robot's results here")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per robot")
    parser.add_argument("--render", nargs="+", help="only write the table of these JSONL files (--table)")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # the child process: one robot, JSON on stdout
    args = parser.parse_args()
    if args.render:
        rows = {}
        for name in args.render:
            with open(name) as f:
                rows.update((row["robot"], row) for row in map(json.loads, f) if "error" not in row)
        text = table([rows[n] for n in MUJOCO_ROBOT_FILES if n in rows])
        if args.table:
            with open(args.table, "w") as f:
                f.write(text)
        print(text)
        return 0
    if args.one:
        path = os.path.join(MUJOCO_ROBOTS, MUJOCO_ROBOT_FILES[args.one][1])
        row = sweep_robot(args.one, path, args.max_substeps, not args.no_newton, not args.no_needs)
        print("SWEEP " + json.dumps(row))
        return 0
    names = args.robots.split(",") if args.robots else list(MUJOCO_ROBOT_FILES)
    rows = []
    for name in names:
        command = [sys.executable, __file__, "--one", name, "--max-substeps", str(args.max_substeps)]
        command += [flag for flag, on in (("--no-newton", args.no_newton), ("--no-needs", args.no_needs)) if on]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
            found = [line for line in done.stdout.splitlines() if line.startswith("SWEEP ")]
            row = json.loads(found[-1][6:]) if found else \
                {"robot": name, "dt": math.nan, "error": done.stderr[-500:]}
        except subprocess.TimeoutExpired:
            row = {"robot": name, "dt": math.nan, "error": f"over {args.timeout:g} s"}
        row["kind"] = MUJOCO_ROBOT_FILES[name][0]
        rows.append(row)
        print(json.dumps(row), flush=True)
        if args.jsonl:
            with open(args.jsonl, "a") as f:
                f.write(json.dumps(row) + "\n")
        if args.table:
            with open(args.table, "w") as f:
                f.write(table(rows))
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
