"""articula.simulate on real Blender objects: write-back, modal keys, ESC restores, blow-ups.

The bpy module never invokes operators (``bpy.ops`` always executes), so the modal loop's logic
(:class:`ModalLoop`, what ``modal()`` delegates to) is driven with synthetic event names on the
real session; ``execute`` is tested through ``bpy.ops``.
"""

import math
import sys
from types import SimpleNamespace
from pathlib import Path

import bpy
import numpy as np
import pytest

from articula.addon.adapters.description_to_blender import build_scene
from articula.core import samples
from articula.addon.simulation_session import BlenderSimulation
from articula.core.model import Pose
from articula.operators import simulate as simulate_module

sys.path.insert(0, str(Path(__file__).parent))
from authoring_helpers import reset_scene_settings  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_scene_settings(clean_scene):
    reset_scene_settings(clean_scene)
    yield
    assert simulate_module.running() is None


def load(context, sample, solver="FEATHERSTONE"):
    desc = samples.SAMPLES[sample]()
    objects = build_scene(context, desc)
    context.scene.articula.solver = solver
    return desc, objects


def world_matrices(objects):
    return {name: obj.matrix_world.copy() for name, obj in objects.items()}


def start_modal(context, solver="FEATHERSTONE"):
    return simulate_module.ModalLoop(BlenderSimulation(context, solver))


def test_write_back_puts_parented_bodies_at_their_simulated_world_poses():
    context = bpy.context
    desc, objects = load(context, "six_dof_arm")
    session = BlenderSimulation(context, "FEATHERSTONE")
    for _ in range(6):
        session.advance_frame()
    context.view_layer.update()
    poses = session.sim.body_poses()
    assert session.sim.time == pytest.approx(6 / 24, abs=1e-6)
    moved = 0.0
    for row, name in enumerate(session.sim.body_names):
        matrix = objects[name].matrix_world
        location, rotation, _ = matrix.decompose()
        assert np.allclose(location, poses[row, :3], atol=1e-5), name
        assert abs(np.dot(rotation, poses[row, 3:])) == pytest.approx(1.0, abs=1e-5), name
        assert objects[name].rotation_mode == "QUATERNION"
        moved = max(moved, abs(np.dot(rotation, desc.body(name).pose.rot)))
    # The drives swung the arm: some body's rotation differs from the start.
    assert min(abs(np.dot(objects[n].matrix_world.to_quaternion(), desc.body(n).pose.rot))
               for n in session.sim.body_names) < 0.999


def test_modal_keys_pause_step_keep():
    context = bpy.context
    _, objects = load(context, "pendulum")
    loop = start_modal(context)
    link = objects["pendulum_link"]
    assert loop.handle("TIMER") == "RUNNING"
    assert loop.session.sim.steps == 25  # 600 steps/s at 24 fps
    assert "steps/s" in loop.status()
    assert loop.handle("SPACE") == "RUNNING" and loop.paused
    loop.handle("TIMER")
    assert loop.session.sim.steps == 25  # paused: timers do nothing
    assert "paused" in loop.status()
    loop.handle("RIGHT_ARROW")
    assert loop.session.sim.steps == 50  # single step of one frame
    assert loop.handle("MOUSEMOVE", "NOTHING") == "PASS_THROUGH"
    context.view_layer.update()
    kept = link.matrix_world.copy()
    assert not link.articula.body.posed
    assert loop.handle("RET") == "FINISHED"
    context.view_layer.update()
    assert link.matrix_world == kept
    assert link.articula.body.posed  # a state: the rest stays where it was
    assert tuple(link.articula.body.rest_location) == pytest.approx((0.0, 0.0, 1.0))


def test_escape_restores_the_starting_poses_and_frame():
    context = bpy.context
    _, objects = load(context, "quadruped")
    before = world_matrices(objects)
    modes = {name: obj.rotation_mode for name, obj in objects.items()}
    frame = context.scene.frame_current
    loop = start_modal(context)
    for _ in range(5):
        loop.handle("TIMER")
    context.view_layer.update()
    assert objects["torso"].matrix_world != before["torso"]
    assert loop.handle("ESC") == "CANCELLED"
    context.view_layer.update()
    for name, obj in objects.items():
        assert np.allclose(np.array(obj.matrix_world), np.array(before[name]), atol=1e-6), name
        assert obj.rotation_mode == modes[name]
        assert not obj.articula.body.posed  # Esc: back at rest, no state kept
    assert context.scene.frame_current == frame


def test_button_requests_pause_and_cancel():
    context = bpy.context
    load(context, "pendulum")
    loop = start_modal(context)
    loop.handle("TIMER", request="PAUSE")
    loop.handle("TIMER")
    assert loop.paused and loop.session.sim.steps == 0
    loop.handle("TIMER", request="STEP")
    assert loop.session.sim.steps == 25
    assert loop.handle("TIMER", request="CANCEL") == "CANCELLED"
    assert not bpy.ops.articula.simulate_control.poll()  # nothing running to control


