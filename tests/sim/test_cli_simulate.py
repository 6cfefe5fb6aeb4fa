"""``articula simulate`` run as a user runs it, in a subprocess without Blender: a real MJCF robot
simulated as MuJoCo simulates its file, sensor readings as MuJoCo's, the ground plane, Newton's solvers;
bad input exits 1 naming the reason and leaves the user's CSV files as they were."""

import csv
import subprocess
import sys

import mujoco
import numpy as np
import pytest

from .test_sim_mujoco_fast_path import gym_file

BALL = """
<mujoco model="ball">
  <option timestep="0.002"/>
  <worldbody>
    <body name="ball" pos="0 0 1">
      <freejoint/>
      <geom type="sphere" size="0.1" density="1000"/>
      <site name="centre"/>
    </body>
  </worldbody>
  <sensor>
    <framepos name="height" objtype="site" objname="centre"/>
    <velocimeter name="speed" site="centre"/>
  </sensor>
  <keyframe>
    <key name="high" qpos="0 0 3 1 0 0 0"/>
  </keyframe>
</mujoco>
"""


def articula(*args, cwd):
    done = subprocess.run([sys.executable, "-m", "articula", "simulate", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=600)
    return done.returncode, done.stdout, done.stderr


def read_csv(path) -> tuple[list[str], np.ndarray]:
    with open(path, newline="") as file:
        rows = list(csv.reader(file))
    return rows[0], np.array([[float(v) if v else np.nan for v in row] for row in rows[1:]])


@pytest.fixture
def ball(tmp_path):
    path = tmp_path / "ball.xml"
    path.write_text(BALL)
    return path


def test_a_gymnasium_humanoid_moves_as_mujoco_moves_its_file(tmp_path):
    path = gym_file("humanoid")
    code, out, err = articula(path, "--seconds", "1", "--fps", "50", "--poses", "poses.csv", cwd=tmp_path)
    assert code == 0, err
    assert "s on MUJOCO (cpu), 50 frames" in out and "torso: from (0.000, 0.000, 1.400)" in out
    header, rows = read_csv(tmp_path / "poses.csv")
    assert header[:4] == ["frame", "time", "torso.px", "torso.py"] and len(rows) == 51
    model = mujoco.MjModel.from_xml_path(path)
    data = mujoco.MjData(model)
    steps = round(rows[-1, 1] / model.opt.timestep)  # whole steps per frame: about 1 s
    assert steps * model.opt.timestep == pytest.approx(1.0, abs=0.1)
    mujoco.mj_step(model, data, steps)
    torso = header.index("torso.pz")
    assert rows[0, torso] == pytest.approx(1.4)
    assert rows[-1, torso] == pytest.approx(data.xpos[model.body("torso").id][2], abs=1e-3)
    assert abs(rows[-1, torso] - rows[0, torso]) > 0.3  # it fell: the comparison can fail


def test_sensor_readings_are_mujocos_from_a_keyframe(ball, tmp_path):
    code, out, err = articula(ball, "--seconds", "0.5", "--fps", "10", "--keyframe", "high",
                              "--readings", "readings.csv", "--poses", "poses.csv", cwd=tmp_path)
    assert code == 0, err
    header, rows = read_csv(tmp_path / "readings.csv")
    assert header == ["frame", "time", "height.x", "height.y", "height.z", "speed.x", "speed.y", "speed.z"]
    assert rows[0, header.index("height.z")] == pytest.approx(3.0)
    assert rows[-1, 1] == pytest.approx(0.5)
    model = mujoco.MjModel.from_xml_string(BALL)
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, 0)
    mujoco.mj_step(model, data, 250)
    np.testing.assert_allclose(rows[-1, 2:], data.sensordata, rtol=0, atol=1e-8)  # the CSV's 9 digits
    assert rows[-1, header.index("height.z")] == pytest.approx(3.0 - 0.5 * 9.81 * 0.5 ** 2, abs=0.01)
    pose_header, poses = read_csv(tmp_path / "poses.csv")
    # The pose is the step's end; the sensors read at its start, as MuJoCo's sensordata does.
    assert poses[-1, pose_header.index("ball.pz")] == pytest.approx(data.qpos[2], abs=1e-8)
    assert "sensor readings -> readings.csv" in out


def test_the_ground_plane_catches_what_would_fall_forever(ball, tmp_path):
    _, without = articula(ball, "--seconds", "1.5", cwd=tmp_path)[:2]
    code, with_ground, err = articula(ball, "--seconds", "1.5", "--ground", cwd=tmp_path)
    assert code == 0, err
    assert "to (0.000, 0.000, 0.100)" in with_ground
    assert "to (0.000, 0.000, -" in without


