"""Every MJCF file we have goes read_mjcf -> write_mjcf -> MuJoCo and comes back as MuJoCo's compile of the
original, compared BY NAME (tests/core/mjcf_compare.py): sites, sensors, cameras, lights, keyframes,
equalities, tendons with their wraps, actuator transmissions, options, contact pairs and excludes and
per-collider contact parameters.

Corpus: gymnasium's MJCF robots, Newton's assets, MuJoCo Warp's ``test_data`` (sensors, equalities,
tendons, actuators of every transmission) and tests/data (``mjcf_everything.xml`` holds every sensor
type and all the rest in one robot). What the description has no place for is listed below with its
reason, by the differences it makes; each listed loss must still show, so a fixed one is noticed."""

import glob
import math
import os

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from articula.core.mjcf import MjcfReadError, read_mjcf  # noqa: E402
from articula.core.mjcf.writer import STL_MAX_FACES, MjcfWriteError, build_spec, write_mjcf  # noqa: E402
from articula.core.model import (Body, MassProperties, MeshData, PhysicsScene, Pose, Shape,  # noqa: E402
                                  ShapeKind)

from .mjcf_compare import mjcf_differences  # noqa: E402
from .test_mjcf_corpus import GYM, GYM_FILES, NEWTON_ASSETS, NEWTON_FILES  # noqa: E402
from ..robot_files import MUJOCO_ROBOT_FILES, mujoco_robot  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")
WARP_DATA = os.path.join(os.path.dirname(mujoco.__file__), os.pardir, "mujoco_warp", "test_data")
WARP_FILES = sorted(os.path.relpath(p, WARP_DATA) for p in glob.glob(os.path.join(WARP_DATA, "**", "*.xml"),
                                                                     recursive=True))
CORPUS = ([f"gym/{n}.xml" for n in GYM_FILES] + [f"newton/{n}.xml" for n in NEWTON_FILES]
          + [f"warp/{n}" for n in WARP_FILES] + ["data/mjcf_everything.xml", "data/arm_gripper.xml",
                                                 "data/servo_gears.xml", "data/mjcf_muscles.xml"])

#: Files MuJoCo itself cannot load as shipped.
UNLOADABLE = {
    "warp/collision_sdf/torus.xml": "its mesh torus.obj is made by torus.py and not shipped in the package",
}
_SDF = "a collider of an SDF plugin (signed distance field) is not read"
#: What the description has no place for: file -> (the differences it makes, by their start; why).
KNOWN_LOSSES = {
    "warp/collision_sdf/cow.xml": (("colliders of",), _SDF),
    "warp/collision_sdf/mesh.xml": (("colliders of",), _SDF),
    "warp/collision_sdf/nutbolt.xml": (("colliders of",), _SDF),
    "warp/collision_sdf/tactile.xml": (("sensor:", "colliders of"), "tactile sensors read a mesh asset the "
                                       "description does not keep by name; " + _SDF),
    "warp/constraints.xml": (("equality:", "tendon:"),
                             "a fixed tendon on a ball joint (and so the tendon equality on it) is not held"),
    "warp/flex/moving_base_strain.xml": (("equality:",), "flexes (and their equalities) are not read"),
    "warp/flex/multiflex.xml": (("equality:",), "flexes (and their equalities) are not read"),
    "warp/flex/rope.xml": (("equality:",), "flexes (and their equalities) are not read"),
    "warp/pendula.xml": (("joint:", "equality:", "keyframe"),
                         "a ball joint stacked after a slide on one body is written as a loop-closing "
                         "connect (core.articulation stacks only hinges and slides), so the keyframes' "
                         "values for it cannot be written"),
}


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def corpus_path(key: str) -> str:
    source, name = key.split("/", 1)
    folder = {"gym": GYM, "newton": NEWTON_ASSETS, "warp": WARP_DATA, "data": DATA}[source]
    if folder is None:
        pytest.skip("gymnasium's MJCF files come with `make corpus` (.venv-converter)")
    path = os.path.join(folder, name)
    if not os.path.isfile(path):
        pytest.skip(f"{path} not found")
    return path


def compiled_original(path: str):
    """MuJoCo's model of the file, its sensors left out where MuJoCo refuses them, as the reader does."""
    spec = mujoco.MjSpec.from_file(path)
    try:
        return spec.compile()
    except ValueError:
        for sensor in list(spec.sensors):
            spec.delete(sensor)
        return spec.compile()


