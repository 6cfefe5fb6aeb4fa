"""Shared by every test tier: the tests import the installed package ``articula``.

The repository root is the package (``pip install -e .``, which ``make venv`` does). A package
installed from another clone would test that clone's code: refuse it with the way out.
"""

from pathlib import Path

import articula

ROOT = Path(__file__).resolve().parents[1]

if Path(articula.__file__).resolve().parent != ROOT:
    raise ImportError(f"articula is imported from {Path(articula.__file__).parent}, not from this clone "
                      f"({ROOT}): run `python -m pip install --no-deps -e {ROOT}` in this venv")
