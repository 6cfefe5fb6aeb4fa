"""The architecture as a test: every layer imports only the layers below it.

    floor 4  __init__.py           register/unregister only
    floor 3  panels/ operators/    thin
    floor 2  addon/  sim/          Blender adapters / simulation (sim is bpy-free; addon adapts it)
    floor 1  core/                 the bpy-free description, rules and USD I/O
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

ALLOWED = {
    "core": {"core"},
    "sim": {"sim", "core"},
    "addon": {"addon", "sim", "core"},
    "operators": {"operators", "addon", "sim", "core"},
    "panels": {"panels", "addon", "core"},
}
BPY_FREE = {"core", "sim"}
BLENDER_MODULES = {"bpy", "bmesh", "mathutils", "bpy_extras", "addon_utils", "gpu", "bl_ui"}


def _imports(path: Path):
    """(absolute top-level module names, articula layers reached by relative imports)."""
    package_depth = len(path.relative_to(ROOT).parts) - 1
    absolute, layers = set(), set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            absolute.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                absolute.add(node.module.split(".")[0])
                continue
            here = list(path.relative_to(ROOT).parts[:package_depth])
            if node.level - 1 > len(here):
                layers.add("<outside the package>")
                continue
            base = here[: len(here) - (node.level - 1)]
            target = base + (node.module.split(".") if node.module else [])
            if target:
                layers.add(target[0])
            else:  # ``from .. import x`` at the package root names layers directly
                layers.update(alias.name for alias in node.names)
    return absolute, layers


def _sources(layer):
    return sorted((ROOT / layer).rglob("*.py"))


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports_only_layers_below(layer):
    assert _sources(layer), f"no sources in {layer}/"
    for path in _sources(layer):
        _, layers = _imports(path)
        forbidden = layers - ALLOWED[layer]
        assert not forbidden, f"{path.relative_to(ROOT)} imports {sorted(forbidden)}"


@pytest.mark.parametrize("layer", sorted(BPY_FREE))
def test_core_and_sim_never_import_blender(layer):
    for path in _sources(layer):
        absolute, _ = _imports(path)
        assert not absolute & BLENDER_MODULES, f"{path.relative_to(ROOT)} imports {absolute & BLENDER_MODULES}"


def test_root_init_imports_no_blender_module_at_import_time():
    absolute, _ = _imports(ROOT / "__init__.py")
    assert not absolute & BLENDER_MODULES
