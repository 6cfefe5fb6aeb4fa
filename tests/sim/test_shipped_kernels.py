"""Warp CPU kernels built ahead of time (``sim.shipped_kernels``; ``make kernels`` builds them).

With an empty Warp cache, a simulation on Featherstone and XPBD loads every module from the prebuilt set
and compiles none; a set for another Warp, Newton, CPU target or CPU flags is not used; an object built
from older source is never loaded (Warp compiles the module as if nothing had shipped). Each run that
needs a fresh Warp cache is its own process: Warp fixes its cache folder when it starts.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import warp as wp

import newton
from articula.sim import shipped_kernels
from articula.sim.shipped_kernels import MANIFEST_NAME, cpu_key, mismatch, portable_flags

ROOT = Path(__file__).resolve().parents[2]
WARP_DEFAULT_FLAGS = wp.config.cpu_compiler_flags


def built_set() -> Path:
    """The prebuilt set of this checkout for this machine (``make kernels``)."""
    folder = ROOT / ".cache" / "kernels" / cpu_key(portable_flags(WARP_DEFAULT_FLAGS))
    if not (folder / MANIFEST_NAME).exists():
        pytest.skip("no prebuilt Warp kernels for this platform: run `make kernels`")
    return folder


def run_fresh(code: str, cache: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, WARP_CACHE_PATH=str(cache))
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def loads(output: str, how: str) -> list[str]:
    """The modules Warp reported loading ``how`` ("compiled" or "cached")."""
    return [line.split()[1] for line in output.splitlines()
            if line.startswith("Module ") and line.rstrip().endswith(f"({how})")]


def fitting_manifest() -> dict:
    flags = portable_flags(WARP_DEFAULT_FLAGS)
    return {"warp": wp.__version__, "newton": newton.__version__, "cpu_key": cpu_key(flags),
            "cpu_compiler_flags": flags, "warp_default_cpu_flags": WARP_DEFAULT_FLAGS, "modules": {}}


def test_prebuilt_kernels_load_into_an_empty_cache_and_nothing_compiles(tmp_path):
    shipped = built_set()
    done = run_fresh("""
        import glob, sys
        from articula.core.mjcf.reader import read_mjcf
        from articula.sim.simulation import Simulation, warm_kernels
        import warp as wp
        for solver in ("FEATHERSTONE", "XPBD"):
            assert warm_kernels(solver, "cpu")  # an empty cache: the first run's warm-up
            sim = Simulation(read_mjcf(sys.argv[1]).scene, device="cpu", solver=solver)
            sim.advance(1 / 24, check=False)  # XPBD blows this humanoid up: not the point here
        print("FLAGS", wp.config.cpu_compiler_flags)
    """, tmp_path, str(Path(newton.__file__).parent / "examples" / "assets" / "nv_humanoid.xml"))
    assert loads(done.stdout, "compiled") == []
    assert len(loads(done.stdout, "cached")) >= 20
    assert "-march=native" not in done.stdout.split("FLAGS", 1)[1]  # the flags the objects were built with
    cache = next(tmp_path.iterdir())  # Warp's versioned folder
    assert not list(cache.glob("wp_*/*.cpp")), "a module was compiled (its C++ source was written)"
    for obj in cache.glob("wp_*/*.o"):
        assert obj.read_bytes() == (shipped / obj.parent.name / obj.name).read_bytes()


STALE_MODULE = """
import warp as wp

@wp.kernel
def fill(out: wp.array(dtype=float)):
    out[wp.tid()] = {value}
