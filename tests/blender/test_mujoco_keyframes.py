"""Keyframes and joint positions applied to a robot in Blender: the bodies stand where MuJoCo's
mj_kinematics puts them, the rest pose is kept, and scripts can pose a robot by joint name."""

import glob
import os

import bpy
import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from articula.addon.adapters.blender_to_description import scene_from_blender  # noqa: E402
from articula.addon.adapters.fields import write_keyframe  # noqa: E402
from articula.core.model import Keyframe, Pose  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_GYM = glob.glob(os.path.join(ROOT, ".venv-converter/lib/python3.*/site-packages/gymnasium/envs/mujoco",
                              "assets"))
FREE, HINGE, SLIDE = (int(t) for t in (mujoco.mjtJoint.mjJNT_FREE, mujoco.mjtJoint.mjJNT_HINGE,
                                       mujoco.mjtJoint.mjJNT_SLIDE))


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def gym(name):
    if not _GYM:
        pytest.skip("gymnasium's MJCF files come with `make corpus` (.venv-converter)")
    return os.path.join(_GYM[0], name)


def random_key(model, seed=3) -> tuple[np.ndarray, Keyframe]:
    """A random qpos and the keyframe saying it by the file's names (the reader's DOF axes)."""
    rng = np.random.default_rng(seed)
    qpos = model.qpos0 + rng.uniform(-0.7, 0.7, model.nq)
    key = Keyframe("random", controls={})
    for k in range(model.njnt):
        adr, kind, name = model.jnt_qposadr[k], int(model.jnt_type[k]), model.joint(k).name
        if kind == FREE:
            qpos[adr + 3:adr + 7] /= np.linalg.norm(qpos[adr + 3:adr + 7])
            key.root_poses[model.body(model.jnt_bodyid[k]).name] = Pose(tuple(qpos[adr:adr + 3]),
                                                                        tuple(qpos[adr + 3:adr + 7]))
        elif kind in (HINGE, SLIDE):
            obj = next(o for o in bpy.data.objects if o.articula.joint.enabled
                       and name in (o.name, o.articula.file_name))
            key.joint_positions[(name, obj.articula.joint.dofs[0].axis)] = float(qpos[adr] - model.qpos0[adr])
    return qpos, key


def mujoco_body_positions(model, qpos) -> dict:
    data = mujoco.MjData(model)
    data.qpos[:] = qpos
    mujoco.mj_kinematics(model, data)
    return {model.body(b).name: data.xpos[b].copy() for b in range(1, model.nbody)}


@pytest.mark.parametrize("robot", ["humanoid.xml", "half_cheetah.xml"])
def test_applied_keyframe_stands_where_mujoco_puts_it(clean_scene, robot):
    path = gym(robot)
    assert bpy.ops.articula.import_mjcf(filepath=path) == {"FINISHED"}
    rest = {b.name: b.pose for b in scene_from_blender(clean_scene).bodies}
    model = mujoco.MjModel.from_xml_path(path)
    qpos, key = random_key(model)
    write_keyframe(clean_scene.articula.keyframes.add(), key)
    assert bpy.ops.articula.apply_keyframe(name="random") == {"FINISHED"}
    for name, expected in mujoco_body_positions(model, qpos).items():
        np.testing.assert_allclose(bpy.data.objects[name].matrix_world.translation, expected, atol=1e-5,
                                   err_msg=name)
    assert all(bpy.data.objects[n].articula.body.posed for n in ("torso",))
    back = scene_from_blender(clean_scene)  # the robot itself is still the one at rest
    for body in back.bodies:
        np.testing.assert_allclose(body.pose.pos, rest[body.name].pos, atol=1e-6)


def test_scripts_pose_by_joint_name_and_set_controls(clean_scene):
    assert bpy.ops.articula.import_mjcf(filepath=gym("half_cheetah.xml")) == {"FINISHED"}
    shin = bpy.data.objects["bshin"]
    before = shin.matrix_world.translation.copy()
    assert bpy.ops.articula.set_joint_positions(positions=[{"name": "bthigh", "value": 0.5}],
                                                controls=[{"name": "bthigh", "value": 0.3}]) == {"FINISHED"}
    assert (shin.matrix_world.translation - before).length > 0.01
    actuator = bpy.data.objects["bthigh.001"].articula.joint.dofs[0].actuators[0]
    assert actuator.control == pytest.approx(0.3)
    assert bpy.ops.articula.reset_to_rest() == {"FINISHED"}
    bpy.context.view_layer.update()
    assert (shin.matrix_world.translation - before).length < 1e-6


def test_an_unknown_keyframe_is_refused_naming_the_known_ones(clean_scene):
    assert bpy.ops.articula.import_mjcf(filepath=gym("half_cheetah.xml")) == {"FINISHED"}
    write_keyframe(clean_scene.articula.keyframes.add(), Keyframe("home"))
    with pytest.raises(RuntimeError, match="home"):
        bpy.ops.articula.apply_keyframe(name="crouch")


def test_applying_a_pose_is_one_undo_step():
    assert "UNDO" in bpy.types.ARTICULA_OT_apply_keyframe.bl_options
    assert "UNDO" in bpy.types.ARTICULA_OT_set_joint_positions.bl_options


def test_the_current_pose_kept_as_a_keyframe_poses_the_robot_again(clean_scene):
    path = gym("humanoid.xml")
    assert bpy.ops.articula.import_mjcf(filepath=path) == {"FINISHED"}
    model = mujoco.MjModel.from_xml_path(path)
    qpos, key = random_key(model, seed=5)
    write_keyframe(clean_scene.articula.keyframes.add(), key)
    assert bpy.ops.articula.apply_keyframe(name="random") == {"FINISHED"}
    posed = {o.name: o.matrix_world.translation.copy() for o in bpy.data.objects if o.articula.body.enabled}
    assert bpy.ops.articula.keyframe_add(name="kept") == {"FINISHED"}
    kept = clean_scene.articula.keyframes["kept"]
    assert {v.kind for v in kept.values} >= {"POSITION", "ROOT_POSE"}
    assert bpy.ops.articula.reset_to_rest() == {"FINISHED"}
    assert bpy.ops.articula.apply_keyframe(name="kept") == {"FINISHED"}
    for name, position in posed.items():
        np.testing.assert_allclose(bpy.data.objects[name].matrix_world.translation, position, atol=1e-5,
                                   err_msg=name)


def test_one_dof_of_a_d6_joint_is_named_joint_colon_axis(clean_scene):
    from articula.addon.adapters.description_to_blender import build_scene
    from articula.core import samples
    from articula.core.transforms import quat_rotate

    desc = samples.d6_sampler()
    build_scene(bpy.context, desc)
    link = bpy.data.objects["d6_link"]
    before = np.array(link.matrix_world.translation)
    assert bpy.ops.articula.set_joint_positions(positions=[{"name": "d6_joint:transX", "value": 0.05},
                                                           {"name": "nowhere", "value": 1.0}]) == {"FINISHED"}
    joint = desc.joint("d6_joint")
    axis = quat_rotate(desc.body("d6_base").pose.rot, quat_rotate(joint.local_pose0.rot, (1.0, 0.0, 0.0)))
    np.testing.assert_allclose(np.array(link.matrix_world.translation) - before, 0.05 * np.array(axis),
                               atol=1e-6)
