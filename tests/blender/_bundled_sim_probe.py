"""Install the extension zip and simulate with ONLY its bundled wheels (what a Blender user gets).

Run by ``test_extension_install.py`` in its own process, and standalone in a bare venv (one holding
only ``bpy``; see README, "Install the extension in Blender"):

    python _bundled_sim_probe.py <zip> <result.json>

After bpy and numpy load (the Blender application ships numpy), the venv's site-packages leave
``sys.path``, so warp, newton, mujoco and pxr can only come from the extension's own wheels and
Blender's bundled USD. That equals a bare venv holding only ``bpy``: the only venv modules still
loaded are bpy and the distributions ``pip install bpy`` itself installs (its dependency closure),
which the result lists (``venv_modules``) for the test to check. The pendulum is exported to USD with
the installed extension, the scene emptied, the file imported back, and the import baked on MuJoCo.
``BLENDER_USER_RESOURCES`` must point at a throwaway directory. The JSON holds observations only.
"""

import json
import re
import site
import sys
import tempfile
from importlib import metadata
from pathlib import Path

import bpy
import numpy  # noqa: F401  (Blender provides numpy; keep it loaded before the venv disappears)

import addon_utils  # noqa: E402

MODULE = "bl_ext.user_default.articula"
BUNDLED = ("warp", "newton", "mujoco", "mujoco_warp", "collada", "dateutil", "xacro", "yaml")
#: One triangle as COLLADA, for the bundled pycollada (URDF robots' .dae meshes).
TRIANGLE_DAE = """<?xml version="1.0"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
<asset><created>2026-01-01T00:00:00</created><modified>2026-01-01T00:00:00</modified>
<unit meter="0.01" name="centimeter"/><up_axis>Z_UP</up_axis></asset>
<library_geometries><geometry id="g"><mesh>
<source id="p"><float_array id="pa" count="9">0 0 0 100 0 0 0 100 0</float_array>
<technique_common><accessor source="#pa" count="3" stride="3"><param name="X" type="float"/>
<param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common></source>
<vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
<triangles count="1"><input semantic="VERTEX" source="#v" offset="0"/><p>0 1 2</p></triangles>
</mesh></geometry></library_geometries>
<library_visual_scenes><visual_scene id="s"><node id="n"><instance_geometry url="#g"/></node></visual_scene>
</library_visual_scenes><scene><instance_visual_scene url="#s"/></scene></COLLADA>"""


def bpy_closure() -> list[str]:
    """Normalised names of bpy and every distribution it requires, recursively (what ``pip install
    bpy`` puts into an empty venv), with what ``python -m venv`` itself seeds: pip, and on Python
    3.11 setuptools (whose ``distutils-precedence.pth`` loads ``_distutils_hack`` at start-up)."""
    seen, todo = set(), ["bpy", "pip"] + (["setuptools"] if sys.version_info < (3, 12) else [])
    while todo:
        name = re.sub(r"[-_.]+", "-", todo.pop()).lower()
        if name in seen:
            continue
        try:
            requires = metadata.distribution(name).requires or []
        except metadata.PackageNotFoundError:
            continue
        seen.add(name)
        todo += [re.match(r"[A-Za-z0-9_.-]+", r).group(0) for r in requires if "extra ==" not in r]
    return sorted(seen)


def venv_modules(venv_sites: list[str], owners: dict[str, list[str]]) -> dict[str, list[str]]:
    """Top-level modules loaded from the venv's site-packages -> the distributions that own them
    (normalised; Blender's own script modules, under ``site-packages/bpy/``, belong to bpy)."""
    found = {}
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None) or ""
        site_dir = next((s for s in venv_sites if path.startswith(s + "/")), None)
        if "." in name or site_dir is None:
            continue
        if path.startswith(f"{site_dir}/bpy/"):
            found[name] = ["bpy"]
        else:
            found[name] = sorted({re.sub(r"[-_.]+", "-", d).lower() for d in owners.get(name, [])})
    return found


