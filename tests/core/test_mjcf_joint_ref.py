"""MuJoCo's joint ``ref`` and limit ``margin`` kept exactly: the description holds the file's joint coordinate
(``Dof.reference`` at the authored pose), so ranges, keyframes, servo ctrls and the start state read as the
file says, through MJCF, forward kinematics, a robot's state and USD (where Newton's reading of our export
equals its reading of NVIDIA's mujoco-usd-converter's)."""

import os
import subprocess

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from articula.core.joint_state import with_state  # noqa: E402
from articula.core.mjcf import read_mjcf  # noqa: E402
from articula.core.mjcf.writer import write_mjcf  # noqa: E402
from articula.core.posing import joint_positions_of, keyframe_bodies  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONVERTER = os.path.join(ROOT, ".venv-converter", "bin", "mujoco_usd_converter")

#: A hinge with ref on a limited joint with a position servo, a slide with ref; both with a limit margin.
REF_ROBOT = open(os.path.join(ROOT, "tests", "data", "refbot.xml")).read()


@pytest.fixture
def robot_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder
    path = tmp_path / "refbot.xml"
    path.write_text(REF_ROBOT)
    return str(path)


def test_the_description_holds_the_files_coordinate(robot_file):
    scene = read_mjcf(robot_file).scene
    hinge, slide = scene.joint("hinge").dofs[0], scene.joint("slide").dofs[0]
    assert (hinge.reference, hinge.lower, hinge.upper, hinge.limit_margin) == \
        pytest.approx((0.4, -0.5, 1.2, 0.01))
    assert (slide.reference, slide.lower, slide.upper, slide.limit_margin) == \
        pytest.approx((0.05, -0.1, 0.2, 0.002))
    # MuJoCo starts at qpos0
    assert (hinge.initial_position, slide.initial_position) == pytest.approx((0.4, 0.05))
    home = scene.keyframe("home")
    assert home.joint_positions == pytest.approx({("hinge", "rotY"): 0.7, ("slide", "transX"): 0.1})
    assert home.controls == pytest.approx({"servo": 0.9})


def test_mjcf_round_trip_keeps_ref_margin_ranges_keyframes_and_ctrl(robot_file, tmp_path):
    out = str(tmp_path / "out.xml")
    write_mjcf(read_mjcf(robot_file).scene, out)
    original, ours = mujoco.MjModel.from_xml_path(robot_file), mujoco.MjModel.from_xml_path(out)
    for field in ("qpos0", "jnt_range", "jnt_margin", "key_qpos", "key_ctrl", "actuator_ctrlrange"):
        np.testing.assert_allclose(getattr(ours, field), getattr(original, field), rtol=1e-6, err_msg=field)
    assert ours.nkey == 1  # at rest: no "initial" keyframe beside the file's own


def test_a_changed_reference_is_written(robot_file, tmp_path):
    """The comparison above can fail: another ref moves qpos0 (and the start with it: no keyframe)."""
    scene = read_mjcf(robot_file).scene
    hinge = scene.joint("hinge").dofs[0]
    hinge.reference = hinge.initial_position = 0.3
    out = str(tmp_path / "out.xml")
    write_mjcf(scene, out)
    model = mujoco.MjModel.from_xml_path(out)
    assert model.qpos0[0] == pytest.approx(0.3) and model.nkey == 1


def test_a_start_away_from_the_reference_is_the_initial_keyframe(robot_file, tmp_path):
    scene = read_mjcf(robot_file).scene
    scene.joint("hinge").dofs[0].initial_position = 0.9
    out = str(tmp_path / "out.xml")
    write_mjcf(scene, out)
    model = mujoco.MjModel.from_xml_path(out)
    initial = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_KEY, "initial")
    assert model.key_qpos[initial] == pytest.approx([0.9, 0.05])


def test_keyframe_bodies_stand_where_mujoco_puts_them(robot_file):
    scene = read_mjcf(robot_file).scene
    model = mujoco.MjModel.from_xml_path(robot_file)
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, 0)
    mujoco.mj_kinematics(model, data)
    poses = keyframe_bodies(scene, scene.keyframe("home"))
    for name in ("arm", "slider"):
        b = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)
        np.testing.assert_allclose(poses[name].pos, data.xpos[b], atol=1e-9, err_msg=name)
        assert abs(abs(float(np.dot(poses[name].rot, data.xquat[b]))) - 1.0) < 1e-12, name
    found, _, notes = joint_positions_of(scene, poses)  # and back: the file's coordinates
    assert notes == [] and found == pytest.approx({("hinge", "rotY"): 0.7, ("slide", "transX"): 0.1})


def test_a_state_at_rest_is_the_reference(robot_file):
    scene = read_mjcf(robot_file).scene
    posed, notes = with_state(scene, {b.name: b.pose for b in scene.bodies})
    assert notes == []
    assert [j.dofs[0].initial_position for j in posed.joints if j.dofs] == pytest.approx([0.4, 0.05])


def test_usd_round_trip_keeps_ref_margin_limits_start_and_keyframes(robot_file, tmp_path):
    from articula.core.usd.reader import read_usd
    from articula.core.usd.writer import write_usd

    scene = read_mjcf(robot_file).scene
    scene.joint("slide").dofs[0].initial_position = 0.12  # a start away from the authored pose
    path = str(tmp_path / "refbot.usda")
    write_usd(scene, path)
    back = read_usd(path).scene
    for name in ("hinge", "slide"):
        a, b = scene.joint(name).dofs[0], back.joint(name).dofs[0]
        assert (b.reference, b.lower, b.upper, b.limit_margin, b.initial_position) == \
            pytest.approx((a.reference, a.lower, a.upper, a.limit_margin, a.initial_position), rel=1e-6), name
    assert back.keyframe("home").joint_positions == pytest.approx(scene.keyframe("home").joint_positions)


def test_newton_reads_our_usd_as_it_reads_the_converters(robot_file, tmp_path):
    """Limits stay the file's coordinate in USD and ``mjc:ref`` says where the authored pose is, as
    mujoco-usd-converter writes them: Newton's add_usd gives both the same joint limits and start."""
    if not os.path.isfile(CONVERTER):
        pytest.skip("mujoco-usd-converter comes with `make corpus` (.venv-converter)")
    from articula.core.usd.writer import write_usd

    from .robot_models import load_usd

    converted = tmp_path / "converted"
    subprocess.run([CONVERTER, robot_file, str(converted)], check=True, capture_output=True)
    ours = str(tmp_path / "ours.usda")
    write_usd(read_mjcf(robot_file).scene, ours)
    theirs, mine = load_usd(str(converted / "refbot.usda")), load_usd(ours)
    for field in ("joint_limit_lower", "joint_limit_upper", "joint_q", "joint_rest_q"):
        np.testing.assert_allclose(getattr(mine, field).numpy(), getattr(theirs, field).numpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=field)
    # Newton's coordinate is 0 at the authored pose: the file's range less ref
    np.testing.assert_allclose(mine.joint_limit_lower.numpy()[-2:], [-0.9, -0.15], rtol=1e-5)
    # the servo's drive for PhysX and Newton: its ctrl 0 is the file's angle 0, Newton's -ref
    assert mine.joint_target_q.numpy()[-2] == pytest.approx(-0.4, abs=1e-6)

