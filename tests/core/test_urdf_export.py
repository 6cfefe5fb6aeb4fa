"""URDF export (core/urdf/writer.py): what ROS's own parser, MuJoCo, Newton and Articula read back.

Proofs, on every robot of the corpora (pybullet's URDFs, the MJCF corpus, the four samples):
- urdfdom parses the export and Pinocchio's model of it (tests/core/pinocchio_probe.py, run in
  .venv-pin: ``make`` builds it) has the description's link frames, own inertias, joint anchors, axes
  and limits;
- pybullet's URDFs go URDF -> Articula -> URDF to the same Pinocchio model as the original;
- MuJoCo's URDF compiler compiles the export (core.urdf.read_urdf reads through it) and the robot
  read back is the description;
- Newton's add_urdf of the export is Newton's add_usd of Articula's USD export of the same robot.
"""

import json
import math
import os
import warnings
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from articula.core import samples
from articula.core.articulation import find_articulations
from articula.core.model import (Actuator, DofMotion, FixedTendon, JointType, Mimic, Pose, TendonEquality,
                                  TendonJoint, make_joint)
from articula.core.transforms import pose_inverse, pose_mul
from articula.core.urdf import read_urdf
from articula.core.urdf.writer import UNLIMITED, UrdfWriteError, write_urdf

from tests.urdf_checks import (ATOL, body_mass, link_frames, link_offset, matrix, pin_matrix, pinocchio,
                               pinocchio_differences, pinocchio_raw, robot_of)

from . import test_mjcf_corpus as mjcf_corpus
from . import test_urdf_corpus as urdf_corpus

SAMPLES = ["robotic_finger", "six_dof_arm", "quadruped", "collision_showcase"]
CORPUS = [f"urdf:{k}" for k in urdf_corpus.CORPUS] + [f"mjcf:{k}" for k in mjcf_corpus.CORPUS] + \
    [f"sample:{k}" for k in SAMPLES]
#: Files whose description has no links (a pybullet deformable): nothing to export.
NOTHING = {"urdf:pybullet/torus_deform.urdf"}


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def description(key: str):
    source, name = key.split(":", 1)
    if source == "sample":
        return getattr(samples, name)()
    if source == "urdf":
        return read_urdf(urdf_corpus.corpus_file(name)).scene
    from articula.core.mjcf import read_mjcf

    return read_mjcf(mjcf_corpus.corpus_file(name)).scene


def export(scene, folder, name="robot", **kwargs) -> tuple[str, list[str]]:
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(str(folder), f"{name}.urdf")
    return path, write_urdf(scene, path, **kwargs)


# --- the corpora ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", CORPUS)
def test_urdfdom_and_mujoco_read_the_export_as_the_description(key, tmp_path):
    """Pinocchio's model (urdfdom parses the file) is the description; MuJoCo's URDF compiler compiles
    it and Articula's reader gives the description back."""
    if key in NOTHING:
        pytest.skip("no links")
    scene = description(key)
    path, warnings_ = export(scene, tmp_path / "out")
    assert sum(w.startswith("URDF cannot say") for w in warnings_) <= 1
    differences = pinocchio_differences(scene, pinocchio(path))
    differences += _reader_differences(scene, read_urdf(path).scene)
    assert differences == [], "\n".join(differences)


#: URDF -> Articula -> URDF changes these on purpose (a named repair of the original).
REPAIRED_IN_PINOCCHIO = {
    "pybullet/cube_no_rotation.urdf": "lower 1 > upper -1 read as no limit (continuous)",
}