def joint_coordinate_differences(original, ours) -> list[str]:
    """Each hinge and slide by name: its ``ref`` (qpos0), range, limit margin and every keyframe's qpos
    for it, in the file's own coordinate (mjcf_compare.py compares keyframes from qpos0)."""
    found = []
    hinge_or_slide = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
    keys = [mujoco.mj_id2name(original, mujoco.mjtObj.mjOBJ_KEY, k) for k in range(original.nkey)]
    for j in range(original.njnt):
        name = mujoco.mj_id2name(original, mujoco.mjtObj.mjOBJ_JOINT, j)
        k = mujoco.mj_name2id(ours, mujoco.mjtObj.mjOBJ_JOINT, name) if name else -1
        if int(original.jnt_type[j]) not in hinge_or_slide or k < 0:
            continue
        q, r = int(original.jnt_qposadr[j]), int(ours.jnt_qposadr[k])
        rows = [("ref", original.qpos0[q], ours.qpos0[r]),
                ("margin", original.jnt_margin[j], ours.jnt_margin[k])]
        if original.jnt_limited[j]:
            rows.append(("range", original.jnt_range[j], ours.jnt_range[k]))
        for key_index, key in enumerate(keys):
            other = mujoco.mj_name2id(ours, mujoco.mjtObj.mjOBJ_KEY, key) if key else -1
            if other >= 0:
                rows.append((f"keyframe {key} qpos", original.key_qpos[key_index][q], ours.key_qpos[other][r]))
        found += [f"joint {name} {what}: {a} != {b}" for what, a, b in rows
                  if not np.allclose(a, b, rtol=2e-5, atol=1e-9)]
    return found


def test_corpus_is_not_empty():
    assert len(WARP_FILES) > 40 and "tendon/pulley_wrap.xml" in WARP_FILES


@pytest.mark.parametrize("key", CORPUS)
def test_mjcf_round_trip_compiles_to_the_same_model_by_name(key, tmp_path):
    path = corpus_path(key)
    if key in UNLOADABLE:
        with pytest.raises(MjcfReadError):
            read_mjcf(path)
        pytest.skip(UNLOADABLE[key])
    out = str(tmp_path / "robot.xml")
    write_mjcf(read_mjcf(path).scene, out)
    differences = mjcf_differences(compiled_original(path), mujoco.MjModel.from_xml_path(out))
    differences += joint_coordinate_differences(compiled_original(path), mujoco.MjModel.from_xml_path(out))
    starts, reason = KNOWN_LOSSES.get(key, ((), ""))
    unexplained = [d for d in differences if not d.startswith(starts)]
    assert unexplained == [], "\n".join(unexplained)
    for start in starts:  # the loss still applies: else drop it from KNOWN_LOSSES
        assert any(d.startswith(start) for d in differences), f"{key}: {start!r} no longer lost ({reason})"


#: The real robots' losses (tests/robot_files.py): name -> (the differences it makes, by their start; why).
ROBOT_LOSSES: dict[str, tuple[tuple[str, ...], str]] = {}


@pytest.mark.parametrize("name", sorted(MUJOCO_ROBOT_FILES))
def test_real_mujoco_robots_round_trip_to_the_same_model_by_name(name, tmp_path):
    """The MuJoCo robots nobody here wrote (mjlab, robosuite, gymnasium-robotics, dm_control): their limits'
    solref/solimp (dm_control's, Fetch's), springs' rests (the dog's) and tendon friction (jaco's gripper)
    among the rest."""
    path = mujoco_robot(name)
    out = str(tmp_path / "robot.xml")
    write_mjcf(read_mjcf(path).scene, out)
    ours = mujoco.MjModel.from_xml_path(out)
    differences = mjcf_differences(compiled_original(path), ours)
    differences += joint_coordinate_differences(compiled_original(path), ours)
    starts, reason = ROBOT_LOSSES.get(name, ((), ""))
    unexplained = [d for d in differences if not d.startswith(starts)]
    assert unexplained == [], "\n".join(unexplained)
    for start in starts:
        assert any(d.startswith(start) for d in differences), f"{name}: {start!r} no longer lost ({reason})"


