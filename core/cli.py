"""``articula``: convert robots between URDF (trusted xacro too), MJCF and USD, and check them; no Blender.

    articula convert robot.urdf robot.usda
    articula convert --to usda a.xml b.urdf out/          # many inputs: one file each in a folder
    articula convert --trust-xacro --arg arm:=left --package-path my_robot=src/my_robot arm.urdf.xacro arm.xml
    articula check robot.usda                            # exit 1 when a problem is an error

Also ``python -m articula``, and inside Blender 4.2+ ``blender -b -c articula convert ...``.
Warnings go to stderr; a file that cannot be read or written is an error naming it, nothing of it is
written (each writer replaces its files only once all are written), and the exit code is 1.

Layers above the core add commands (:class:`Command`): the installed ``articula`` is
:func:`sim.cli.main`, which adds ``simulate``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from contextlib import ExitStack

from .formats import (FORMATS, FormatError, ReadOptions, format_of, read_error_types, read_file,
                      write_error_types, write_file)
from .validation import ERROR, validate

__all__ = ["Command", "main"]

#: --to choices: the file ending each writes.
OUTPUT_ENDINGS = {"usda": ".usda", "usdc": ".usdc", "usd": ".usd", "mjcf": ".xml", "xml": ".xml",
                  "urdf": ".urdf"}
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class Command:
    """A command a higher layer adds to the command line: ``add_to`` declares its sub-parser (``reading``:
    the parent parser of the reading options), ``run`` does it and returns the exit code."""

    name = ""

    def add_to(self, commands, reading: argparse.ArgumentParser) -> None:
        raise NotImplementedError

    def run(self, args, options: "ReadOptions", out, err) -> int:
        raise NotImplementedError


# ----------------------------------------------------------------------------------------- arguments
def _package_path(text: str) -> tuple[str, str]:
    """``NAME=DIR`` (package NAME is folder DIR) or ``DIR`` (a folder holding packages)."""
    name, separator, folder = text.partition("=")
    if not separator:
        name, folder = "", text
    if not os.path.isdir(folder):
        raise argparse.ArgumentTypeError(f"{folder!r} is not a folder")
    if separator and (not name or os.sep in name or "/" in name):
        raise argparse.ArgumentTypeError(f"{text!r}: the package name before '=' must be a plain name")
    return name, os.path.abspath(folder)


def _xacro_argument(text: str) -> tuple[str, str]:
    name, separator, value = text.partition(":=")
    if not separator or not name:
        raise argparse.ArgumentTypeError(f"{text!r} is not name:=value")
    return name, value


def _parser(prog: str, extra: tuple[Command, ...] = ()) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    reading = argparse.ArgumentParser(add_help=False)
    reading.add_argument("--trust-xacro", action="store_true",
                         help="expand xacro files, which runs the Python expressions written in them")
    reading.add_argument("--package-path", action="append", default=[], type=_package_path,
                         metavar="[NAME=]DIR",
                         help="a ROS package folder (NAME=DIR) or a folder holding packages (DIR), for "
                              "package:// meshes and xacro's $(find); repeatable")
    reading.add_argument("--arg", action="append", default=[], type=_xacro_argument, metavar="NAME:=VALUE",
                         help="a xacro argument; repeatable")
    reading.add_argument("--floating-base", action="store_true",
                         help="URDF and xacro: the root link floats instead of being fixed to the world")

    convert = commands.add_parser("convert", parents=[reading], help="convert robots between formats",
                                  description="Convert URDF/xacro, MJCF and USD robots; the output's ending "
                                              "(or --to) picks its format.")
    convert.add_argument("inputs", nargs="+", metavar="IN")
    convert.add_argument("output", metavar="OUT", help="a file, or a folder (with --to) for many inputs")
    convert.add_argument("--to", choices=sorted(OUTPUT_ENDINGS), help="output format when OUT is a folder")
    convert.add_argument("--layout", choices=("nested", "flat"), default="nested",
                         help="USD output: bodies nested along the kinematic tree, or side by side")

    check = commands.add_parser("check", parents=[reading],
                                help="read and validate robots, print the problems",
                                description="Read each file and validate it; exit 1 when a file cannot be "
                                            "read or has an error.")
    check.add_argument("inputs", nargs="+", metavar="FILE")
    for command in extra:
        command.add_to(commands, reading)
    return parser


def _read_options(args, stack: ExitStack) -> ReadOptions:
    """The reading options; ``NAME=DIR`` packages are made findable as folders named NAME (links in a
    temporary folder that ``stack`` removes)."""
    paths = []
    named = [(name, folder) for name, folder in args.package_path if name]
    if named:
        links = stack.enter_context(tempfile.TemporaryDirectory(prefix="articula-packages-"))
        for name, folder in named:
            os.symlink(folder, os.path.join(links, name), target_is_directory=True)
        paths.append(links)
    paths += [folder for name, folder in args.package_path if not name]
    return ReadOptions(args.trust_xacro, paths, dict(args.arg), args.floating_base)


# ------------------------------------------------------------------------------------------ commands
class _Progress:
    """``[####----] 3/8 name`` on stderr while converting many files on a terminal; silent otherwise."""

    def __init__(self, total: int, stream=None):
        self.stream = stream or sys.stderr
        self.total = total
        self.shown = total > 1 and self.stream.isatty()

    def step(self, done: int, name: str) -> None:
        if self.shown:
            filled = round(20 * done / self.total)
            self.stream.write(f"\r[{'#' * filled}{'-' * (20 - filled)}] {done}/{self.total} {name[:40]:<40}")
            self.stream.flush()

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * 70 + "\r")
            self.stream.flush()


