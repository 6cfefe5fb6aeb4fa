"""The NESTED USD export and the simulation read the robot without its render meshes: Blender's
exporter writes those meshes itself and the physics never uses them, and on a real robot reading
them is most of reading the robot. The file is the same, and so is the description but for the
visuals' empty meshes; the FLAT export, which writes the meshes itself, still reads them."""

import dataclasses
import os

import bpy
import pytest
from pxr import Sdf

from articula.addon.adapters.blender_to_export import robot_for_export
from articula.addon.adapters.description_to_blender import build_scene
from articula.addon.simulation_session import BlenderSimulation
from articula.core import samples
from articula.core.model import MeshData
from articula.operators import io_usd

from tests.robot_files import PYBULLET_DATA

PANDA = os.path.join(PYBULLET_DATA, "franka_panda", "panda.urdf")


def load(robot: str) -> None:
    if robot == "panda":
        if not os.path.isfile(PANDA):
            pytest.skip("pybullet's files come with `make urdf-corpus`")
        assert bpy.ops.articula.import_urdf(filepath=PANDA) == {"FINISHED"}
    else:
        build_scene(bpy.context, samples.six_dof_arm())


def specs(layer: Sdf.Layer) -> dict:
    """Every spec's path -> its fields: the file's content, whatever order Blender wrote its
    prims in (two exports of one scene may order siblings differently)."""
    found = {}

    def visit(path):
        spec = layer.GetObjectAtPath(path)
        if spec is not None:  # a path in the walk names a spec, a relationship's target none
            found[str(path)] = sorted((key, str(spec.GetInfo(key))) for key in spec.ListInfoKeys())

    layer.Traverse(Sdf.Path.absoluteRootPath, visit)
    return found


def without_visual_meshes(desc):
    return dataclasses.replace(desc, visuals=[dataclasses.replace(v, mesh=MeshData()) for v in desc.visuals])


@pytest.mark.parametrize("robot", ["six_dof_arm", "panda"])
def test_the_nested_export_reads_no_render_mesh_and_writes_the_same_file(clean_scene, robot, tmp_path):
    load(robot)
    full = robot_for_export(bpy.context, selected_only=False, current_pose=False).desc
    light = robot_for_export(bpy.context, selected_only=False, current_pose=False, visual_meshes=False).desc
    assert full.visuals and all(v.mesh.triangles for v in full.visuals)
    assert light == without_visual_meshes(full)
    written = []
    for desc, name in ((full, "full.usda"), (light, "light.usda")):
        io_usd._blender_export(bpy.context, str(tmp_path / name), desc, None)
        written.append(Sdf.Layer.OpenAsAnonymous(str(tmp_path / name)))
    assert specs(written[0]) == specs(written[1])
    meshes = [p for p, fields in specs(written[0]).items() if ("typeName", "Mesh") in fields]
    assert len(meshes) >= len(full.visuals)  # Blender wrote every render mesh


def test_the_export_operator_writes_the_render_meshes_nested_and_flat(clean_scene, tmp_path):
    load("six_dof_arm")
    for layout in ("NESTED", "FLAT"):
        path = str(tmp_path / f"{layout}.usda")
        assert bpy.ops.articula.export_usd(filepath=path, layout=layout) == {"FINISHED"}
        layer = Sdf.Layer.OpenAsAnonymous(path)
        points = [line for line in layer.ExportToString().splitlines() if "point3f[] points = [(" in line]
        assert len(points) >= 7, layout  # the 7 visuals' meshes (and the mesh colliders') have points


def test_the_simulation_reads_no_render_mesh(clean_scene):
    load("six_dof_arm")
    session = BlenderSimulation(bpy.context, solver="FEATHERSTONE")
    try:
        assert session.description.visuals and all(not v.mesh.triangles for v in session.description.visuals)
        session.advance_frame()
    finally:
        session.restore()
