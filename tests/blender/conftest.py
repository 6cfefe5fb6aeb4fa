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
                       bpy.data.collections, bpy.data.node_groups, bpy.data.curves,
                       bpy.data.hair_curves):
        for item in list(collection):
            collection.remove(item)


def _reset_to_defaults(group):
    """Every property of a PropertyGroup back to its default, lists emptied, recursively."""
    for prop in group.bl_rna.properties:
        name = prop.identifier
        if name == "rna_type" or prop.is_readonly and prop.type not in ("POINTER", "COLLECTION"):
            continue
        if prop.type == "COLLECTION":
            getattr(group, name).clear()
        elif prop.type == "POINTER":
            value = getattr(group, name)
            if isinstance(value, bpy.types.PropertyGroup):
                _reset_to_defaults(value)
        else:
            group.property_unset(name)


@pytest.fixture
def clean_scene(articula_addon):
    """An empty scene before the test, and nothing left behind after it."""
    _clear_data()
    scene = bpy.context.scene
    _reset_to_defaults(scene.articula)
    scene.render.fps, scene.render.fps_base = 24, 1.0  # a test's own frame rate and range leave with it
    scene.frame_start, scene.frame_end = 1, 250
    scene.frame_set(1)
    yield scene
    _clear_data()
