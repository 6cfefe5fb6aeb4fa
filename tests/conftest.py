"""Shared by every test tier: import the repository root as the package ``articula``.

The repository root is the extension package, whatever the clone's folder is called, so tests
load it under its real name the way Blender loads the installed extension.
"""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load_articula():
    if "articula" in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(
        "articula", ROOT / "__init__.py", submodule_search_locations=[str(ROOT)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["articula"] = module
    spec.loader.exec_module(module)


_load_articula()
