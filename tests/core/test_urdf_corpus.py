"""Every URDF robot of the corpus imports, and its NESTED export is the robot Newton builds itself.

Corpus: every ``.urdf`` of pybullet 3.2.7's ``pybullet_data`` (``make urdf-corpus``, which ``make test``
depends on, extracts it into ~/.cache/articula/pybullet_data; ``ARTICULA_PYBULLET_DATA`` overrides)
but its 1,000 generated ``random_urdfs``, and Newton's ``examples/assets`` URDFs. For each file:
core.urdf.read_urdf -> core.usd.writer.write_usd NESTED -> Newton 1.8's ``add_usd`` has the same
bodies, body poses, joint types, anchors, DOF axes, limits, armature, friction, gains, springs,
masses and inertias as Newton's own ``add_urdf`` of the original (tests/core/robot_models.py).
Exceptions, each with its written reason, are below.
"""

import collections
import glob
import math
import os
import warnings

import pytest

newton = pytest.importorskip("newton")
pytest.importorskip("newton_usd_schemas")
pytest.importorskip("scipy")
pytest.importorskip("mujoco")

from articula.core.transforms import quat_from_axis_angle, quat_mul  # noqa: E402
from articula.core.urdf import read_urdf  # noqa: E402
from articula.core.usd.writer import write_usd  # noqa: E402
from articula.core.validation import ERROR, validate  # noqa: E402

from .robot_models import load_usd, model_differences  # noqa: E402

PYBULLET_DATA = os.environ.get("ARTICULA_PYBULLET_DATA", os.path.expanduser("~/.cache/articula/pybullet_data"))
NEWTON_ASSETS = os.path.join(os.path.dirname(newton.__file__), "examples", "assets")


def _corpus() -> list[str]:
    found = sorted(os.path.relpath(p, PYBULLET_DATA) for p in glob.glob(
        os.path.join(PYBULLET_DATA, "**", "*.urdf"), recursive=True) if "random_urdfs" not in p)
    return [f"pybullet/{p}" for p in found] + ["newton/cartpole.urdf", "newton/quadruped.urdf"]


CORPUS = _corpus()

