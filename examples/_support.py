"""What every example script needs before it can build a robot: Articula, registered.

Inside Blender with the extension installed this is already done. Blender as a Python module
(``bpy`` from PyPI, as ``make demo`` runs it) knows nothing of the extension, so the repository
root (which *is* the extension package) is loaded under its name ``articula`` and registered, the
way the tests do it, after putting Blender's bundled USD (``pxr``) first on ``sys.path``.
"""

import importlib.util
import sys
from pathlib import Path

import bpy

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "out"


def _load_package():
    if "articula" in sys.modules:
        return sys.modules["articula"]
    spec = importlib.util.spec_from_file_location("articula", REPO / "__init__.py",
                                                  submodule_search_locations=[str(REPO)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["articula"] = module
    spec.loader.exec_module(module)
    return module


def articula():
    """The ``articula`` package, registered (idempotent)."""
    package = _load_package()
    from articula.addon.pxr_runtime import ensure_blender_pxr

    ensure_blender_pxr()
    if not hasattr(bpy.types.Object, "articula"):
        package.register()
    return package


def empty_scene():
    """A fresh, empty scene (Articula stays registered)."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    articula()  # registered classes survive a factory reset; this only makes sure
    return bpy.context.scene


def select_only(*objects, active=None):
    """Select ``objects`` (and nothing else), making ``active`` (default: the last) active."""
    for obj in bpy.context.view_layer.objects:
        obj.select_set(False)
    for obj in objects:
        obj.select_set(True)
    bpy.context.view_layer.objects.active = active or objects[-1]


def scene_problems(scene) -> list:
    """Every problem Articula's validation reports for ``scene`` (errors and warnings)."""
    from articula.operators.validate import scene_problems as problems

    return problems(scene)


def save_blend(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    bpy.ops.wm.save_as_mainfile(filepath=str(path), check_existing=False)
    return path


def main(example) -> Path:
    """Run one example on its own: build it in an empty scene, report problems, save the .blend."""
    scene = empty_scene()
    example.build(bpy.context)
    for problem in scene_problems(scene):
        print(f"{problem.severity}: {problem.subject}: {problem.message}")
    path = save_blend(OUT / f"{example.NAME}_authored.blend")
    print(f"{example.NAME}: {sum(o.articula.body.enabled for o in scene.objects)} bodies, "
          f"{sum(o.articula.joint.enabled for o in scene.objects)} joints; saved {path}")
    return path