def test_everything_is_read_into_the_description():
    """mjcf_everything.xml's items land in the description's fields as documented."""
    read = read_mjcf(os.path.join(DATA, "mjcf_everything.xml"))
    scene = read.scene
    assert not [w for w in read.warnings if "not carried over" in w]
    assert scene.settings.solver_iterations == type(scene.settings)().solver_iterations  # Newton's, untouched
    options = scene.settings.mujoco
    assert (options.integrator, options.cone, options.solver, options.iterations, options.jacobian) == \
        ("implicitfast", "elliptic", "cg", 30, "sparse")
    assert options.disabled == ("warmstart", "filterparent") and options.enabled == ("override", "energy")
    assert not scene.settings.collision_filter_parent  # the scene's own switch says it too
    assert scene.body("torso").free_joint_name == "root"
    elbow = scene.joint("elbow").dofs[0]
    assert elbow.name == "elbow" and elbow.dynamic_friction == 0.05  # frictionloss
    assert len(scene.sensors) == 48 and scene.sensor("dist").kind == "distance"
    assert scene.sensor("contact").settings == {"data": "found force dist", "reduce": "mindist", "num": "2"}
    assert (scene.sensor("hand_pos").reference, scene.sensor("hand_pos").reference_kind) == ("torso", "body")
    camera = scene.camera("follow")
    assert (camera.mode.value, camera.target) == ("TARGETBODY", "torso")
    assert scene.camera("overview").fovy == pytest.approx(math.radians(60))
    assert scene.camera("overview").resolution == (320, 240)
    site = scene.site("anchor")
    assert (site.kind.value, site.size, site.group, site.body) == ("BOX", (0.02, 0.03, 0.04), 4, None)
    (cable,) = scene.spatial_tendons
    assert [(w.kind.value, w.target, w.side_site) for w in cable.path][:3] == \
        [("SITE", "anchor", None), ("GEOM", "post", "world_end"), ("SITE", "imu", None)]
    assert cable.path[3].divisor == 2.0 and (cable.lower, cable.upper) == (0.1, 2.0)
    weld = next(e for e in scene.equalities if e.name == "hold_target")
    assert weld.relative_pose.pos == pytest.approx((0.1, 0.0, 0.0)) and weld.torque_scale == 0.5
    assert not weld.active and scene.equalities[1].site0 == "plate_site"
    key = scene.keyframe("reach")
    assert key.joint_positions[("elbow", "rotY")] == pytest.approx(0.5)  # the file's coordinate (ref 0.2)
    elbow = scene.joint("elbow").dofs[0]
    assert (elbow.reference, elbow.initial_position, elbow.lower, elbow.upper) == \
        pytest.approx((0.2, 0.2, -2.0, 0.5))
    assert key.root_poses["target"].pos == pytest.approx((1.0, 0.2, 1.1))  # the mocap body
    assert key.controls["push"] == pytest.approx(0.2)
    torso = next(s for s in scene.shapes if s.name == "torso_geom")
    assert (torso.contact.condim, torso.contact.solmix, torso.contact_margin, torso.contact_gap) == \
        (6, 0.5, 0.002, 0.001)
    assert next(s for s in scene.shapes if s.name == "plate_geom").contact is None  # MuJoCo's defaults
    (pair,) = scene.contact_pairs
    assert {pair.shape0, pair.shape1} == {"lower_geom", "floor"} and pair.margin == 0.003
    assert {a.name: a.target_kind for a in scene.frame_actuators} == {
        "shoulder_motor": "joint", "push": "site", "thrust": "site", "grip": "body", "pull": "tendon",
        "base": "jointinparent"}


def test_the_comparison_can_fail(tmp_path):
    """A changed site, sensor noise, camera, keyframe value, weld, wrap, gear, option or contact
    parameter is found."""
    path = os.path.join(DATA, "mjcf_everything.xml")
    scene = read_mjcf(path).scene
    scene.site("imu").pose = Pose((0.0, 0.0, 0.06))
    scene.sensor("gyro").noise = 0.002
    scene.camera("eye").fovy = 1.0
    scene.keyframe("reach").joint_positions[("elbow", "rotY")] = 0.25
    scene.equalities[0].torque_scale = 0.4
    scene.spatial_tendons[0].path[3].divisor = 3.0
    next(a for a in scene.frame_actuators if a.name == "push").gear_vector = (0.0, 1.0, 0.0, 0.0, 0.0, 0.0)
    scene.settings.mujoco.impratio = 3.0
    next(s for s in scene.shapes if s.name == "torso_geom").contact.priority = 5
    out = str(tmp_path / "robot.xml")
    write_mjcf(scene, out)
    found = "\n".join(mjcf_differences(compiled_original(path), mujoco.MjModel.from_xml_path(out)))
    for expected in ("site imu pos", "sensor gyro noise", "camera eye fovy", "keyframe reach elbow qpos",
                     "equality hold_target data", "tendon cable wrap numbers", "actuator push gear",
                     "option impratio", "colliders of torso"):
        assert expected in found, expected


def test_file_keyframes_and_the_initial_state_coexist(tmp_path):
    path = os.path.join(DATA, "mjcf_everything.xml")
    scene = read_mjcf(path).scene
    scene.joint("elbow").dofs[0].initial_position = 0.1
    out = str(tmp_path / "robot.xml")
    write_mjcf(scene, out)
    model = mujoco.MjModel.from_xml_path(out)
    names = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_KEY, k) for k in range(model.nkey)]
    assert names == ["reach", "rest", "initial"]
    elbow = model.jnt_qposadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, "elbow")]
    assert model.key_qpos[2][elbow] == pytest.approx(0.1)  # the file's coordinate (its qpos0 is ref 0.2)
    scene.keyframes[1].name = "initial"  # a file's own keyframe of that name keeps it
    write_mjcf(scene, out)
    model = mujoco.MjModel.from_xml_path(out)
    assert [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_KEY, k) for k in range(model.nkey)] == \
        ["reach", "initial", "initial_1"]
    assert build_spec(scene).initial_keyframe == "initial_1"  # where a simulation finds the state


