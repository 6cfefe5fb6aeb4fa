"""Warp's CPU kernels built ahead of time, so a first simulation does not wait minutes for them.

Featherstone and XPBD on the CPU load about two dozen Warp modules (Newton's solvers, its collision
pipeline, picking, Articula's own drives); compiling them takes about three minutes on two cores.
``tools/build_kernels.py`` (``make kernels``) compiles them once, portable (no ``-march=native``), into
``.cache/kernels/<key>/``; the linux-x64 extension zip carries that folder as ``sim/kernels/<key>/``.

At the first simulation :func:`seed_warp_cache` copies the shipped module folders that Warp's kernel
cache lacks into it; Warp then finds them as ordinary cache hits. Nothing stale or foreign is loaded:

- ``<key>`` is Warp's own CPU cache key (its version, the OS, the CPU architecture, its LLVM version and
  target triple): another Warp or another platform looks in another folder, finds none, and compiles;
- each module folder is named by Warp's hash of the module's source and options, so a module whose
  source changed (another Newton, an edited kernel) is looked up under another name, and compiled;
- the manifest must name this Warp and this Newton, and Warp's CPU flags must be the ones the objects
  were built for, or nothing is copied.

The kernels are built for a generic x86-64 CPU: :func:`use_portable_cpu_flags` makes Warp compile with
the same flags (Warp's default without ``-march=native``) wherever a shipped set exists, so that the
module hashes match.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from pathlib import Path
from typing import Optional

import warp as wp

log = logging.getLogger(__name__)

PACKAGE_ROOT = Path(__file__).resolve().parents[1]
#: Where a shipped set is looked for: in the extension zip, then as `make kernels` leaves it in a checkout.
SEARCH_DIRS = (Path(__file__).resolve().parent / "kernels", PACKAGE_ROOT / ".cache" / "kernels")
MANIFEST_NAME = "articula-kernels.json"
NATIVE_FLAG = "-march=native"

_seeded: dict[str, Optional[Path]] = {}  # Warp cache folder -> the shipped set seeded into it, once a process


def portable_flags(flags: Optional[str]) -> str:
    """``flags`` without ``-march=native``: objects any x86-64 CPU of the platform can run."""
    return " ".join(flag for flag in (flags or "").split() if flag != NATIVE_FLAG)


def cpu_key(flags: str) -> str:
    """Warp's CPU cache key for ``flags``: Warp version, OS, architecture, LLVM version and triple."""
    wp.init()
    return wp.get_cpu_kernel_cache_key(cpu_compiler_flags=flags)


def read_manifest(folder: Path) -> Optional[dict]:
    try:
        with open(folder / MANIFEST_NAME, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def mismatch(manifest: Optional[dict], warp_flags: Optional[str]) -> Optional[str]:
    """Why a shipped set does not fit this process (None when it does)."""
    import newton

    if manifest is None:
        return "no readable manifest"
    for name, running in (("warp", wp.__version__), ("newton", newton.__version__)):
        if manifest.get(name) != running:
            return f"built for {name} {manifest.get(name)}, this is {running}"
    if warp_flags not in (manifest.get("warp_default_cpu_flags"), manifest.get("cpu_compiler_flags")):
        return f"Warp's CPU flags were changed to {warp_flags!r}"
    if manifest.get("cpu_key") != cpu_key(manifest.get("cpu_compiler_flags", "")):
        return f"built for another CPU target ({manifest.get('cpu_key')})"
    return None


def shipped_set() -> Optional[tuple[Path, dict]]:
    """The folder and manifest of the shipped kernels that fit this process, or None."""
    flags = wp.config.cpu_compiler_flags
    try:
        key = cpu_key(portable_flags(flags))
    except RuntimeError as error:  # no LLVM in this Warp: no CPU kernels at all, nothing to seed
        log.warning("Articula's prebuilt Warp kernels are not used: %s", error)
        return None
    for base in SEARCH_DIRS:
        folder = base / key
        if not folder.is_dir():
            continue
        manifest = read_manifest(folder)
        reason = mismatch(manifest, flags)
        if reason is None:
            return folder, manifest
        log.warning("Articula's prebuilt Warp kernels in %s are not used: %s", folder, reason)
    return None


def use_portable_cpu_flags() -> Optional[tuple[Path, dict]]:
    """Where a shipped set fits, make Warp compile CPU modules with its flags (so the module hashes,
    which include the flags, are those of the shipped objects); returns the set, or None."""
    found = shipped_set()
    if found is not None:
        wp.config.cpu_compiler_flags = found[1]["cpu_compiler_flags"]
    return found


def init_warp() -> None:
    """Warp started, its cache seeded with the shipped kernels that fit (once a process)."""
    wp.config.quiet = True  # Warp's per-module log lines would flood Blender's console
    wp.init()
    seed_warp_cache()


def seed_warp_cache() -> int:
    """Copy the shipped module files Warp's kernel cache lacks into it; how many module folders got
    files (0 when there is no shipped set for this platform, or the cache has them all)."""
    wp.init()
    cache = wp.config.kernel_cache_dir
    if not cache or not wp.config.cache_kernels:
        return 0
    if cache in _seeded:
        return 0
    found = use_portable_cpu_flags()
    _seeded[cache] = found[0] if found else None
    if found is None:
        return 0
    folder, manifest = found
    return sum(_copy_missing(folder / module, Path(cache) / module, files)
               for module, files in manifest["modules"].items())


def seeded_set() -> Optional[Path]:
    """The shipped set :func:`seed_warp_cache` put into Warp's current cache, or None."""
    return _seeded.get(wp.config.kernel_cache_dir or "")


def _copy_missing(source: Path, target: Path, files: list[str]) -> int:
    """Copy ``files`` that ``target`` lacks, each written beside it and renamed into place (a
    concurrent Warp never sees half a file); 1 when any was copied."""
    missing = [name for name in files if not (target / name).exists()]
    if not missing:
        return 0
    try:
        target.mkdir(parents=True, exist_ok=True)
        for name in missing:
            with tempfile.NamedTemporaryFile(dir=target, prefix=".articula-", delete=False) as tmp:
                with open(source / name, "rb") as src:
                    shutil.copyfileobj(src, tmp)
            os.replace(tmp.name, target / name)
    except OSError as error:  # a read-only cache: Warp compiles as it would have
        log.warning("Cannot copy Articula's prebuilt Warp kernels into %s: %s", target, error)
        return 0
    return 1
