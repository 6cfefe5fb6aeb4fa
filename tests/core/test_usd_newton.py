"""Newton 1.8 loads our exports as the description says, and shipped assets survive our round trip.

Every comparison is numerical: body poses, masses, inertia tensors, joint types and frames,
limits, drive gains, armature, friction, effort and velocity limits, joint coordinates.
"""

import glob
import math
import os
import warnings

import numpy as np
import pytest

newton = pytest.importorskip("newton")
pytest.importorskip("newton_usd_schemas")  # registers NewtonJointAPI & co. with USD
pytest.importorskip("scipy")  # Newton's mesh approximations need it

from newton.usd import SchemaResolverMjc, SchemaResolverNewton, SchemaResolverPhysx  # noqa: E402

from articula.core import samples  # noqa: E402
from articula.core.mass import mass_properties  # noqa: E402
from articula.core.model import DofMotion, JointType  # noqa: E402
from articula.core.transforms import AXIS_VECTORS, quat_to_matrix  # noqa: E402
from articula.core.usd.compare import scene_differences  # noqa: E402
from articula.core.usd.reader import read_usd  # noqa: E402
from articula.core.usd.writer import build_stage  # noqa: E402

NEWTON_TYPES = {JointType.REVOLUTE: newton.JointType.REVOLUTE, JointType.PRISMATIC: newton.JointType.PRISMATIC,
                JointType.SPHERICAL: newton.JointType.BALL, JointType.FIXED: newton.JointType.FIXED,
                JointType.D6: newton.JointType.D6}
ALL_RESOLVERS = (SchemaResolverNewton, SchemaResolverPhysx, SchemaResolverMjc)


def load_newton(source, resolvers=ALL_RESOLVERS):
    builder = newton.ModelBuilder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder.add_usd(source, schema_resolvers=[r() for r in resolvers])
        return builder.finalize(device="cpu")


def _leaf(label: str) -> str:
    return label.rsplit("/", 1)[-1]


def _xyzw(rot):
    return np.array([rot[1], rot[2], rot[3], rot[0]])


def _same_transform(newton_tf, pose, atol=1e-5) -> bool:
    q = _xyzw(pose.rot)
    if np.dot(q, newton_tf[3:]) < 0.0:
        q = -q
    return np.allclose(newton_tf[:3], pose.pos, atol=atol) and np.allclose(newton_tf[3:], q, atol=atol)


def _inertia_tensor(props):
    r = np.array(quat_to_matrix(props.principal_axes))
    return r @ np.diag(props.diagonal_inertia) @ r.T


def assert_model_matches_description(model, scene):
    bodies = {_leaf(label): i for i, label in enumerate(model.body_label)}
    assert sorted(bodies) == sorted(b.name for b in scene.bodies)
    body_q, mass = model.body_q.numpy(), model.body_mass.numpy()
    com, inertia = model.body_com.numpy(), model.body_inertia.numpy()
    for body in scene.bodies:
        i = bodies[body.name]
        props = mass_properties(scene, body.name)
        assert _same_transform(body_q[i], body.pose), body.name
        assert mass[i] == pytest.approx(props.mass, rel=1e-5), body.name
        assert np.allclose(com[i], props.center_of_mass, atol=1e-6), body.name
        assert np.allclose(inertia[i], _inertia_tensor(props), rtol=1e-4, atol=1e-10), body.name

    joints = {_leaf(label): i for i, label in enumerate(model.joint_label)}
    free_bases = {name for name, i in joints.items() if model.joint_type.numpy()[i] == newton.JointType.FREE}
    floating_roots = [b.name for b in scene.bodies if b.parent is None
                      and not any(j.body1 == b.name and j.body0 is None for j in scene.joints)]
    assert len(free_bases) == len(floating_roots)  # Newton adds a free joint to each floating root
    assert sorted(set(joints) - free_bases) == sorted(j.name for j in scene.joints)
    types, x_p, x_c = model.joint_type.numpy(), model.joint_X_p.numpy(), model.joint_X_c.numpy()
    qd_start, axes = model.joint_qd_start.numpy(), model.joint_axis.numpy()
    dof_arrays = {name: getattr(model, f"joint_{name}").numpy() for name in (
        "limit_lower", "limit_upper", "target_ke", "target_kd", "armature", "effort_limit",
        "velocity_limit", "friction")}
    for joint in scene.joints:
        i = joints[joint.name]
        assert types[i] == NEWTON_TYPES[joint.type], joint.name
        assert _same_transform(x_p[i], joint.local_pose0), f"{joint.name} parent frame"
        assert _same_transform(x_c[i], joint.local_pose1), f"{joint.name} child frame"
        if joint.type in (JointType.FIXED, JointType.SPHERICAL):
            continue
        expected = sorted(joint.active_dofs(), key=lambda d: d.axis.is_angular)  # Newton: linear first
        newton_dofs = range(qd_start[i], qd_start[i + 1])
        assert len(newton_dofs) == len(expected), joint.name
        for k, dof in zip(newton_dofs, expected):
            subject = f"{joint.name}.{dof.axis.value}"
            axis = AXIS_VECTORS[joint.axis] if joint.type != JointType.D6 else AXIS_VECTORS[dof.axis.letter]
            assert np.allclose(axes[k], axis), subject
            if dof.motion == DofMotion.LIMITED:
                assert dof_arrays["limit_lower"][k] == pytest.approx(dof.lower, rel=1e-5), subject
                assert dof_arrays["limit_upper"][k] == pytest.approx(dof.upper, rel=1e-5), subject
            else:
                assert dof_arrays["limit_lower"][k] < -1e5 and dof_arrays["limit_upper"][k] > 1e5, subject
            gains = (dof.drive_stiffness, dof.drive_damping) if dof.drive_enabled else (0.0, 0.0)
            assert dof_arrays["target_ke"][k] == pytest.approx(gains[0], rel=1e-5), subject
            assert dof_arrays["target_kd"][k] == pytest.approx(gains[1], rel=1e-5), subject
            if dof.drive_enabled and math.isfinite(dof.max_effort):
                assert dof_arrays["effort_limit"][k] == pytest.approx(dof.max_effort, rel=1e-6), subject
            if len({d.armature for d in joint.active_dofs()}) == 1:  # Newton 1.8 takes one value per joint
                assert dof_arrays["armature"][k] == pytest.approx(dof.armature, rel=1e-5, abs=1e-9), subject
                assert dof_arrays["friction"][k] == pytest.approx(dof.dynamic_friction, rel=1e-5), subject
            if math.isfinite(dof.velocity_limit):
                assert dof_arrays["velocity_limit"][k] == pytest.approx(dof.velocity_limit, rel=1e-5), subject


