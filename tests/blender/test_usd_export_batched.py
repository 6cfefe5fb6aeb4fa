"""``articula.export_usd`` authors the physics in batches (recorded on a worker thread while
Blender's exporter writes the prims) and writes the very file it wrote authoring one spec at a time.

``tests/usd_reference_writer`` is the writer as it was before batching. In each export the hook
authors twice onto the prims Blender wrote (Blender's sibling order can change from one export
to the next, so not two exports): the reference writer onto a copy of Blender's layer, today's
writer onto the layer Blender saves; the two must hold the same text (prims, properties, values,
applied schemas, metadata, in order). Scenes: the samples built in Blender, a fleet of fixed-base chains (the
export bench's scene), a scaled body, and converted corpus robots imported through
``articula.import_usd`` (skipped without ``make corpus``).
"""

import difflib
import glob
import os

import bpy
import pytest

from articula.addon.adapters.description_to_blender import build_scene
from articula.addon.pxr_runtime import ensure_blender_pxr
from articula.core import samples

ensure_blender_pxr()
from pxr import Sdf, Usd  # noqa: E402

import articula.core.usd.physics_author as physics_author  # noqa: E402
from tests.usd_reference_writer import physics_author as reference_author  # noqa: E402

CORPUS = os.environ.get("ARTICULA_CORPUS", os.path.expanduser("~/.cache/articula/corpus"))


def _export_both_ways(tmp_path, monkeypatch, name: str, **options) -> None:
    """Export with the hook authoring twice onto the prims Blender wrote: the reference writer on a
    copy of Blender's layer, today's writer on Blender's own (the file); then compare the two."""
    batched, texts = physics_author.author_physics, {}

    def both(stage, *args, **kwargs):
        copy = Sdf.Layer.CreateAnonymous("blender_copy.usda")
        copy.TransferContent(stage.GetRootLayer())
        reference_stage = Usd.Stage.Open(copy)
        reference_author.author_physics(reference_stage, *args, **kwargs)
        warnings = batched(stage, *args, **kwargs)
        texts["per spec"], texts["batched"] = copy.ExportToString(), stage.GetRootLayer().ExportToString()
        return warnings

    with monkeypatch.context() as patch:
        patch.setattr(physics_author, "author_physics", both)
        assert bpy.ops.articula.export_usd(filepath=str(tmp_path / f"{name}.usda"), **options) == {"FINISHED"}
    ours, theirs = texts["batched"], texts["per spec"]
    assert "PhysicsScene" in ours
    if ours != theirs:
        diff = "".join(list(difflib.unified_diff(theirs.splitlines(True), ours.splitlines(True), "per spec",
                                                 "batched", n=1))[:60])
        pytest.fail(f"{name}: the batched export differs from the per-spec one:\n{diff}")


@pytest.mark.parametrize("name", ["robotic_finger", "six_dof_arm", "quadruped", "four_bar", "d6_sampler",
                                  "hanging_chain"])
def test_samples_export_the_same_files(clean_scene, tmp_path, monkeypatch, name):
    build_scene(bpy.context, getattr(samples, name)())
    _export_both_ways(tmp_path, monkeypatch, name)
    _export_both_ways(tmp_path, monkeypatch, name + "_current", state="CURRENT", isaac_schema=False)


def test_fleet_of_chains_and_a_scaled_body_export_the_same_files(clean_scene, tmp_path, monkeypatch):
    from bench.bench_usd_export import chain_scene

    objects = build_scene(bpy.context, chain_scene(robots=3, links=5))
    body = next(obj for obj in objects.values() if obj.articula.body.enabled and obj.parent is not None)
    body.scale = (1.5, 1.5, 1.5)  # its meshes and colliders are rebased onto its unscaled frame
    bpy.context.view_layer.update()
    _export_both_ways(tmp_path, monkeypatch, "chains")


def test_a_difference_is_caught(clean_scene, tmp_path, monkeypatch):
    """The comparison sees a file that is not the same (the test can fail)."""
    build_scene(bpy.context, samples.robotic_finger())
    reference = reference_author.author_physics

    def one_more_attribute(stage, *args, **kwargs):
        warnings = reference(stage, *args, **kwargs)
        spec = stage.GetRootLayer().GetPrimAtPath(stage.GetDefaultPrim().GetPath())
        Sdf.AttributeSpec(spec, "physics:extra", Sdf.ValueTypeNames.Float).default = 1.0
        return warnings

    with monkeypatch.context() as patch:
        patch.setattr(reference_author, "author_physics", one_more_attribute)
        with pytest.raises(pytest.fail.Exception, match="differs"):
            _export_both_ways(tmp_path, monkeypatch, "finger")


@pytest.mark.parametrize("key", ["gym_ant", "gym_humanoid", "articula_arm_gripper"])
def test_corpus_robots_export_the_same_files(clean_scene, tmp_path, monkeypatch, key):
    files = glob.glob(os.path.join(CORPUS, key, "*.usda"))
    if not files:
        pytest.skip(f"{key} not converted: run `make corpus`")
    assert bpy.ops.articula.import_usd(filepath=files[0]) == {"FINISHED"}
    _export_both_ways(tmp_path, monkeypatch, key)
