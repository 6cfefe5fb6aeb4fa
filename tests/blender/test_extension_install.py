"""The built extension zip validates, installs into a fresh Blender, and enables/disables cleanly.

The zip is built for this machine's platform by ``tools/extension.py`` (the code path of ``make extension``;
wheels come from its cache, downloaded on the first run only). Installing happens in a separate process
(``_install_probe.py``) with its own throwaway user dir: this session has already registered the package
as ``articula``, and the same classes cannot be registered twice in one process.
"""

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import bpy
import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CYCLES = 3
# CPython 3.11: Blender 4.5 LTS and 5.0; CPython 3.13: Blender 5.1 and 5.2 LTS.
SUPPORTED_PYTHONS = {(3, 11), (3, 13)}
# It drives the builder and a fresh bpy through ``sys.executable``: only the bpy module can do that.
pytestmark = pytest.mark.skipif(not bpy.app.module, reason="needs the bpy module, not a Blender executable")

DEV_ONLY_DIRS = ("tests", "bench", "tools", "examples", "docs", "requirements", "dist", ".cache", ".git")


def run(cmd, **kwargs):
    done = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    output = f"{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    assert done.returncode == 0, f"{cmd} failed ({done.returncode}):\n{output}"
    return done


@pytest.fixture(scope="module")
def built_zip(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    builder = ROOT / "tools" / "extension.py"
    run([sys.executable, str(builder), "--platform", "current", "--output-dir", str(out)])
    zips = sorted(out.glob("articula-*.zip"))
    assert len(zips) == 1, zips
    return zips[0]


@pytest.fixture(scope="module")
def probe(built_zip, tmp_path_factory):
    user_dir = tmp_path_factory.mktemp("blender-user")
    result = user_dir / "probe.json"
    env = dict(os.environ, BLENDER_USER_RESOURCES=str(user_dir))
    run([sys.executable, str(HERE / "_install_probe.py"), str(built_zip), str(result), str(CYCLES)], env=env)
    return json.loads(result.read_text(encoding="utf-8"))


def test_zip_passes_blender_validate(built_zip):
    # tools/extension.py already validated it; validating again here keeps the check visible and independent.
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import extension; "
            "sys.exit(extension.blender_ext_modules()[0].cli_extension_handler(['validate', sys.argv[2]]))")
    done = run([sys.executable, "-c", code, str(ROOT / "tools"), str(built_zip)])
    assert "Success" in done.stdout


def extension_tool():
    if str(ROOT / "tools") not in sys.path:
        sys.path.insert(0, str(ROOT / "tools"))
    import extension

    return extension


def test_manifest_bundles_every_python_specific_wheel_for_both_pythons():
    """Per platform, Blender's own reading of the wheel tags gives exactly 3.11 and 3.13: the CPython
    builds (MuJoCo) come in both, stable-ABI (abi3) builds fit both, every other wheel is pure py3."""
    extension = extension_tool()
    blender_ext = extension.blender_ext_modules()[1]
    manifest = extension.read_manifest()
    for platform in manifest["platforms"]:
        wheels = extension.wheels_for(manifest, [platform])
        assert blender_ext.python_versions_from_wheels(wheels) == SUPPORTED_PYTHONS, platform
        by_python = {}
        for wheel in wheels:
            name, _version, python_tag, abi, _platform = Path(wheel).name[: -len(".whl")].split("-")
            by_python.setdefault(name, set()).add((python_tag, abi))
        for name, tags in by_python.items():
            if tags == {("cp39", "abi3")}:
                continue  # CPython's stable ABI: one build for every Python from 3.9 (CoACD)
            if any(tag.startswith("cp") for tag, _abi in tags):
                assert tags == {("cp311", "cp311"), ("cp313", "cp313")}, (platform, name, tags)
            else:
                assert tags <= {("py3", "none"), ("py2.py3", "none")}, (platform, name, tags)
        assert "mujoco" in by_python, platform