@pytest.mark.parametrize("layout", ["NESTED", "FLAT"])
@pytest.mark.parametrize("name", ["robotic_finger", "six_dof_arm", "quadruped", "d6_sampler", "four_bar",
                                  "pendulum"])
def test_newton_loads_our_export_as_described(name, layout):
    scene = samples.SAMPLES[name]()
    model = load_newton(build_stage(scene, layout), resolvers=(SchemaResolverNewton,))
    assert_model_matches_description(model, scene)


def test_nested_and_flat_give_the_same_newton_model():
    scene = samples.six_dof_arm()
    nested, flat = (load_newton(build_stage(scene, layout)) for layout in ("NESTED", "FLAT"))
    for attr in ("body_q", "body_mass", "body_inertia", "joint_X_p", "joint_X_c", "joint_target_ke",
                 "joint_limit_lower", "joint_armature"):
        assert np.allclose(getattr(nested, attr).numpy(), getattr(flat, attr).numpy(), atol=1e-6), attr


def test_the_model_check_can_fail():
    """The comparison above is not vacuous: a changed drive gain is caught."""
    scene = samples.robotic_finger()
    model = load_newton(build_stage(scene), resolvers=(SchemaResolverNewton,))
    scene.joint("rotational").dofs[0].drive_stiffness *= 2.0
    with pytest.raises(AssertionError):
        assert_model_matches_description(model, scene)


# ------------------------------------------------------------------------ assets shipped by Newton
NEWTON_DIR = os.path.dirname(newton.__file__)

