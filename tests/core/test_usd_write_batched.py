"""The physics recorded first and authored later writes the very file that authoring it directly writes.

Every body's, joint's and collider's physics is written by one function that authors either onto
a prim (``write_usd``: the direct path) or into a recording that is authored onto the prim later,
its targets resolved by path, in one change block (Blender's export records on a worker thread).
Every scene here is written both ways and the two layers must export to the same text: the same
prims, properties, values, applied schemas and metadata, in the same order. Both bpy-free writers:
the core writer (NESTED and FLAT, with and without the Isaac schema) and ``author_physics`` (onto
a stage laid out as Blender's exporter lays it out).

So that a recorded path that quietly fell back to the direct one cannot pass, every recording
carries one more attribute (a mark, named from :data:`MARK`): the recorded file must hold it on
every prim that was authored from a recording, and equal the direct file once it is taken out.
"""

import dataclasses
import difflib
import glob
import os

import pytest
from pxr import Sdf, Usd

from articula.core import samples
from articula.core.usd import physics_author, writer
from articula.core.usd.reader import read_usd

from .test_corpus import CORPUS, ROBOTS
from .test_usd_physics_author import OBJECT_NAME, _fixed_base_fleet, blender_like_stage

SAMPLES = ["robotic_finger", "six_dof_arm", "quadruped", "collision_showcase", "pendulum", "d6_sampler",
           "four_bar", "hanging_chain"]
DATA = os.path.join(os.path.dirname(__file__), "..", "data")
MARK = "articula:test:from"  # starts both marks' names


def marked(prims, body_poses=None) -> int:
    """``prims`` (``record_prims``'s) with a mark at the end of every recording, and ``body_poses``
    (``record_body_poses``') another; returns how many marks the recorded file should hold."""
    for recordings in (prims.bodies, prims.joints, prims.shapes):
        for recording in recordings.values():
            recording.set(MARK + "Recording", Sdf.ValueTypeNames.Bool, True, custom=True)
    for _, recording in (body_poses or {}).values():
        recording.set(MARK + "RecordedPose", Sdf.ValueTypeNames.Bool, True, custom=True)
    return len(prims.bodies) + len(prims.joints) + len(prims.shapes) + len(body_poses or {})


def same_text(direct: str, recorded: str, what: str, marks: int) -> None:
    """``recorded`` holds ``marks`` marks and, without them, is ``direct``."""
    lines = recorded.splitlines(True)
    unmarked = [line for line in lines if MARK not in line]
    assert len(lines) - len(unmarked) == marks, f"{what}: not every prim was authored from its recording"
    recorded = "".join(unmarked)
    if direct != recorded:
        diff = "".join(list(difflib.unified_diff(direct.splitlines(True), recorded.splitlines(True), "direct",
                                                 "recorded", n=1))[:60])
        pytest.fail(f"{what}: the file authored from recordings differs from the direct one:\n{diff}")


def non_trivial(text: str, scene) -> None:
    """The compared file holds the physics it is about."""
    assert "PhysicsScene" in text and "PhysicsRigidBodyAPI" in text and "physics:mass" in text
    assert not scene.joints or "physics:body1" in text
    assert not scene.shapes or "PhysicsCollisionAPI" in text


def recorded_layer(scene, layout: str, isaac: bool, prims) -> Sdf.Layer:
    """The core writer's layer with every body, joint and collider authored from ``prims``."""
    layer = Sdf.Layer.CreateAnonymous("recorded.usda")
    author = writer._LayerWriter(scene, layer, nested=layout == "NESTED", isaac_schema=isaac)
    author.recorded_prims = prims
    with Sdf.ChangeBlock():
        author.write()
    return layer


def both_layouts(scene, what: str) -> None:
    """Direct and recorded, NESTED and FLAT, with and without the Isaac schema (one recording
    serves all four: it depends on the description alone)."""
    prims = writer.record_prims(scene)
    marks = marked(prims)
    for layout in writer.LAYOUTS:
        for isaac in (True, False):
            direct = writer.build_layer(scene, layout, isaac_schema=isaac).ExportToString()
            non_trivial(direct, scene)
            recorded = recorded_layer(scene, layout, isaac, prims).ExportToString()
            same_text(direct, recorded, f"{what} ({layout}, isaac_schema={isaac})", marks)


