"""Build and validate the Articula extension zips with Blender's own builder, no Blender binary needed.

Run with the development venv's Python (it has the ``bpy`` module, which ships the builder):

    .venv/bin/python tools/extension.py                      # every platform -> dist/, validated
    .venv/bin/python tools/extension.py --platform linux-x64 --output-dir /tmp/zips

``blender_manifest.toml`` is the single source of truth for the bundled wheels: each one listed there
is fetched with pip by its exact file name into the wheel cache (``.cache/wheels``, or
``$ARTICULA_WHEEL_CACHE``) once, and linked into ``wheels/`` where Blender's builder expects it.
Wheels built per Python (MuJoCo's) are listed for both CPython 3.11 (Blender 4.5 LTS, 5.0) and 3.13
(Blender 5.1, 5.2 LTS) and fetched by their own Python tag, whichever Python runs this, so one zip
per platform installs on all of them; Blender installs the one matching its Python.
Each platform's zip is built from its own staged copy of the package, whose manifest lists only that
platform and its wheels, so a single-platform build does not need the other platforms' wheels. A zip
also carries the Warp CPU kernels built ahead of time for its platform (``make kernels``:
``tools/build_kernels.py`` -> ``.cache/kernels/<key>/``, as ``sim/kernels/<key>/``), never another's.
"""

import json

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MANIFEST_NAME = "blender_manifest.toml"
WHEEL_DIR = ROOT / "wheels"
DIST_DIR = ROOT / "dist"
# Top-level entries never copied into a build stage (the manifest's exclude patterns drop the rest).
STAGE_SKIP = {"dist", "wheels", "out"}
# Prebuilt Warp kernels (tools/build_kernels.py), a folder per Warp CPU cache key; where a zip holds them.
KERNEL_SETS = ROOT / ".cache" / "kernels"
ZIP_KERNELS = "sim/kernels"  # inside a package: a zip's top level holds packages, manifest, license, wheels
KERNEL_MANIFEST = "articula-kernels.json"


def wheel_cache() -> Path:
    return Path(os.environ.get("ARTICULA_WHEEL_CACHE", ROOT / ".cache" / "wheels"))


def blender_ext_modules():
    """Blender's extension CLI (``bl_extension_cli``) and its engine (``blender_ext``) from the bpy module."""
    import bpy

    addons_core = os.path.join(bpy.utils.system_resource("SCRIPTS"), "addons_core")
    if addons_core not in sys.path:
        sys.path.append(addons_core)
    from bl_pkg import bl_extension_cli
    from bl_pkg.cli import blender_ext

    return bl_extension_cli, blender_ext


def read_manifest(source_dir: Path = ROOT) -> dict:
    with open(source_dir / MANIFEST_NAME, "rb") as fh:
        return tomllib.load(fh)


def this_platform() -> str:
    return blender_ext_modules()[1].platform_from_this_system()


def wheels_for(manifest: dict, platforms: list[str]) -> list[str]:
    """The manifest's wheel paths (``./wheels/<file>``) that any of ``platforms`` needs, in manifest order."""
    compatible = blender_ext_modules()[1].blender_platform_compatible_with_wheel_platform_from_filepath
    return [w for w in manifest["wheels"] if any(compatible(p, w) for p in platforms)]


def pip_python_version(python_tag: str) -> str | None:
    """pip's ``--python-version`` for a wheel's Python tag: ``cp313`` -> ``3.13``, ``py3`` -> None.

    A version-specific tag must not be replaced by the running interpreter's version (pip would then
    find no wheel of that name); a major-only tag (``py3``, ``py2.py3``) fits any Python 3, so pip
    keeps the running interpreter's version for its Requires-Python check.
    """
    digits = re.fullmatch(r"(?:cp|py|pp)(\d)(\d*)", python_tag.split(".")[-1])
    if not digits:
        raise ValueError(f"unsupported wheel Python tag {python_tag!r}")
    major, minor = digits.groups()
    return f"{major}.{minor}" if minor else None


