"""COLLADA (.dae) meshes of URDF robots, read with pycollada (core/urdf/collada.py), on the real files
pybullet ships: units applied and up_axis ignored as ROS reads them, polygons, materials and UVs kept,
and a robot drawn with .dae files reads as the same robot drawn with the OBJ/STL twins of those files."""

import os
import re
import shutil

import numpy as np
import pytest

pytest.importorskip("collada")
pytest.importorskip("mujoco")

from articula.core.urdf import read_urdf  # noqa: E402
from articula.core.urdf.collada import ColladaReadError, read_collada  # noqa: E402
from articula.core.urdf.reader import _obj_geometry  # noqa: E402

PYBULLET_DATA = os.environ.get("ARTICULA_PYBULLET_DATA", os.path.expanduser("~/.cache/articula/pybullet_data"))
RACECAR = os.path.join(PYBULLET_DATA, "racecar")


@pytest.fixture(autouse=True)
def _needs_pybullet_data(tmp_path, monkeypatch):
    if not os.path.isdir(RACECAR):
        pytest.skip("pybullet's files come with `make urdf-corpus`")
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def _bounds(vertices) -> np.ndarray:
    v = np.asarray(vertices, dtype=float).reshape(-1, 3)
    return np.array([v.min(axis=0), v.max(axis=0)])


@pytest.mark.parametrize("name", ["cone", "hokuyo", "left_front_wheel"])
def test_same_shape_as_the_obj_twin(name):
    """cone.dae is in inches (<unit meter="0.0254">): its OBJ twin, in meters, is 0.15 m wide."""
    dae = read_collada(os.path.join(RACECAR, "meshes", f"{name}.dae"))
    vertices, _ = _obj_geometry(os.path.join(RACECAR, "meshes", f"{name}.obj"))
    assert np.allclose(_bounds(dae.vertices), _bounds(vertices), atol=1e-6)


def test_up_axis_is_ignored_as_ros_does():
    """chassis.dae says Y_UP over coordinates in the link frame: its STL twin (what racecar.urdf
    draws) has the same ones, 0.405 m long along X."""
    dae = read_collada(os.path.join(RACECAR, "meshes", "chassis.dae"))
    assert np.allclose(_bounds(dae.vertices), [[-0.04, -0.1, -0.03], [0.365, 0.1, 0.03]], atol=1e-4)


def test_polygons_and_materials_are_kept():
    mesh = read_collada(os.path.join(RACECAR, "meshes", "hokuyo.dae"))
    assert set(mesh.face_counts.tolist()) == {3, 4}  # quads stay quads
    assert mesh.face_indices.size == mesh.face_counts.sum()
    assert [m.name for m in mesh.materials] == ["black-material", "white_001-material"]
    assert mesh.materials[0].color == pytest.approx((0.020312, 0.020312, 0.020312, 1.0))
    assert set(mesh.face_materials.tolist()) == {0, 1}
    triangles = mesh.triangles()
    assert len(triangles) == sum(n - 2 for n in mesh.face_counts.tolist())
    assert triangles.max() < len(mesh.vertices)


def test_texture_and_uvs(tmp_path):
    """pybullet's duck: a centimeter file with per-corner UVs and an image texture (images/duckCM.png)."""
    shutil.copy(os.path.join(PYBULLET_DATA, "duck.dae"), tmp_path)
    missing = read_collada(str(tmp_path / "duck.dae"))
    assert missing.materials[0].texture is None
    assert missing.missing_images == [str(tmp_path / "images" / "duckCM.png")]
    (tmp_path / "images").mkdir()
    shutil.copy(os.path.join(PYBULLET_DATA, "duckCM.png"), tmp_path / "images")
    mesh = read_collada(str(tmp_path / "duck.dae"))
    assert mesh.materials[0].texture == str(tmp_path / "images" / "duckCM.png") and not mesh.missing_images
    assert mesh.uvs.shape == (mesh.face_indices.size, 2)
    assert np.ptp(mesh.vertices, axis=0).max() == pytest.approx(1.655, abs=1e-3)  # 165.5 cm


TRIANGLE = ('<?xml version="1.0"?><COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">'
            '<library_geometries><geometry id="g"><mesh><source id="s"><float_array id="f" count="9">{points}'
            '</float_array><technique_common><accessor source="#f" count="3" stride="3"><param name="X" type="float"/>'
            '<param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common></source>'
            '<vertices id="v"><input semantic="POSITION" source="#s"/></vertices><triangles count="1">'
            '<input semantic="VERTEX" source="#v" offset="0"/><p>{corners}</p></triangles></mesh></geometry>'
            '</library_geometries></COLLADA>')


