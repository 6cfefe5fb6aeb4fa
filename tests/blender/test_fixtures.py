"""The shared ``clean_scene`` fixture really gives each test a clean scene (tests run in file order)."""

import bpy


def test_1_leaves_a_mess_behind(clean_scene):
    settings = clean_scene.articula
    settings.materials.add().name = "leftover"
    settings.property_unset("materials")  # no-op for collections: the fixture must clear them itself
    settings.materials.add().name = "leftover2"
    bpy.data.hair_curves.new("leftover")
    gravity = settings.bl_rna.properties.get("gravity")
    if gravity is not None:
        settings.gravity = (1.0, 2.0, 3.0)


def test_2_starts_clean(clean_scene):
    settings = clean_scene.articula
    assert len(settings.materials) == 0
    assert not bpy.data.hair_curves
    gravity = settings.bl_rna.properties.get("gravity")
    if gravity is not None:
        assert tuple(settings.gravity) == tuple(gravity.default_array)
