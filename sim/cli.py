"""``articula simulate``: a robot file simulated without Blender; its motion and sensor readings as CSV.

    articula simulate robot.xml                       # 2 s on MuJoCo (CPU): a summary on stdout
    articula simulate --solver featherstone --seconds 5 --ground arm.urdf --poses poses.csv
    articula simulate --keyframe home --readings readings.csv robot.xml

:func:`main` is the installed ``articula``: the core's command line (:mod:`core.cli`: ``convert``,
``check``) with ``simulate`` added. The summary names the solver, the steps, what the solver leaves out
and where each robot's root went. A robot that cannot be read or simulated, or that blows up, gives exit
code 1 with the reason (the body and the time of a blow-up), and no CSV file is written or changed.
"""

from __future__ import annotations

import argparse
import csv
import math

from ..core import cli as core_cli
from ..core.articulation import find_articulations
from ..core.files import replace_atomically
from ..core.formats import read_error_types, read_file
from ..core.ground import lift_onto_ground
from ..core.model import Solver

SOLVERS = {"mujoco": Solver.MUJOCO, "featherstone": Solver.FEATHERSTONE, "xpbd": Solver.XPBD}
POSE_CHANNELS = ("px", "py", "pz", "qw", "qx", "qy", "qz")


def _positive(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or value <= 0.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
    return value


class _Failed(Exception):
    """The command stops: its message says why (exit code 1)."""


class SimulateCommand(core_cli.Command):
    name = "simulate"

    def add_to(self, commands, reading: argparse.ArgumentParser) -> None:
        parser = commands.add_parser(
            "simulate", parents=[reading], help="simulate a robot; its poses and sensor readings as CSV",
            description="Simulate a URDF/xacro, MJCF or USD robot as Articula does in Blender, print where "
                        "it went, and write its poses and sensor readings frame by frame.")
        parser.add_argument("robot", metavar="FILE")
        parser.add_argument("--solver", choices=sorted(SOLVERS), default="mujoco",
                            help="mujoco (MuJoCo's C library on the CPU; default), featherstone or xpbd "
                                 "(Newton)")
        parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
        parser.add_argument("--seconds", type=_positive, default=2.0, help="simulated time (default 2)")
        parser.add_argument("--fps", type=_positive, default=60.0,
                            help="frames per second written (default 60)")
        parser.add_argument("--keyframe", metavar="NAME",
                            help="start from the robot's keyframe NAME (MuJoCo)")
        parser.add_argument("--ground", action="store_true",
                            help="add a ground plane at z = 0 (a floating robot reaching below it is raised "
                                 "onto it)")
        parser.add_argument("--poses", metavar="CSV", help="write every body's world pose at every frame")
        parser.add_argument("--readings", metavar="CSV", help="write every sensor's reading at every frame")

    def run(self, args, options, out, err) -> int:
        try:
            _simulate(args, options, out, err)
        except _Failed as failure:
            print(f"articula simulate: error: {failure}", file=err)
            return core_cli.EXIT_FAILED
        return core_cli.EXIT_OK


def main(argv: list[str] | None = None, prog: str = "articula", out=None, err=None) -> int:
    """The ``articula`` command line: ``convert``, ``check`` and ``simulate``; returns the exit code."""
    return core_cli.main(argv, prog, out, err, extra=(SimulateCommand(),))


# --------------------------------------------------------------------------------------------- simulate
def _simulate(args, options, out, err) -> None:
    scene = _read(args, options, err)
    if args.readings and not scene.sensors:
        raise _Failed(f"{args.robot} has no sensors: nothing to write to {args.readings}")
    sim = _start(scene, args, err)
    try:
        frames = max(1, round(args.seconds * args.fps))
        times, poses, readings = _run(sim, scene, frames, 1.0 / args.fps)
    finally:
        sim.close()
    if args.poses:
        _write_csv(args.poses, _pose_columns(sim), times, poses)
    if args.readings:
        _write_csv(args.readings, _reading_columns(readings), times, readings)
    _summary(args, scene, sim, poses, frames, out)


def _read(args, options, err):
    try:
        read = read_file(args.robot, options)
    except read_error_types() as error:
        raise _Failed(str(error)) from error
    for warning in read.warnings:
        print(f"warning: {args.robot}: {warning}", file=err)
    if not read.scene.bodies:
        raise _Failed(f"{args.robot}: no rigid body: nothing to simulate")
    if args.ground:
        read.scene.settings.ground_plane = True
        for root, lift in lift_onto_ground(read.scene).items():
            print(f"note: {root} raised {lift:.3f} m to stand on the ground", file=err)
    return read.scene


def _start(scene, args, err):
    from .errors import SimulationBuildError

    try:
        from .launch import start_simulation
    except ImportError as error:  # the core alone: pip install articula, without [sim]
        raise _Failed(f"simulating needs the simulation packages (pip install 'articula[sim]'): {error}") \
            from error

    solver = SOLVERS[args.solver]
    extra = {"keyframe": args.keyframe} if args.keyframe else {}
    try:
        sim = start_simulation(scene, device=args.device, solver=solver,
                               on_status=lambda line: print(line, file=err), **extra)
    except (SimulationBuildError, ValueError, KeyError, RuntimeError) as error:  # Runtime: no CUDA device
        reason = error.args[0] if isinstance(error, KeyError) and error.args else error
        raise _Failed(f"{args.robot} cannot be simulated on {solver.value}: {reason}") from error
    for note in sim.notes:
        print(f"note: {note}", file=err)
    return sim


def _run(sim, scene, frames: int, frame_dt: float):
    """Every frame's simulated time (whole steps: a frame may take a little more or less than
    ``frame_dt``), body poses (replica 0) and sensor readings, from the start."""
    from .divergence import SimulationDiverged

    reader = _reader(sim, scene)
    rows = [i for i, (_, replica) in enumerate(sim.body_keys) if replica == 0]
    times, poses, readings = [sim.time], [sim.body_poses()[rows]], []
    if reader:
        readings.append(reader.read())
    for _ in range(frames):
        try:
            sim.advance(frame_dt)
        except SimulationDiverged as error:
            raise _Failed(f"{error} at {sim.time:.3f} s; nothing written") from error
        times.append(sim.time)
        poses.append(sim.body_poses()[rows])
        if reader:
            readings.append(reader.read())
    return times, poses, readings


def _reader(sim, scene):
    if not scene.sensors:
        return None
    from .sensors import SensorReader

    return SensorReader.of(sim)


# ------------------------------------------------------------------------------------------------ output
def _pose_columns(sim) -> list[str]:
    return [f"{name}.{c}" for name, replica in sim.body_keys if replica == 0 for c in POSE_CHANNELS]


def _reading_columns(readings) -> list[str]:
    columns = {}
    for frame in readings:
        for sensor, channels in frame.items():
            columns.update({f"{sensor}.{c}": None for c in channels})
    return list(columns)


def _write_csv(path: str, columns: list[str], times: list[float], frames) -> None:
    """``frame``, ``time`` (simulated seconds), then ``columns``: a pose array or {sensor: {channel:
    value}} per frame."""
    def write(temporary: str) -> None:
        with open(temporary, "w", newline="") as file:
            writer = csv.writer(file)
            writer.writerow(["frame", "time", *columns])
            for frame, (time, values) in enumerate(zip(times, frames)):
                writer.writerow([frame, f"{time:.9g}", *_row(values, columns)])

    try:
        replace_atomically(path, write)
    except OSError as error:
        raise _Failed(f"cannot write {path}: {error.strerror or error}") from error


def _row(values, columns: list[str]) -> list[str]:
    if isinstance(values, dict):  # sensor readings; empty where a sensor gave none this frame
        flat = {f"{s}.{c}": v for s, channels in values.items() for c, v in channels.items()}
        return [f"{flat[c]:.9g}" if c in flat else "" for c in columns]
    return [f"{v:.9g}" for v in values.ravel()]


def _summary(args, scene, sim, poses, frames: int, out) -> None:
    names = [name for name, replica in sim.body_keys if replica == 0]
    print(f"{args.robot}: {sim.time:.4g} s on {sim.solver_kind.value} ({sim.device}), {frames} frames, "
          f"{sim.steps} steps of {sim.dt * 1e3:.4g} ms, {len(names)} bodies", file=out)
    for articulation in find_articulations(scene):
        if articulation.root not in names:
            continue
        row = names.index(articulation.root)
        start, end = poses[0][row, :3], poses[-1][row, :3]
        moved = math.dist(start, end)
        print(f"  {articulation.root}: from ({_xyz(start)}) to ({_xyz(end)}), {moved:.3f} m", file=out)
    for path, what in ((args.poses, "poses"), (args.readings, "sensor readings")):
        if path:
            print(f"  {what} -> {path}", file=out)


def _xyz(p) -> str:
    return ", ".join(f"{v:.3f}" for v in p)
