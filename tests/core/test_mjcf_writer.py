"""MJCF export (core.mjcf.writer): MuJoCo compiles what is written, and the mapping is MuJoCo's.

Every check loads the written file back with MuJoCo itself (``MjModel.from_xml_path``, meshes from
the assets folder beside it) and reads MuJoCo's compiled numbers.
"""

import math
import os
import struct

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from articula.core import samples  # noqa: E402
from articula.core.collision import should_collide  # noqa: E402
from articula.core.mjcf import read_mjcf  # noqa: E402
from articula.core.mjcf.writer import MjcfWriteError, assets_folder_name, write_mjcf  # noqa: E402
from articula.core.model import (Actuator, Body, DofMotion, FixedTendon, JointType, MassProperties, Mimic,  # noqa: E402
                                 PhysicsScene, Pose, ShapeKind, TendonJoint)
from articula.core.samples import SceneBuilder  # noqa: E402


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def _load(path):
    return mujoco.MjModel.from_xml_path(str(path))


def _id(model, kind, name):
    index = mujoco.mj_name2id(model, getattr(mujoco.mjtObj, f"mjOBJ_{kind}"), name)
    assert index >= 0, f"{kind.lower()} {name} not in the model"
    return index


def mapping_robot() -> PhysicsScene:
    """A floating base with every joint kind, a welded child, a massless frame, drives, a mimic,
    a tendon with an actuator, a loop-closing joint and two collision groups."""
    b = SceneBuilder("mapping")
    b.scene.settings.steps_per_second = 500.0
    b.scene.settings.gravity = (0.0, 0.0, -3.7)
    rubber = b.material("rubber", static_friction=0.9, dynamic_friction=0.9, torsional_friction=0.01,
                        rolling_friction=0.001)
    b.body("base", Pose(pos=(0.0, 0.0, 1.0)), mass=MassProperties(2.0, (0.0, 0.0, 0.01), (0.02, 0.03, 0.04)))
    b.shape("base_box", ShapeKind.BOX, "base", half_extents=(0.1, 0.1, 0.05), material=rubber)
    b.body("arm", Pose(pos=(0.2, 0.0, 1.0)), parent="base")
    b.shape("arm_capsule", ShapeKind.CAPSULE, "arm", radius=0.02, half_height=0.05, axis="X", material=rubber,
            pose=Pose(pos=(0.05, 0.0, 0.0)))
    b.joint("shoulder", JointType.REVOLUTE, "base", "arm", Pose(pos=(0.2, 0.0, 1.0)), axis="Y", dofs={"rotY": {
        "motion": DofMotion.LIMITED, "lower": -1.0, "upper": 0.5, "armature": 0.01, "viscous_damping": 0.2,
        "static_friction": 0.05, "dynamic_friction": 0.05, "spring_stiffness": 3.0, "max_effort": 12.0,
        "drive_enabled": True, "drive_stiffness": 40.0, "drive_damping": 2.0}})
    b.body("slider", Pose(pos=(0.4, 0.0, 1.0)), parent="arm")
    b.shape("slider_box", ShapeKind.BOX, "slider", half_extents=(0.02, 0.02, 0.02), collision_group=-1)
    b.joint("slide", JointType.PRISMATIC, "arm", "slider", Pose(pos=(0.4, 0.0, 1.0)), axis="X",
            dofs={"transX": {"motion": DofMotion.LIMITED, "lower": -0.1, "upper": 0.1,
                             "drive_enabled": True, "drive_damping": 5.0}})
    b.body("frame", Pose(pos=(0.0, 0.2, 1.0)), parent="base", mass=MassProperties(mass=0.0))
    b.joint("frame_hinge", JointType.REVOLUTE, "base", "frame", Pose(pos=(0.0, 0.2, 1.0)), axis="Z",
            mimic=Mimic(leader="shoulder", gear=-2.0, offset=0.1))
    b.body("welded", Pose(pos=(0.0, -0.2, 1.0)), parent="base")
    b.shape("welded_sphere", ShapeKind.SPHERE, "welded", radius=0.03)
    b.body("wrist", Pose(pos=(-0.2, 0.0, 1.0)), parent="base")
    b.shape("wrist_sphere", ShapeKind.SPHERE, "wrist", radius=0.03)
    b.joint("wrist_d6", JointType.D6, "base", "wrist", Pose(pos=(-0.2, 0.0, 1.0)), dofs={
        "transX": {"motion": DofMotion.LOCKED}, "transY": {"motion": DofMotion.LOCKED},
        "transZ": {"motion": DofMotion.LIMITED, "lower": -0.02, "upper": 0.03},
        "rotX": {"motion": DofMotion.LIMITED, "lower": -0.3, "upper": 0.4, "armature": 0.002},
        "rotY": {"motion": DofMotion.LOCKED}, "rotZ": {"armature": 0.003}})
    b.body("ball", Pose(pos=(-0.4, 0.0, 1.0)), parent="wrist")
    b.shape("ball_sphere", ShapeKind.SPHERE, "ball", radius=0.03)
    b.joint("ball_joint", JointType.SPHERICAL, "wrist", "ball", Pose(pos=(-0.4, 0.0, 1.0)),
            cone_limit0=0.5, cone_limit1=0.5)
    b.joint("closing", JointType.REVOLUTE, "ball", "slider", Pose(pos=(0.0, 0.0, 1.0)), axis="Y",
            exclude_from_articulation=True)
    b.scene.tendons.append(FixedTendon("pair", [TendonJoint("shoulder", 1.0), TendonJoint("wrist_d6", -0.5, "rotX")],
                                       actuators=[Actuator.position("pair_servo", 7.0, 0.5, ctrl_range=(-1.0, 1.0))],
                                       lower=-0.5, upper=0.5, stiffness=1.0, damping=0.1))
    b.scene.filtered_pairs.append(("arm", "wrist"))
    return b.scene