"""


def test_an_object_built_from_older_source_is_never_loaded(tmp_path):
    """A shipped object of a module whose source changed since is not used: Warp compiles the module
    and runs the new source."""
    code = """
        import json, sys
        from pathlib import Path
        sys.path.insert(0, sys.argv[1])
        import warp as wp
        from articula.sim import shipped_kernels
        shipped_kernels.SEARCH_DIRS = (Path(sys.argv[2]),)
        wp.config.cpu_compiler_flags = shipped_kernels.portable_flags(wp.config.cpu_compiler_flags)
        print("SEEDED", shipped_kernels.seed_warp_cache())
        import stale_kernels
        out = wp.zeros(1, dtype=float, device="cpu")
        wp.launch(stale_kernels.fill, dim=1, outputs=[out], device="cpu")
        print("VALUE", out.numpy()[0])
    """
    source, sets, build_cache = tmp_path / "src", tmp_path / "sets", tmp_path / "build-cache"
    source.mkdir()
    (source / "stale_kernels.py").write_text(STALE_MODULE.format(value="1.0"))
    old = run_fresh(code, build_cache, str(source), str(sets))  # compiles the old source, seeds nothing
    assert "VALUE 1.0" in old.stdout and "SEEDED 0" in old.stdout
    manifest = fitting_manifest()
    [module_dir] = next(build_cache.iterdir()).glob("wp_stale_kernels_*")
    key_dir = sets / manifest["cpu_key"]
    (key_dir / module_dir.name).mkdir(parents=True)
    files = [f.name for f in module_dir.iterdir() if f.suffix in (".o", ".meta")]
    for name in files:
        (key_dir / module_dir.name / name).write_bytes((module_dir / name).read_bytes())
    manifest["modules"] = {module_dir.name: files}
    (key_dir / MANIFEST_NAME).write_text(json.dumps(manifest))
    same = run_fresh(code, tmp_path / "control-cache", str(source), str(sets))
    assert "SEEDED 1" in same.stdout and loads(same.stdout, "compiled") == []  # the set works for its source

    (source / "stale_kernels.py").write_text(STALE_MODULE.format(value="2.0"))
    new = run_fresh(code, tmp_path / "user-cache", str(source), str(sets))
    assert "SEEDED 1" in new.stdout  # the old object was offered to Warp's cache ...
    assert "VALUE 2.0" in new.stdout  # ... and the new source ran
    assert loads(new.stdout, "compiled") == ["stale_kernels"]


@pytest.mark.parametrize(("change", "reason"), [
    ({"warp": "1.18.0"}, "built for warp 1.18.0"),
    ({"newton": "1.7.0"}, "built for newton 1.7.0"),
    ({"cpu_key": "1.19.0-Linux-aarch64-00000000"}, "another CPU target"),
    (None, "no readable manifest"),
])
def test_a_set_for_another_warp_newton_or_cpu_is_not_used(change, reason):
    manifest = None if change is None else {**fitting_manifest(), **change}
    assert reason in mismatch(manifest, WARP_DEFAULT_FLAGS)


def test_a_set_is_not_used_where_warps_cpu_flags_were_changed():
    assert mismatch(fitting_manifest(), WARP_DEFAULT_FLAGS) is None
    assert mismatch(fitting_manifest(), portable_flags(WARP_DEFAULT_FLAGS)) is None
    assert "flags were changed" in mismatch(fitting_manifest(), "-O1 -march=native")


def test_a_foreign_set_is_skipped_with_a_warning(tmp_path, monkeypatch, caplog):
    key_dir = tmp_path / cpu_key(portable_flags(wp.config.cpu_compiler_flags))
    key_dir.mkdir()
    (key_dir / MANIFEST_NAME).write_text(json.dumps({**fitting_manifest(), "newton": "0.1.0"}))
    monkeypatch.setattr(shipped_kernels, "SEARCH_DIRS", (tmp_path,))
    with caplog.at_level("WARNING"):
        assert shipped_kernels.shipped_set() is None
    assert "built for newton 0.1.0" in caplog.text


def test_a_warp_without_its_cpu_compiler_seeds_nothing(monkeypatch, caplog):
    def no_llvm(flags):
        raise RuntimeError("Cannot identify the CPU cache target because the LLVM backend is unavailable.")

    monkeypatch.setattr(shipped_kernels, "cpu_key", no_llvm)
    with caplog.at_level("WARNING"):
        assert shipped_kernels.shipped_set() is None
    assert "LLVM backend is unavailable" in caplog.text
