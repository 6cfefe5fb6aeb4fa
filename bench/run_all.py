"""Run every ``bench/bench_*.py`` and gather their ratios into one table (``make bench``).

Protocol, for bench scripts: run standalone with the dev venv's Python, measure a baseline and the
Articula path in the same run, and print one line per result to stdout:

    RATIO <name> <value> <aim> <note>

- ``name``: one word, e.g. ``pose_writeback_1000``;
- ``value``: baseline time / Articula time, a number (higher is better, 10 = ten times faster);
- ``aim``: the ratio we aim for, a number; the table marks the result ``met`` when value >= aim;
- ``note``: the rest of the line, free text (what the baseline is, sizes, times).

Every other output line is ignored. A script that exits non-zero, or prints a malformed RATIO line,
makes this runner exit 1 after the table; ratios below their aim are reported, not failed.
"""

import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent


@dataclass
class Ratio:
    script: str
    name: str
    value: float
    aim: float
    note: str

    @property
    def met(self) -> bool:
        return self.value >= self.aim


def parse_ratio(script: str, line: str) -> Ratio:
    """One ``RATIO name value aim note`` line; raises ValueError when malformed."""
    parts = line.split(maxsplit=4)
    try:
        if len(parts) < 4 or parts[0] != "RATIO":
            raise ValueError
        return Ratio(script, parts[1], float(parts[2]), float(parts[3]), parts[4] if len(parts) == 5 else "")
    except ValueError:
        raise ValueError(f"expected 'RATIO <name> <value> <aim> <note>', got {line!r}") from None


def run_script(path: Path) -> tuple[list[Ratio], list[str]]:
    """Run one bench script; its ratios and the problems found."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, cwd=BENCH_DIR.parent)
    print(f"{path.name}: exit {done.returncode} in {time.perf_counter() - started:.1f} s", flush=True)
    ratios, problems = [], []
    for line in done.stdout.splitlines():
        if line.startswith("RATIO"):
            try:
                ratios.append(parse_ratio(path.name, line))
            except ValueError as error:
                problems.append(f"{path.name}: {error}")
    if done.returncode != 0:
        problems.append(f"{path.name}: exit {done.returncode}\n{done.stderr[-2000:]}")
    return ratios, problems


def table(ratios: list[Ratio]) -> str:
    rows = [("script", "name", "ratio", "aim", "", "note")]
    rows += [(r.script, r.name, f"{r.value:.2f}", f"{r.aim:g}", "met" if r.met else "below", r.note)
             for r in ratios]
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    return "\n".join(("  ".join(cell.ljust(w) for cell, w in zip(row[:5], widths)) + "  " + row[5]).rstrip()
                     for row in rows)


def main() -> int:
    scripts = sorted(BENCH_DIR.glob("bench_*.py"))
    if not scripts:
        print("no bench/bench_*.py scripts yet")
        return 0
    ratios, problems = [], []
    for script in scripts:
        found, failed = run_script(script)
        ratios += found
        problems += failed
    print()
    print(table(ratios))
    for problem in problems:
        print(f"PROBLEM {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