@pytest.fixture
def mapping(tmp_path):
    scene = mapping_robot()
    path = tmp_path / "mapping.xml"
    warnings = write_mjcf(scene, str(path))
    return scene, _load(path), warnings, path


def test_scene_options_bodies_and_inertials(mapping):
    _, m, _, _ = mapping
    assert m.opt.timestep == pytest.approx(1.0 / 500.0)
    assert np.allclose(m.opt.gravity, (0.0, 0.0, -3.7))
    base = _id(m, "BODY", "base")
    assert m.body_parentid[base] == 0
    assert m.jnt_type[m.body_jntadr[base]] == mujoco.mjtJoint.mjJNT_FREE
    assert m.body_mass[base] == pytest.approx(2.0)
    assert np.allclose(m.body_ipos[base], (0.0, 0.0, 0.01))
    assert sorted(m.body_inertia[base]) == pytest.approx([0.02, 0.03, 0.04])
    welded = _id(m, "BODY", "welded")
    assert m.body_jntnum[welded] == 0 and m.body_parentid[welded] == base
    assert m.body_mass[welded] > 0.0  # from its collider, as validation computes it
    for name in ("arm", "slider", "frame", "wrist", "ball"):
        assert m.body_parentid[_id(m, "BODY", name)] in (base, _id(m, "BODY", "arm"), _id(m, "BODY", "wrist"))


def test_massless_moving_body_gets_a_tiny_mass_and_a_warning(mapping):
    _, m, warnings, _ = mapping
    assert 0.0 < m.body_mass[_id(m, "BODY", "frame")] <= 1e-6
    assert any("frame" in w and "massless" in w for w in warnings)


def test_joint_kinds_and_per_dof_values(mapping):
    _, m, _, _ = mapping
    J = mujoco.mjtJoint
    shoulder = _id(m, "JOINT", "shoulder")
    assert m.jnt_type[shoulder] == J.mjJNT_HINGE
    assert np.allclose(m.jnt_axis[shoulder], (0.0, 1.0, 0.0))
    assert m.jnt_limited[shoulder] and np.allclose(m.jnt_range[shoulder], (-1.0, 0.5))
    dof = m.jnt_dofadr[shoulder]
    assert (m.dof_armature[dof], m.dof_damping[dof], m.dof_frictionloss[dof]) == pytest.approx((0.01, 0.2, 0.05))
    assert m.jnt_stiffness[shoulder] == pytest.approx(3.0)
    assert m.jnt_actfrclimited[shoulder] and np.allclose(m.jnt_actfrcrange[shoulder], (-12.0, 12.0))
    assert m.jnt_type[_id(m, "JOINT", "slide")] == J.mjJNT_SLIDE
    ball = _id(m, "JOINT", "ball_joint")
    assert m.jnt_type[ball] == J.mjJNT_BALL and m.jnt_range[ball][1] == pytest.approx(0.5)
    # D6: one joint per kept DOF, in DOF order, named <joint>_<axis>.
    wrist = _id(m, "BODY", "wrist")
    names = [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j)
             for j in range(m.body_jntadr[wrist], m.body_jntadr[wrist] + m.body_jntnum[wrist])]
    assert names == ["wrist_d6_transZ", "wrist_d6_rotX", "wrist_d6_rotZ"]
    assert [m.jnt_type[_id(m, "JOINT", n)] for n in names] == [J.mjJNT_SLIDE, J.mjJNT_HINGE, J.mjJNT_HINGE]
    assert np.allclose(m.jnt_range[_id(m, "JOINT", "wrist_d6_rotX")], (-0.3, 0.4))
    assert not m.jnt_limited[_id(m, "JOINT", "wrist_d6_rotZ")]
    assert m.dof_armature[m.jnt_dofadr[_id(m, "JOINT", "wrist_d6_rotZ")]] == pytest.approx(0.003)


