"""Export the 200-body sample robot (core/samples.py's hanging chain of 200 links) as MJCF.

RATIO mjcf_export_200 = floor time / ``write_mjcf`` time (best of several runs each, same process),
where the floor is MuJoCo alone on the same spec: ``spec.compile()`` + ``spec.to_xml()`` of the spec
``write_mjcf`` builds. ``write_mjcf`` also validates the description, builds the spec, loads the
written XML back with MuJoCo (the proof that the file compiles as written) and writes the files
atomically, so its time is the floor plus Articula's share. Aim: >= 0.4 (at most 2.5x the floor).
"""

import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINKS, RUNS = 200, 7


def load_articula():
    spec = importlib.util.spec_from_file_location("articula", ROOT / "__init__.py",
                                                  submodule_search_locations=[str(ROOT)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["articula"] = module
    spec.loader.exec_module(module)
    return module


def best_time(action, runs: int = RUNS) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    load_articula()
    from articula.core.mjcf.writer import build_spec, write_mjcf
    from articula.core.samples import hanging_chain

    scene = hanging_chain(LINKS)
    folder = tempfile.mkdtemp(prefix="articula-bench-mjcf-")
    os.chdir(folder)  # MuJoCo may write MUJOCO_LOG.TXT into the working folder
    path = os.path.join(folder, "chain.xml")
    spec = build_spec(scene, path).spec

    def floor():
        spec.compile()
        spec.to_xml()

    ours = best_time(lambda: write_mjcf(scene, path))
    base = best_time(floor)
    print(f"write_mjcf {ours * 1e3:.1f} ms, MjSpec compile + to_xml {base * 1e3:.1f} ms ({LINKS} bodies)")
    print(f"RATIO mjcf_export_{LINKS} {base / ours:.3f} 0.4 floor = MjSpec compile + to_xml of the same spec "
          f"({base * 1e3:.1f} ms); write_mjcf {ours * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