def module_owners() -> dict[str, list[str]]:
    """Top-level module -> the distributions holding it: ``packages_distributions`` plus the single-file
    modules each distribution's RECORD lists (an editable install's finder, which the former leaves out)."""
    owners = {name: list(dists) for name, dists in metadata.packages_distributions().items()}
    for dist in metadata.distributions():
        for file in dist.files or []:
            if len(file.parts) == 1 and file.suffix == ".py" and dist.metadata["Name"] not in owners.get(
                    file.stem, []):
                owners.setdefault(file.stem, []).append(dist.metadata["Name"])
    return owners


def hide_venv_packages() -> list[str]:
    venv_sites = set(site.getsitepackages())
    hidden = [p for p in sys.path if p in venv_sites]
    sys.path[:] = [p for p in sys.path if p not in venv_sites]
    return hidden


def main(zip_path: str, result_path: str) -> None:
    closure = bpy_closure()
    venv_sites = site.getsitepackages()
    owners = module_owners()  # read while the venv is still on sys.path
    result = {"hidden": hide_venv_packages(), "bpy_closure": closure, "bpy_version": bpy.app.version_string,
              "python": f"{sys.version_info.major}.{sys.version_info.minor}"}
    result["preloaded"] = sorted(name for name in BUNDLED + ("pxr",) if name in sys.modules)
    status = bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default",
                                                      enable_on_install=True)
    result["install_status"] = sorted(status)
    package = sys.modules[MODULE]
    samples = __import__(f"{MODULE}.core.samples", fromlist=["samples"])
    build = __import__(f"{MODULE}.addon.adapters.description_to_blender", fromlist=["build_scene"])

    scene = bpy.context.scene
    with tempfile.TemporaryDirectory() as tmp:
        usd_file = str(Path(tmp) / "pendulum.usda")
        build.build_scene(bpy.context, samples.pendulum())
        result["export_status"] = sorted(bpy.ops.articula.export_usd(filepath=usd_file))
        for obj in list(bpy.data.objects):
            bpy.data.objects.remove(obj)
        result["objects_after_clear"] = len(bpy.data.objects)
        result["import_status"] = sorted(bpy.ops.articula.import_usd(filepath=usd_file))
        dae_file = Path(tmp) / "triangle.dae"
        dae_file.write_text(TRIANGLE_DAE, encoding="utf-8")
        collada = __import__(f"{MODULE}.core.urdf.collada", fromlist=["read_collada"])
        result["collada_extent"] = collada.read_collada(str(dae_file)).vertices.max(axis=0).tolist()
        xacro_file = Path(tmp) / "leg.xacro"  # the bundled xacro (and its PyYAML) expand a trusted file
        xacro_file.write_text('<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="r"><xacro:arg name="side" '
                              'default="left"/><link name="$(arg side)_leg"/></robot>', encoding="utf-8")
        expand = __import__(f"{MODULE}.core.urdf.xacro_expand", fromlist=["expand_xacro"])
        result["xacro_link"] = "right_leg" in expand.expand_xacro(str(xacro_file), arguments={"side": "right"})
    link = bpy.data.objects["pendulum_link"]
    bpy.context.view_layer.update()
    scene.articula.solver = "MUJOCO"
    before = tuple(link.matrix_world.to_quaternion())
    result["bake_status"] = sorted(bpy.ops.articula.bake(frame_start=1, frame_end=24, solver="MUJOCO"))
    scene.frame_set(24)
    after = tuple(link.matrix_world.to_quaternion())
    result["rotation_change"] = max(abs(a - b) for a, b in zip(before, after))
    result["module_files"] = {name: getattr(sys.modules.get(name), "__file__", None) for name in BUNDLED}
    result["pxr_file"] = getattr(sys.modules.get("pxr"), "__file__", None)
    result["extension_site"] = str(Path(bpy.utils.user_resource("EXTENSIONS", path=".local")))
    result["blender_dir"] = str(Path(bpy.__file__).parent)
    result["package_file"] = package.__file__
    result["venv_modules"] = venv_modules(venv_sites, owners)
    cache = sys.modules[package.__name__ + ".sim.model_cache"]
    result["robots_kept_after_bake"] = cache.size()
    addon_utils.disable(MODULE, default_set=True)
    result["robots_kept_after_disable"] = cache.size()
    Path(result_path).write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