def test_drives_tendons_mimic_and_loop_closure(mapping):
    _, m, _, _ = mapping
    servo = _id(m, "ACTUATOR", "shoulder_drive")
    assert m.actuator_trnid[servo][0] == _id(m, "JOINT", "shoulder")
    assert m.actuator_gainprm[servo][0] == pytest.approx(40.0)
    assert tuple(m.actuator_biasprm[servo][:3]) == pytest.approx((0.0, -40.0, -2.0))
    velocity = _id(m, "ACTUATOR", "slide_drive")
    assert m.actuator_gainprm[velocity][0] == pytest.approx(5.0)
    assert tuple(m.actuator_biasprm[velocity][:3]) == pytest.approx((0.0, 0.0, -5.0))
    tendon = _id(m, "TENDON", "pair")
    assert m.tendon_limited[tendon] and np.allclose(m.tendon_range[tendon], (-0.5, 0.5))
    first = m.tendon_adr[tendon]
    assert list(m.wrap_objid[first:first + 2]) == [_id(m, "JOINT", "shoulder"), _id(m, "JOINT", "wrist_d6_rotX")]
    assert list(m.wrap_prm[first:first + 2]) == pytest.approx([1.0, -0.5])
    on_tendon = _id(m, "ACTUATOR", "pair_servo")
    assert m.actuator_trntype[on_tendon] == mujoco.mjtTrn.mjTRN_TENDON
    assert m.actuator_ctrllimited[on_tendon] and np.allclose(m.actuator_ctrlrange[on_tendon], (-1.0, 1.0))
    types = [int(t) for t in m.eq_type]
    assert sorted(types) == sorted([int(mujoco.mjtEq.mjEQ_JOINT), int(mujoco.mjtEq.mjEQ_CONNECT)])
    joint_eq = types.index(int(mujoco.mjtEq.mjEQ_JOINT))
    assert (m.eq_obj1id[joint_eq], m.eq_obj2id[joint_eq]) == (_id(m, "JOINT", "frame_hinge"), _id(m, "JOINT", "shoulder"))
    assert tuple(m.eq_data[joint_eq][:2]) == pytest.approx((0.1, -2.0))
    connect = types.index(int(mujoco.mjtEq.mjEQ_CONNECT))
    assert {m.eq_obj1id[connect], m.eq_obj2id[connect]} == {_id(m, "BODY", "slider"), _id(m, "BODY", "ball")}


def test_collision_groups_become_exact_masks_and_pairs_excludes(mapping):
    scene, m, _, _ = mapping
    by_name = {s.name: s for s in scene.shapes}
    colliders = [g for g in range(m.ngeom) if mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_GEOM, g) in by_name]
    assert len(colliders) == len(scene.shapes)
    for a in colliders:
        for b in colliders:
            sa = by_name[mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_GEOM, a)]
            sb = by_name[mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_GEOM, b)]
            touch = bool(m.geom_contype[a] & m.geom_conaffinity[b] or m.geom_contype[b] & m.geom_conaffinity[a])
            assert touch == should_collide(0, 0, sa.collision_group, sb.collision_group), (sa.name, sb.name)
    excluded = {frozenset((m.body(int(x >> 16)).name, m.body(int(x & 0xFFFF)).name)) for x in m.exclude_signature}
    assert frozenset(("arm", "wrist")) in excluded  # a filtered pair
    assert frozenset(("ball", "slider")) in excluded  # the bodies of a loop-closing joint
    friction = m.geom_friction[_id(m, "GEOM", "base_box")]
    assert tuple(friction) == pytest.approx((0.9, 0.01, 0.001))