def pip_download_command(filename: str) -> list[str]:
    """The pip command (without ``--dest``) that downloads exactly the wheel ``filename``."""
    name, version, python_tag, abi, platform = filename[: -len(".whl")].split("-")
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
           f"{name}=={version}"]
    if platform != "any":
        # The wheel's own Python tag decides, not the interpreter running this: a cp313 wheel is fetched
        # as 3.13 from a Python 3.11 venv too, so one zip carries the builds for every Blender's Python.
        python_version = pip_python_version(python_tag)
        if python_version:
            cmd += ["--python-version", python_version, "--abi", abi]
        for tag in platform.split("."):  # compressed tag sets such as manylinux_2_27_x.manylinux_2_28_x
            cmd += ["--platform", tag]
    return cmd


def fetch_wheel(filename: str) -> Path:
    """The cached wheel of exactly this file name, downloaded with pip on first use only."""
    cached = wheel_cache() / filename
    if cached.exists():
        return cached
    cmd = pip_download_command(filename)
    cached.parent.mkdir(parents=True, exist_ok=True)
    # Download beside the cache and move in at the end: an interrupted run leaves nothing half-written.
    with tempfile.TemporaryDirectory(dir=cached.parent, prefix=".download-") as tmp:
        print(f"downloading {filename}", flush=True)
        subprocess.run(cmd + ["--dest", tmp], check=True)
        downloaded = Path(tmp) / filename
        if not downloaded.exists():
            raise RuntimeError(f"pip did not deliver {filename}, got {sorted(os.listdir(tmp))}")
        downloaded.replace(cached)
    return cached


def link_or_copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if dst.exists():
        dst.unlink()
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def fetch_wheels(wheel_paths: list[str]) -> None:
    """Fetch the given manifest wheels into the cache and link them into ``wheels/``."""
    for path in wheel_paths:
        filename = Path(path).name
        link_or_copy(fetch_wheel(filename), WHEEL_DIR / filename)


def _toml_list(key: str, values: list[str]) -> str:
    items = "".join(f'  "{v}",\n' for v in values)
    return f"{key} = [\n{items}]"


def narrowed_manifest(text: str, platforms: list[str], wheel_paths: list[str]) -> str:
    """The manifest text with only ``platforms`` and their ``wheel_paths``, everything else untouched."""
    for key, values in (("platforms", platforms), ("wheels", wheel_paths)):
        text, count = re.subn(rf"^{key} = \[.*?\]", lambda _m: _toml_list(key, values), text,
                              count=1, flags=re.M | re.S)
        if count != 1:
            raise ValueError(f"{MANIFEST_NAME}: no top-level '{key} = [...]' to narrow")
    parsed = tomllib.loads(text)
    assert parsed["platforms"] == platforms and parsed["wheels"] == wheel_paths, "manifest narrowing failed"
    return text


def bundled_version(manifest: dict, name: str) -> str | None:
    """The version of the wheel ``name`` (``warp_lang``) the manifest bundles."""
    versions = {Path(w).name.split("-")[1] for w in manifest["wheels"] if Path(w).name.split("-")[0] == name}
    return versions.pop() if len(versions) == 1 else None


def kernel_sets_for(platform: str, manifest: dict, sets_dir: Path = KERNEL_SETS) -> list[Path]:
    """The prebuilt kernel sets for ``platform`` built with the Warp and Newton the zip bundles."""
    found = []
    for manifest_path in sorted(sets_dir.glob(f"*/{KERNEL_MANIFEST}")):
        built = json.loads(manifest_path.read_text(encoding="utf-8"))
        if built.get("platform") != platform:
            continue
        bundled = {"warp": bundled_version(manifest, "warp_lang"),
                   "newton": bundled_version(manifest, "newton")}
        stale = [f"{k} {built.get(k)} (the zip has {v})" for k, v in bundled.items() if built.get(k) != v]
        if stale:
            print(f"not shipping the Warp kernels in {manifest_path.parent}: built for {', '.join(stale)}; "
                  f"run `make kernels`", file=sys.stderr)
            continue
        found.append(manifest_path.parent)
    return found


