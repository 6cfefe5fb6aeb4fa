"""The architecture as a test: every layer imports only the layers below it.

    floor 4  __init__.py           register/unregister only
    floor 3  panels/ operators/    thin
    floor 2  addon/  sim/          Blender adapters / simulation (sim is bpy-free; addon adapts it)
    floor 1  core/                 the bpy-free description, rules and USD I/O
"""

import ast
import subprocess
import sys
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


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def _package_modules() -> dict[str, Path]:
    return {_module_name(path): path for layer in ALLOWED for path in _sources(layer)}


def _modules_imported(path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules ``path`` imports anywhere in it, inside functions too (relative imports):
    ``from .a import b`` reaches ``a.b`` when that is a module, else ``a``."""
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    reached = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.ImportFrom) or not node.level:
            continue
        base = package[: len(package) - (node.level - 1)] + (node.module.split(".") if node.module else [])
        name = ".".join(base)
        if node.module and name in modules:
            reached.add(name)
        for alias in node.names:
            submodule = f"{name}.{alias.name}" if name else alias.name
            reached.add(submodule if submodule in modules else name)
    return reached & set(modules)


def test_no_two_modules_import_each_other():
    """A module imports only modules that do not import it back (a cycle hidden inside a function
    counts): what both sides share belongs in a module below both."""
    modules = _package_modules()
    imports = {name: _modules_imported(path, modules) - {name} for name, path in modules.items()}
    pairs = sorted({tuple(sorted((a, b))) for a, reached in imports.items() for b in reached
                    if a in imports[b]})
    assert not pairs, "modules importing each other: " + ", ".join(f"{a} <-> {b}" for a, b in pairs)


def test_core_imports_where_no_usd_library_is():
    """``core`` and its file dispatch import without ``pxr`` (USD is loaded when a USD file is read)."""
    blocker = ("import sys\n"
               "class NoPxr:\n"
               "    def find_spec(self, name, path=None, target=None):\n"
               "        if name.split('.')[0] == 'pxr': raise ImportError('no pxr here')\n"
               "sys.meta_path.insert(0, NoPxr())\n"
               "import articula.core.formats, articula.core.usd.errors\n"
               "assert 'pxr' not in sys.modules\n")
    ran = subprocess.run([sys.executable, "-c", blocker], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
