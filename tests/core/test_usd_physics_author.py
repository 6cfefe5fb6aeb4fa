"""core/usd/physics_author.py without Blender: physics authored onto prims someone else wrote
(a stage laid out as Blender's exporter lays it out) reads back, and loads in Newton, as the
core writer's own file of the same description."""

import importlib.util
import warnings

import numpy as np
import pytest
from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics

from articula.core import samples
from articula.core.usd.compare import scene_differences
from articula.core.usd.physics_author import author_physics
from articula.core.usd.reader import read_usd
from articula.core.usd.writer import build_stage

OBJECT_NAME = "userProperties:blender:object_name"
SAMPLES = ["robotic_finger", "six_dof_arm", "quadruped", "four_bar", "d6_sampler"]


def blender_like_stage(scene, body_scale=2.0):
    """Xforms where the core writer puts bodies, joints and colliders, each with Blender's
    translate/rotateXYZ/scale ops and object-name property; every body scaled by ``body_scale``
    with a Mesh child, as Blender writes a scaled body object (scale on the Xform)."""
    reference = build_stage(scene)
    layer = Sdf.Layer.CreateAnonymous("blender.usda")
    stage = Usd.Stage.Open(layer)
    UsdGeom.SetStageUpAxis(stage, "Z")
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    read = read_usd(reference)
    paths = {}
    for key, path in read.prim_paths.items():
        kind, name = key.split(":", 1)
        if kind in ("body", "joint", "shape"):
            paths[name] = Sdf.Path(path)
    root = UsdGeom.Xform.Define(stage, "/root")
    stage.SetDefaultPrim(root.GetPrim())
    bodies = {b.name for b in scene.bodies}
    cache = UsdGeom.XformCache()
    for name, path in sorted(paths.items(), key=lambda item: item[1].pathElementCount):
        source = reference.GetPrimAtPath(path)
        target = Sdf.Path("/root" + str(path))
        for prefix in target.GetPrefixes()[:-1]:
            if not stage.GetPrimAtPath(prefix):
                UsdGeom.Xform.Define(stage, prefix)
        xform = UsdGeom.Xform.Define(stage, target)
        xform.GetPrim().CreateAttribute(OBJECT_NAME, Sdf.ValueTypeNames.String, custom=True).Set(name)
        world = cache.GetLocalToWorldTransform(source)
        if name in bodies:
            world = Gf.Matrix4d().SetScale(body_scale) * world
            mesh = UsdGeom.Mesh.Define(stage, target.AppendChild("Mesh"))
            mesh.CreatePointsAttr([(0, 0, 0), (0.01, 0, 0), (0, 0.01, 0)])
            mesh.CreateFaceVertexCountsAttr([3])
            mesh.CreateFaceVertexIndicesAttr([0, 1, 2])
        parent_world = UsdGeom.XformCache().GetLocalToWorldTransform(stage.GetPrimAtPath(target.GetParentPath()))
        local = world * parent_world.GetInverse()
        t, r, s = Gf.Transform(local).GetTranslation(), Gf.Transform(local).GetRotation(), Gf.Transform(local).GetScale()
        xform.AddTranslateOp().Set(t)
        xform.AddRotateXYZOp().Set(Gf.Vec3f(*r.Decompose(Gf.Vec3d.ZAxis(), Gf.Vec3d.YAxis(), Gf.Vec3d.XAxis())[::-1]))
        xform.AddScaleOp().Set(Gf.Vec3f(*s))
    return stage, {name: Sdf.Path("/root" + str(path)) for name, path in paths.items()}


@pytest.mark.parametrize("name", SAMPLES)
def test_authored_physics_reads_back_as_the_core_writers(name):
    scene = getattr(samples, name)()
    stage, paths = blender_like_stage(scene)
    author_physics(stage, scene, paths)
    ours = read_usd(stage).scene
    core = read_usd(build_stage(scene)).scene
    differences = [d for d in scene_differences(core, ours, tol=1e-4) if not d.startswith("visual")]
    assert differences == []


def test_body_scale_lands_on_its_mesh_and_bodies_are_rigid():
    scene = samples.robotic_finger()
    stage, paths = blender_like_stage(scene, body_scale=2.0)
    author_physics(stage, scene, paths)
    prims = {p.GetAttribute(OBJECT_NAME).Get(): p for p in stage.Traverse() if p.GetAttribute(OBJECT_NAME)}
    assert prims["palm"].GetParent().HasAPI(UsdPhysics.ArticulationRootAPI)  # the fixed base's wrapper
    for body in scene.bodies:
        prim = prims[body.name]
        ops = [op.GetOpName() for op in UsdGeom.Xformable(prim).GetOrderedXformOps()]
        assert ops == ["xformOp:translate", "xformOp:orient"]
        mesh = prim.GetChild("Mesh")
        world = UsdGeom.Xformable(mesh).ComputeLocalToWorldTransform(Usd.TimeCode.Default())
        assert Gf.Transform(world).GetScale() == pytest.approx((2.0, 2.0, 2.0), abs=1e-6)
    for joint in scene.joints:
        prim = prims[joint.name]
        assert prim.IsA(UsdPhysics.Joint) and not prim.GetAttribute("xformOpOrder").HasAuthoredValue()


