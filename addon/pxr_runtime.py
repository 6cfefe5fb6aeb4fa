"""Use Blender's own USD (``pxr``) and never a second copy.

The Blender application puts its bundled site-packages on ``sys.path``; the ``bpy`` module from
PyPI does not. A second USD (usd-core) in the same process breaks Blender's USD hooks, so
Blender's copy goes first whenever ``pxr`` has not been imported yet.
"""

import os
import sys

import bpy


def blender_site_packages() -> str:
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    return os.path.join(bpy.utils.resource_path("LOCAL"), "python", "lib", version, "site-packages")


def ensure_blender_pxr() -> None:
    """Put Blender's bundled site-packages first on ``sys.path`` (idempotent)."""
    site = blender_site_packages()
    if not os.path.isdir(os.path.join(site, "pxr")):
        return  # a Blender without bundled USD: pxr must come from elsewhere
    if "pxr" in sys.modules:
        return  # already imported; swapping now would load two copies
    if site in sys.path:
        sys.path.remove(site)
    sys.path.insert(0, site)