def onto_blender_like(scene, what: str, spoil=None) -> None:
    """``author_physics`` onto two copies of a Blender-like stage: without recordings (the body
    poses neither) and with what ``prepare_physics`` recorded (``spoil``: changes it first)."""
    prepared = physics_author.prepare_physics(scene)
    direct = dataclasses.replace(prepared, prims=None, body_poses=None, object_colors=None)
    marks = marked(prepared.prims, prepared.body_poses)
    if spoil:
        spoil(prepared.prims)
    texts = []
    for authored in (direct, prepared):
        stage, paths = blender_like_stage(scene)
        physics_author.author_physics(stage, scene, paths, prepared=authored)
        texts.append(stage.GetRootLayer().ExportToString())
    non_trivial(texts[0], scene)
    same_text(texts[0], texts[1], f"{what} authored onto a Blender-like stage", marks)


def fleet_of_chains(robots: int = 3, links: int = 6):
    """Fixed-base chains of box links with drives: what the export bench writes, smaller."""
    from bench.bench_usd_export import chain_scene

    return chain_scene(robots=robots, links=links)


@pytest.mark.parametrize("name", SAMPLES)
def test_samples_write_the_same_files(name):
    scene = getattr(samples, name)()
    both_layouts(scene, name)
    onto_blender_like(scene, name)


def test_fleets_write_the_same_files():
    both_layouts(_fixed_base_fleet(), "fleet of fingers")
    onto_blender_like(_fixed_base_fleet(), "fleet of fingers")
    both_layouts(fleet_of_chains(), "fleet of chains")
    onto_blender_like(fleet_of_chains(), "fleet of chains")


ROBOT_FILES = sorted(glob.glob(os.path.join(DATA, "*.xml")) + glob.glob(os.path.join(DATA, "*.urdf")))


@pytest.mark.parametrize("file", ROBOT_FILES, ids=os.path.basename)
def test_robot_files_write_the_same_files(file):
    if file.endswith(".xml"):
        from articula.core.mjcf.reader import read_mjcf as read
    else:
        from articula.core.urdf.reader import read_urdf as read
    result = read(file)
    both_layouts(getattr(result, "scene", result), os.path.basename(file))


@pytest.mark.parametrize("key", ROBOTS)
def test_corpus_round_trips_write_the_same_files(key):
    files = glob.glob(os.path.join(CORPUS, key, "*.usda"))
    if not files:
        pytest.skip(f"{key} not converted: run `make corpus` (needs .venv-converter)")
    scene = read_usd(files[0]).scene
    both_layouts(scene, key)
    # and once more from our own file, as a round trip reads it
    again = read_usd(Usd.Stage.Open(writer.build_layer(scene))).scene
    both_layouts(again, f"{key} read back")


def drop_last_property(recording) -> None:
    """The last property before its mark left out of ``recording``."""
    del recording.properties[-2]


@pytest.mark.parametrize("spoil, caught", [
    (lambda prims: drop_last_property(next(iter(prims.joints.values()))), "differs"),
    (lambda prims: drop_last_property(next(iter(prims.bodies.values()))), "differs"),
    (lambda prims: next(iter(prims.shapes.values())).schemas.remove("PhysicsCollisionAPI"), "differs"),
    (lambda prims: prims.joints.pop(next(iter(prims.joints))), "not every prim"),
], ids=["joint property dropped", "body property dropped", "collider schema dropped", "joint not recorded"])
def test_a_difference_is_caught(spoil, caught):
    """A recording that lost a spec, or a prim authored without its recording, fails the comparison
    (the tests can fail)."""
    scene = samples.robotic_finger()
    prims = writer.record_prims(scene)
    marks = marked(prims)
    spoil(prims)
    direct = writer.build_layer(scene).ExportToString()
    recorded = recorded_layer(scene, "NESTED", True, prims).ExportToString()
    with pytest.raises((pytest.fail.Exception, AssertionError), match=caught):
        same_text(direct, recorded, "robotic_finger, spoilt", marks)
    with pytest.raises((pytest.fail.Exception, AssertionError), match=caught):
        onto_blender_like(scene, "robotic_finger, spoilt", spoil)


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