@pytest.mark.parametrize("key", urdf_corpus.CORPUS)
def test_pybullet_urdf_round_trip_is_the_same_pinocchio_model(key, tmp_path):
    path = urdf_corpus.corpus_file(key)
    code, out, _ = pinocchio_raw(path)
    if code != 0:
        pytest.skip("urdfdom cannot read the original (it needs Articula's repairs)")
    original = json.loads(out)
    unranged = {j.get("name") for j in ET.parse(path).getroot().iter("joint") if j.get("type") == "revolute"
                and (j.find("limit") is None or j.find("limit").get("lower") is None)}
    read = read_urdf(path)
    out, _ = export(read.scene, tmp_path / "out")
    ours = pinocchio(out)
    found = []
    for name, link in original["links"].items():
        if name not in ours["links"]:
            found.append(f"link {name} missing")
            continue
        theirs = ours["links"][name]
        if not np.allclose(pin_matrix(link), pin_matrix(theirs), atol=ATOL):
            found.append(f"link {name} placement differs")
        for what in ("mass", "com", "inertia"):
            if what == "com" and link.get("mass", 0.0) == 0.0:
                continue  # no mass: no center of it
            if what in link and not np.allclose(link[what], theirs.get(what, 0.0), atol=ATOL):
                found.append(f"link {name} {what}: {link[what]} != {theirs.get(what)}")
    for name, joint in original["joints"].items():
        theirs = ours["joints"].get(name)
        if theirs is None:
            found.append(f"joint {name} missing")
            continue
        if joint["parent"] == "root_joint":  # the original floats: Articula's reader fixes its root
            joint["parent"] = "universe"
        limits = ("kind", "lower", "upper")
        if name in unranged:
            limits = ()  # a revolute <limit> without lower/upper: urdfdom reads 0 0, the readers no limit
        for what in ("kind", "parent"):
            if what in limits + ("parent",) and joint[what] != theirs[what]:
                found.append(f"joint {name} {what}: {joint[what]} != {theirs[what]}")
        for what in ("anchor", "axis", "lower", "upper", "effort", "velocity", "damping", "friction"):
            if what in ("lower", "upper") and what not in limits:
                continue
            if not np.allclose(joint[what], theirs[what], atol=ATOL):
                found.append(f"joint {name} {what}: {joint[what]} != {theirs[what]}")
    if key in REPAIRED_IN_PINOCCHIO and found:
        pytest.xfail(REPAIRED_IN_PINOCCHIO[key])
    assert found == [], "\n".join(found)


def _reader_differences(scene, back) -> list[str]:
    """The robot read back from the export against the description: every body (at its link frame,
    relative to the root), its mass, every joint's type, DOFs and limits."""
    found = []
    art = robot_of(scene)
    frames = link_frames(scene, art)
    root_back = back.body(art.root)
    if root_back is None:
        return [f"root {art.root} not read back"]
    for body in art.bodies:
        theirs = back.body(body)
        if theirs is None:
            found.append(f"body {body} not read back")
            continue
        relative = pose_mul(pose_inverse(root_back.pose), theirs.pose)
        if not np.allclose(matrix(relative), matrix(frames[body]), atol=1e-5):
            found.append(f"body {body} frame differs")
        ours_mass, their_mass = body_mass(scene, body).mass, (theirs.mass.mass if theirs.mass else 0.0)
        if not math.isclose(ours_mass, their_mass, rel_tol=1e-6, abs_tol=1e-9):
            found.append(f"body {body} mass {ours_mass} != {their_mass}")
    for body in art.bodies:
        for joint in art.edge_joints(body):
            dofs = joint.active_dofs()
            if len(dofs) != 1 or len(art.edge_joints(body)) != 1:
                continue
            theirs = back.joint(joint.name)
            if theirs is None or len(theirs.dofs) != 1:
                found.append(f"joint {joint.name} not read back as one DOF")
                continue
            d, t = dofs[0], theirs.dofs[0]
            motion = t.motion
            if motion == DofMotion.LIMITED and min(-t.lower, t.upper) >= UNLIMITED:
                motion = DofMotion.FREE  # an unlimited prismatic joint is written +-1e10 (urdfdom wants numbers)
            if d.axis.is_angular != t.axis.is_angular or d.motion != motion:
                found.append(f"joint {joint.name}: {d.axis}/{d.motion} != {t.axis}/{t.motion}")
            elif d.motion == DofMotion.LIMITED and not np.allclose((d.lower, d.upper), (t.lower, t.upper)):
                found.append(f"joint {joint.name} limits {(d.lower, d.upper)} != {(t.lower, t.upper)}")
            for what in ("max_effort", "velocity_limit", "viscous_damping", "static_friction"):
                if not math.isclose(getattr(d, what), getattr(t, what), rel_tol=1e-9):
                    found.append(f"joint {joint.name} {what} {getattr(d, what)} != {getattr(t, what)}")
    return found


#: add_usd and add_urdf of one robot differ here for a written reason.
NEWTON_SKIPS = dict(urdf_corpus.SKIPS)


