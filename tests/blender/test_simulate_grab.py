"""Playing with the live Simulate: Ctrl+drag grabs a body, Shift+click pushes it, Record keeps it.

The bpy module has no 3D view to point into, so the modal loop (:class:`ModalLoop`, what
``modal()`` delegates to) is driven with synthetic mouse events carrying the world-space ray the
operator would compute from the view (:func:`mouse_ray`), on the real session and simulation.

The pendulum's bob (radius 0.05) starts at (0.5, 0, 1), its pivot at (0, 0, 1): a ray straight down
at x = 0.5 grabs the top of the bob 1.95 m below the ray's origin at z = 3.
"""

import sys
from pathlib import Path
from types import SimpleNamespace

import bpy
import numpy as np
import pytest
from mathutils import Vector

from articula.addon.adapters import simulation_to_keyframes as bake_module
from articula.addon.adapters.description_to_blender import build_scene
from articula.core import samples
from articula.operators import simulate as simulate_module
from articula.sim.mujoco_spec import MuJoCoSimulation

sys.path.insert(0, str(Path(__file__).parent))
from authoring_helpers import reset_scene_settings  # noqa: E402

DOWN = (0.0, 0.0, -1.0)
OVER_THE_BOB = ((0.5, 0.0, 3.0), DOWN)
#: Where the ray at x = 0.3 puts the target at the grab depth: on the bob's circle, swung up.
RAISED = ((0.3, 0.0, 3.4), DOWN)
RAISED_TARGET = np.array((0.3, 0.0, 1.45))


@pytest.fixture(autouse=True)
def fresh_scene_settings(clean_scene):
    reset_scene_settings(clean_scene)
    clean_scene.render.fps, clean_scene.render.fps_base = 24, 1.0
    clean_scene.frame_set(1)
    yield
    assert simulate_module.running() is None
    clean_scene.render.fps = 24  # a push test runs at 200 fps: later files expect Blender's default


def load(solver="FEATHERSTONE"):
    objects = build_scene(bpy.context, samples.SAMPLES["pendulum"]())
    bpy.context.scene.articula.solver = solver
    return objects


def press(loop, ray, ctrl=True, shift=False):
    return loop.handle("LEFTMOUSE", "PRESS", ray=ray, ctrl=ctrl, shift=shift)


def drag(loop, ray):
    return loop.handle("MOUSEMOVE", "NOTHING", ray=ray)


def release(loop, ray):
    return loop.handle("LEFTMOUSE", "RELEASE", ray=ray)


def bob(loop, row: int = 0) -> np.ndarray:
    """The top of the bob of body ``row`` (the grabbed point), world."""
    pose = loop.session.sim.body_poses()[row]
    return pose[:3] + _rotate(pose[3:], (0.5, 0.0, 0.05))


def _rotate(q, v):
    w, x, y, z = q
    u = np.array((x, y, z))
    v = np.asarray(v)
    return v + 2.0 * np.cross(u, np.cross(u, v) + w * v)


def no_force_left(sim) -> bool:
    if sim.wrenches:
        return False
    if isinstance(sim, MuJoCoSimulation):
        return not sim.mj_data.xfrc_applied.any()
    return not sim.state_0.body_f.numpy().any()


@pytest.mark.parametrize("solver", ["MUJOCO", "FEATHERSTONE", "XPBD"])
def test_a_grabbed_body_follows_the_mouse_under_the_cap_and_release_leaves_no_force(solver):
    load(solver)
    loop = simulate_module.start_loop(bpy.context)
    assert isinstance(loop.session.sim, MuJoCoSimulation) == (solver == "MUJOCO")  # MuJoCo's C library
    assert press(loop, OVER_THE_BOB) == "RUNNING" and loop.grabbing
    np.testing.assert_allclose(loop.grab.point, (0.5, 0.0, 1.05), atol=1e-3)
    assert drag(loop, RAISED) == "RUNNING"
    np.testing.assert_allclose(loop.grab.target, RAISED_TARGET, atol=1e-3)
    largest = 0.0
    for _ in range(24):
        assert loop.handle("TIMER") == "RUNNING"
        largest = max(largest, loop.grab.largest_force)
    assert np.linalg.norm(bob(loop) - RAISED_TARGET) < 0.1  # swung up to the mouse against gravity
    assert 0.0 < largest <= loop.grab.max_force * (1 + 1e-9)
    sim = loop.session.sim
    mass = sim.mj_model.body_mass.sum() if isinstance(sim, MuJoCoSimulation) \
        else sim.model.body_mass.numpy().sum()
    assert loop.grab.max_force == pytest.approx(5.0 * 9.81 * mass)  # the panel's default cap
    assert "Ctrl+drag grab" in loop.status()
    assert "Pulling 'pendulum_link'" in loop.status()
    assert release(loop, RAISED) == "RUNNING" and not loop.grabbing
    loop.handle("TIMER")
    assert no_force_left(loop.session.sim)
    for _ in range(12):
        loop.handle("TIMER")
    assert bob(loop)[2] < 1.2  # falls again: nothing holds it
    assert loop.handle("ESC") == "CANCELLED"