def _outputs(args) -> list[str]:
    """The output file of each input; raises ValueError saying why the command cannot run."""
    many = len(args.inputs) > 1 or os.path.isdir(args.output) or args.output.endswith(("/", os.sep))
    if not many:
        if args.to:
            raise ValueError("--to is for a folder output: the file's ending names its format")
        format_of(args.output)  # raises on an unknown ending
        return [args.output]
    if not args.to:
        raise ValueError(f"{args.output} is a folder for {len(args.inputs)} inputs: say the format with --to "
                         f"({', '.join(sorted(OUTPUT_ENDINGS))})")
    if not os.path.isdir(args.output):
        raise ValueError(f"folder {args.output} does not exist")
    outputs = [os.path.join(args.output, _stem(path) + OUTPUT_ENDINGS[args.to]) for path in args.inputs]
    seen = {}
    for path, out in zip(args.inputs, outputs):
        if out in seen:
            raise ValueError(f"{seen[out]} and {path} would both be written to {out}")
        seen[out] = path
    return outputs


def _stem(path: str) -> str:
    name = os.path.basename(path)
    for ending in (".urdf.xacro", *sorted((e for es in FORMATS.values() for e in es), key=len, reverse=True)):
        if name.lower().endswith(ending):
            return name[: -len(ending)]
    return os.path.splitext(name)[0]


def _convert(args, options: ReadOptions, out, err) -> int:
    try:
        outputs = _outputs(args)
    except (ValueError, FormatError) as error:
        print(f"articula convert: error: {error}", file=err)
        return EXIT_USAGE
    read_errors, write_errors = read_error_types(), write_error_types()
    progress, failed = _Progress(len(args.inputs), err), 0
    for done, (source, target) in enumerate(zip(args.inputs, outputs)):
        progress.step(done, os.path.basename(source))
        try:
            read = read_file(source, options)
            if not read.scene.bodies:
                raise FormatError(source, "no rigid body: nothing to convert"
                                          + "".join(f"; {w}" for w in read.warnings))
        except read_errors as error:
            progress.clear()
            print(f"error: {error}", file=err)
            failed += 1
            continue
        try:
            warnings = write_file(read.scene, target, layout=args.layout.upper())
        except write_errors as error:
            progress.clear()
            print(f"error: {source} -> {target}: {error}", file=err)
            failed += 1
            continue
        progress.clear()
        for warning in [*read.warnings, *warnings]:
            print(f"warning: {source}: {warning}", file=err)
        print(f"{source} -> {target}", file=out)
    progress.clear()
    if failed:
        print(f"articula convert: {failed} of {len(args.inputs)} files failed; nothing was written for them",
              file=err)
    return EXIT_FAILED if failed else EXIT_OK


def _check(args, options: ReadOptions, out, err) -> int:
    read_errors, status = read_error_types(), EXIT_OK
    for source in args.inputs:
        try:
            read = read_file(source, options)
        except read_errors as error:
            print(f"{source}: ERROR: cannot be read: {error}", file=out)
            status = EXIT_FAILED
            continue
        problems = validate(read.scene)
        for warning in read.warnings:
            print(f"{source}: WARNING: read: {warning}", file=out)
        for problem in problems:
            print(f"{source}: {problem}", file=out)
        if not read.scene.bodies:
            print(f"{source}: ERROR: no rigid body: nothing to simulate", file=out)
        problem_errors = sum(p.severity == ERROR for p in problems)
        errors = problem_errors + (not read.scene.bodies)
        warnings = len(problems) - problem_errors + len(read.warnings)
        print(f"{source}: {len(read.scene.bodies)} bodies, {len(read.scene.joints)} joints: "
              f"{errors} errors, {warnings} warnings", file=out)
        if errors:
            status = EXIT_FAILED
    return status


def main(argv: list[str] | None = None, prog: str = "articula", out=None, err=None,
         extra: tuple[Command, ...] = ()) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``) with the core's commands and ``extra``;
    returns the exit code."""
    out, err = out or sys.stdout, err or sys.stderr
    try:
        args = _parser(prog, extra).parse_args(argv)
    except SystemExit as exit_:  # --help, or a usage error argparse has printed
        return int(exit_.code or 0)
    with ExitStack() as stack:
        options = _read_options(args, stack)
        if args.command == "convert":
            return _convert(args, options, out, err)
        if args.command == "check":
            return _check(args, options, out, err)
        return next(c for c in extra if c.name == args.command).run(args, options, out, err)
