"""Must show: a MuJoCo camera that tracks a body (``mode="targetbody"``/``"targetbodycom"`` with a
``target``) looks at that body in Blender (a Track To to the target's object), in the viewport and in
a baked animation, and the MJCF export writes its mode, target and authored pose back (the pose the
file gave it, not the one the constraint turns it to).

MuJoCo Warp's ``pendula.xml`` has world cameras in both target-body modes, aimed at its ``body``.
"""

import importlib.util
import math
from pathlib import Path

import bpy
import numpy as np
import pytest
from mathutils import Vector

from articula.addon.properties.camera_props import TRACK_CONSTRAINT

mujoco = pytest.importorskip("mujoco")

PENDULA = Path(importlib.util.find_spec("mujoco_warp").origin).parent / "test_data" / "pendula.xml"
#: A box falling past a world camera that keeps it in view.
FALLING_BOX = """<mujoco>
  <worldbody>
    <camera name="watch" mode="targetbody" target="box" pos="2 -2 1"/>
    <camera name="still" pos="0 -3 1" xyaxes="1 0 0 0 0.3 1"/>
    <body name="box" pos="0 0 3"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
  </worldbody>
</mujoco>"""


def robot_cameras(scene) -> list:
    return [o for o in scene.objects if o.type == "CAMERA" and o.articula.camera.enabled]


def aim_error(camera) -> float:
    """The angle (rad) between the camera's view (-Z) and the direction to its target's origin."""
    view = camera.matrix_world.to_quaternion() @ Vector((0.0, 0.0, -1.0))
    to_target = camera.articula.camera.target.matrix_world.translation - camera.matrix_world.translation
    return view.angle(to_target)


def compiled_cameras(path) -> list:
    """(mode, target body, position, orientation) of each camera MuJoCo compiles from ``path``."""
    m = mujoco.MjModel.from_xml_path(str(path))
    rows = []
    for i in range(m.ncam):
        target = int(m.cam_targetbodyid[i])
        quat = np.array(m.cam_quat[i]) * np.sign(m.cam_quat[i][np.argmax(np.abs(m.cam_quat[i]))])
        rows.append((int(m.cam_mode[i]), m.body(target).name if target >= 0 else None,
                     tuple(np.round(m.cam_pos[i], 5)), tuple(np.round(quat, 5))))
    return sorted(rows, key=repr)


def test_target_body_cameras_look_at_their_target_and_export_as_authored(clean_scene, tmp_path):
    assert bpy.ops.articula.import_mjcf(filepath=str(PENDULA)) == {"FINISHED"}
    bpy.context.view_layer.update()
    cameras = robot_cameras(clean_scene)
    tracking = [c for c in cameras if c.articula.camera.target is not None]
    assert {c.articula.camera.mode for c in tracking} == {"TARGETBODY", "TARGETBODYCOM"}
    for camera in cameras:
        constraint = camera.constraints.get(TRACK_CONSTRAINT)
        assert (constraint is not None) == (camera in tracking), camera.name
    for camera in tracking:
        assert camera.constraints[TRACK_CONSTRAINT].target == clean_scene.objects["body"]
        assert aim_error(camera) < 1e-4, camera.name  # it looks at the body, as MuJoCo turns it
    exported = tmp_path / "pendula.xml"
    assert bpy.ops.articula.export_mjcf(filepath=str(exported)) == {"FINISHED"}
    assert compiled_cameras(exported) == compiled_cameras(PENDULA)  # mode, target, the file's pose


def test_mode_and_target_edits_make_and_remove_the_track_to(clean_scene, tmp_path):
    path = tmp_path / "box.xml"
    path.write_text(FALLING_BOX)
    assert bpy.ops.articula.import_mjcf(filepath=str(path)) == {"FINISHED"}
    still, box = clean_scene.objects["still"], clean_scene.objects["box"]
    authored = still.matrix_world.copy()
    assert still.constraints.get(TRACK_CONSTRAINT) is None
    still.articula.camera.mode = "TARGETBODY"
    assert still.constraints.get(TRACK_CONSTRAINT) is None  # no target yet: nothing to look at
    still.articula.camera.target = box
    bpy.context.view_layer.update()
    assert aim_error(still) < 1e-4
    still.articula.camera.mode = "FIXED"
    bpy.context.view_layer.update()
    assert still.constraints.get(TRACK_CONSTRAINT) is None
    assert np.allclose(np.array(still.matrix_world), np.array(authored), atol=1e-6)  # where it was put


def test_a_baked_fall_stays_in_view_and_the_export_keeps_the_authored_pose(clean_scene, tmp_path):
    path = tmp_path / "box.xml"
    path.write_text(FALLING_BOX)
    assert bpy.ops.articula.import_mjcf(filepath=str(path)) == {"FINISHED"}
    clean_scene.render.fps, clean_scene.render.fps_base = 25, 1.0
    watch, box = clean_scene.objects["watch"], clean_scene.objects["box"]
    assert bpy.ops.articula.bake(frame_start=1, frame_end=13, solver="MUJOCO") == {"FINISHED"}
    clean_scene.frame_set(13)
    bpy.context.view_layer.update()
    assert box.matrix_world.translation.z < 2.0  # it fell more than a metre
    assert aim_error(watch) < 1e-4  # the camera turned with it
    exported = tmp_path / "box_out.xml"
    assert bpy.ops.articula.export_mjcf(filepath=str(exported)) == {"FINISHED"}
    assert compiled_cameras(exported) == compiled_cameras(path)
    m = mujoco.MjModel.from_xml_path(str(exported))
    assert m.cam("watch").mode[0] == mujoco.mjtCamLight.mjCAMLIGHT_TARGETBODY
    assert math.isclose(abs(m.cam("watch").quat[0]), 1.0, abs_tol=1e-6)  # no turn written: the file had none
