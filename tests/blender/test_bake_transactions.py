"""Bakes are transactions: a bake that blows up, is refused, fails or is cancelled leaves every
key, action, pose and the current frame as they were; Clear Bake keeps later edits (scale).

The modal bake is driven through :class:`operators.bake.BakeLoop` with synthetic events (the bpy
module never invokes operators), on the real :class:`BakeJob`.
"""

import sys
import time
from pathlib import Path

import bpy
import numpy as np
import pytest

from articula.addon.adapters import simulation_to_keyframes as bake_module
from articula.addon.adapters.description_to_blender import build_scene
from articula.core import samples
from articula.core.model import Body, JointType, PhysicsScene, Pose, Shape, ShapeKind, make_joint
from articula.core.transforms import pose_relative
from articula.operators import bake as bake_operators

sys.path.insert(0, str(Path(__file__).parent))
from authoring_helpers import reset_scene_settings  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_scene_settings(clean_scene):
    reset_scene_settings(clean_scene)
    clean_scene.render.fps, clean_scene.render.fps_base = 24, 1.0
    yield
    assert bake_operators.running() is None


def load(sample="pendulum", solver="FEATHERSTONE"):
    objects = build_scene(bpy.context, samples.SAMPLES[sample]())
    bpy.context.scene.articula.solver = solver
    return objects


def load_free():
    """The pendulum's link without its hinge: a free body, which a huge gravity throws away."""
    objects = load()
    bpy.data.objects.remove(objects.pop("pendulum_hinge"))
    bpy.context.scene.articula.ground_plane = False
    return objects


def fingerprint(scene):
    """Every action with every key, every object's transform, mode, action and slot, the frame."""
    actions = {}
    for action in bpy.data.actions:
        keys = []
        for layer in action.layers:
            for strip in layer.strips:
                for slot in action.slots:
                    bag = strip.channelbag(slot)
                    for curve in (bag.fcurves if bag else ()):
                        co = np.empty(2 * len(curve.keyframe_points), dtype=np.float32)
                        curve.keyframe_points.foreach_get("co", co)
                        keys.append((slot.identifier, curve.data_path, curve.array_index, co.tolist()))
        actions[action.name] = sorted(keys)
    objects = {}
    for obj in scene.objects:
        anim = obj.animation_data
        objects[obj.name] = (
            np.round(np.array(obj.matrix_basis), 6).tolist(), obj.rotation_mode,
            anim.action.name if anim and anim.action else None,
            anim.action_slot.identifier if anim and anim.action and anim.action_slot else None,
            obj.get(bake_module.PREBAKE).to_dict() if obj.get(bake_module.PREBAKE) else None)
    return {"frame": scene.frame_current, "actions": actions, "objects": objects}


def good_bake(scene):
    assert bpy.ops.articula.bake(frame_start=1, frame_end=20) == {"FINISHED"}
    scene.frame_set(15)
    before = fingerprint(scene)
    assert sum(len(k) for k in before["actions"].values()) == 7
    return before


def test_a_bake_that_blows_up_or_is_refused_leaves_the_earlier_bake_and_the_frame():
    scene = bpy.context.scene
    load_free()
    before = good_bake(scene)
    scene.articula.gravity = (0.0, 0.0, -1.0e12)  # the link flies off in the first frame
    with pytest.raises(RuntimeError, match="blew up at body 'pendulum_link'") as raised:
        bpy.ops.articula.bake(frame_start=1, frame_end=30)
    assert "Error:" not in str(raised.value).replace("Error: ", "", 1)  # one severity
    assert fingerprint(scene) == before
    scene.articula.gravity = (0.0, 0.0, -9.81)
    scene.articula.steps_per_second = 0.0
    with pytest.raises(RuntimeError, match="steps per second") as raised:
        bpy.ops.articula.bake(frame_start=1, frame_end=30)
    assert "ERROR" not in str(raised.value)
    assert fingerprint(scene) == before


