"""Build Articula's Warp CPU kernels ahead of time (``make kernels``), for the extension zip of this platform.

    .venv/bin/python tools/build_kernels.py                   # -> .cache/kernels/<Warp's CPU cache key>/

A child process with an empty ``WARP_CACHE_PATH`` and Warp's CPU flags without ``-march=native`` (objects
any CPU of the platform runs) runs ``warm_kernels`` (``sim.kernel_warmup``'s scenes) on Featherstone and
XPBD, with the package imported as ``articula`` (a checkout, pip) and as Blender names an installed extension
(``bl_ext.<repo>.articula``: Articula's own modules are named after their package). The objects and
metadata of every module it loaded (not their C++ sources) are kept, with a manifest naming Warp, Newton,
the flags and the platform; ``sim.shipped_kernels`` seeds Warp's cache from them at the first simulation,
and ``tools/extension.py`` puts them into the zip of their platform only.
"""

import argparse
import importlib
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTPUT_DIR = ROOT / ".cache" / "kernels"
SOLVERS = ("FEATHERSTONE", "XPBD")
# Blender imports an extension as bl_ext.<repository>.<id>: installed from disk; from extensions.blender.org.
BLENDER_PACKAGES = ("bl_ext.user_default.articula", "bl_ext.blender_org.articula")
# Blender's platform names for Python's (system, machine).
BLENDER_PLATFORMS = {("Linux", "x86_64"): "linux-x64", ("Linux", "aarch64"): "linux-arm64",
                     ("Windows", "AMD64"): "windows-x64", ("Darwin", "arm64"): "macos-arm64"}


def blender_platform() -> str:
    system, machine = platform.system(), platform.machine()
    try:
        return BLENDER_PLATFORMS[(system, machine)]
    except KeyError:
        raise SystemExit(f"no Blender extension platform for {system} {machine}") from None


def import_as(package: str) -> types.ModuleType:
    """The repository's package imported under ``package`` (its parents made empty packages)."""
    parts = package.split(".")
    for depth in range(1, len(parts)):
        name = ".".join(parts[:depth])
        if name not in sys.modules:
            parent = types.ModuleType(name)
            parent.__path__ = []
            sys.modules[name] = parent
    spec = importlib.util.spec_from_file_location(package, ROOT / "__init__.py",
                                                  submodule_search_locations=[str(ROOT)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[package] = module
    spec.loader.exec_module(module)
    return module


def warm_up(flags: str, loaded_list: Path) -> None:
    """In the child: every warm-up simulation on the CPU, under each package name; the cache folders
    of the modules loaded are written to ``loaded_list``."""
    import warp as wp

    # As in a simulation: Newton imported with Warp's default flags, which name the modules of its
    # "unique" kernels (validate_and_correct_inertia_kernel_<hash>), then the portable flags set.
    importlib.import_module("articula.sim.simulation")
    wp.config.cpu_compiler_flags = flags
    for package in ("articula", *BLENDER_PACKAGES):
        if package != "articula":
            import_as(package)
        simulation = importlib.import_module(f"{package}.sim.simulation")
        for solver in SOLVERS:
            started = time.perf_counter()
            assert simulation.warm_kernels(solver, "cpu")  # its warm-up scenes, as a first run does
            # The "built" marker would stop the next package name's run: Articula's modules compile per name.
            os.remove(simulation._kernel_marker(simulation.Solver(solver), "cpu"))
            print(f"{package} {solver}: {time.perf_counter() - started:.1f} s", flush=True)
    from warp._src.context import user_modules

    loaded = sorted({module.get_module_identifier(block_dim) for module in user_modules.values()
                     for (context, block_dim) in module.execs if context is None})  # CPU: no CUDA context
    loaded_list.write_text(json.dumps(loaded), encoding="utf-8")


def reuse_earlier_build(earlier: Path, cache: Path) -> None:
    """Start from an earlier build's objects (same Warp CPU key): Warp reuses a module's object only
    under the module's current hash, so only modules whose source or options changed compile."""
    for module_dir in earlier.glob("wp_*"):
        shutil.copytree(module_dir, cache / module_dir.name)


def collect(cache: Path, loaded: list[str], target: Path) -> dict[str, list[str]]:
    """Copy the ``loaded`` modules' objects and metadata from Warp's ``cache`` into ``target``."""
    modules = {}
    for module_dir in (cache / name for name in loaded):
        files = sorted(f.name for f in module_dir.iterdir() if f.suffix in (".o", ".meta"))
        if not any(name.endswith(".o") for name in files):
            continue
        (target / module_dir.name).mkdir(parents=True)
        for name in files:
            shutil.copy2(module_dir / name, target / module_dir.name / name)
        modules[module_dir.name] = files
    return modules


def build(output_dir: Path = OUTPUT_DIR) -> Path:
    """Compile the kernels and write ``output_dir/<key>/`` (replacing an earlier build); its path."""
    import newton
    import warp as wp

    from articula.sim.shipped_kernels import MANIFEST_NAME, cpu_key, portable_flags

    default_flags = wp.config.cpu_compiler_flags
    flags = portable_flags(default_flags)
    key = cpu_key(flags)
    output_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".kernels-", dir=output_dir) as scratch:
        cache = Path(scratch) / "warp-cache"
        reuse_earlier_build(output_dir / key, cache / wp.__version__)
        env = dict(os.environ, WARP_CACHE_PATH=str(cache))
        started = time.perf_counter()
        loaded_list = Path(scratch) / "loaded.json"
        child = [sys.executable, __file__, f"--warm-up={flags}", str(loaded_list)]
        subprocess.run(child, env=env, check=True, cwd=ROOT)
        staged = Path(scratch) / key
        modules = collect(cache / wp.__version__, json.loads(loaded_list.read_text(encoding="utf-8")), staged)
        manifest = {"warp": wp.__version__, "newton": newton.__version__, "cpu_key": key,
                    "platform": blender_platform(), "cpu_compiler_flags": flags,
                    "warp_default_cpu_flags": default_flags, "modules": modules,
                    "build_seconds": round(time.perf_counter() - started, 1)}
        (staged / MANIFEST_NAME).write_text(json.dumps(manifest, indent=1, sort_keys=True), encoding="utf-8")
        final = output_dir / key
        if final.exists():
            shutil.rmtree(final)
        staged.rename(final)
    return final


def size_of(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-dir", type=Path, default=OUTPUT_DIR)
    parser.add_argument("--warm-up", metavar="FLAGS", help=argparse.SUPPRESS)  # the child's part
    parser.add_argument("loaded_list", nargs="?", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.warm_up is not None:
        warm_up(args.warm_up, args.loaded_list)
        return 0
    folder = build(args.output_dir)
    manifest = json.loads((folder / "articula-kernels.json").read_text(encoding="utf-8"))
    print(f"built {len(manifest['modules'])} Warp modules for {manifest['platform']} in "
          f"{manifest['build_seconds']} s: {folder} ({size_of(folder) / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