#: Assets with rigid-body physics Newton itself loads (add_usd + finalize) and we compare in full.
COMPARED_ASSETS = [
    "examples/assets/ant.usda",  # 8 revolute legs, MeshCollisionAPI, PhysX joint attributes
    "examples/assets/cartpole.usda",  # prismatic + revolute, fixed base, non-uniform body scale
    "examples/assets/cartpole_single_pendulum.usda",
    "examples/assets/humanoid.usda",  # D6 joints (locked/limited axes), drives, collision groups
    "examples/assets/sensor_contact_scene.usda",
    "examples/assets/palletizer_scene.usda",  # free bodies
    "examples/assets/axis_cube.usda",
    "tests/assets/ant.usda",
    "tests/assets/actuator_test.usda",
    "tests/assets/cartpole_mjc.usda",  # MuJoCo dialect (mjc:*)
    "tests/assets/site_actuator_mjc.usda",
    "tests/assets/four_link_chain_articulation.usda",  # scaled bodies
    "tests/assets/revolute_articulation.usda",
    "tests/assets/simple_articulation_with_mesh.usda",
    "tests/assets/pendulum_revolute_vs_d6.usda",  # a D6 acting as a revolute
    "tests/assets/negative_scale_cube.usda",
    "tests/assets/negative_scale_sphere.usda",
    "tests/assets/negative_scale_mesh_pair.usda",
    "tests/assets/kamino/basics/box_on_plane.usda",
    "tests/assets/kamino/basics/box_pendulum.usda",
    "tests/assets/kamino/testing/geoms/test_geom_box.usda",
    "tests/assets/kamino/testing/geoms/test_geom_capsule.usda",
    "tests/assets/kamino/testing/geoms/test_geom_cylinder.usda",
    "tests/assets/kamino/testing/geoms/test_geom_sphere.usda",
    "tests/assets/kamino/testing/geoms/test_geom_ellipsoid.usda",  # a sphere scaled non-uniformly
    *(f"tests/assets/kamino/testing/joints/test_joint_{kind}_unary.usda" for kind in (  # joint to world
        "cartesian_actuated", "cartesian_passive", "cylindrical_actuated", "cylindrical_passive", "fixed",
        "prismatic_actuated", "prismatic_passive", "revolute_actuated", "revolute_passive", "spherical",
        "universal_actuated", "universal_passive")),
    "tests/assets/humanoid_mjc.usda",  # stacked MJCF hinges Newton merges into D6 joints
    "tests/assets/ant_multi.usda",  # 64 ants: 576 bodies with clashing names
]
#: Assets with initial joint positions: ant_mixed's state:angular:physics:position (JointStateAPI)
#: is read and written back (Dof.initial_position), so it compares with its joint coordinates;
#: humanoid's newton:rotX:position (the seed's per-axis NewtonJointAPI dialect) is not read yet.
INITIAL_STATE_ASSETS = ["tests/assets/humanoid.usda"]
JOINT_STATE_ASSETS = ["tests/assets/ant_mixed.usda"]
#: Read and round-tripped, but Newton does not model them the same way from our export:
OUT_OF_SCOPE = {
    "tests/assets/mjc_schema_import.usda": "MjcEqualityConnectAPI: Newton re-anchors MuJoCo equality "
                                            "constraints, which the description does not model",
    "tests/assets/deformables_mixed.usda": "cables and deformables",
    "tests/assets/cube_cylinder.usda": "CollisionAPI on a plain Xform (skipped with a warning)",
    "tests/assets/kamino/testing/geoms/test_geom_cone.usda": "cone colliders (skipped with a warning)",
}
#: Everything else either has no rigid bodies (cloth, MPM, particles, tet meshes, plain meshes) or
#: has joints but no ArticulationRootAPI, which Newton 1.8 itself refuses to finalize.


def _asset(rel):
    return os.path.join(NEWTON_DIR, rel)


def _compare_models(original, ours, read, with_joint_q=True, skip=()):
    """Newton(original) against Newton(our export), matched through the prim paths we read.
    ``skip``: per-DOF arrays not compared (each with a written reason at the caller)."""
    names = {path: key.split(":", 1)[1] for key, path in read.prim_paths.items()}
    assert original.body_count == ours.body_count and original.joint_count == ours.joint_count

    def index(model, labels, original_labels):
        ours_by_leaf = {_leaf(label): i for i, label in enumerate(labels)}
        kept = read.scene.prim_names  # description name -> the file's prim name, which the export keeps
        return [ours_by_leaf[kept.get(n, n)] for n in (names.get(label, _leaf(label)) for label in original_labels)]

    bodies = index(ours, ours.body_label, original.body_label)
    for attr in ("body_mass", "body_com", "body_inertia"):
        a, b = getattr(original, attr).numpy(), getattr(ours, attr).numpy()[bodies]
        assert np.allclose(a, b, rtol=1e-4, atol=1e-6), attr
    a, b = original.body_q.numpy(), ours.body_q.numpy()[bodies].copy()
    b[:, 3:] *= np.sign(np.sum(a[:, 3:] * b[:, 3:], axis=1, keepdims=True))
    assert np.allclose(a, b, atol=1e-5), "body_q"

    joints = index(ours, ours.joint_label, original.joint_label)
    assert (original.joint_type.numpy() == ours.joint_type.numpy()[joints]).all(), "joint types"
    for attr in ("joint_X_p", "joint_X_c"):
        a, b = getattr(original, attr).numpy(), getattr(ours, attr).numpy()[joints].copy()
        b[:, 3:] *= np.sign(np.sum(a[:, 3:] * b[:, 3:], axis=1, keepdims=True))
        assert np.allclose(a, b, atol=1e-5), attr
    dofs_a, dofs_b = original.joint_qd_start.numpy(), ours.joint_qd_start.numpy()
    q_a, q_b = original.joint_q_start.numpy(), ours.joint_q_start.numpy()
    per_dof = ("joint_axis", "joint_limit_lower", "joint_limit_upper", "joint_target_ke", "joint_target_kd",
               "joint_armature", "joint_friction", "joint_effort_limit", "joint_velocity_limit",
               "joint_limit_ke", "joint_limit_kd", "joint_stiffness")
    arrays = {attr: (getattr(original, attr).numpy(), getattr(ours, attr).numpy()) for attr in per_dof
              if attr not in skip}
    for i, j in enumerate(joints):
        label = original.joint_label[i]
        for attr, (a, b) in arrays.items():
            x, y = a[dofs_a[i]:dofs_a[i + 1]], b[dofs_b[j]:dofs_b[j + 1]]
            assert np.allclose(x, y, rtol=1e-4, atol=1e-6), f"{label} {attr}: {x} != {y}"
        if with_joint_q:
            x = original.joint_q.numpy()[q_a[i]:q_a[i + 1]]
            y = ours.joint_q.numpy()[q_b[j]:q_b[j + 1]]
            assert np.allclose(x, y, atol=1e-5), f"{label} joint_q"