def test_an_empty_range_and_a_first_bake_that_fails_change_nothing():
    scene = bpy.context.scene
    load_free()
    scene.frame_set(7)
    before = fingerprint(scene)
    with pytest.raises(RuntimeError, match="frame range"):
        bpy.ops.articula.bake(frame_start=10, frame_end=10)
    scene.articula.gravity = (0.0, 0.0, -1.0e12)
    with pytest.raises(RuntimeError, match="blew up"):
        bpy.ops.articula.bake(frame_start=1, frame_end=10)
    assert fingerprint(scene) == before
    assert bake_module.bake_action() is None


def test_a_cancelled_modal_bake_leaves_everything_as_it_was():
    scene = bpy.context.scene
    load()
    before = good_bake(scene)
    reports = []
    job = bake_module.BakeJob(bpy.context, 1, 40, "FEATHERSTONE", substeps=25)
    loop = bake_operators.BakeLoop(job, lambda kind, text: reports.append((kind, text)), None)
    assert loop.handle("MOUSEMOVE", "NOTHING") == "RUNNING"
    while job.frames_done < 3:
        assert loop.handle("TIMER", "NOTHING") == "RUNNING"
        time.sleep(0.005)
    assert 0.0 < job.fraction < 1.0
    assert loop.handle("ESC", "PRESS") == "CANCELLED"
    assert reports[-1] == ({"WARNING"}, "Bake cancelled; the scene is as it was")
    assert fingerprint(scene) == before
    assert job.wait(10.0)


def test_a_modal_bake_runs_to_the_end_and_replaces_the_earlier_one():
    scene = bpy.context.scene
    objects = load()
    good_bake(scene)
    old = bake_module.bake_action()
    finished = []
    job = bake_module.BakeJob(bpy.context, 1, 30, "FEATHERSTONE", substeps=5)
    loop = bake_operators.BakeLoop(job, print, lambda j: finished.append(j.finish()) or {"FINISHED"})
    for _ in range(20000):
        result = loop.handle("TIMER", "NOTHING")
        if result != "RUNNING":
            break
        time.sleep(0.002)
    assert result == "FINISHED" and len(finished) == 1
    assert [a.name for a in bpy.data.actions if a.get(bake_module.BAKE_MARK)] == [finished[0].name]
    assert old not in list(bpy.data.actions) if old is not None else True
    link = objects["pendulum_link"]
    bag = link.animation_data.action.layers[0].strips[0].channelbag(link.animation_data.action_slot)
    assert len(bag.fcurves[0].keyframe_points) == 30
    assert scene.frame_current == 15  # the frame the user was on


def test_clear_bake_restores_the_pose_and_keeps_a_later_scale():
    scene = bpy.context.scene
    objects = load()
    link = objects["pendulum_link"]
    authored = link.matrix_world.copy()
    assert bpy.ops.articula.bake(frame_start=1, frame_end=12) == {"FINISHED"}
    scene.frame_set(12)
    link.scale = (1.0, 2.0, 1.0)
    assert bpy.ops.articula.clear_bake() == {"FINISHED"}
    bpy.context.view_layer.update()
    assert tuple(link.scale) == pytest.approx((1.0, 2.0, 1.0))
    location, rotation, _ = link.matrix_world.decompose()
    expected_location, expected_rotation, _ = authored.decompose()
    assert np.allclose(location, expected_location, atol=1e-6)
    assert abs(rotation.dot(expected_rotation)) == pytest.approx(1.0, abs=1e-6)


def chain(links: int) -> PhysicsScene:
    """A fixed-base chain of ``links`` revolute links (boxes), hanging sideways: it swings."""
    scene = PhysicsScene(name="chain")
    parent = None
    for k in range(links):
        name = f"link{k:03d}"
        pose = Pose(pos=(0.1 * k, 0.0, 2.0))
        scene.bodies.append(Body(name=name, pose=pose, parent=parent))
        scene.shapes.append(Shape(name=f"{name}_box", kind=ShapeKind.BOX, body=name,
                                  half_extents=(0.045, 0.02, 0.02), collision_group=0))
        joint = make_joint(f"{name}_joint", JointType.REVOLUTE if parent else JointType.FIXED, parent, name,
                           axis="Y")
        joint.local_pose0 = pose_relative(scene.body(parent).pose, pose) if parent else pose
        if parent:
            joint.dofs[0].armature = 0.01
        scene.joints.append(joint)
        parent = name
    scene.settings.ground_plane = False
    return scene


