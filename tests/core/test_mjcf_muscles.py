"""MuJoCo's muscles, a joint equality's polynomial terms, a joint's group and a tendon's armature go
through the description (read_mjcf -> write_mjcf) whole; the comparison by name finds each one changed,
and what MuJoCo cannot take is refused by name with the old file kept."""

import os

import pytest

mujoco = pytest.importorskip("mujoco")

from articula.core.mjcf import read_mjcf  # noqa: E402
from articula.core.mjcf.writer import MjcfWriteError, write_mjcf  # noqa: E402

from .mjcf_compare import mjcf_differences  # noqa: E402

WARP_DATA = os.path.join(os.path.dirname(mujoco.__file__), os.pardir, "mujoco_warp", "test_data")
MUSCLE = os.path.join(WARP_DATA, "actuation", "muscle.xml")
CONSTRAINTS = os.path.join(WARP_DATA, "constraints.xml")
TENDON_ARMATURE = os.path.join(WARP_DATA, "tendon", "armature.xml")

#: A muscle shortcut with its own parameters beside one on a hinge, a grouped joint.
MUSCLES = """
<mujoco>
  <worldbody>
    <body name="arm">
      <joint name="elbow" type="hinge" axis="0 1 0" group="4"/>
      <geom type="capsule" fromto="0 0 0 0 0 -.4" size=".03"/>
    </body>
  </worldbody>
  <actuator>
    <muscle name="biceps" joint="elbow" lengthrange="-1 1" force="30" range="0.5 1.4" vmax="3" fpmax="1.5"
            timeconst="0.02 0.05"/>
  </actuator>
</mujoco>
"""


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


@pytest.fixture
def muscles(tmp_path):
    path = tmp_path / "muscles.xml"
    path.write_text(MUSCLES)
    return str(path)


def _round_trip(scene, tmp_path):
    out = str(tmp_path / "robot.xml")
    write_mjcf(scene, out)
    return mujoco.MjModel.from_xml_path(out)


def test_a_muscle_is_read_with_its_parameters_and_length_range(muscles):
    read = read_mjcf(muscles)
    assert not [w for w in read.warnings if "not carried over" in w]
    (biceps,) = read.scene.joint("elbow").dofs[0].actuators
    assert (biceps.gain_type, biceps.bias_type, biceps.dyn_type) == ("muscle", "muscle", "muscle")
    assert biceps.gain[:7] == pytest.approx((0.5, 1.4, 30.0, 200.0, 0.5, 1.6, 3.0))  # range, force, ...
    assert biceps.bias == biceps.gain and biceps.dyn_params == pytest.approx((0.02, 0.05))
    assert biceps.length_range == (-1.0, 1.0) and biceps.kind.value == "GENERAL"
    assert read.scene.joint("elbow").dofs[0].group == 4


@pytest.mark.parametrize("path", [MUSCLE, CONSTRAINTS, TENDON_ARMATURE])
def test_warps_files_keep_them(path, tmp_path):
    scene = read_mjcf(path).scene
    found = mjcf_differences(mujoco.MjModel.from_xml_path(path), _round_trip(scene, tmp_path))
    assert not [d for d in found if d.startswith(("actuator", "equality joint", "tendon tendon_0", "joint"))]


def test_the_comparison_finds_each_changed(muscles, tmp_path):
    scene = read_mjcf(muscles).scene
    dof = scene.joint("elbow").dofs[0]
    dof.group = 0
    dof.actuators[0].length_range = (-0.5, 1.0)
    dof.actuators[0].bias_type = "affine"
    found = "\n".join(mjcf_differences(mujoco.MjModel.from_xml_path(muscles), _round_trip(scene, tmp_path)))
    for expected in ("joint elbow group", "actuator biceps types", "actuator biceps lengthrange"):
        assert expected in found, expected

    constraints = read_mjcf(CONSTRAINTS).scene
    constraints.joint("joint3").mimic.higher_terms = (0.1, 0.15)
    armature = read_mjcf(TENDON_ARMATURE).scene
    armature.spatial_tendons[0].armature = 1.0
    found = mjcf_differences(mujoco.MjModel.from_xml_path(CONSTRAINTS), _round_trip(constraints, tmp_path))
    found += mjcf_differences(mujoco.MjModel.from_xml_path(TENDON_ARMATURE), _round_trip(armature, tmp_path))
    found = "\n".join(found)
    assert "equality joint joint joint3 joint joint4 data" in found and "tendon tendon_0 armature" in found


def test_what_mujoco_cannot_take_is_refused_by_name(muscles, tmp_path):
    """Bad input: a bias type MuJoCo has not, more polynomial terms than polycoef holds; the file already
    there is left as it was."""
    out = tmp_path / "robot.xml"
    out.write_text("<mujoco/>")
    scene = read_mjcf(muscles).scene
    scene.joint("elbow").dofs[0].actuators[0].bias_type = "spring"
    with pytest.raises(MjcfWriteError, match="actuator biceps bias type: MuJoCo has no 'spring'"):
        write_mjcf(scene, str(out))
    constraints = read_mjcf(CONSTRAINTS).scene
    constraints.joint("joint3").mimic.higher_terms = (0.1, 0.15, 0.2, 0.3)
    with pytest.raises(MjcfWriteError, match="mimic of joint3: MuJoCo's polycoef holds terms up to the 4th"):
        write_mjcf(constraints, str(out))
    assert out.read_text() == "<mujoco/>"


SLIDER_CRANK = os.path.join(WARP_DATA, "actuation", "slidercrank.xml")


def test_a_slider_crank_is_read_and_written_whole(tmp_path):
    scene = read_mjcf(SLIDER_CRANK).scene
    (crank,) = scene.frame_actuators
    assert (crank.target_kind, crank.target, crank.slider_site, crank.crank_length) == \
        ("slidercrank", "cranksite", "slidersite", 0.25)
    found = mjcf_differences(mujoco.MjModel.from_xml_path(SLIDER_CRANK), _round_trip(scene, tmp_path))
    assert found == []
    crank.crank_length = 0.3
    original = mujoco.MjModel.from_xml_path(SLIDER_CRANK)
    found = "\n".join(mjcf_differences(original, _round_trip(scene, tmp_path)))
    assert "actuator actuator_0 cranklength" in found


def test_a_slider_crank_without_its_slider_is_refused_by_name(tmp_path):
    out = tmp_path / "robot.xml"
    out.write_text("<mujoco/>")
    scene = read_mjcf(SLIDER_CRANK).scene
    scene.frame_actuators[0].slider_site = None
    with pytest.raises(MjcfWriteError, match="actuator actuator_0: a slider-crank needs a slider site"):
        write_mjcf(scene, str(out))
    assert out.read_text() == "<mujoco/>"
