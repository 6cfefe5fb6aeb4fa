"""``pip install .`` installs the whole library: every package folder of the repository (the root is
the package ``articula``) is listed in pyproject.toml, no test or tool folder is, the ``articula``
command points at a function that exists, and every dependency is one the requirement files pin."""

import importlib
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOT_SHIPPED = {"tests", "tools", "bench", "examples", "docs", "requirements", "wheels", "dist", "out", "shared"}


def pyproject() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def test_every_package_folder_is_installed_and_nothing_else():
    found = {"articula"}
    for init in ROOT.rglob("__init__.py"):
        parts = init.parent.relative_to(ROOT).parts
        if parts and parts[0] not in NOT_SHIPPED and not parts[0].startswith("."):
            found.add(".".join(("articula", *parts)))
    setuptools = pyproject()["tool"]["setuptools"]
    assert setuptools["package-dir"] == {"articula": "."}
    assert sorted(setuptools["packages"]) == sorted(found)


def test_the_command_entry_point_exists():
    module, function = pyproject()["project"]["scripts"]["articula"].split(":")
    assert callable(getattr(importlib.import_module(module), function))


def test_every_dependency_is_pinned_by_the_requirement_files():
    project = pyproject()["project"]
    wanted = project["dependencies"] + [d for ds in project["optional-dependencies"].values() for d in ds]
    pinned = set()
    for path in (ROOT / "requirements").glob("*.txt"):
        for line in path.read_text().splitlines():
            match = re.match(r"([A-Za-z0-9_.-]+)==", line.strip())
            if match:
                pinned.add(match.group(1).lower().replace("_", "-"))
    names = {re.match(r"[A-Za-z0-9_.-]+", d).group(0).lower().replace("_", "-") for d in wanted}
    assert names - pinned == set()