def _grid(cells: int) -> MeshData:
    """A wavy square of 2 * cells^2 triangles."""
    xs = np.linspace(0.0, 1.0, cells + 1)
    vertices = [(float(x), float(y), 0.01 * math.sin(10 * x) * math.cos(10 * y)) for x in xs for y in xs]
    corner = np.arange(cells * (cells + 1)).reshape(cells, cells + 1)[:, :cells].ravel()
    a, b, c, d = corner, corner + 1, corner + cells + 1, corner + cells + 2
    triangles = np.stack([np.stack([a, b, d], 1), np.stack([a, d, c], 1)], 1).reshape(-1, 3)
    return MeshData(vertices=vertices, triangles=[tuple(int(i) for i in t) for t in triangles])


def test_a_mesh_over_stls_face_limit_is_written_as_obj(tmp_path):
    """MuJoCo's STL reader refuses more than 200,000 faces: such a mesh goes as OBJ and compiles whole."""
    mesh = _grid(317)
    assert len(mesh.triangles) > STL_MAX_FACES
    scene = PhysicsScene(name="terrain")
    scene.bodies.append(Body("ground", mass=MassProperties(1.0, diagonal_inertia=(0.1, 0.1, 0.1))))
    scene.shapes.append(Shape("terrain", ShapeKind.MESH, body=None, mesh=mesh, pose=Pose((0.0, 0.0, -0.1))))
    out = str(tmp_path / "robot.xml")
    write_mjcf(scene, out)
    assert sorted(os.listdir(tmp_path / "robot_assets")) == ["terrain.obj"]
    model = mujoco.MjModel.from_xml_path(out)
    assert int(model.mesh_facenum[0]) > 0 and model.nmesh == 1


def test_built_spec_maps_description_joints_to_mujocos_by_name():
    """What a simulation of the compiled model needs: each description joint's MuJoCo joints per DOF,
    the floating roots' free joints; bodies, actuators, sites and sensors keep their names."""
    scene = read_mjcf(os.path.join(DATA, "mjcf_everything.xml")).scene
    built = build_spec(scene)
    model, obj = built.model, mujoco.mjtObj
    elbow = scene.joint("elbow")
    assert built.dof_joints["elbow"] == [("elbow", elbow.dofs[0])]
    assert [name for name, _ in built.dof_joints["shoulder"]] == ["shoulder"] * 3  # one ball joint, 3 DOFs
    assert built.free_joints == {"torso": "root"}
    for kind, names in ((obj.mjOBJ_BODY, [b.name for b in scene.bodies]),
                        (obj.mjOBJ_SITE, [s.name for s in scene.sites]),
                        (obj.mjOBJ_SENSOR, [s.name for s in scene.sensors]),
                        (obj.mjOBJ_ACTUATOR, [a.name for a, *_ in scene.actuators()]
                         + [a.name for a in scene.frame_actuators])):
        assert all(mujoco.mj_name2id(model, kind, name) >= 0 for name in names)


def test_a_sensor_mujoco_cannot_take_is_refused_by_name(tmp_path):
    """Bad input: the error names the sensor and why; the file already there is left as it was."""
    scene = read_mjcf(os.path.join(DATA, "mjcf_everything.xml")).scene
    out = tmp_path / "robot.xml"
    out.write_text("<mujoco/>")
    scene.sensor("contact").settings["reduce"] = "sometimes"
    with pytest.raises(MjcfWriteError, match="sensor contact"):
        write_mjcf(scene, str(out))
    scene.sensor("contact").settings["reduce"] = "mindist"
    scene.sensor("gyro").kind = "thermometer"
    with pytest.raises(MjcfWriteError, match="sensor gyro: MuJoCo has no 'thermometer'"):
        write_mjcf(scene, str(out))
    assert out.read_text() == "<mujoco/>"


def test_the_scenes_parent_filter_switch_wins_over_the_files_flag():
    scene = read_mjcf(os.path.join(DATA, "mjcf_everything.xml")).scene
    filterparent = int(mujoco.mjtDisableBit.mjDSBL_FILTERPARENT)
    assert build_spec(scene).model.opt.disableflags & filterparent
    scene.settings.collision_filter_parent = True  # switched back on (in Blender, say)
    assert not build_spec(scene).model.opt.disableflags & filterparent