#: Files pybullet loads but MuJoCo's strict URDF compiler refuses as written: read after a named
#: repair (core/urdf/repairs.py), each reported in a warning that says this.
REPAIRED = {
    "pybullet/bicycle/bike.urdf": 'xyz="0.07, 0, -0.69"> read as "0.07 0 -0.69"',
    "pybullet/husky/husky.urdf": 'rpy="$(optenv HUSKY_IMU_RPY 0 -1.5708 3.1416)"> read as "0 -1.5708 3.1416"',
    "pybullet/biped/biped2d_pybullet.urdf": '<limit lower="-1.57."> read as "-1.57"',  # and 3 blank lines
    "pybullet/differential/diff_ring.urdf": "1 blank line before <?xml ignored",
    "pybullet/humanoid/humanoid.urdf": "1 character after </robot> (line 287) ignored ('\\x00')",
    "pybullet/quadruped/microtaur/microtaur.urdf": 'rpy="-3.14159 1.57079 0 0"> read as "-3.14159 1.57079 0"',
    "pybullet/quadruped/spirit40newer.urdf": "2 <axis> elements, the first (0 1 0) kept",
    "pybullet/racecar/racecar_differential.urdf": '<mesh scale="1 1 1 1"> read as "1 1 1"',
    "pybullet/plane_implicit.urdf": "a pybullet <plane> collider read as an infinite plane",
    "pybullet/toys/concave_box.urdf": "collision geometry <cdf> is no URDF geometry and was left out",
    "pybullet/spherical_joint_limit.urdf": "its twist limit +-0.3 rad is not carried",
    # The moment that is 0 up to rounding is written 0 (its last bits differ by CPU and BLAS); the
    # added amount is compared with Newton's model, not as printed digits.
    "pybullet/cube_no_rotation.urdf": "inertia not positive definite (principal moments 0, 0.215, 0.215)",
    "pybullet/table_square/table_square.urdf": "faces name texture coordinates the file lacks",
}
#: Newton 1.8's add_urdf cannot load these; the import alone is checked.
NEWTON_UNREADABLE = {
    "pybullet/differential/diff_ring.urdf": "blank line before <?xml: Newton's XML parser refuses it",
    "pybullet/torus_deform.urdf": "a pybullet <deformable> (no links for Newton)",
    "pybullet/bicycle/bike.urdf": "commas in a vector",
    "pybullet/husky/husky.urdf": "unexpanded xacro",
    "pybullet/biped/biped2d_pybullet.urdf": "blank lines before <?xml",
    "pybullet/humanoid/humanoid.urdf": "a NUL byte after </robot>",
    "pybullet/quadruped/microtaur/microtaur.urdf": "an rpy of four numbers",
    "pybullet/racecar/racecar_differential.urdf": "a mesh scale of four numbers",
    "pybullet/spherical_joint_limit.urdf": "pybullet's spherical joint type",
}
#: What the files Newton cannot load mean, read off the file by hand: body count (a link named
#: ``world`` is the world), joints by type (the root link's weld to the world included), DOF count,
#: and a joint whose repaired value is checked: {joint: (what, value)}.
MEANT = {
    "pybullet/bicycle/bike.urdf": (4, {"FIXED": 1, "REVOLUTE": 3}, 3,
                                   {"frame_to_backwheel": ("pos0", (-0.69, 0.0, -0.42))}),
    "pybullet/husky/husky.urdf": (11, {"FIXED": 7, "REVOLUTE": 4}, 4,
                                  {"imu_joint": ("pos0", (0.19, 0.0, 0.149))}),
    "pybullet/biped/biped2d_pybullet.urdf": (9, {"PRISMATIC": 2, "REVOLUTE": 7}, 9, {
        "torso_to_rightleg": ("limits", (-1.57, 1.57)), "y_to_world": ("limits", (-math.inf, math.inf))}),
    "pybullet/humanoid/humanoid.urdf": (16, {"FIXED": 4, "SPHERICAL": 8, "REVOLUTE": 4}, 28,
                                        {"right_elbow": ("limits", (0.0, 3.14))}),
    "pybullet/quadruped/microtaur/microtaur.urdf": (26, {"FIXED": 14, "REVOLUTE": 12}, 12,
                                                    {"dynamixel5_dynamixel3": ("rpy0", (-1.57079, 0.0, -1.57079))}),
    "pybullet/racecar/racecar_differential.urdf": (21, {"FIXED": 7, "REVOLUTE": 14}, 14,
                                                   {"left_steering_hinge_joint": ("limits", (-1.0, 1.0))}),
    "pybullet/spherical_joint_limit.urdf": (2, {"FIXED": 1, "SPHERICAL": 1}, 3,
                                            {"neck": ("cones", ("Z", 0.8, 0.2))}),
}
_MASS_ZERO = ("a link with mass 0 (pybullet's static links): UsdPhysics reads mass 0 as 'not set' and "
              "derives it from the colliders; Newton's add_urdf keeps 0")
_INERTIA_ZERO = ("links with a mass and an all-zero inertia: UsdPhysics derives the inertia from the colliders; "
                 "Newton's add_urdf puts 1e-6 kg m^2 on the diagonal")
#: Values that differ for a written reason: (compared arrays left out, reason).
SKIPS = {key: (("body_mass", "body_inertia"), _MASS_ZERO) for key in (
    "pybullet/kuka_iiwa/model.urdf", "pybullet/kuka_iiwa/model_vr_limits.urdf", "pybullet/plane.urdf",
    "pybullet/plane100.urdf", "pybullet/plane_transparent.urdf", "pybullet/samurai.urdf",
    "pybullet/table/table.urdf", "pybullet/table_square/table_square.urdf", "pybullet/tray/tray.urdf", "pybullet/tray/tray_textured2.urdf",
    "pybullet/tray/traybox.urdf")}
SKIPS.update({key: (("body_inertia",), _INERTIA_ZERO) for key in (
    "pybullet/laikago/laikago.urdf", "pybullet/laikago/laikago_toes.urdf",
    "pybullet/laikago/laikago_toes_limits.urdf")})
SKIPS["pybullet/cube_no_rotation.urdf"] = (
    ("joint_limit_lower", "joint_limit_upper", "joint_effort_limit"),
    "<limit lower=\"1\" upper=\"-1\" effort=\"0\">: pybullet reads a lower limit above the upper as no "
    "limit and effort 0 as none (Articula's repair, named in the warning); Newton keeps them as written")
for key in ("pybullet/r2d2.urdf", "pybullet/racecar/racecar.urdf"):
    SKIPS[key] = (("joint_limit_lower", "joint_limit_upper"),
                  "a continuous joint with a <limit lower upper>: urdfdom (ROS) ignores the range, so does "
                  "Articula; Newton's add_urdf keeps it")
