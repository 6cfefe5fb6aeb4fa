"""The USD hook's edits of the prims Blender wrote, made the cheap way, give what the plain way gives:
each link and joint gets its Isaac API last of its applied schemas (as the core writer's file has
them, filtered pairs and mimic joints included), and a prim's transform goes with every op its
xformOpOrder lists (inverted ones too)."""

from pxr import Sdf

from articula.core import samples
from articula.core.model import Mimic
from articula.core.usd.physics_author import author_physics
from articula.core.usd.reader import read_usd
from articula.core.usd.writer import build_stage
from tests.core.test_usd_physics_author import blender_like_stage


def _scene_with_pairs_and_a_mimic():
    scene = samples.six_dof_arm()
    names = [body.name for body in scene.bodies]
    scene.filtered_pairs = [(names[0], names[2]), (names[1], names[3])]
    revolute = [joint for joint in scene.joints if joint.type.name == "REVOLUTE"]
    revolute[-1].mimic = Mimic(leader=revolute[-2].name, gear=0.5, offset=0.1)
    return scene


def _applied_schemas(stage, prim_paths: dict) -> dict:
    """Element key ("body:<name>", "joint:<name>") -> the applied schemas its prim spec lists, in order."""
    layer = stage.GetRootLayer()
    return {key: list(layer.GetPrimAtPath(path).GetInfo("apiSchemas").prependedItems)
            for key, path in prim_paths.items() if key.startswith(("body:", "joint:"))}


def test_links_and_joints_get_their_isaac_api_last_as_in_the_core_writers_file():
    scene = _scene_with_pairs_and_a_mimic()
    stage, paths = blender_like_stage(scene, body_scale=1.0)
    author_physics(stage, scene, paths)
    hooked = _applied_schemas(stage, read_usd(stage).prim_paths)
    core_stage = build_stage(scene)
    core = _applied_schemas(core_stage, read_usd(core_stage).prim_paths)
    assert hooked == core
    assert len(hooked) == len(scene.bodies) + len(scene.joints)
    for key, schemas in hooked.items():
        assert schemas[-1] == ("IsaacLinkAPI" if key.startswith("body:") else "IsaacJointAPI"), key
        assert len(schemas) == len(set(schemas)), key
    assert sum("PhysicsFilteredPairsAPI" in schemas for schemas in hooked.values()) == 2
    assert sum("NewtonMimicAPI" in schemas for schemas in hooked.values()) == 1


def test_every_op_in_a_prims_order_goes_inverted_ones_too():
    scene = samples.robotic_finger()
    stage, paths = blender_like_stage(scene)
    joint = scene.joints[-1].name
    prim = stage.GetPrimAtPath(paths[joint])
    prim.CreateAttribute("xformOp:translate:pivot", Sdf.ValueTypeNames.Double3).Set((0.0, 0.0, 0.01))
    order = prim.GetAttribute("xformOpOrder")
    order.Set(list(order.Get()) + ["!invert!xformOp:translate:pivot"])  # listed inverted only
    author_physics(stage, scene, paths)
    layer, moved = stage.GetRootLayer(), read_usd(stage).prim_paths  # a fixed base moved the prims
    joint_properties = list(layer.GetPrimAtPath(moved["joint:" + joint]).properties.keys())
    assert joint_properties and not [name for name in joint_properties if name.startswith("xformOp")]
    for body in scene.bodies:  # Blender's translate/rotateXYZ/scale gave way to translate + orient
        spec = layer.GetPrimAtPath(moved["body:" + body.name])
        ops = sorted(name for name in spec.properties.keys() if name.startswith("xformOp"))
        assert ops == ["xformOp:orient", "xformOp:translate", "xformOpOrder"], (body.name, ops)


def test_moves_along_a_traversal_map_each_path_as_one_by_one():
    """Fixed bases wrapped: a traversal's paths follow their moved ancestor in one pass, as each
    path asked for alone; nested moves, or a moved prim the walk lacks, are left to the latter."""
    from articula.core.usd.physics_author import _Moves

    walk = ["/root", "/root/a", "/root/a/x", "/root/a/x/y", "/root/ab", "/root/ab/z", "/root/b", "/root/b/w",
            "/root/c"]
    walk = {Sdf.Path(path): None for path in walk}
    moves = _Moves()
    moves.add(Sdf.Path("/root/a"), Sdf.Path("/root/a_w/a"))
    moves.add(Sdf.Path("/root/b"), Sdf.Path("/root/b_w/b"))
    along = moves.along(walk)
    assert along == {path: moves(path) for path in walk}
    assert along[Sdf.Path("/root/a/x/y")] == Sdf.Path("/root/a_w/a/x/y")
    assert along[Sdf.Path("/root/ab/z")] == Sdf.Path("/root/ab/z")  # a name with the moved one's as prefix
    nested = _Moves()
    nested.add(Sdf.Path("/root/a"), Sdf.Path("/root/a_w/a"))
    nested.add(Sdf.Path("/root/a_w/a/x"), Sdf.Path("/root/a_w/a/x_w/x"))
    assert nested.along(walk) is None
    absent = _Moves()
    absent.add(Sdf.Path("/root/q"), Sdf.Path("/root/q_w/q"))
    assert absent.along(walk) is None
