"""Install the built extension zip into a fresh Blender and record what enable/disable leave behind.

Run by ``test_extension_install.py`` in its own process (the test session has already registered the
package as ``articula``; a second registration of the same classes would clash):

    python _install_probe.py <zip> <result.json> [cycles]

``BLENDER_USER_RESOURCES`` must point at a throwaway directory before this starts. The JSON result holds
observations only; the test decides what passes.
"""

import json
import os
import sys
from pathlib import Path

import bpy

import addon_utils  # noqa: E402  (on sys.path once bpy is imported)

REPO = "user_default"
MODULE = f"bl_ext.{REPO}.articula"


def package_classes() -> list[type]:
    """Every class in the ``classes`` tuples of the installed package's modules."""
    found = []
    for name, module in sorted(sys.modules.items()):
        if name == MODULE or name.startswith(MODULE + "."):
            found.extend(c for c in getattr(module, "classes", ()) if c not in found)
    return found


def registered_name(cls: type) -> str:
    """The name under ``bpy.types`` a registered class appears with."""
    return getattr(cls, "bl_idname", "") or cls.__name__


def is_registered(cls: type) -> bool:
    return bool(getattr(cls, "is_registered", False))


def handler_snapshot() -> dict[str, list[str]]:
    snapshot = {}
    for name in dir(bpy.app.handlers):
        handlers = getattr(bpy.app.handlers, name)
        if isinstance(handlers, list):
            snapshot[name] = [f"{getattr(h, '__module__', '?')}.{getattr(h, '__qualname__', repr(h))}"
                              for h in handlers]
    return snapshot


def state(classes: list[type]) -> dict:
    """What Blender holds now; ``classes`` are the package's classes as of the latest enable."""
    return {
        "enabled": MODULE in bpy.context.preferences.addons,
        "types": sorted(dir(bpy.types)),
        "operators": sorted(f"articula.{name}" for name in dir(bpy.ops.articula)),
        "handlers": handler_snapshot(),
        "object_prop": hasattr(bpy.types.Object, "articula"),
        "scene_prop": hasattr(bpy.types.Scene, "articula"),
        "declared_operators": sorted(c.bl_idname for c in classes if issubclass(c, bpy.types.Operator)),
        "declared_panels": sorted(registered_name(c) for c in classes if issubclass(c, bpy.types.Panel)),
        "panels": sorted(registered_name(c) for c in classes
                         if issubclass(c, bpy.types.Panel) and hasattr(bpy.types, registered_name(c))),
        "declared_classes": sorted(c.__name__ for c in classes),
        "registered_classes": sorted(c.__name__ for c in classes if is_registered(c)),
        "classes_in_bpy_types": sorted(registered_name(c) for c in classes
                                       if hasattr(bpy.types, registered_name(c))),
    }


def toggle(enable: bool) -> list[str]:
    errors = []
    if enable:
        addon_utils.enable(MODULE, default_set=True, handle_error=lambda ex: errors.append(repr(ex)))
    else:
        addon_utils.disable(MODULE, default_set=True, handle_error=lambda ex: errors.append(repr(ex)))
    return errors


def installed_files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if "__pycache__" not in p.parts)


def main(zip_path: str, result_path: str, cycles: int = 3) -> None:
    result = {"user_resources": os.environ.get("BLENDER_USER_RESOURCES"), "baseline": state([])}
    status = bpy.ops.extensions.package_install_files(filepath=zip_path, repo=REPO, enable_on_install=True)
    result["install_status"] = sorted(status)
    classes = package_classes()
    result["installed"] = state(classes)
    module = sys.modules.get(MODULE)
    root = Path(module.__file__).parent if module else None
    result["install_dir"] = str(root) if root else None
    result["files"] = installed_files(root) if root else []
    extension_site = Path(bpy.utils.user_resource("EXTENSIONS", path=".local"))
    bundled = extension_site.glob("lib/python*/site-packages/*")
    result["bundled_site_packages"] = sorted({p.name for p in bundled})
    result["cycles"] = []
    for _ in range(cycles):
        cycle = {"disable_errors": toggle(False), "disabled": state(classes)}
        cycle["enable_errors"] = toggle(True)
        classes = package_classes()
        cycle["enabled"] = state(classes)
        result["cycles"].append(cycle)
    Path(result_path).write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], *(int(a) for a in sys.argv[3:4]))
