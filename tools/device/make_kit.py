"""Build the device kit (``make device-kit``): every wheel ``tests/sim`` and ``bench/`` need on the lent GPU
machine (Python 3.12, no Warp, Newton, MuJoCo or usd-core, no network), packed into one archive split
into parts that each travel in one ``run`` call beside the working tree.

    .venv/bin/python tools/device/make_kit.py             # -> .device-kit/part-N/, .device-kit/manifest.json

Steps: ``pip download`` the cp312 manylinux wheels, pinned by ``requirements/common.txt`` and
``requirements/dev.txt`` (wheels already in the shared wheelhouse are taken from there, new ones are left
there for the next build); every wheel re-stored uncompressed, so that xz compresses their contents
(about a quarter smaller than the wheels' own deflate: a part, a call, less); one ``tar.xz``; split into
parts of at most ``64 MiB - the working tree - a margin`` (and 60 MiB), as equal as can be.
``tools/device/README.md`` says how the parts travel and install.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import kit  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT_DIR = ROOT / ".device-kit"
WHEELHOUSE = Path.home() / ".cache" / "articula" / "pip-wheels"
MIB = 1 << 20
CALL_LIMIT = 64 * MIB  # what one run call carries: the working tree and the carried paths together
MAX_PART = 60 * MIB
MARGIN = 2 * MIB  # the tree grows while others work
KERNELS = ROOT / ".cache" / "kernels"  # make kernels' CPU objects: they ride beside a part (README.md)
ARCHIVE_NAME = "articula-kit.tar.xz"
PYTHON_VERSION = "3.12"
#: What tests/sim, bench/ and ``import articula.sim`` need; their own dependencies come with them.
PACKAGES = ("warp-lang", "newton", "newton-usd-schemas", "mujoco", "mujoco-warp", "usd-core", "scipy",
            "numpy", "pytest", "pycollada", "coacd", "xacro", "PyYAML")
#: manylinux tags the device's glibc (Ubuntu 24.04, 2.39) runs: pip matches a platform tag exactly.
PLATFORMS = tuple(f"manylinux_2_{minor}_x86_64" for minor in (39, 35, 34, 31, 28, 27, 24, 17, 12, 5)) + (
    "manylinux2014_x86_64", "manylinux2010_x86_64", "manylinux1_x86_64", "linux_x86_64")
PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;#]+)")


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def read_pins(*files: Path) -> dict[str, str]:
    """``name==version`` lines of the requirement files, later files winning (dev.txt's numpy)."""
    pins = {}
    for path in files:
        for line in path.read_text().splitlines():
            if match := PIN.match(line.strip()):
                pins[normalized(match.group(1))] = match.group(2)
    return pins


def working_tree_bytes() -> int:
    """What a run call sends besides the carried paths: tracked and untracked-not-ignored files."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, check=True, capture_output=True).stdout
    total = 0
    for name in set(filter(None, listed.decode().split("\0"))):
        path = ROOT / name
        if path.is_symlink() or path.is_file():
            total += path.lstat().st_size
    return total


def download(dest: Path, pins: dict[str, str], wheelhouse: Path) -> list[Path]:
    """The kit's wheels in ``dest``: pinned where the requirement files pin, cp312 manylinux only."""
    requirements = [f"{name}=={pins[normalized(name)]}" if normalized(name) in pins else name
                    for name in PACKAGES]
    constraints = dest.parent / "constraints.txt"
    constraints.write_text("".join(f"{name}=={version}\n" for name, version in sorted(pins.items())))
    command = [sys.executable, "-m", "pip", "download", "-qq", "--disable-pip-version-check",
               "--only-binary=:all:", "--python-version", PYTHON_VERSION, "--implementation", "cp",
               "--abi", "cp" + PYTHON_VERSION.replace(".", ""), "--abi", "abi3", "--abi", "none",
               *[option for platform in PLATFORMS for option in ("--platform", platform)],
               "--dest", str(dest), "--constraint", str(constraints), *requirements]
    if wheelhouse.is_dir():
        command[4:4] = ["--find-links", str(wheelhouse)]
    subprocess.run(command, check=True)
    wheels = sorted(dest.glob("*.whl"))
    names = [normalized(wheel.name.split("-")[0]) for wheel in wheels]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:  # pip install refuses two versions of one distribution
        raise SystemExit(f"two versions of {', '.join(twice)} in {dest}: remove the stale ones")
    if wheelhouse.is_dir():
        for wheel in wheels:
            if not (wheelhouse / wheel.name).exists():
                shutil.copy2(wheel, wheelhouse / wheel.name)
    return wheels


def restore_uncompressed(wheel: Path, dest: Path) -> Path:
    """``wheel`` rewritten with its members stored, not deflated: the same files (RECORD's hashes are
    of the contents), left for xz to compress."""
    target = dest / wheel.name
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as sink:
        for info in source.infolist():
            stored = zipfile.ZipInfo(info.filename, info.date_time)
            stored.external_attr, stored.compress_type = info.external_attr, zipfile.ZIP_STORED
            if info.is_dir():
                sink.writestr(stored, b"")
                continue
            with source.open(info) as member, sink.open(stored, "w") as out:
                shutil.copyfileobj(member, out, kit.CHUNK)
    return target


def compress(stage: Path, archive: Path, threads: int) -> None:
    """``stage``'s files as a tar, xz-compressed: by ``xz`` (threads) where there is one, else Python."""
    files = sorted(stage.iterdir())
    xz = shutil.which("xz")
    if xz is None:
        with tarfile.open(archive, "w:xz", preset=6) as tar:
            for path in files:
                tar.add(path, arcname=path.name)
        return
    with open(archive, "wb") as sink:
        compressor = subprocess.Popen(["nice", "-n", "10", xz, "-6", f"-T{threads}", "-c"],
                                      stdin=subprocess.PIPE, stdout=sink)
        with tarfile.open(fileobj=compressor.stdin, mode="w|") as tar:
            for path in files:
                tar.add(path, arcname=path.name)
        compressor.stdin.close()
        if compressor.wait():
            raise SystemExit(f"xz failed ({compressor.returncode})")


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def part_limit(tree: int, kernels: int, requested_mib: float | None) -> int:
    """The largest part a call can carry beside the working tree and the CPU kernels."""
    if requested_mib:
        return int(requested_mib * MIB)
    limit = min(MAX_PART, CALL_LIMIT - tree - kernels - MARGIN)
    if limit < 16 * MIB:
        raise SystemExit(f"the working tree is {tree / MIB:.1f} MiB and the kernels {kernels / MIB:.1f} MiB: "
                         "too little of a call's 64 MiB is left for a part; give --part-mib")
    return limit


def build(out_dir: Path, wheelhouse: Path, part_mib: float | None, threads: int) -> dict:
    tree = working_tree_bytes()
    kernels = folder_bytes(KERNELS) if KERNELS.is_dir() else 6 * MIB
    limit = part_limit(tree, kernels, part_mib)
    pins = read_pins(ROOT / "requirements" / "common.txt", ROOT / "requirements" / "dev.txt")
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="device-kit-", dir=out_dir) as scratch:
        downloaded, stage = Path(scratch) / "wheels", Path(scratch) / "stage"
        downloaded.mkdir()
        stage.mkdir()
        wheels = [restore_uncompressed(wheel, stage) for wheel in download(downloaded, pins, wheelhouse)]
        print(f"{len(wheels)} wheels, {sum(w.stat().st_size for w in wheels) / MIB:.0f} MiB stored; "
              "compressing (xz, a few minutes)...", flush=True)
        archive = Path(scratch) / ARCHIVE_NAME
        compress(stage, archive, threads)
        created = datetime.now(timezone.utc).isoformat(timespec="seconds")
        details = {"python": PYTHON_VERSION, "created": created,
                   "working_tree_bytes": tree, "kernels_bytes": kernels, "part_limit_bytes": limit,
                   "wheels": [{"file": w.name, "size": w.stat().st_size, "sha256": kit.sha256_file(w)}
                              for w in wheels]}
        return kit.split_archive(archive, out_dir, limit, details)