def test_visuals_are_drawn_only_and_colliders_in_group_3(mapping):
    scene, m, _, path = mapping
    visual = _id(m, "GEOM", "base_box_visual")
    assert (m.geom_contype[visual], m.geom_conaffinity[visual], m.geom_group[visual]) == (0, 0, 2)
    assert m.geom_group[_id(m, "GEOM", "base_box")] == 3
    capsule = _id(m, "GEOM", "arm_capsule")  # axis X: MuJoCo's Z turned onto the body's X
    data = mujoco.MjData(m)
    mujoco.mj_kinematics(m, data)
    assert np.allclose(np.abs(data.geom_xmat[capsule].reshape(3, 3)[:, 2]), (1.0, 0.0, 0.0), atol=1e-6)
    folder = path.parent / assets_folder_name(str(path))
    files = sorted(os.listdir(folder))
    assert len(files) == len(scene.visuals)  # only visuals are meshes here
    with open(folder / files[0], "rb") as f:
        head = f.read(84)
    count = struct.unpack("<I", head[80:84])[0]
    assert count > 0 and os.path.getsize(folder / files[0]) == 84 + 50 * count  # binary STL


def test_state_different_from_rest_is_a_keyframe(tmp_path):
    scene = mapping_robot()
    path = tmp_path / "rest.xml"
    write_mjcf(scene, str(path))
    assert _load(path).nkey == 0
    scene.joint("shoulder").dofs[0].initial_position = 0.3
    scene.joint("wrist_d6").dof("rotX").initial_velocity = -0.5
    scene.body("base").linear_velocity = (0.0, 0.0, 1.5)
    write_mjcf(scene, str(path))
    m = _load(path)
    assert m.nkey == 1 and mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_KEY, 0) == "initial"
    assert m.key_qpos[0][m.jnt_qposadr[_id(m, "JOINT", "shoulder")]] == pytest.approx(0.3)
    assert m.key_qvel[0][m.jnt_dofadr[_id(m, "JOINT", "wrist_d6_rotX")]] == pytest.approx(-0.5)
    assert m.key_qvel[0][2] == pytest.approx(1.5)


def test_what_mjcf_cannot_say_is_one_warning(tmp_path):
    scene = samples.collision_showcase()
    warnings = write_mjcf(scene, str(tmp_path / "showcase.xml"))
    said = [w for w in warnings if w.startswith("MJCF cannot say")]
    assert len(said) == 1
    assert "restitution" in said[0] and "worlds" in said[0]


@pytest.mark.parametrize("name", [*samples.SAMPLES, "hanging_chain"])
def test_every_sample_compiles_in_mujoco(name, tmp_path):
    scene = getattr(samples, name)()
    path = tmp_path / f"{name}.xml"
    write_mjcf(scene, str(path))
    m = _load(path)
    assert m.nbody == len(scene.bodies) + 1
    assert m.ngeom == len(scene.shapes) + len(scene.visuals) + int(scene.settings.ground_plane)


def test_read_back_gives_the_same_robot(tmp_path):
    """import_mjcf of the export: the same bodies, masses, joints and per-DOF values."""
    scene = samples.six_dof_arm()
    path = tmp_path / "arm.xml"
    write_mjcf(scene, str(path))
    back = read_mjcf(str(path)).scene
    assert [b.name for b in back.bodies] == [b.name for b in scene.bodies]
    for joint in scene.joints:
        if joint.type == JointType.FIXED:
            continue
        other = back.joint(joint.name)
        assert other.type == joint.type
        for d, e in zip(joint.active_dofs(), other.active_dofs()):
            assert e.motion == d.motion
            assert (e.armature, e.viscous_damping, e.dynamic_friction) == pytest.approx(
                (d.armature, d.viscous_damping, d.dynamic_friction), rel=1e-5)
            if d.motion == DofMotion.LIMITED:
                assert (e.lower, e.upper) == pytest.approx((d.lower, d.upper), rel=1e-5, abs=1e-6)
            if d.drive_enabled:
                assert [a.kind.value for a in e.actuators] == ["POSITION"]
                assert (e.actuators[0].kp, e.actuators[0].kv) == pytest.approx((d.drive_stiffness, d.drive_damping))
    for body in scene.bodies:
        other = back.body(body.name)
        assert np.allclose(other.pose.pos, body.pose.pos, atol=1e-6)


# ------------------------------------------------------------------------------------- bad input
def test_empty_scene_warns_and_writes_a_loadable_file(tmp_path):
    path = tmp_path / "empty.xml"
    warnings = write_mjcf(PhysicsScene(name="empty"), str(path))
    assert _load(path).nbody == 1
    assert not os.path.exists(tmp_path / assets_folder_name(str(path)))  # no meshes, no folder
    assert any("no rigid bodies" in w for w in warnings)