def test_the_cap_bounds_the_force_from_the_panel():
    load("MUJOCO")
    bpy.context.scene.articula.grab_max_acceleration = 0.5  # less than gravity: cannot hold it up
    loop = simulate_module.start_loop(bpy.context)
    press(loop, OVER_THE_BOB)
    drag(loop, RAISED)
    forces = []
    for _ in range(12):
        loop.handle("TIMER")
        forces.append(loop.grab.largest_force)
    cap = loop.grab.max_force
    assert max(forces) == pytest.approx(cap)  # pulled as hard as allowed, never harder
    assert bob(loop)[2] < 1.0  # too weak to lift it
    loop.handle("ESC")


def test_a_kinematic_body_is_refused_and_the_status_bar_says_so():
    objects = load()
    objects["pendulum_link"].articula.body.kinematic = True
    objects["pendulum_hinge"].articula.joint.enabled = False
    loop = simulate_module.start_loop(bpy.context)
    assert press(loop, OVER_THE_BOB) == "RUNNING"
    assert not loop.grabbing and not loop.session.sim.wrenches
    assert "'pendulum_link' is kinematic" in loop.status()
    assert press(loop, ((5.0, 5.0, 3.0), (0.0, 0.0, 1.0))) == "PASS_THROUGH"  # nothing there: selection
    assert loop.handle("MOUSEMOVE", "NOTHING", ray=None) == "PASS_THROUGH"
    loop.handle("ESC")


def test_shift_click_pushes_along_the_view_ray():
    load("MUJOCO")
    loop = simulate_module.start_loop(bpy.context)
    assert press(loop, OVER_THE_BOB, ctrl=False, shift=True) == "RUNNING"  # down, at the bob
    assert not loop.grabbing
    loop.handle("TIMER")
    # 1 m/s down from the push (the panel's default) on top of 0.41 m/s of one frame's fall.
    assert loop.session.sim.body_velocities()[0, 2] < -0.9
    assert no_force_left(loop.session.sim)
    loop.handle("ESC")


def local_pose(obj):
    return np.array(obj.location), np.array(obj.rotation_quaternion)


def test_a_recording_keys_the_live_poses_frame_by_frame_and_keeps_the_rest():
    objects = load("MUJOCO")
    link = objects["pendulum_link"]
    bpy.context.scene.articula.record_simulation = True
    loop = simulate_module.start_loop(bpy.context, record=True)
    rest = (tuple(link.articula.body.rest_location), tuple(link.articula.body.rest_rotation))
    assert rest[0] == pytest.approx((0.0, 0.0, 1.0))  # the pivot: the pose it started from
    live = [local_pose(link)]
    press(loop, OVER_THE_BOB)
    drag(loop, RAISED)
    for frame in range(10):
        if frame == 5:
            release(loop, RAISED)
        loop.handle("TIMER")
        live.append(local_pose(link))
    assert "recording 11 frames" in loop.status()
    assert loop.handle("RET") == "FINISHED"
    action = bake_module.bake_action()
    assert action is not None and link.animation_data.action == action
    scene = bpy.context.scene
    for i, (location, rotation) in enumerate(live):
        scene.frame_set(1 + i)
        np.testing.assert_allclose(link.location, location, atol=1e-5)
        assert abs(np.dot(link.rotation_quaternion, rotation)) == pytest.approx(1.0, abs=1e-5)
    assert (tuple(link.articula.body.rest_location), tuple(link.articula.body.rest_rotation)) == rest
    assert not link.articula.body.posed  # the keys show the motion, the rest did not move


def test_esc_discards_the_recording_and_an_earlier_bake_survives():
    objects = load("MUJOCO")
    link = objects["pendulum_link"]
    assert bpy.ops.articula.bake(frame_start=1, frame_end=6) == {"FINISHED"}
    earlier = bake_module.bake_action()
    curve = earlier.layers[0].strips[0].channelbags[0].fcurves[0]
    keys = [tuple(p.co) for p in curve.keyframe_points]
    bpy.context.scene.frame_set(3)
    shown = link.matrix_world.copy()
    loop = simulate_module.start_loop(bpy.context, record=True)
    press(loop, OVER_THE_BOB)
    drag(loop, RAISED)
    for _ in range(5):
        loop.handle("TIMER")
    assert loop.handle("ESC") == "CANCELLED"
    assert bake_module.bake_action() == earlier and link.animation_data.action == earlier
    assert [tuple(p.co) for p in curve.keyframe_points] == keys
    assert bpy.context.scene.frame_current == 3
    bpy.context.view_layer.update()
    assert np.allclose(np.array(link.matrix_world), np.array(shown), atol=1e-6)
    assert not link.articula.body.posed