@pytest.mark.parametrize("rel", COMPARED_ASSETS + JOINT_STATE_ASSETS + INITIAL_STATE_ASSETS)
def test_newton_asset_read_write_loads_like_the_original(rel):
    read = read_usd(_asset(rel))
    assert read.scene.bodies, "the asset has rigid bodies"
    original = load_newton(_asset(rel))
    ours = load_newton(build_stage(read.scene, "NESTED"))
    _compare_models(original, ours, read, with_joint_q=rel not in INITIAL_STATE_ASSETS)


@pytest.mark.parametrize("rel", COMPARED_ASSETS + JOINT_STATE_ASSETS + INITIAL_STATE_ASSETS + sorted(OUT_OF_SCOPE))
def test_newton_asset_read_write_read_is_identity(rel):
    first = read_usd(_asset(rel)).scene
    for layout in ("NESTED", "FLAT"):
        second = read_usd(build_stage(first, layout)).scene
        assert scene_differences(first, second) == [], layout


def test_every_shipped_asset_is_accounted_for():
    """Each shipped USD file is compared, out of scope with a reason, or has nothing to compare."""
    listed = set(COMPARED_ASSETS + JOINT_STATE_ASSETS + INITIAL_STATE_ASSETS) | set(OUT_OF_SCOPE)
    for path in sorted(glob.glob(os.path.join(NEWTON_DIR, "**", "*.usd*"), recursive=True)):
        rel = os.path.relpath(path, NEWTON_DIR)
        if rel in listed or not rel.startswith(("examples/assets", "tests/assets")):
            continue
        scene = read_usd(path).scene
        if not scene.joints:
            assert not scene.bodies, f"{rel} has rigid bodies and is not compared"
            continue
        with pytest.raises(ValueError, match="not belonging to any articulation"):
            load_newton(path)  # Newton refuses it too: nothing to compare against
            pytest.fail(f"{rel} loads in Newton and is not compared")


def _waist(model) -> list[float]:
    """Armature of the D6 Newton merges lower_waist's stacked hinges into, in its DOF order."""
    starts, armature = model.joint_qd_start.numpy(), model.joint_armature.numpy()
    index = next(i for i, label in enumerate(model.joint_label) if _leaf(label) == "abdomen_y")
    return [round(float(a), 6) for a in armature[starts[index]:starts[index + 1]]]


def test_stacked_waist_joints_keep_the_files_prim_order():
    """humanoid_mjc's waist: abdomen_z (armature 0.02) then abdomen_y (0.01) on torso -> lower_waist, the
    file's prim order and MuJoCo's. The description and both layouts keep it. Newton 1.8's add_usd merges
    stacked joints in prim *path* order (its UsdPhysics parse sorts them: abdomen_y before abdomen_z),
    whatever the prim order, so it gives [0.01, 0.02] for the original as for the export: same model."""
    asset = _asset("tests/assets/humanoid_mjc.usda")
    scene = read_usd(asset).scene
    assert [(j.name, j.dofs[0].armature) for j in scene.joints if j.body1 == "lower_waist"] == \
        [("abdomen_z", pytest.approx(0.02)), ("abdomen_y", pytest.approx(0.01))]
    original = _waist(load_newton(asset))
    assert original == [0.01, 0.02]
    for layout in ("NESTED", "FLAT"):
        stage = build_stage(scene, layout)
        stacked = [prim.GetName() for prim in stage.Traverse()
                   if prim.HasRelationship("physics:body1") and prim.GetRelationship("physics:body1").GetTargets()
                   and prim.GetRelationship("physics:body1").GetTargets()[0].name == "lower_waist"]
        assert stacked == ["abdomen_z", "abdomen_y"], layout
        assert _waist(load_newton(stage)) == original, layout
        again = read_usd(stage).scene
        assert [(j.name, j.dofs[0].armature) for j in again.joints if j.body1 == "lower_waist"] == \
            [("abdomen_z", pytest.approx(0.02)), ("abdomen_y", pytest.approx(0.01))], layout
