"""``articula.export_usd`` authors the physics recorded on a worker thread (while Blender's exporter
writes the prims) and writes the very file that authoring it directly would write.

In each export the hook authors twice onto the prims Blender wrote (Blender's sibling order can
change from one export to the next, so not two exports): directly (no recordings, the body poses
neither) onto a copy of Blender's layer, and from what the worker recorded onto the layer Blender
saves; the two must hold the same text (prims, properties, values, applied schemas, metadata, in
order). Every recording carries one more attribute, a mark: the saved layer must hold a mark on
every prim authored from a recording, so a recorded path that fell back to the direct one fails.
Scenes: the samples built in Blender, a fleet of fixed-base chains (the export bench's scene), a
scaled body, and converted corpus robots imported through ``articula.import_usd`` (skipped
without ``make corpus``).
"""

import dataclasses
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

CORPUS = os.environ.get("ARTICULA_CORPUS", os.path.expanduser("~/.cache/articula/corpus"))
MARK = "articula:test:from"  # starts both marks' names


def _mark_recordings(prepared) -> int:
    """A mark at the end of every recording the worker made (a body pose's its own: its prim
    gets the body's physics too); how many there are."""
    prims = prepared.prims
    physics = [*prims.bodies.values(), *prims.joints.values(), *prims.shapes.values()]
    poses = [pose for _, pose in prepared.body_poses.values()]
    for recordings, mark in ((physics, MARK + "Recording"), (poses, MARK + "RecordedPose")):
        for recording in recordings:
            recording.set(mark, Sdf.ValueTypeNames.Bool, True, custom=True)
    return len(physics) + len(poses)


def _export_both_ways(tmp_path, monkeypatch, name: str, spoil=None, **options) -> None:
    """Export with the hook authoring twice onto the prims Blender wrote: directly on a copy of
    Blender's layer, from the worker's recordings (``spoil``: changes them first) on Blender's
    own (the file); then compare the two."""
    live, seen = physics_author.author_physics, {}

    def both(stage, *args, prepared=None, **kwargs):
        assert prepared is not None and prepared.prims is not None, "the worker thread recorded nothing"
        copy = Sdf.Layer.CreateAnonymous("blender_copy.usda")
        copy.TransferContent(stage.GetRootLayer())
        direct = dataclasses.replace(prepared, prims=None, body_poses=None, object_colors=None)
        live(Usd.Stage.Open(copy), *args, prepared=direct, **kwargs)
        seen["marks"] = _mark_recordings(prepared)
        if spoil:
            spoil(prepared.prims)
        warnings = live(stage, *args, prepared=prepared, **kwargs)
        seen["direct"], seen["recorded"] = copy.ExportToString(), stage.GetRootLayer().ExportToString()
        return warnings

    with monkeypatch.context() as patch:
        patch.setattr(physics_author, "author_physics", both)
        assert bpy.ops.articula.export_usd(filepath=str(tmp_path / f"{name}.usda"), **options) == {"FINISHED"}
    direct, recorded = seen["direct"], seen["recorded"].splitlines(True)
    assert "PhysicsScene" in direct and "PhysicsRigidBodyAPI" in direct and "PhysicsCollisionAPI" in direct
    unmarked = [line for line in recorded if MARK not in line]
    marks = len(recorded) - len(unmarked)
    assert marks == seen["marks"], f"{name}: a prim was not authored from its recording"
    if "".join(unmarked) != direct:
        diff = difflib.unified_diff(direct.splitlines(True), unmarked, "direct", "recorded", n=1)
        diff = "".join(list(diff)[:60])
        pytest.fail(f"{name}: the export authored from recordings differs from the direct one:\n{diff}")


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


@pytest.mark.parametrize("spoil, caught", [
    (lambda prims: next(iter(prims.joints.values())).properties.pop(0), "differs"),
    (lambda prims: next(iter(prims.shapes.values())).schemas.remove("PhysicsCollisionAPI"), "differs"),
    (lambda prims: prims.bodies.pop(next(iter(prims.bodies))), "not authored from its recording"),
], ids=["joint property dropped", "collider schema dropped", "body not recorded"])
def test_a_difference_is_caught(clean_scene, tmp_path, monkeypatch, spoil, caught):
    """A recording that lost a spec, or a prim authored without its recording, fails the comparison
    (the tests can fail)."""
    build_scene(bpy.context, samples.robotic_finger())
    with pytest.raises((pytest.fail.Exception, AssertionError), match=caught):
        _export_both_ways(tmp_path, monkeypatch, "finger", spoil)


@pytest.mark.parametrize("key", ["gym_ant", "gym_humanoid", "articula_arm_gripper"])
def test_corpus_robots_export_the_same_files(clean_scene, tmp_path, monkeypatch, key):
    files = glob.glob(os.path.join(CORPUS, key, "*.usda"))
    if not files:
        pytest.skip(f"{key} not converted: run `make corpus`")
    assert bpy.ops.articula.import_usd(filepath=files[0]) == {"FINISHED"}
    _export_both_ways(tmp_path, monkeypatch, key)