def test_stopping_removes_the_pull_line_draw_handler():
    context = bpy.context
    load()
    # What invoke() sets up (the bpy module cannot invoke): the operator's own methods on its state.
    operator = simulate_module.ARTICULA_OT_simulate
    loop = simulate_module.start_loop(context)
    draw = bpy.types.SpaceView3D.draw_handler_add(simulate_module.draw_pull, (loop,), "WINDOW", "POST_VIEW")
    timer = context.window_manager.event_timer_add(1.0, window=None)
    running = SimpleNamespace(loop=loop, _draw=draw, _timer=timer)
    simulate_module.draw_pull(loop)  # nothing held: nothing to draw
    press(loop, OVER_THE_BOB)
    assert operator.modal.__name__ == "modal"
    simulate_module._RUNNING = running
    loop.handle("ESC")
    operator._finish(running, context)
    assert simulate_module.running() is None and not loop.session.sim.wrenches
    with pytest.raises(ValueError):  # already removed: no handler left drawing a dead loop
        bpy.types.SpaceView3D.draw_handler_remove(draw, "WINDOW")


def test_modal_grabs_drags_and_releases_with_the_ray_under_the_mouse():
    """``modal()`` itself on mouse events: the ray comes from ``ray_source`` (the view's ray in
    Blender, :func:`mouse_ray`; here the pendulum's rays, as there is no view to point into)."""
    context = bpy.context
    load("FEATHERSTONE")
    operator = simulate_module.ARTICULA_OT_simulate
    rays = {"PRESS": OVER_THE_BOB, "NOTHING": RAISED, "RELEASE": RAISED}
    running = SimpleNamespace(loop=simulate_module.start_loop(context), request=None, waiting=None,
                              ray_source=lambda context, event: rays[event.value])
    assert simulate_module.mouse_ray(context, SimpleNamespace(mouse_region_x=0, mouse_region_y=0)) is None

    def modal(event_type, value, ctrl=False):
        event = SimpleNamespace(type=event_type, value=value, ctrl=ctrl, shift=False)
        return operator.modal(running, context, event)

    assert modal("LEFTMOUSE", "PRESS", ctrl=True) == {"RUNNING_MODAL"}
    assert running.loop.grabbing
    assert modal("MOUSEMOVE", "NOTHING") == {"RUNNING_MODAL"}
    np.testing.assert_allclose(running.loop.grab.target, RAISED_TARGET, atol=1e-3)
    assert modal("TIMER", "NOTHING") == {"RUNNING_MODAL"}
    assert modal("LEFTMOUSE", "RELEASE") == {"RUNNING_MODAL"}
    assert not running.loop.grabbing and not running.loop.session.sim.wrenches
    assert modal("LEFTMOUSE", "PRESS") == {"PASS_THROUGH"}  # a plain click selects as usual
    running.loop.handle("ESC")


def test_with_replicas_only_replica_0_is_grabbed():
    load("FEATHERSTONE")
    scene = bpy.context.scene
    scene.articula.replicas, scene.articula.replica_spacing = 2, 2.0  # replica 1 at x + 2 m
    loop = simulate_module.start_loop(bpy.context)
    assert loop.session.sim.replicas == 2
    assert press(loop, ((2.5, 0.0, 3.0), DOWN)) == "PASS_THROUGH"  # replica 1's bob: not grabbed
    assert not loop.grabbing
    assert press(loop, OVER_THE_BOB) == "RUNNING" and loop.grabbing
    assert loop.session.sim.body_keys[loop.grab.row] == ("pendulum_link", 0)
    drag(loop, RAISED)
    for _ in range(24):
        loop.handle("TIMER")
    assert np.linalg.norm(bob(loop) - RAISED_TARGET) < 0.1
    assert bob(loop, 1)[2] < 0.9  # replica 1 fell as it would untouched
    loop.handle("ESC")


def test_a_recording_with_replicas_keys_replica_0_and_bakes_the_others_as_instances():
    objects = load("FEATHERSTONE")
    scene = bpy.context.scene
    scene.articula.replicas = 2
    loop = simulate_module.start_loop(bpy.context, record=True)
    press(loop, OVER_THE_BOB)
    drag(loop, RAISED)
    for _ in range(6):
        loop.handle("TIMER")
    assert loop.handle("RET") == "FINISHED"
    assert objects["pendulum_link"].animation_data.action == bake_module.bake_action()
    assert loop.recording.points.shape[:2] == (7, 1)  # replica 1's body, each frame
    assert bpy.ops.articula.clear_bake() == {"FINISHED"}
    assert bake_module.bake_action() is None


# --- real robots: a light link and a heavy one both follow the grab, a push gives the speed asked ----

