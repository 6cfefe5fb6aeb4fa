"""Blender tier: real bpy, Blender's bundled pxr (never usd-core), a throwaway user dir."""

import os
import sys
import tempfile

os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="articula-blender-user-"))

import bpy  # noqa: E402
import pytest  # noqa: E402

from articula.addon.pxr_runtime import blender_site_packages, ensure_blender_pxr  # noqa: E402

ensure_blender_pxr()
import pxr  # noqa: E402

if os.path.isdir(os.path.join(blender_site_packages(), "pxr")):
    assert pxr.__file__.startswith(blender_site_packages()), f"not Blender's pxr: {pxr.__file__}"


@pytest.fixture(scope="session")
def articula_addon():
    """The extension registered once for the session, as Blender does on enable."""
    import articula

    articula.register()
    yield articula
    articula.unregister()


def _clear_data():
    for collection in (bpy.data.objects, bpy.data.meshes, bpy.data.materials, bpy.data.actions,
                       bpy.data.collections, bpy.data.node_groups, bpy.data.curves):
        for item in list(collection):
            collection.remove(item)


@pytest.fixture
def clean_scene(articula_addon):
    """An empty scene before the test, and nothing left behind after it."""
    _clear_data()
    scene = bpy.context.scene
    scene.frame_set(1)
    yield scene
    _clear_data()
