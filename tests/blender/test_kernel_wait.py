"""Simulate and Bake wait for a first run's Warp kernels without freezing Blender (addon.kernel_wait).

The modal wait is driven through :class:`addon.kernel_wait.KernelWait` with synthetic events (the
bpy module never invokes operators), on a real build on a worker thread. The kernels' "built" marker
is kept in a temporary folder, so each test starts from kernels not marked built; Warp's own cache
keeps the build itself to seconds.
"""

import os
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import bpy
import pytest

from articula.addon.adapters.description_to_blender import build_scene
from articula.addon.kernel_wait import CANCELLED, PASS_THROUGH, READY, WAITING, KernelWait
from articula.core import samples
from articula.operators import bake as bake_operators
from articula.operators import simulate as simulate_module
from articula.sim import simulation

sys.path.insert(0, str(Path(__file__).parent))
from authoring_helpers import reset_scene_settings  # noqa: E402


@pytest.fixture
def unbuilt(clean_scene, tmp_path, monkeypatch):
    reset_scene_settings(clean_scene)
    monkeypatch.setattr(simulation, "_kernel_marker",
                        lambda solver, device: os.path.join(tmp_path, f"{solver.value}-{device}.built"))
    build_scene(bpy.context, samples.pendulum())
    clean_scene.articula.solver = "FEATHERSTONE"
    return clean_scene


class Reports(list):
    def __call__(self, kind, text):
        self.append((next(iter(kind)), text))


def test_a_first_run_waits_for_the_kernels_and_then_bakes(unbuilt):
    reports = Reports()
    wait = KernelWait.needed(bpy.context, "SCENE", reports)
    assert wait is not None
    assert "Featherstone solver's Warp kernels" in wait.status() and "Esc" in wait.status()
    assert wait.handle("MOUSEMOVE") == PASS_THROUGH  # Blender keeps its events meanwhile
    assert wait.handle("TIMER") in (WAITING, READY)
    assert wait.build.wait(timeout=600)
    assert wait.handle("TIMER") == READY and not reports
    assert KernelWait.needed(bpy.context, "SCENE", reports) is None  # built: the next run starts at once
    assert bpy.ops.articula.bake(frame_start=1, frame_end=5) == {"FINISHED"}
    assert bpy.data.objects["pendulum_link"].animation_data.action is not None


def test_esc_stops_waiting_and_leaves_the_scene_as_it_was(unbuilt):
    reports = Reports()
    wait = KernelWait.needed(bpy.context, "FEATHERSTONE", reports)
    assert wait.handle("ESC") == CANCELLED
    assert reports[0][0] == "WARNING" and "go on building in the background" in reports[0][1]
    assert all(o.animation_data is None for o in unbuilt.objects)
    assert wait.build.wait(timeout=600)  # the build went on: the next run needs no wait
    assert KernelWait.needed(bpy.context, "FEATHERSTONE", reports) is None


def stand_in(operator_class, **state):
    """The operator's own methods on a plain state (the bpy module cannot create operators)."""
    op = SimpleNamespace(**state)
    for name, member in vars(operator_class).items():
        if callable(member) and not name.startswith("__") and name not in ("modal", "invoke", "execute"):
            setattr(op, name, (lambda function: lambda *args, **kwargs: function(op, *args, **kwargs))(member))
    return op


def event(kind: str, value: str = "NOTHING"):
    return SimpleNamespace(type=kind, value=value, ctrl=False, shift=False)


TIMER, MOUSE = event("TIMER"), event("MOUSEMOVE")


def test_the_bake_operator_waits_for_the_kernels_then_bakes(unbuilt):
    operator = bake_operators.ARTICULA_OT_bake
    reports = Reports()
    op = stand_in(operator, _timer=None, loop=None, report=reports, solver="SCENE", substeps=0,
                  frame_start=1, frame_end=5)
    op.waiting = KernelWait.needed(bpy.context, op.solver, op.report)  # what invoke() does
    bake_operators._RUNNING = op
    bpy.context.window_manager.progress_begin(0, 100)
    assert operator.modal(op, bpy.context, MOUSE) == {"PASS_THROUGH"}
    assert op.waiting.build.wait(timeout=600)
    assert operator.modal(op, bpy.context, TIMER) == {"RUNNING_MODAL"}  # built: the bake starts
    assert op.waiting is None and op.loop is not None
    result = {"RUNNING_MODAL"}
    for _ in range(6000):
        result = operator.modal(op, bpy.context, TIMER)
        if result != {"RUNNING_MODAL"}:
            break
        time.sleep(0.01)
    assert result == {"FINISHED"} and bake_operators.running() is None
    assert bpy.data.objects["pendulum_link"].animation_data.action is not None


def test_the_simulate_operator_waits_for_the_kernels_and_esc_leaves_the_scene(unbuilt):
    operator = simulate_module.ARTICULA_OT_simulate
    link = bpy.data.objects["pendulum_link"]
    before = link.matrix_world.copy()
    reports = Reports()
    op = stand_in(operator, _timer=None, _draw=None, loop=None, request=None, report=reports, solver="SCENE",
                  ray_source=lambda context, event: None)
    op.waiting = KernelWait.needed(bpy.context, op.solver, op.report)
    op._timer = bpy.context.window_manager.event_timer_add(0.1, window=None)
    simulate_module._RUNNING = op
    assert operator.modal(op, bpy.context, MOUSE) == {"PASS_THROUGH"}
    assert op.waiting.build.wait(timeout=600)
    assert operator.modal(op, bpy.context, TIMER) == {"RUNNING_MODAL"}  # built: the simulation starts
    assert op.waiting is None and op.loop is not None and op._draw is not None
    operator.modal(op, bpy.context, TIMER)
    assert operator.modal(op, bpy.context, event("ESC", "PRESS")) == {"CANCELLED"}
    assert simulate_module.running() is None and op._timer is None and op._draw is None
    bpy.context.view_layer.update()
    assert link.matrix_world == before


def test_cancel_while_waiting_ends_the_simulate_operator(unbuilt):
    operator = simulate_module.ARTICULA_OT_simulate
    op = stand_in(operator, _timer=None, _draw=None, loop=None, request="CANCEL", report=Reports(), solver="SCENE")
    op.waiting = KernelWait.needed(bpy.context, op.solver, op.report)
    simulate_module._RUNNING = op
    assert operator.modal(op, bpy.context, MOUSE) == {"CANCELLED"}  # the panel's Cancel button
    assert simulate_module.running() is None and op.report[0][0] == "WARNING"
    assert all(o.animation_data is None for o in unbuilt.objects)
    op.waiting.build.wait(timeout=600)