def stage_kernels(stage_dir: Path, platforms: list[str], sets_dir: Path = KERNEL_SETS) -> list[Path]:
    """Copy the kernel sets of a single-platform stage into its ``sim/kernels/``; the sets copied."""
    if len(platforms) != 1:
        return []  # one zip per platform is split from this stage: no platform's objects may go to all
    sets = kernel_sets_for(platforms[0], read_manifest(), sets_dir)
    for kernel_set in sets:
        shutil.copytree(kernel_set, stage_dir / ZIP_KERNELS / kernel_set.name)
    return sets


def stage(stage_dir: Path, platforms: list[str], wheel_paths: list[str], kernels: bool = True) -> None:
    """Copy the package into ``stage_dir`` with a manifest for ``platforms`` and their wheels (and, for
    a single platform, its prebuilt Warp kernels unless ``kernels`` is False)."""
    def skip(directory, names):
        if Path(directory) != ROOT:
            return [n for n in names if n == "__pycache__"]
        return [n for n in names if n.startswith(".") or n in STAGE_SKIP]

    shutil.copytree(ROOT, stage_dir, ignore=skip, dirs_exist_ok=True)
    manifest_text = (ROOT / MANIFEST_NAME).read_text(encoding="utf-8")
    (stage_dir / MANIFEST_NAME).write_text(narrowed_manifest(manifest_text, platforms, wheel_paths),
                                           encoding="utf-8")
    for path in wheel_paths:
        link_or_copy(wheel_cache() / Path(path).name, stage_dir / path)
    if kernels:
        stage_kernels(stage_dir, platforms)


def run_cli(args: list[str]) -> None:
    cli = blender_ext_modules()[0]
    status = cli.cli_extension_handler(args)
    if status != 0:
        raise RuntimeError(f"Blender extension {args[0]} failed ({status}): {' '.join(args)}")


def validate(zip_path: Path) -> None:
    """Blender's own ``extension validate`` on a built zip; raises on any problem."""
    run_cli(["validate", str(zip_path)])


def build(platforms: list[str] | None = None, output_dir: Path = DIST_DIR) -> list[Path]:
    """Fetch wheels, build one validated zip per platform (all manifest platforms by default)."""
    manifest = read_manifest()
    platforms = list(platforms or manifest["platforms"])
    unknown = sorted(set(platforms) - set(manifest["platforms"]))
    if unknown:
        raise ValueError(f"platforms not in {MANIFEST_NAME}: {unknown}")
    fetch_wheels(wheels_for(manifest, platforms))

    output_dir = Path(output_dir).resolve()
    output_dir.mkdir(parents=True, exist_ok=True)
    before = set(output_dir.glob("*.zip"))
    wheel_cache().mkdir(parents=True, exist_ok=True)
    for platform in platforms:  # a stage each: a platform's prebuilt kernels go into its zip only
        if platform == this_platform() and not kernel_sets_for(platform, manifest):
            print(f"no prebuilt Warp kernels for {platform} (`make kernels`): its zip compiles them on "
                  f"first use", file=sys.stderr)
        with tempfile.TemporaryDirectory(dir=wheel_cache().parent, prefix=".stage-") as tmp:
            stage(Path(tmp), [platform], wheels_for(manifest, [platform]))
            run_cli(["build", "--source-dir", tmp, "--output-dir", str(output_dir), "--split-platforms"])

    version = manifest["version"]
    zips = [output_dir / f"{manifest['id']}-{version}-{p.replace('-', '_')}.zip" for p in platforms]
    missing = [z.name for z in zips if not z.exists()]
    if missing:
        new = sorted(p.name for p in set(output_dir.glob("*.zip")) - before)
        raise RuntimeError(f"builder did not write {missing}; it wrote {new}")
    for zip_path in zips:
        validate(zip_path)
    return zips


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", action="append", dest="platforms",
                        help="a manifest platform, or 'current'; repeatable (default: all)")
    parser.add_argument("--output-dir", type=Path, default=DIST_DIR)
    args = parser.parse_args(argv)
    platforms = [this_platform() if p == "current" else p for p in (args.platforms or [])]
    for zip_path in build(platforms or None, args.output_dir):
        print(f"built and validated {zip_path} ({zip_path.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