def test_failed_export_leaves_the_old_files(tmp_path):
    path = tmp_path / "robot.xml"
    write_mjcf(samples.pendulum(), str(path))
    before = path.read_text()
    assets = tmp_path / assets_folder_name(str(path))
    old_files = sorted(os.listdir(assets))
    broken = samples.quadruped()
    broken.visuals[0].mesh.triangles = []  # a mesh that cannot be written
    with pytest.raises(MjcfWriteError, match=broken.visuals[0].name):
        write_mjcf(broken, str(path))
    assert path.read_text() == before and sorted(os.listdir(assets)) == old_files
    assert sorted(os.listdir(tmp_path)) == ["robot.xml", "robot_assets"]  # no temporary left over


def test_unwritable_target_leaves_nothing_half_written(tmp_path):
    """The assets folder's place is taken by a file: the move fails, the old XML stays, nothing else."""
    path = tmp_path / "robot.xml"
    path.write_text("<mujoco/>")
    (tmp_path / "robot_assets").write_text("not a folder")
    with pytest.raises(MjcfWriteError, match="robot.xml"):
        write_mjcf(samples.pendulum(), str(path))
    assert path.read_text() == "<mujoco/>"
    assert (tmp_path / "robot_assets").read_text() == "not a folder"
    assert sorted(os.listdir(tmp_path)) == ["robot.xml", "robot_assets"]


def test_missing_folder_is_named(tmp_path):
    with pytest.raises(MjcfWriteError, match="does not exist"):
        write_mjcf(samples.pendulum(), str(tmp_path / "nowhere" / "robot.xml"))


def test_blocking_problem_is_refused_before_writing(tmp_path):
    scene = samples.pendulum()
    scene.bodies[0].pose = Pose(pos=(math.nan, 0.0, 0.0))
    with pytest.raises(MjcfWriteError):
        write_mjcf(scene, str(tmp_path / "robot.xml"))
    assert os.listdir(tmp_path) == [] or os.listdir(tmp_path) == ["MUJOCO_LOG.TXT"]


def test_kinematic_root_is_a_mocap_body(tmp_path):
    scene = PhysicsScene(name="mocap")
    scene.bodies.append(Body("platform", Pose(pos=(0.0, 0.0, 0.5)), kinematic=True,
                             mass=MassProperties(1.0, diagonal_inertia=(0.1, 0.1, 0.1))))
    path = tmp_path / "mocap.xml"
    write_mjcf(scene, str(path))
    m = _load(path)
    assert m.body_mocapid[_id(m, "BODY", "platform")] == 0 and m.njnt == 0


def test_visual_named_like_its_collider_gets_its_own_geom_name(tmp_path):
    """Blender gives a body's mesh and its collider one name: MuJoCo's geom names are one namespace."""
    scene = samples.pendulum()
    scene.visuals[0].name = scene.shapes[0].name
    path = tmp_path / "robot.xml"
    write_mjcf(scene, str(path))
    m = _load(path)
    names = {mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_GEOM, g) for g in range(m.ngeom)}
    assert names == {scene.shapes[0].name, scene.shapes[0].name + "_visual"}


def _png(path, width=2, height=2) -> None:
    """A tiny RGB PNG written by hand (zlib and struct only)."""
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\0" + bytes([255, 0, 0] * width) for _ in range(height))
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def test_visual_with_uvs_is_an_obj_with_its_texture(tmp_path):
    from articula.core.mjcf.writer import VisualSurface

    scene = samples.pendulum()
    visual = scene.visuals[0]
    image = tmp_path / "paint.png"
    _png(image)
    uvs = [(0.25 * (k % 3), 0.5 * (k % 2)) for k in range(3 * len(visual.mesh.triangles))]
    path = tmp_path / "out" / "robot.xml"
    path.parent.mkdir()
    write_mjcf(scene, str(path), surfaces={visual.name: VisualSurface(uvs=uvs, image=str(image))})
    assert sorted(os.listdir(tmp_path / "out" / "robot_assets")) == ["paint.png", f"{visual.name}.obj"]
    m = _load(path)
    geom = _id(m, "GEOM", visual.name)
    mesh = m.geom_dataid[geom]
    assert m.mesh_texcoordnum[mesh] > 0  # MuJoCo read the UVs
    material = m.geom_matid[geom]
    texture = m.mat_texid[material][int(mujoco.mjtTextureRole.mjTEXROLE_RGB)]
    assert texture >= 0 and m.tex_type[texture] == mujoco.mjtTexture.mjTEXTURE_2D
    back = read_mjcf(str(path))  # the reader finds the image through texturedir, as for any MJCF
    assert list(back.material_textures.values()) == [str(tmp_path / "out" / "robot_assets" / "paint.png")]
