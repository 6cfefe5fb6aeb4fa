"""The writers author in batches and write the very files they wrote one spec at a time.

``tests/usd_reference_writer`` is the writer as it was before batching (each attribute, relationship
and applied schema authored as it was met). Every scene here is written by both, and the two
layers must export to the same text: the same prims, properties, values, applied schemas and
metadata, in the same order. Both bpy-free paths: ``build_layer`` (``write_usd``, NESTED and FLAT)
and ``author_physics`` (onto a stage laid out as Blender's exporter lays it out).
"""

import difflib
import glob
import os

import pytest
from pxr import Sdf, Usd

from articula.core import samples
from articula.core.usd import physics_author, writer
from articula.core.usd.reader import read_usd
from tests.usd_reference_writer import physics_author as reference_author
from tests.usd_reference_writer import writer as reference_writer

from .test_corpus import CORPUS, ROBOTS
from .test_usd_physics_author import OBJECT_NAME, _fixed_base_fleet, blender_like_stage

SAMPLES = ["robotic_finger", "six_dof_arm", "quadruped", "collision_showcase", "pendulum", "d6_sampler",
           "four_bar", "hanging_chain"]
DATA = os.path.join(os.path.dirname(__file__), "..", "data")


def _same_text(ours: str, theirs: str, what: str) -> None:
    if ours != theirs:
        diff = "".join(list(difflib.unified_diff(theirs.splitlines(True), ours.splitlines(True), "per spec",
                                                 "batched", n=1))[:60])
        pytest.fail(f"{what}: the batched writer's file differs from the per-spec writer's:\n{diff}")


def _both_layouts(scene, what: str) -> None:
    for layout in writer.LAYOUTS:
        for isaac in (True, False):
            ours = writer.build_layer(scene, layout, isaac_schema=isaac).ExportToString()
            theirs = reference_writer.build_layer(scene, layout, isaac_schema=isaac).ExportToString()
            _same_text(ours, theirs, f"{what} ({layout}, isaac_schema={isaac})")


def _onto_blender_like(scene, what: str) -> None:
    texts = []
    for author in (physics_author.author_physics, reference_author.author_physics):
        stage, paths = blender_like_stage(scene)
        author(stage, scene, paths)
        texts.append(stage.GetRootLayer().ExportToString())
    _same_text(texts[0], texts[1], f"{what} authored onto a Blender-like stage")


def fleet_of_chains(robots: int = 3, links: int = 6):
    """Fixed-base chains of box links with drives: what the export bench writes, smaller."""
    from bench.bench_usd_export import chain_scene

    return chain_scene(robots=robots, links=links)


@pytest.mark.parametrize("name", SAMPLES)
def test_samples_write_the_same_files(name):
    scene = getattr(samples, name)()
    _both_layouts(scene, name)
    _onto_blender_like(scene, name)


def test_fleets_write_the_same_files():
    _both_layouts(_fixed_base_fleet(), "fleet of fingers")
    _onto_blender_like(_fixed_base_fleet(), "fleet of fingers")
    _both_layouts(fleet_of_chains(), "fleet of chains")
    _onto_blender_like(fleet_of_chains(), "fleet of chains")


ROBOT_FILES = sorted(glob.glob(os.path.join(DATA, "*.xml")) + glob.glob(os.path.join(DATA, "*.urdf")))


@pytest.mark.parametrize("file", ROBOT_FILES, ids=os.path.basename)
def test_robot_files_write_the_same_files(file):
    if file.endswith(".xml"):
        from articula.core.mjcf.reader import read_mjcf as read
    else:
        from articula.core.urdf.reader import read_urdf as read
    result = read(file)
    _both_layouts(getattr(result, "scene", result), os.path.basename(file))


@pytest.mark.parametrize("key", ROBOTS)
def test_corpus_round_trips_write_the_same_files(key):
    files = glob.glob(os.path.join(CORPUS, key, "*.usda"))
    if not files:
        pytest.skip(f"{key} not converted: run `make corpus` (needs .venv-converter)")
    scene = read_usd(files[0]).scene
    _both_layouts(scene, key)
    # and once more from our own file, as a round trip reads it
    again = read_usd(Usd.Stage.Open(writer.build_layer(scene))).scene
    _both_layouts(again, f"{key} read back")


def test_a_difference_is_caught():
    """The comparison sees a changed value (the test can fail)."""
    scene = samples.robotic_finger()
    ours = writer.build_layer(scene)
    theirs = reference_writer.build_layer(scene)
    assert ours.ExportToString() == theirs.ExportToString()
    root = ours.GetPrimAtPath(ours.rootPrims[0].path)
    Sdf.AttributeSpec(root, "physics:extra", Sdf.ValueTypeNames.Float).default = 1.0
    with pytest.raises(pytest.fail.Exception, match="differs"):
        _same_text(ours.ExportToString(), theirs.ExportToString(), "robotic_finger with one more attribute")


def test_the_export_authors_what_the_worker_recorded():
    """``prepare_physics`` (the worker thread's share of Blender's export) records every body's,
    joint's and collider's physics; authoring writes those recordings, not new ones."""
    scene = samples.robotic_finger()
    prepared = physics_author.prepare_physics(scene)
    assert set(prepared.prims.bodies) == {b.name for b in scene.bodies}
    assert set(prepared.prims.joints) == {j.name for j in scene.joints}
    assert set(prepared.prims.shapes) == {s.name for s in scene.shapes}
    joint = scene.joints[-1].name
    prepared.prims.joints[joint].set("physics:recordedOnTheWorker", Sdf.ValueTypeNames.Float, 2.5)
    stage, paths = blender_like_stage(scene)
    physics_author.author_physics(stage, scene, paths, prepared=prepared)
    prims = {p.GetAttribute(OBJECT_NAME).Get(): p for p in stage.Traverse() if p.GetAttribute(OBJECT_NAME)}
    attr = prims[joint].GetAttribute("physics:recordedOnTheWorker")
    assert attr and attr.Get() == 2.5