GYMNASIUM = Path(__file__).resolve().parents[2] / ".venv-converter" / "lib" / "python3.12" / "site-packages" \
    / "gymnasium" / "envs" / "mujoco" / "assets"
SOLVERS = ["MUJOCO", "FEATHERSTONE", "XPBD"]
#: (gymnasium file, body, where on it the ray comes down, in its frame, bodies the hit may name): a
#: humanoid's 0.26 kg wrist (its hand) and 8 kg torso; a fixed-base arm's fingertip (pusher's finger
#: pad: the ray meets the finger's capsule, on the wrist roll link, before the tip's own small sphere).
LINKS = {
    "humanoid wrist": ("humanoid.xml", "right_lower_arm", (0.18, 0.18, 0.18), {"right_lower_arm"}),
    "humanoid torso": ("humanoid.xml", "torso", (0.0, 0.0, 0.0), {"torso"}),
    "arm fingertip": ("pusher.xml", "tips_arm", (0.1, -0.1, 0.0), {"tips_arm", "r_wrist_roll_link"}),
}
LIFT = np.array((0.0, 0.0, 0.3))


def gym_robot(file: str):
    path = GYMNASIUM / file
    if not path.is_file():
        pytest.skip("gymnasium's robots come with the converter venv (`make corpus`)")
    assert bpy.ops.articula.import_mjcf(filepath=str(path)) == {"FINISHED"}
    bpy.context.view_layer.update()


def ray_down_at(body: str, local) -> tuple:
    """A ray straight down onto the point ``local`` of ``body`` (in its frame), from 1 m above it."""
    point = np.array(bpy.context.scene.objects[body].matrix_world @ Vector(local))
    return point + (0.0, 0.0, 1.0), np.array(DOWN)


def grabbed_point(loop, row: int, local) -> np.ndarray:
    pose = loop.session.sim.body_poses()[row]
    return pose[:3] + _rotate(pose[3:], local)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("link", list(LINKS))
def test_a_grab_on_a_light_and_a_heavy_real_link_pulls_it_at_least_half_way(solver, link):
    """Ctrl+drag 0.3 m up for half a second: the grabbed point ends within half of it from the target."""
    file, body, local, hit_bodies = LINKS[link]
    gym_robot(file)
    start, down = ray_down_at(body, local)
    loop = simulate_module.start_loop(bpy.context, solver=solver)
    assert press(loop, (start, down)) == "RUNNING" and loop.grabbing
    assert loop.session.sim.body_keys[loop.grab.row][0] in hit_bodies
    pose = loop.session.sim.body_poses()[loop.grab.row]
    on_body = _rotate(pose[3:] * (1.0, -1.0, -1.0, -1.0), loop.grab.point - pose[:3])  # in its frame
    target = loop.grab.point + LIFT
    drag(loop, (start + LIFT, down))
    np.testing.assert_allclose(loop.grab.target, target, atol=1e-6)
    for _ in range(12):
        assert loop.handle("TIMER") == "RUNNING"
    left = np.linalg.norm(grabbed_point(loop, loop.grab.row, on_body) - target)
    assert left < 0.5 * np.linalg.norm(LIFT), f"{link} on {solver}: {left:.3f} m of 0.3 m left"
    assert loop.grab.largest_force <= loop.grab.max_force * (1 + 1e-9)
    loop.handle("ESC")


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("link", ["humanoid wrist", "arm fingertip"])
def test_a_push_gives_a_real_light_link_the_speed_asked(solver, link):
    """Shift+click on the link: the point pushed moves at the panel's push speed along the view ray
    over the next frame's step (5 ms or the file's step; not the whole robot's mass landing on one link)."""
    file, body, local, hit_bodies = LINKS[link]
    gym_robot(file)
    scene = bpy.context.scene
    scene.render.fps = 200  # one frame: 5 ms, a single physics step of the scene's 200 steps/s or more
    scene.articula.push_speed = 1.0
    start, down = ray_down_at(body, local)
    loop = simulate_module.start_loop(bpy.context, solver=solver)
    hit = loop.grab.hit(start, down)
    assert hit.body in hit_bodies
    pose = loop.session.sim.body_poses()[hit.row]
    on_body = _rotate(pose[3:] * (1.0, -1.0, -1.0, -1.0), hit.point - pose[:3])
    sim = loop.session.sim
    before, time = grabbed_point(loop, hit.row, on_body), sim.time
    assert press(loop, (start, down), ctrl=False, shift=True) == "RUNNING" and not loop.grabbing
    loop.handle("TIMER")
    velocity = (grabbed_point(loop, hit.row, on_body) - before) / (sim.time - time)
    assert -velocity[2] == pytest.approx(1.0, rel=0.25), f"{link} on {solver}: {velocity}"
    loop.handle("ESC")