@pytest.mark.parametrize("key", [k for k in CORPUS if k.startswith("urdf:")] + ["sample:six_dof_arm",
                                                                                "sample:robotic_finger"])
def test_newton_add_urdf_of_the_export_is_add_usd_of_the_usd_export(key, tmp_path):
    newton = pytest.importorskip("newton")
    from articula.core.usd.writer import write_usd

    from .robot_models import load_usd, model_differences

    name = key.split(":", 1)[1]
    if key in NOTHING or name in urdf_corpus.NEWTON_UNREADABLE:
        pytest.skip("no links, or Newton cannot read the original")
    scene = description(key)
    art = robot_of(scene)
    if any(any(link_offset(art, b)) for b in art.bodies):
        pytest.skip("link frames moved to the joint anchors: Newton's body frames differ by design")
    path, _ = export(scene, tmp_path / "out")
    usd = str(tmp_path / "robot.usda")
    write_usd(scene, usd, layout="NESTED")
    builder = newton.ModelBuilder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder.add_urdf(path, floating=not art.fixed_base)
        from_urdf = builder.finalize(device="cpu")
    skip, _ = NEWTON_SKIPS.get(name, ((), ""))
    if "body_mass" in skip:
        skip = tuple(skip) + ("body_com",)  # mass 0: UsdPhysics derives all three from the colliders
    # An effort or velocity without limit is written 0 (urdfdom refuses inf), which add_urdf keeps.
    unlimited = [d for j in scene.joints for d in j.dofs if not math.isfinite(d.max_effort)]
    skip = tuple(skip) + (("joint_effort_limit",) if unlimited else ()) + ("joint_velocity_limit",)
    skip += ("joint_armature", "joint_target_ke", "joint_target_kd")  # not in URDF: named in the warning
    if any(d.static_friction != d.dynamic_friction for j in scene.joints for d in j.dofs):
        skip += ("joint_friction",)  # URDF's friction is the static one, Newton's the Coulomb one
    differences = model_differences(from_urdf, load_usd(usd), skip=skip, world_links=("world",))
    assert differences == [], "\n".join(differences)


# --- what URDF cannot say, drives, SRDF ---------------------------------------------------------------
def _awkward_robot():
    """A fixed-base arm with a spherical joint, a D6, a driven hinge, a motor, a mimic, a loop,
    collision groups, a filtered pair and a joint anchored away from its child's origin."""
    scene = samples.six_dof_arm()
    arm = scene.joint("joint_2")
    arm.local_pose1 = Pose((0.0, 0.0, 0.05))  # the anchor 5 cm above the child's origin
    arm.local_pose0 = pose_mul(arm.local_pose0, Pose((0.0, 0.0, 0.05)))
    ball = make_joint("wrist_ball", JointType.SPHERICAL, "wrist_2_link", "wrist_3_link",
                      local_pose0=scene.joint("joint_6").local_pose0, local_pose1=scene.joint("joint_6").local_pose1)
    ball.cone_limit0 = ball.cone_limit1 = 0.5
    scene.joints = [j for j in scene.joints if j.name != "joint_6"] + [ball]
    scene.joint("joint_5").mimic = Mimic("joint_4", gear=-2.0, offset=0.1)
    scene.joint("joint_4").dofs[0].drive_enabled = False
    scene.joint("joint_4").dofs[0].actuators.append(Actuator.motor("wrist_motor", ctrl_range=(-12.0, 12.0)))
    scene.joint("joint_1").dofs[0].initial_position = 0.25
    scene.shapes[2].collision_group = 3
    scene.filtered_pairs.append(("arm_base", "elbow_link"))
    loop = make_joint("loop", JointType.REVOLUTE, "arm_base", "wrist_1_link", axis="Z",
                      local_pose0=Pose((0.0, 0.0, 0.75)), local_pose1=Pose((0.0, 0.0, -0.05)))
    scene.joints.append(loop)
    return scene