#: Effort limits without a drive are written as MuJoCo's joint force range (mjc:actuatorfrcrange),
#: which Newton's add_usd reads as the joint's effort limit: compared everywhere.
ALWAYS_SKIPPED = ()


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def corpus_file(key: str) -> str:
    source, rel = key.split("/", 1)
    path = os.path.join(PYBULLET_DATA if source == "pybullet" else NEWTON_ASSETS, rel)
    if not os.path.exists(path):
        pytest.skip(f"{path} not found: run `make urdf-corpus`")
    return path


def test_the_corpus_is_there_and_its_exceptions_exist():
    if not os.path.isdir(PYBULLET_DATA):
        pytest.skip("pybullet_data not extracted: run `make urdf-corpus`")
    assert len(CORPUS) > 90
    assert set(MEANT) | {"pybullet/differential/diff_ring.urdf", "pybullet/torus_deform.urdf"} == set(NEWTON_UNREADABLE)
    for key in (*REPAIRED, *NEWTON_UNREADABLE, *SKIPS):
        assert key in CORPUS, key
    for robot in ("franka_panda/panda.urdf", "kuka_iiwa/model.urdf", "laikago/laikago.urdf", "r2d2.urdf"):
        assert f"pybullet/{robot}" in CORPUS


def newton_reference(path: str):
    builder = newton.ModelBuilder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder.add_urdf(path)
        return builder.finalize(device="cpu")


@pytest.mark.parametrize("key", CORPUS)
def test_urdf_robot_exports_to_newtons_own_model(key, tmp_path):
    path = corpus_file(key)
    read = read_urdf(path)
    repairs = [w for w in read.warnings if "repaired:" in w]
    if key in REPAIRED:
        assert any(REPAIRED[key] in w for w in repairs), read.warnings
    else:
        assert repairs == [], "a file MuJoCo reads as written needs no repair"
    if key == "pybullet/torus_deform.urdf":  # a deformable, no links: named, nothing else
        assert not read.scene.bodies and any("1 deformables" in w for w in read.warnings)
        return
    assert read.scene.bodies
    assert [str(p) for p in validate(read.scene) if p.severity == ERROR] == []
    assert sum("not carried over" in w for w in read.warnings) <= 1
    out = str(tmp_path / "robot.usda")
    write_usd(read.scene, out, layout="NESTED")
    ours = load_usd(out)
    if key in NEWTON_UNREADABLE:
        assert ours.body_count == len(read.scene.bodies)
        if key in MEANT:
            check_meant(read.scene, ours, *MEANT[key])
        return
    skip, _ = SKIPS.get(key, ((), ""))
    differences = model_differences(newton_reference(path), ours, skip=skip + ALWAYS_SKIPPED,
                                    world_links=("world",))
    assert differences == [], "\n".join(differences)


def _rpy(rpy) -> tuple:
    roll, pitch, yaw = rpy
    q = quat_from_axis_angle((0.0, 0.0, 1.0), yaw)
    q = quat_mul(q, quat_from_axis_angle((0.0, 1.0, 0.0), pitch))
    return quat_mul(q, quat_from_axis_angle((1.0, 0.0, 0.0), roll))


def check_meant(scene, ours, bodies: int, joint_types: dict, dofs: int, values: dict) -> None:
    """The repaired robot is the one the file means: bodies, joints by type, DOFs (in the description
    and in Newton's model of its NESTED export) and each repaired value."""
    assert len(scene.bodies) == bodies
    assert dict(collections.Counter(j.type.value for j in scene.joints)) == joint_types
    assert sum(len(j.dofs) for j in scene.joints) == dofs == ours.joint_dof_count
    for name, (what, value) in values.items():
        joint = scene.joint(name)
        if what == "pos0":
            assert joint.local_pose0.pos == pytest.approx(value, abs=1e-9)
        elif what == "rpy0":
            q = _rpy(value)
            assert min(abs(sum(a * b for a, b in zip(joint.local_pose0.rot, q))), 1.0) == pytest.approx(1.0, abs=1e-9)
        elif what == "limits":
            assert (joint.dofs[0].lower, joint.dofs[0].upper) == pytest.approx(value)
        elif what == "cones":
            assert joint.axis == value[0] and (joint.cone_limit0, joint.cone_limit1) == pytest.approx(value[1:])