def _fixed_base_fleet(robots: int = 3):
    """``robots`` copies of the robotic finger (fixed to the world), each name suffixed ``_<i>``."""
    from dataclasses import replace

    from articula.core.model import PhysicsScene, Pose

    fleet = PhysicsScene(name="fleet")
    for i in range(robots):
        one = samples.robotic_finger()
        fleet.materials = one.materials
        rename = {item.name: f"{item.name}_{i}" for item in (*one.bodies, *one.joints, *one.shapes, *one.visuals)}
        shift = lambda pose: Pose((pose.pos[0] + i, *pose.pos[1:]), pose.rot)  # noqa: E731
        fleet.bodies += [replace(b, name=rename[b.name], parent=rename.get(b.parent), pose=shift(b.pose))
                         for b in one.bodies]
        fleet.joints += [replace(j, name=rename[j.name], body0=rename.get(j.body0), body1=rename[j.body1],
                                 local_pose0=shift(j.local_pose0) if j.body0 is None else j.local_pose0)
                         for j in one.joints]
        fleet.shapes += [replace(s, name=rename[s.name], body=rename.get(s.body)) for s in one.shapes]
        fleet.visuals += [replace(v, name=rename[v.name], body=rename.get(v.body)) for v in one.visuals]
    return fleet


def test_every_fixed_base_of_a_fleet_gets_its_wrapper():
    """Several fixed-base robots: each root moves under its own articulation wrapper (the moves are
    applied to every path at once) and the file reads back as the core writer's."""
    scene = _fixed_base_fleet()
    stage, paths = blender_like_stage(scene)
    author_physics(stage, scene, paths)
    prims = {p.GetAttribute(OBJECT_NAME).Get(): p for p in stage.Traverse() if p.GetAttribute(OBJECT_NAME)}
    for i in range(3):
        wrapper = prims[f"palm_{i}"].GetParent()
        assert wrapper.HasAPI(UsdPhysics.ArticulationRootAPI) and wrapper.GetName().startswith(f"palm_{i}")
    ours = read_usd(stage).scene
    core = read_usd(build_stage(scene)).scene
    assert [d for d in scene_differences(core, ours, tol=1e-4) if not d.startswith("visual")] == []


@pytest.mark.skipif(importlib.util.find_spec("newton") is None, reason="newton not installed")
def test_newton_loads_the_same_model():
    import newton

    scene = samples.six_dof_arm()
    stage, paths = blender_like_stage(scene)
    author_physics(stage, scene, paths)

    def load(source):
        builder = newton.ModelBuilder()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            builder.add_usd(source)
        return builder.finalize(device="cpu")

    a, b = load(build_stage(scene)), load(stage)
    assert [label.rsplit("/", 1)[-1] for label in a.body_label] == [label.rsplit("/", 1)[-1] for label in b.body_label]
    for attr in ("body_mass", "body_com", "body_inertia", "body_q", "joint_type", "joint_X_p", "joint_X_c",
                 "joint_limit_lower", "joint_limit_upper", "joint_target_ke"):  # shapes: our stand-in meshes are extra visuals
        assert np.allclose(getattr(a, attr).numpy(), getattr(b, attr).numpy(), atol=1e-5), attr


@pytest.mark.parametrize("moves, nested", [
    ([("/root/a", "/root/a_w/a"), ("/root/b", "/root/b_w/b")], False),  # sibling robots
    ([("/root/a", "/root/a_w/a"), ("/root/a_w/a/x/b", "/root/a_w/a/x/b_w/b")], True),  # one inside the other
    ([("/root/a/x/b", "/root/a/x/b_w/b"), ("/root/a", "/root/a_w/a")], True),  # the outer one moved last
])
def test_moves_map_every_path_as_the_moves_made_in_order(moves, nested):
    """Wrapping fixed bases moves prims; every path then follows: by its parent when the moves
    are independent, by prefix in order when one happened inside another's subtree."""
    from articula.core.usd.physics_author import _Moves

    mapping = _Moves()
    for old, new in moves:
        mapping.add(Sdf.Path(old), Sdf.Path(new))
    assert mapping._nested == nested

    def by_hand(path):
        for old, new in moves:
            if path == old or path.startswith(old + "/"):
                path = new + path[len(old):]
        return path

    paths = ["/root", "/root/a", "/root/a/x", "/root/a/x/b", "/root/a/x/b/y", "/root/b/z", "/root/c",
             "/root/a_w", "/root/ab"]
    for path in paths * 2:  # the second time from memory
        assert mapping(Sdf.Path(path)) == Sdf.Path(by_hand(path)), path


def test_moves_follow_a_chain_deeper_than_python_recursion():
    """A snake of 3,000 nested links under a moved root maps without recursion."""
    from articula.core.usd.physics_author import _Moves

    mapping = _Moves()
    mapping.add(Sdf.Path("/root/snake"), Sdf.Path("/root/snake_w/snake"))
    tail = "/".join(f"l{i}" for i in range(3000))
    assert mapping(Sdf.Path(f"/root/snake/{tail}")) == Sdf.Path(f"/root/snake_w/snake/{tail}")
    assert mapping(Sdf.Path("/root/other/x")) == Sdf.Path("/root/other/x")