def test_blow_up_stops_restores_and_names_the_body():
    context = bpy.context
    _, objects = load(context, "pendulum")
    before = objects["pendulum_link"].matrix_world.copy()
    loop = start_modal(context)
    loop.handle("TIMER")
    sim = loop.session.sim
    sim.state_0.joint_q.assign(np.full(sim.model.joint_coord_count, np.nan))
    assert loop.handle("TIMER") == "CANCELLED"
    assert "pendulum_link" in loop.error
    context.view_layer.update()
    assert np.allclose(np.array(objects["pendulum_link"].matrix_world), np.array(before), atol=1e-6)


def test_execute_simulates_frames_and_keeps_them():
    context = bpy.context
    _, objects = load(context, "pendulum")
    before = objects["pendulum_link"].matrix_world.copy()
    assert bpy.ops.articula.simulate(frames=12, solver="MUJOCO") == {"FINISHED"}
    context.view_layer.update()
    assert objects["pendulum_link"].matrix_world != before


def test_scene_without_bodies_is_refused_with_a_message():
    with pytest.raises(RuntimeError, match="no object is a physics body"):
        bpy.ops.articula.simulate("EXEC_DEFAULT")


def test_kinematic_body_follows_its_animation_and_carries_its_child():
    context = bpy.context
    scene = context.scene
    desc, objects = load(context, "six_dof_arm")
    base = objects["arm_base"]
    base.articula.body.kinematic = True
    for joint in desc.joints:  # the base is animated, not jointed to the world
        if joint.body0 is None:
            objects[joint.name].articula.joint.enabled = False
    base.location = (0.0, 0.0, 0.05)
    base.keyframe_insert("location", frame=1)
    base.location = (1.0, 0.0, 0.05)
    base.keyframe_insert("location", frame=25)
    scene.frame_set(1)
    session = BlenderSimulation(context, "FEATHERSTONE")
    for _ in range(24):
        session.advance_frame()
    context.view_layer.update()
    assert scene.frame_current == 25
    assert base.matrix_world.translation.x == pytest.approx(1.0, abs=1e-5)
    shoulder = objects["shoulder_pan_link"].matrix_world.translation
    assert shoulder.x == pytest.approx(1.0, abs=5e-3)  # carried: its joint sits on the base
    session.restore()
    assert scene.frame_current == 1


def test_animated_drive_target_is_followed_frame_by_frame():
    context = bpy.context
    scene = context.scene
    _, objects = load(context, "six_dof_arm")  # joint_1's own target: +0.3 rad
    joint = objects["joint_1"]
    path = "articula.joint.dofs[0].target_position"
    joint.articula.joint.dofs[0].target_position = 0.0
    joint.keyframe_insert(path, frame=1)
    joint.articula.joint.dofs[0].target_position = -1.0
    joint.keyframe_insert(path, frame=13)
    scene.frame_set(1)
    session = BlenderSimulation(context, "FEATHERSTONE")
    assert [(obj.name, index, key) for obj, index, key in session.animation.targets] == \
        [("joint_1", 0, ("joint_1", "rotZ"))]
    for _ in range(24):
        session.advance_frame()
    assert session.sim.joint_positions()[("joint_1", "rotZ")] == pytest.approx(-1.0, abs=0.1)
    session.restore()


def test_disabling_while_running_restores_and_frees_the_running_slot():
    context = bpy.context
    _, objects = load(context, "pendulum")
    link = objects["pendulum_link"]
    before = link.matrix_world.copy()
    # What invoke() sets up (the bpy module cannot invoke): the operator's own methods on its state.
    operator = simulate_module.ARTICULA_OT_simulate
    running = SimpleNamespace(loop=start_modal(context),
                              _timer=context.window_manager.event_timer_add(1.0, window=None))
    running._draw = bpy.types.SpaceView3D.draw_handler_add(simulate_module.draw_pull, (running.loop,), "WINDOW",
                                                           "POST_VIEW")
    running.cancel = lambda ctx: operator.cancel(running, ctx)
    running._finish = lambda ctx: operator._finish(running, ctx)
    simulate_module._RUNNING = running
    running.loop.handle("TIMER")
    try:
        simulate_module.unregister()
    finally:
        if simulate_module.running() is not None:
            simulate_module._RUNNING = None
        simulate_module.register()
    context.view_layer.update()
    assert simulate_module.running() is None
    assert link.matrix_world == before


SEVERITY_WORDS = ("ERROR", "WARNING", "Error", "Warning")


def one_severity(message: str) -> bool:
    """Blender adds one 'Error: ' in front of the report; nothing else may name a severity."""
    return not any(word in message.replace("Error: ", "", 1) for word in SEVERITY_WORDS) and ".py" not in message \
        and ".cpp" not in message


def test_refused_simulate_and_bake_reports_carry_one_severity_and_name_the_object():
    context = bpy.context
    _, objects = load(context, "pendulum")
    context.scene.articula.steps_per_second = 0.0
    for operator in (bpy.ops.articula.simulate, bpy.ops.articula.bake):
        with pytest.raises(RuntimeError, match="steps per second") as raised:
            operator()
        assert one_severity(str(raised.value)), str(raised.value)
    context.scene.articula.steps_per_second = 600.0
    objects["pendulum_link"].scale = (1.0, 2.0, 1.0)
    for operator in (bpy.ops.articula.simulate, bpy.ops.articula.bake):
        with pytest.raises(RuntimeError, match="pendulum_link: body has non-uniform scale") as raised:
            operator()
        assert one_severity(str(raised.value)), str(raised.value)