def test_a_200_link_featherstone_bake_shows_an_estimate_soon_and_cancels_within_a_second():
    scene = bpy.context.scene
    build_scene(bpy.context, chain(200))
    scene.frame_set(3)
    before = fingerprint(scene)
    reports = []
    started = time.perf_counter()
    job = bake_module.BakeJob(bpy.context, 1, 250, "FEATHERSTONE", substeps=40)
    loop = bake_operators.BakeLoop(job, lambda kind, text: reports.append((kind, text)), None)
    assert "estimating" in loop.status()
    slowest_event = 0.0

    def timer():
        nonlocal slowest_event
        event_started = time.perf_counter()
        assert loop.handle("TIMER", "NOTHING") == "RUNNING"
        slowest_event = max(slowest_event, time.perf_counter() - event_started)
        time.sleep(0.01)

    while job.seconds_left() is None:
        timer()
        assert time.perf_counter() - started < 20.0, "no estimate in the first seconds"
    estimated = time.perf_counter() - started
    status = loop.status()
    assert "left" in status and "estimating" not in status, status
    assert job.seconds_left() > 60.0  # 250 frames x 40 steps of 200 links on a CPU
    for _ in range(5):
        timer()
    assert [k for k, t in reports if "will take about" in t] == [{"WARNING"}]  # once
    cancel_started = time.perf_counter()
    assert loop.handle("ESC", "PRESS") == "CANCELLED"
    cancelled = time.perf_counter() - cancel_started
    # The physics runs in a worker thread: no timer event waits for a physics step (~0.5-1 s for
    # 200 links on a busy 2-core CPU), so Esc is read within a timer interval and acts at once.
    print(f"estimate after {estimated:.2f} s; slowest timer event {slowest_event * 1e3:.0f} ms; "
          f"cancel {cancelled * 1e3:.1f} ms; steps {[round(t, 2) for t in job._step_times[:6]]}")
    assert slowest_event < 0.5 and cancelled < 0.2
    assert fingerprint(scene) == before
    assert job.wait(10.0)  # the step under way ends; its result is dropped
    assert fingerprint(scene) == before


def test_format_duration():
    assert bake_operators.format_duration(42.4) == "42 s"
    assert bake_operators.format_duration(125) == "2 min 05 s"
    assert bake_operators.format_duration(3 * 3600 + 60) == "3 h 01 min"


def test_the_operator_modal_shows_progress_and_status_and_ends_cleanly():
    """ARTICULA_OT_bake.modal/_show/_end on real Blender (window manager progress, workspace status
    text), with a stand-in for the operator instance the bpy module cannot create."""
    from types import SimpleNamespace

    scene = bpy.context.scene
    load()
    before = fingerprint(scene)
    op_cls = bake_operators.ARTICULA_OT_bake
    reports = []
    job = bake_module.BakeJob(bpy.context, 1, 10, "FEATHERSTONE", substeps=5)
    op = SimpleNamespace(_timer=None, waiting=None, report=lambda kind, text: reports.append((kind, text)))
    op.loop = bake_operators.BakeLoop(job, op.report, None)
    op._show = lambda context: op_cls._show(op, context)
    op._end = lambda context: op_cls._end(op, context)
    bpy.context.window_manager.progress_begin(0, 100)
    timer = SimpleNamespace(type="TIMER", value="NOTHING")
    assert op_cls.modal(op, bpy.context, timer) == {"RUNNING_MODAL"}
    assert "Baking frame" in op.loop.status() and "Esc cancel" in op.loop.status()
    assert op_cls.modal(op, bpy.context, SimpleNamespace(type="ESC", value="PRESS")) == {"CANCELLED"}
    assert bake_operators.running() is None
    assert fingerprint(scene) == before
    assert job.wait(10.0)