@pytest.mark.parametrize(("filename", "python_version"), [
    ("mujoco-3.17.0-cp313-cp313-win_amd64.whl", "3.13"),
    ("mujoco-3.17.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl", "3.11"),
    ("warp_lang-1.19.0-py3-none-manylinux_2_28_x86_64.whl", None),
    ("newton-1.8.0-py3-none-any.whl", None),
])
def test_each_wheel_is_fetched_for_its_own_python_not_the_running_one(filename, python_version):
    cmd = extension_tool().pip_download_command(filename)
    if python_version is None:
        assert "--python-version" not in cmd
    else:
        assert cmd[cmd.index("--python-version") + 1] == python_version
        abi = filename.split("-")[3]
        assert cmd[cmd.index("--abi") + 1] == abi


def test_one_zip_serves_python_3_11_and_3_13(built_zip, tmp_path):
    """Blender's repository listing (``server-generate``) derives python_versions from the zip's wheels:
    3.11 (Blender 4.5 LTS, 5.0) and 3.13 (5.1, 5.2 LTS); the zip holds MuJoCo's build for each."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / built_zip.name).symlink_to(built_zip)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import extension; sys.exit(extension."
            "blender_ext_modules()[0].cli_extension_handler(['server-generate', '--repo-dir', sys.argv[2]]))")
    run([sys.executable, "-c", code, str(ROOT / "tools"), str(repo)])
    listing = json.loads((repo / "index.json").read_text(encoding="utf-8"))
    [package] = listing["data"]
    assert package["id"] == "articula"
    assert sorted(package["python_versions"]) == ["3.11", "3.13"]
    with zipfile.ZipFile(built_zip) as archive:
        names = [Path(n).name for n in archive.namelist()]
    mujoco = {name.split("-")[2] for name in names if name.startswith("mujoco-")}
    assert mujoco == {"cp311", "cp313"}


def test_install_enables_the_extension_in_the_temporary_user_dir(probe):
    assert probe["install_status"] == ["FINISHED"]
    assert probe["installed"]["enabled"]
    assert Path(probe["install_dir"]).is_relative_to(probe["user_resources"])
    # Newton on Warp, and its MuJoCo solver (the default) with the modules it imports at run time.
    assert {"warp", "newton", "mujoco", "mujoco_warp", "glfw", "typing_extensions.py"} <= set(
        probe["bundled_site_packages"])


def test_installed_files_hold_the_extension_only(probe):
    files = probe["files"]
    assert "__init__.py" in files and "blender_manifest.toml" in files
    leaked = [f for f in files if f.split("/")[0] in DEV_ONLY_DIRS]
    assert not leaked, leaked
    # Top level: Python modules and packages, the manifest, the license and the bundled wheels only.
    top = {f.split("/")[0] for f in files}
    packages = {f.split("/")[0] for f in files if f.count("/") == 1 and f.endswith("/__init__.py")}
    other = top - packages - {"blender_manifest.toml", "LICENSE", "wheels"}
    assert all(name.endswith(".py") for name in other), sorted(other)


def test_every_declared_class_and_the_properties_are_registered(probe):
    installed = probe["installed"]
    assert installed["declared_classes"], "found no `classes` in the installed package"
    assert installed["registered_classes"] == installed["declared_classes"]
    assert installed["object_prop"] and installed["scene_prop"]


def test_articula_operators_and_panels_are_found(probe):
    installed = probe["installed"]
    assert installed["declared_operators"], "the package declares no operator classes"
    assert installed["operators"] == installed["declared_operators"]
    assert installed["declared_panels"], "the package declares no panel classes"
    assert installed["panels"] == installed["declared_panels"]


def _leftovers(disabled, baseline):
    return {
        "enabled": disabled["enabled"],
        "new_types": sorted(set(disabled["types"]) - set(baseline["types"])),
        "operators": disabled["operators"],
        "registered_classes": disabled["registered_classes"],
        "classes_in_bpy_types": disabled["classes_in_bpy_types"],
        "handlers": {k: v for k, v in disabled["handlers"].items() if v != baseline["handlers"].get(k)},
        "object_prop": disabled["object_prop"],
        "scene_prop": disabled["scene_prop"],
    }


def test_disable_enable_cycles_leave_nothing_behind(probe):
    baseline, installed = probe["baseline"], probe["installed"]
    assert len(probe["cycles"]) == CYCLES
    nothing = _leftovers(baseline, baseline)
    for number, cycle in enumerate(probe["cycles"], 1):
        assert cycle["disable_errors"] == [] and cycle["enable_errors"] == [], number
        assert _leftovers(cycle["disabled"], baseline) == nothing, f"leftovers after disable {number}"
        enabled = cycle["enabled"]
        for key in ("enabled", "types", "operators", "panels", "handlers", "object_prop", "scene_prop",
                    "declared_classes", "registered_classes"):
            assert enabled[key] == installed[key], f"{key} differs after re-enable {number}"


@pytest.fixture(scope="module")
def bundled_sim(built_zip, tmp_path_factory):
    user_dir = tmp_path_factory.mktemp("blender-user-sim")
    result = user_dir / "sim.json"
    env = dict(os.environ, BLENDER_USER_RESOURCES=str(user_dir))
    run([sys.executable, str(HERE / "_bundled_sim_probe.py"), str(built_zip), str(result)], env=env)
    return json.loads(result.read_text(encoding="utf-8"))


#: Bundled modules the probe's path loads: MuJoCo on the CPU steps the robot's MJCF export with MuJoCo's C
#: library alone (no mujoco_warp, which only MuJoCo Warp on CUDA imports: the zip still bundles it, see
#: test_install_enables_the_extension_in_the_temporary_user_dir); pycollada, xacro (with PyYAML) and
#: dateutil read the COLLADA and xacro files. Warp and Newton, loaded too where the simulation package
#: imports them, must then come from the extension as well.
USED_BY_THE_PROBE = {"mujoco", "collada", "dateutil", "xacro", "yaml"}


def test_installed_extension_simulates_with_its_own_wheels_only(bundled_sim):
    """What a user gets from the zip alone, as in a bare venv holding only ``bpy``: MuJoCo, pycollada
    and xacro (and Warp and Newton, where loaded) from the extension's wheels, USD from Blender, a
    pendulum exported, imported and baked, a COLLADA file read.

    The probe hides the venv's site-packages once bpy and numpy are loaded; every venv module still in
    use then belongs to bpy or to a distribution ``pip install bpy`` itself brings (bpy's dependency
    closure, read from the installed metadata), which is exactly what a bare ``bpy`` venv holds. The
    same probe run in real bare venvs (bpy==5.2.3 / bpy==4.5.15 only): README, "Install the extension
    in Blender".
    """
    assert bundled_sim["hidden"], "the venv's site-packages were hidden"
    assert bundled_sim["preloaded"] == []
    assert bundled_sim["python"] == f"{sys.version_info.major}.{sys.version_info.minor}"
    assert bundled_sim["export_status"] == ["FINISHED"] and bundled_sim["objects_after_clear"] == 0
    assert bundled_sim["import_status"] == ["FINISHED"]
    assert bundled_sim["bake_status"] == ["FINISHED"]
    assert bundled_sim["rotation_change"] > 1e-3, "the pendulum swung"
    assert bundled_sim["robots_kept_after_bake"] == 1  # for the next bake of the unchanged robot
    assert bundled_sim["robots_kept_after_disable"] == 0, "disabling the extension frees the kept robots"
    assert bundled_sim["collada_extent"] == pytest.approx([1.0, 1.0, 0.0]), "pycollada read 100 cm"
    assert bundled_sim["xacro_link"], "the bundled xacro expanded a file"
    loaded = {name: path for name, path in bundled_sim["module_files"].items() if path}
    assert USED_BY_THE_PROBE <= set(loaded), sorted(USED_BY_THE_PROBE - set(loaded))
    for name, path in loaded.items():
        assert Path(path).is_relative_to(bundled_sim["extension_site"]), (name, path)
    assert Path(bundled_sim["pxr_file"]).is_relative_to(Path(bpy.__file__).parents[3]), "Blender's own USD"
    closure = set(bundled_sim["bpy_closure"])
    assert {"bpy", "numpy"} <= closure
    # ``make venv`` installs Articula itself editable: its finder, loaded at start-up, only maps ``import
    # articula`` to the checkout, never the extension's ``bl_ext`` package (checked above by its files).
    allowed = closure | {"articula"}
    foreign = {name: owners for name, owners in bundled_sim["venv_modules"].items()
               if not owners or not set(owners) <= allowed}
    assert foreign == {}, "modules a bare bpy venv would not have"