@pytest.mark.parametrize("text, said", [
    ("<COLLADA/>", "draws no polygons"), ("not xml at all", "not a readable"), ("", "not a readable"),
    (TRIANGLE.format(points="0 0 0 1 0 0 0 x 0", corners="0 1 2"), "Corrupted float array"),
    (TRIANGLE.format(points="0 0 0 1 0 0 0 1 0", corners="0 1 5"), "go beyond the limits"),
])
def test_unreadable_file_says_why(tmp_path, text, said):
    path = tmp_path / "broken.dae"
    path.write_text(text)
    with pytest.raises(ColladaReadError, match=said):
        read_collada(str(path))


def test_geometry_without_a_scene_is_read(tmp_path):
    path = tmp_path / "triangle.dae"
    path.write_text(TRIANGLE.format(points="0 0 0 1 0 0 0 1 0", corners="0 1 2"))
    mesh = read_collada(str(path))
    assert mesh.face_counts.tolist() == [3] and mesh.face_materials.tolist() == [-1] and mesh.uvs is None


def _racecar_with(tmp_path, extension_of) -> str:
    """racecar.urdf with each mesh file swapped by ``extension_of(stem, extension)``."""
    if not os.path.isdir(tmp_path / "meshes"):
        shutil.copytree(os.path.join(RACECAR, "meshes"), tmp_path / "meshes")
    with open(os.path.join(RACECAR, "racecar.urdf")) as f:
        text = f.read()
    path = tmp_path / f"racecar_{extension_of('', '')}.urdf"
    path.write_text(re.sub(r"meshes/(\w+)\.(obj|STL)", lambda m: f"meshes/{m[1]}.{extension_of(m[1], m[2])}", text))
    return str(path)


def test_racecar_drawn_with_dae_files_is_the_same_robot(tmp_path):
    """Every mesh of pybullet's racecar has a .dae twin: read through them, the robot has the same
    bodies, masses, visuals and colliders, each visual's triangles where the OBJ/STL ones are."""
    original = read_urdf(_racecar_with(tmp_path, lambda stem, ext: ext or "orig"))
    dae = read_urdf(_racecar_with(tmp_path, lambda stem, ext: "dae"))
    assert not [w for w in dae.warnings if "left out" in w] and not dae.left_out_meshes
    assert [b.name for b in dae.scene.bodies] == [b.name for b in original.scene.bodies]
    assert [b.mass.mass for b in dae.scene.bodies] == pytest.approx([b.mass.mass for b in original.scene.bodies])
    assert [(s.name, s.kind) for s in dae.scene.shapes] == [(s.name, s.kind) for s in original.scene.shapes]
    assert [v.name for v in dae.scene.visuals] == [v.name for v in original.scene.visuals]
    for ours, theirs in zip(dae.scene.visuals, original.scene.visuals):
        assert np.allclose(_bounds(ours.mesh.vertices), _bounds(theirs.mesh.vertices), atol=1e-6), ours.name
        assert ours.pose.pos == pytest.approx(theirs.pose.pos, abs=1e-6), ours.name
    sources = {v: s.path for v, s in dae.mesh_sources.items()}
    assert sources and all(path.endswith(".dae") for path in sources.values())


def test_broken_dae_is_left_out_with_the_reason(tmp_path):
    (tmp_path / "body.dae").write_text("<COLLADA/>")
    path = tmp_path / "dae.urdf"
    path.write_text("""<robot name="r"><link name="only">
      <inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
      <visual><geometry><mesh filename="body.dae"/></geometry></visual>
      <collision><geometry><sphere radius="0.1"/></geometry></collision></link></robot>""")
    read = read_urdf(str(path))
    assert read.left_out_meshes == [("body.dae", "only (visual)")]
    warning = next(w for w in read.warnings if "left out" in w)
    assert "body.dae" in warning and "the file draws no polygons" in warning
    assert read.scene.shapes and not read.scene.visuals


@pytest.mark.parametrize("name, text", [("body.ply", "ply\nformat ascii 1.0\nend_header\n"), ("body.dae", "<COLLADA/>")])
def test_every_geom_of_an_unreadable_mesh_is_left_out(tmp_path, name, text):
    """A format nothing reads (PLY) and a broken .dae, each used by a visual and a collider."""
    (tmp_path / name).write_text(text)
    path = tmp_path / "two.urdf"
    path.write_text(f"""<robot name="r"><link name="only">
      <inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
      <visual><geometry><mesh filename="{name}"/></geometry></visual>
      <collision><geometry><mesh filename="{name}"/></geometry></collision>
      <collision><geometry><sphere radius="0.1"/></geometry></collision></link></robot>""")
    read = read_urdf(str(path))
    assert sorted(read.left_out_meshes) == [(name, "only (collision)"), (name, "only (visual)")]
    assert [s.kind.value for s in read.scene.shapes] == ["SPHERE"] and not read.scene.visuals