@pytest.mark.parametrize("solver", ["featherstone", "xpbd"])
def test_newtons_solvers_simulate_too(ball, tmp_path, solver):
    code, out, err = articula(ball, "--solver", solver, "--device", "cpu", "--seconds", "0.3",
                              "--readings", "readings.csv", cwd=tmp_path)
    assert code == 0, err
    assert f"on {solver.upper()} (cpu)" in out
    header, rows = read_csv(tmp_path / "readings.csv")
    assert rows[-1, 1] == pytest.approx(0.3, abs=0.02)  # whole steps per frame
    assert rows[-1, header.index("height.z")] == pytest.approx(1.0 - 0.5 * 9.81 * rows[-1, 1] ** 2, abs=0.01)


def test_bad_input_exits_1_and_leaves_the_csv_files_as_they_were(ball, tmp_path):
    kept = tmp_path / "poses.csv"
    kept.write_text("the user's own file\n")
    no_sensors = tmp_path / "plain.xml"
    no_sensors.write_text(BALL.split("<sensor>")[0] + "</mujoco>\n")
    cases = {
        (tmp_path / "missing.xml",): "missing.xml",
        (ball, "--keyframe", "low"): "no keyframe 'low' (keyframes: 'high')",
        (ball, "--solver", "xpbd", "--keyframe", "high"):
            "keyframes start MuJoCo's simulation on the CPU only",
        (no_sensors, "--readings", "readings.csv"): "has no sensors: nothing to write to readings.csv",
    }
    for args, reason in cases.items():
        code, out, err = articula(*args, "--poses", kept, cwd=tmp_path)
        assert code == 1, (args, out, err)
        assert reason in err
        assert kept.read_text() == "the user's own file\n"
    assert not (tmp_path / "readings.csv").exists()
    code, _, err = articula(ball, "--seconds", "-1", cwd=tmp_path)
    assert code == 2 and "not a positive number" in err


def test_a_blow_up_names_the_body_and_writes_nothing(tmp_path):
    path = tmp_path / "spin.xml"
    path.write_text("""
<mujoco><option timestep="0.05"/>
  <worldbody><body name="flywheel" pos="0 0 1"><freejoint/>
    <geom type="box" size="1 0.001 0.001" mass="0.001"/></body></worldbody>
  <keyframe><key name="spun" qvel="0 0 0 1e9 1e9 1e9"/></keyframe>
</mujoco>""")
    kept = tmp_path / "poses.csv"
    kept.write_text("earlier\n")
    code, _, err = articula(path, "--keyframe", "spun", "--poses", kept, cwd=tmp_path)
    assert code == 1 and "flywheel" in err and "nothing written" in err
    assert kept.read_text() == "earlier\n"


def test_a_urdf_robot_with_a_floating_base_falls_and_with_its_fixed_base_stays(tmp_path):
    from tests.core.test_urdf_corpus import corpus_file

    a1 = corpus_file("pybullet/a1/a1.urdf")
    code, floating, err = articula(a1, "--floating-base", "--seconds", "0.3", cwd=tmp_path)
    assert code == 0, err
    assert "trunk: from (0.000, 0.000, 0.000) to (" in floating
    end_z = float(floating.split("trunk: from (0.000, 0.000, 0.000) to (")[1].split(")")[0].split(", ")[2])
    assert end_z == pytest.approx(-0.5 * 9.81 * 0.3 ** 2, abs=0.03)  # free fall (no ground)
    code, fixed, err = articula(a1, "--seconds", "0.3", cwd=tmp_path)
    assert code == 0 and "trunk: from (0.000, 0.000, 0.000) to (0.000, 0.000, 0.000), 0.000 m" in fixed


def test_the_ground_raises_a_floating_quadruped_onto_it(tmp_path):
    """Unitree's A1 read with a floating base starts with its legs below z = 0: --ground raises it, and
    without drives it folds down onto the ground, its trunk above it, nothing blown up."""
    from tests.core.test_urdf_corpus import corpus_file

    a1 = corpus_file("pybullet/a1/a1.urdf")
    code, out, err = articula(a1, "--floating-base", "--ground", "--seconds", "1", cwd=tmp_path)
    assert code == 0, err
    raised = float(err.split("note: trunk raised ")[1].split(" m")[0])
    assert 0.3 < raised < 0.6
    summary = out.split(f"trunk: from (0.000, 0.000, {raised:.3f}) to (")[1]
    end = [float(v) for v in summary.split(")")[0].split(", ")]
    assert 0.02 < end[2] < raised
    assert "velocity limit" not in err  # applied around MuJoCo's step: not left out


def test_cuda_asked_where_there_is_none_exits_1_saying_so(ball, tmp_path):
    import warp

    if warp.is_cuda_available():
        pytest.skip("this machine has a CUDA device")
    code, _, err = articula(ball, "--device", "cuda", cwd=tmp_path)
    assert code == 1 and "no CUDA device: choose 'cpu' or 'auto'" in err