def resplit(out_dir: Path, part_mib: float | None) -> dict:
    """The built kit's archive split again for today's working tree (no download, no compression)."""
    manifest = json.loads((out_dir / kit.MANIFEST).read_text())
    tree = working_tree_bytes()
    kernels = folder_bytes(KERNELS) if KERNELS.is_dir() else 6 * MIB
    limit = part_limit(tree, kernels, part_mib)
    with tempfile.TemporaryDirectory(prefix="device-kit-", dir=out_dir) as scratch:
        archive = Path(scratch) / manifest["archive"]["name"]
        parts = [out_dir / part["folder"] / part["file"] for part in manifest["parts"]]
        if kit.join_parts(parts, archive) != manifest["archive"]["sha256"]:
            raise SystemExit(f"the parts in {out_dir} do not join into the manifest's archive: rebuild it")
        for part in manifest["parts"]:
            shutil.rmtree(out_dir / part["folder"])
        details = {key: value for key, value in manifest.items()
                   if key not in ("format", "kit_id", "archive", "parts")}
        details.update(working_tree_bytes=tree, kernels_bytes=kernels, part_limit_bytes=limit)
        return kit.split_archive(archive, out_dir, limit, details)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    parser.add_argument("--wheelhouse", type=Path, default=WHEELHOUSE)
    parser.add_argument("--part-mib", type=float, help="part size (default: what a call has room for, <= 60)")
    parser.add_argument("--threads", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    parser.add_argument("--resplit", action="store_true",
                        help="split the built kit again for the working tree as it is now (seconds)")
    args = parser.parse_args(argv)
    if args.resplit:
        manifest = resplit(args.out, args.part_mib)
    else:
        manifest = build(args.out, args.wheelhouse, args.part_mib, args.threads)
    tree, kernels = manifest["working_tree_bytes"], manifest["kernels_bytes"]
    print(f"kit {manifest['kit_id']}: {manifest['archive']['size'] / MIB:.1f} MiB in "
          f"{len(manifest['parts'])} parts (working tree {tree / MIB:.1f} MiB, .cache/kernels "
          f"{kernels / MIB:.1f} MiB):")
    for part in manifest["parts"]:
        print(f"  .device-kit/{part['folder']}: {part['size'] / MIB:.1f} MiB; with the tree and the kernels "
              f"a call carries {(part['size'] + tree + kernels) / MIB:.1f} MiB of 64")
    print(json.dumps([wheel["file"] for wheel in manifest["wheels"]], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
