"""Make Blender's NESTED exports for tests/nvidia: run with .venv's Python (bpy 5.2).

    python tests/nvidia/blender_exports.py OUT_FOLDER NAME=ORIGINAL.usda [NAME=...]

Each original is imported with ``articula.import_usd`` (Blender's importer plus the USD hook)
into an empty file and exported with ``articula.export_usd`` (NESTED: ``wm.usd_export`` plus the
hook) to ``OUT_FOLDER/Articula/NAME/NAME.usda``; one line per robot says where, or why not.
"""

import os
import sys
import tempfile

os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="articula-blender-user-"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import conftest  # noqa: E402,F401  (tests/conftest.py: refuses an articula installed from another clone)

import bpy  # noqa: E402

from articula.addon.pxr_runtime import ensure_blender_pxr  # noqa: E402


def main(out: str, robots: list[str]) -> int:
    ensure_blender_pxr()
    import articula

    articula.register()
    status = 0
    for item in robots:
        name, original = item.split("=", 1)
        bpy.ops.wm.read_factory_settings(use_empty=True)
        folder = os.path.join(out, "Articula", name)
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f"{name}.usda")
        try:
            imported = bpy.ops.articula.import_usd(filepath=original)
            exported = bpy.ops.articula.export_usd(filepath=path, layout="NESTED")
        except RuntimeError as error:
            imported, exported = {"CANCELLED"}, str(error)
        if imported == {"FINISHED"} and exported == {"FINISHED"}:
            print(f"EXPORTED {name} {path}")
        else:
            print(f"FAILED {name} {imported} {exported}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