def test_what_urdf_cannot_say_is_exported_with_one_warning(tmp_path):
    scene = _awkward_robot()
    path, warnings_ = export(scene, tmp_path / "out")
    said = [w for w in warnings_ if w.startswith("URDF cannot say")]
    assert len(said) == 1
    for what in ("collision groups 3", "physics materials (aluminium)", "drive and servo gains",
                 "armature", "cone limits (joints wrist_ball)", "loop-closing joints (loop)"):
        assert what in said[0], said[0]
    chains = [w for w in warnings_ if "chains of massless links" in w]
    assert chains and "wrist_ball_rotX, wrist_ball_rotY, wrist_ball_rotZ" in chains[0]
    differences = pinocchio_differences(scene, pinocchio(path))
    assert differences == [], "\n".join(differences)
    root = ET.parse(path).getroot()
    mimic = root.find("joint[@name='joint_5']/mimic")
    assert mimic.attrib == {"joint": "joint_4", "multiplier": "-2.0", "offset": "0.1"}
    assert root.find("link[@name='wrist_ball_rotX_link']/inertial") is None  # massless chain links
    interfaces = {j.get("name"): j.find("command_interface").get("name") for j in root.iter("ros2_control")
                  for j in j.findall("joint")}
    assert interfaces == {"joint_1": "position", "joint_2": "position", "joint_3": "position",
                          "joint_4": "effort", "joint_5": "position"}
    initial = root.find("ros2_control/joint[@name='joint_1']/state_interface[@name='position']/param")
    assert float(initial.text) == 0.25
    motor = root.find("transmission[@name='joint_4_transmission']")
    assert motor.find("joint/hardwareInterface").text == "hardware_interface/EffortJointInterface"
    assert motor.find("actuator").get("name") == "wrist_motor"
    srdf = ET.parse(os.path.join(tmp_path, "out", "robot.srdf")).getroot()
    pairs = {(d.get("link1"), d.get("link2"), d.get("reason")) for d in srdf.iter("disable_collisions")}
    assert ("arm_base", "elbow_link", "User") in pairs
    assert ("arm_base", "shoulder_pan_link", "Adjacent") in pairs
    back = read_urdf(path)  # MuJoCo compiles it; the motor comes back as a MOTOR actuator
    assert [a.name for a in back.scene.joint("joint_4").dofs[0].actuators] == ["wrist_motor"]


def test_mujocos_limit_softness_and_tendon_equalities_are_said(tmp_path):
    scene = _awkward_robot()
    dof = scene.joint("joint_2").dofs[0]
    dof.motion, dof.lower, dof.upper = DofMotion.LIMITED, -1.0, 1.0
    dof.limit_solimp = (0.0, 0.99, 0.01, 0.5, 2.0)
    scene.tendons.append(FixedTendon("coupling", [TendonJoint("joint_2", 1.0), TendonJoint("joint_3", -1.0)]))
    scene.tendon_equalities.append(TendonEquality("hold", "coupling"))
    _, warnings_ = export(scene, tmp_path / "out")
    (said,) = [w for w in warnings_ if w.startswith("URDF cannot say")]
    assert "MuJoCo limit softness (solreflimit, solimplimit) (joints joint_2)" in said, said
    assert "tendon equalities (hold)" in said, said


def test_meshes_are_written_beside_with_package_paths(tmp_path):
    scene = samples.quadruped()  # capsules: STL meshes
    path, warnings_ = export(scene, tmp_path / "pkg", package_name="my_robot")
    root = ET.parse(path).getroot()
    files = [m.get("filename") for m in root.findall("link/collision/geometry/mesh")]
    assert files and all(f.startswith("package://my_robot/meshes/") and f.endswith(".stl") for f in files)
    visuals = [m.get("filename") for m in root.findall("link/visual/geometry/mesh")]
    assert visuals and all(f.endswith(".obj") for f in visuals)
    assert all((tmp_path / "pkg" / f[len("package://my_robot/"):-4]).with_suffix(".mtl").exists() for f in visuals)
    for f in files:
        data = (tmp_path / "pkg" / f[len("package://my_robot/"):]).read_bytes()
        assert len(data) == 84 + 50 * int.from_bytes(data[80:84], "little") > 84  # binary STL
    assert any("floating root" in w for w in warnings_)  # the torso's pose above the ground is not carried
    arm = samples.six_dof_arm()
    arm_path, _ = export(arm, tmp_path / "arm")
    collisions = ET.parse(arm_path).getroot().findall("link/collision")
    assert len({c.find("geometry/mesh").get("filename") for c in collisions if c.find("geometry/mesh") is not None}) == 6
    for collision in collisions:
        mesh = collision.find("geometry/mesh")
        if mesh is None:
            continue
        shape = next(s for s in arm.shapes if s.name == collision.get("name"))
        data = (tmp_path / "arm" / mesh.get("filename")).read_bytes()
        corners = np.frombuffer(data[84:], dtype=[("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")])["v"]
        length = float(np.ptp(corners[..., 2]))  # each capsule its own size, along URDF's Z
        assert length == pytest.approx(2.0 * (shape.half_height + shape.radius), abs=1e-6), shape.name
    assert read_urdf(path, package_paths=[str(tmp_path)]).scene.body("torso") is not None


