"""Forward kinematics of a description (core.posing) against MuJoCo's own mj_kinematics."""

import glob
import os

import numpy as np
import pytest

from articula.core.mjcf.reader import read_mjcf
from articula.core.model import JointType, Pose
from articula.core.posing import posed_bodies

mujoco = pytest.importorskip("mujoco")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FREE, HINGE, SLIDE = (int(t) for t in (mujoco.mjtJoint.mjJNT_FREE, mujoco.mjtJoint.mjJNT_HINGE,
                                       mujoco.mjtJoint.mjJNT_SLIDE))
GYM = glob.glob(os.path.join(ROOT, ".venv-converter/lib/python3.*/site-packages/gymnasium/envs/mujoco",
                             "assets"))


def mujoco_state(scene, model, qpos) -> tuple[dict, dict]:
    """(joint positions, root poses) of the description for MuJoCo's ``qpos`` (away from qpos0)."""
    positions, roots = {}, {}
    by_name = {j.name: j for j in scene.joints}
    for k in range(model.njnt):
        name, adr = model.joint(k).name, model.jnt_qposadr[k]
        kind = int(model.jnt_type[k])
        if kind == FREE:
            body = model.body(model.jnt_bodyid[k]).name
            roots[body] = Pose(tuple(qpos[adr:adr + 3]), tuple(qpos[adr + 3:adr + 7]))
        elif kind in (HINGE, SLIDE):
            joint = by_name[name]
            assert joint.type in (JointType.REVOLUTE, JointType.PRISMATIC)
            positions[(name, joint.dofs[0].axis.value)] = float(qpos[adr])  # the file's coordinate
    return positions, roots


@pytest.mark.parametrize("robot", ["half_cheetah.xml", "humanoid.xml", "hopper.xml", "walker2d.xml"])
def test_posed_bodies_stand_where_mujoco_puts_them(robot):
    if not GYM:
        pytest.skip("gymnasium's MJCF files come with `make corpus` (.venv-converter)")
    path = os.path.join(GYM[0], robot)
    scene = read_mjcf(path).scene
    model = mujoco.MjModel.from_xml_path(path)
    data = mujoco.MjData(model)
    rng = np.random.default_rng(7)
    qpos = model.qpos0 + rng.uniform(-0.6, 0.6, model.nq)
    for k in range(model.njnt):  # a free joint's quaternion stays a rotation
        if int(model.jnt_type[k]) == FREE:
            adr = model.jnt_qposadr[k]
            qpos[adr + 3:adr + 7] /= np.linalg.norm(qpos[adr + 3:adr + 7])
    data.qpos[:] = qpos
    mujoco.mj_kinematics(model, data)
    positions, roots = mujoco_state(scene, model, qpos)
    poses = posed_bodies(scene, positions, root_poses=roots)
    for b in range(1, model.nbody):
        name = model.body(b).name
        np.testing.assert_allclose(poses[name].pos, data.xpos[b], atol=1e-5, err_msg=name)
        q = np.array(poses[name].rot)
        assert abs(abs(float(q @ data.xquat[b])) - 1.0) < 1e-6, name


def test_nothing_given_is_the_rest():
    if not GYM:
        pytest.skip("gymnasium's MJCF files come with `make corpus` (.venv-converter)")
    scene = read_mjcf(os.path.join(GYM[0], "half_cheetah.xml")).scene
    poses = posed_bodies(scene)
    assert all(poses[b.name] == b.pose for b in scene.bodies)


@pytest.mark.parametrize("robot", ["half_cheetah.xml", "humanoid.xml"])
def test_joint_positions_of_the_posed_bodies_are_the_positions(robot):
    from articula.core.posing import joint_positions_of

    if not GYM:
        pytest.skip("gymnasium's MJCF files come with `make corpus` (.venv-converter)")
    path = os.path.join(GYM[0], robot)
    scene = read_mjcf(path).scene
    model = mujoco.MjModel.from_xml_path(path)
    qpos = model.qpos0 + np.random.default_rng(11).uniform(-0.5, 0.5, model.nq)
    for k in range(model.njnt):
        if int(model.jnt_type[k]) == FREE:
            adr = model.jnt_qposadr[k]
            qpos[adr + 3:adr + 7] /= np.linalg.norm(qpos[adr + 3:adr + 7])
    positions, roots = mujoco_state(scene, model, qpos)
    found, found_roots, notes = joint_positions_of(scene, posed_bodies(scene, positions, root_poses=roots))
    assert notes == []
    assert found.keys() == positions.keys()
    for key, value in positions.items():
        assert found[key] == pytest.approx(value, abs=1e-6), key
    assert found_roots.keys() == roots.keys()
