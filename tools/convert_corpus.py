"""Convert the MJCF corpus robots to USD with NVIDIA's mujoco-usd-converter (test data only).

Run by ``make corpus`` with the Python of ``.venv-converter`` (mujoco-usd-converter 0.8.0 needs
mujoco>=3.16,<3.17, which clashes with the project's own mujoco). MJCF sources: gymnasium's
``envs/mujoco/assets`` (installed --no-deps into that venv, for its files only) and Newton's
``examples/assets`` (found in ``.venv``). Each robot goes to ``<cache>/<source>_<name>/<name>.usda``
(an Atomic Component: payload + sublayers); a robot already converted is skipped.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys

CACHE = os.environ.get("ARTICULA_CORPUS", os.path.expanduser("~/.cache/articula/corpus"))
GYMNASIUM = ("ant", "half_cheetah", "hopper", "humanoid", "humanoidstandup", "inverted_double_pendulum",
             "inverted_pendulum", "pusher", "reacher", "swimmer", "walker2d")
NEWTON = ("nv_ant", "nv_humanoid")
# Articula's own fixture: an arm with position servos and a tendon-coupled gripper (tests/data).
FIXTURES = ("arm_gripper",)


def sources() -> list[tuple[str, str]]:
    import importlib.util

    spec = importlib.util.find_spec("gymnasium")  # not imported: installed --no-deps, files only
    gym = os.path.join(os.path.dirname(spec.origin), "envs", "mujoco", "assets")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    newton = glob.glob(os.path.join(root, ".venv", "lib", "python3.*", "site-packages", "newton",
                                    "examples", "assets"))
    found = [(f"gym_{n}", os.path.join(gym, n + ".xml")) for n in GYMNASIUM]
    if newton:
        found += [(f"newton_{n}", os.path.join(newton[0], n + ".xml")) for n in NEWTON]
    found += [(f"articula_{n}", os.path.join(root, "tests", "data", n + ".xml")) for n in FIXTURES]
    return [(key, path) for key, path in found if os.path.exists(path)]


def main() -> int:
    converter = os.path.join(os.path.dirname(sys.executable), "mujoco_usd_converter")
    failed = 0
    for key, mjcf in sources():
        out = os.path.join(CACHE, key)
        name = os.path.splitext(os.path.basename(mjcf))[0]
        if os.path.exists(os.path.join(out, name + ".usda")):
            continue
        result = subprocess.run([converter, mjcf, out], capture_output=True, text=True)
        if result.returncode != 0:
            failed += 1
            print(f"{key}: conversion failed\n{result.stderr[-2000:]}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