def test_several_robots_export_the_one_asked_for(tmp_path):
    scene = samples.collision_showcase()
    roots = [a.root for a in find_articulations(scene)]
    path, warnings_ = export(scene, tmp_path / "out", root=roots[1])
    assert [link.get("name") for link in ET.parse(path).getroot().iter("link")] == [roots[1]]
    assert any(f"{len(roots) - 1} other robots or bodies" in w for w in warnings_)
    with pytest.raises(UrdfWriteError, match="no rigid body"):
        write_urdf(scene, str(tmp_path / "out" / "x.urdf"), root="nothing")


# --- bad input: nothing half-written -------------------------------------------------------------------
def test_a_scene_that_cannot_be_written_leaves_the_old_files(tmp_path):
    scene = samples.six_dof_arm()
    path, _ = export(scene, tmp_path / "out")
    before = {p: p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()}
    broken = samples.six_dof_arm()
    broken.joint("joint_3").local_pose0 = Pose((math.nan, 0.0, 0.0))
    with pytest.raises(UrdfWriteError, match="joint_3"):
        write_urdf(broken, path)
    assert {p: p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()} == before


def test_a_failure_while_writing_leaves_the_old_files_and_no_temporary_ones(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "robot.urdf").write_text("old")
    (folder / "meshes").write_text("a file where the mesh folder goes")
    with pytest.raises(UrdfWriteError, match="cannot be written"):
        write_urdf(samples.quadruped(), str(folder / "robot.urdf"))
    assert (folder / "robot.urdf").read_text() == "old"
    assert sorted(p.name for p in folder.iterdir()) == ["meshes", "robot.urdf"]
    with pytest.raises(UrdfWriteError, match="does not exist"):
        write_urdf(samples.quadruped(), str(tmp_path / "missing" / "robot.urdf"))


KINDS = """<robot name="kinds">
  <link name="base"/>
  <link name="a"/><link name="b"/><link name="c"/>
  <joint name="spin" type="continuous"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/>
    <limit lower="-0.38" upper="0" effort="5" velocity="2"/></joint>
  <joint name="stuck" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
    <limit lower="0" upper="0" effort="5" velocity="2"/></joint>
  <joint name="slide" type="prismatic"><parent link="b"/><child link="c"/><axis xyz="1 0 0"/>
    <limit lower="0.1" upper="0.1" effort="5" velocity="2"/></joint>
</robot>
"""


def test_joint_kinds_and_limits_come_back_as_the_file_has_them(tmp_path):
    """urdfdom ignores a continuous joint's <limit> range, and a revolute or prismatic joint limited to
    lower = upper stays so (MuJoCo's compiler reads 0 0 as no limit): the export keeps both."""
    inertial = '<inertial><mass value="1"/>' \
               '<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>'
    source = tmp_path / "kinds.urdf"
    source.write_text(KINDS.replace('<link name="a"/><link name="b"/><link name="c"/>',
                                    "".join(f'<link name="{n}">{inertial}</link>' for n in "abc")))
    original = pinocchio(str(source))["joints"]
    scene = read_urdf(str(source)).scene
    spin, stuck, slide = (scene.joint(n).dofs[0] for n in ("spin", "stuck", "slide"))
    assert (spin.motion, stuck.motion, slide.motion) == (DofMotion.FREE, DofMotion.LIMITED, DofMotion.LIMITED)
    assert (stuck.lower, stuck.upper, slide.lower, slide.upper) == (0.0, 0.0, 0.1, 0.1)
    out, _ = export(scene, tmp_path / "out")
    back = pinocchio(out)["joints"]
    for name in ("spin", "stuck", "slide"):
        for what in ("kind", "lower", "upper"):
            assert back[name][what] == pytest.approx(original[name][what]), (name, what)
    assert [back[n]["kind"] for n in ("spin", "stuck", "slide")] == ["continuous", "revolute", "prismatic"]
