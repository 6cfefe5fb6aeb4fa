"""The extension zip carries the Warp CPU kernels built ahead of time (``make kernels``) for its own
platform only, and only when they were built with the Warp and Newton it bundles (``tools/extension.py``)."""

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import build_kernels  # noqa: E402
import extension  # noqa: E402  (bpy-free until its builder runs, which runs in a child process here)

sys.path.remove(str(ROOT / "tools"))


def built_sets(platform: str) -> list[Path]:
    sets = extension.kernel_sets_for(platform, extension.read_manifest())
    if not sets:
        pytest.skip(f"no prebuilt Warp kernels for {platform}: run `make kernels`")
    return sets


def zip_names(stage_dir: Path, out: Path) -> list[str]:
    """Blender's builder on ``stage_dir`` (in a child: it imports bpy, which the core tier never does)."""
    out.mkdir()
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import extension; extension.run_cli(['build', "
            "'--source-dir', sys.argv[2], '--output-dir', sys.argv[3], '--split-platforms'])")
    done = subprocess.run([sys.executable, "-c", code, str(ROOT / "tools"), str(stage_dir), str(out)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    [zip_path] = out.glob("articula-*.zip")
    with zipfile.ZipFile(zip_path) as archive:
        return archive.namelist()


def test_the_zip_of_this_platform_carries_its_kernels(tmp_path):
    platform = build_kernels.blender_platform()
    [kernel_set] = built_sets(platform)
    stage_dir, out = tmp_path / "stage", tmp_path / "zip"
    extension.stage(stage_dir, [platform], [])  # no wheels: the venv has them, the kernels are the point
    names = zip_names(stage_dir, out)
    shipped = {n.split(f"{extension.ZIP_KERNELS}/{kernel_set.name}/", 1)[1] for n in names
               if f"{extension.ZIP_KERNELS}/{kernel_set.name}/" in n and not n.endswith("/")}
    built = {str(p.relative_to(kernel_set)) for p in kernel_set.rglob("*") if p.is_file()}
    assert shipped == built
    assert any(name.endswith(".o") for name in shipped) and extension.KERNEL_MANIFEST in shipped


@pytest.mark.parametrize("platforms", [["windows-x64"], ["macos-arm64"], ["linux-arm64"],
                                       ["linux-x64", "windows-x64"]])
def test_no_other_zip_carries_them(tmp_path, platforms):
    """Other platforms' zips never get this machine's objects, nor does a stage split into several zips."""
    built_sets("linux-x64")
    extension.stage(tmp_path, platforms, [])
    assert not (tmp_path / extension.ZIP_KERNELS).exists()


def test_kernels_built_for_another_warp_than_the_zip_bundles_are_left_out(tmp_path, capsys):
    manifest = extension.read_manifest()
    warp = extension.bundled_version(manifest, "warp_lang")
    newton = extension.bundled_version(manifest, "newton")
    for key, built_warp in (("fits", warp), ("stale", "1.18.0")):
        (tmp_path / key).mkdir()
        (tmp_path / key / extension.KERNEL_MANIFEST).write_text(json.dumps(
            {"platform": "linux-x64", "warp": built_warp, "newton": newton}))
    assert extension.kernel_sets_for("linux-x64", manifest, tmp_path) == [tmp_path / "fits"]
    assert extension.kernel_sets_for("windows-x64", manifest, tmp_path) == []
    assert "built for warp 1.18.0" in capsys.readouterr().err
