"""Through the operators: a robot a solver cannot hold is refused before anything
is simulated, with the reason, and the scene stays as it was; a robot Articula repairs for Featherstone
(armature on a light link, joints started inside their limits) bakes."""

import sys
from pathlib import Path

import bpy
import numpy as np
import pytest

from articula.addon.adapters import simulation_to_keyframes as bake_module
from articula.operators import bake as bake_operators

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))
from authoring_helpers import reset_scene_settings  # noqa: E402
from robot_files import mujoco_robot  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_scene_settings(clean_scene):
    reset_scene_settings(clean_scene)
    clean_scene.render.fps, clean_scene.render.fps_base = 24, 1.0
    yield
    assert bake_operators.running() is None


def import_robot(name: str):
    assert bpy.ops.articula.import_mjcf(filepath=mujoco_robot(name)) == {"FINISHED"}


def fingerprint(scene):
    """Every object's transform and animation, and the frame."""
    return {"frame": scene.frame_current, "actions": sorted(a.name for a in bpy.data.actions),
            "objects": {o.name: (np.round(np.array(o.matrix_basis), 6).tolist(),
                                 bool(o.animation_data and o.animation_data.action)) for o in scene.objects}}


def test_a_robot_a_solver_cannot_hold_is_refused_by_bake_and_simulate_and_nothing_changes():
    scene = bpy.context.scene
    import_robot("humanoid_CMU")  # dm_control's: diverged on XPBD at every substep count, as in Newton's own
    scene.articula.ground_plane = True
    scene.articula.solver = "XPBD"
    scene.frame_set(3)
    before = fingerprint(scene)
    with pytest.raises(RuntimeError, match=r"needs MuJoCo, or Featherstone: floating robot"):
        bpy.ops.articula.bake(frame_start=1, frame_end=10)
    assert fingerprint(scene) == before
    with pytest.raises(RuntimeError, match=r"Cannot simulate: .*needs MuJoCo"):
        bpy.ops.articula.simulate(frames=4)
    assert fingerprint(scene) == before


def bake_on_featherstone(frames: int, ground: bool = False) -> tuple[list[str], list]:
    """Bakes the imported robot on Featherstone through the bake job: its notes, and the objects it keyed
    (every one finite at the last frame)."""
    scene = bpy.context.scene
    scene.articula.ground_plane = ground
    scene.articula.solver = "FEATHERSTONE"
    job = bake_module.BakeJob(bpy.context, 1, frames, "FEATHERSTONE", substeps=0)
    notes = job.session.sim.notes
    assert job.run()
    job.finish()
    moved = [o for o in scene.objects if o.animation_data and o.animation_data.action]
    scene.frame_set(frames)
    assert all(np.isfinite(np.array(o.matrix_world)).all() for o in moved)
    return notes, moved


def test_a_robot_repaired_for_featherstone_bakes_and_says_what_was_repaired():
    import_robot("jaco")  # robosuite's: a 1e-6 kg*m^2 last link, three joints starting outside limits
    notes, moved = bake_on_featherstone(8)
    assert any("armature added" in n and "j2s7s300_joint_7" in n for n in notes), notes
    assert any("starts it at its nearest limit" in n for n in notes), notes
    assert len(moved) >= 7


def test_dm_controls_dog_bakes_on_featherstone_with_its_coupled_shoulder_hinges_repaired():
    import_robot("dog")  # each damped scapula/shoulder hinge held the step alone; together they diverged
    notes, moved = bake_on_featherstone(6, ground=True)
    assert any("armature added" in n and "'shoulder_L_supinate'" in n for n in notes), notes
    assert len(moved) >= 40
