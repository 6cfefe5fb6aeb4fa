"""URDF meshes as ROS packages ship them: ASCII STL files are read (MuJoCo's decoder takes binary STL
only) and a mesh that is missing or that nothing reads is left out with warnings, the rest of the
robot imported."""

import struct

import numpy as np
import pytest

pytest.importorskip("mujoco")

from articula.core.urdf import read_urdf  # noqa: E402
from articula.core.urdf.stl import StlReadError, read_stl  # noqa: E402

INERTIAL = '<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>'
# A closed, outward-facing box of 0.2 x 0.1 x 0.05 m, 12 triangles.
CORNERS = np.array([(x, y, z) for x in (-0.1, 0.1) for y in (-0.05, 0.05) for z in (-0.025, 0.025)])
FACES = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1),
         (2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def ascii_stl(path, name="part"):
    lines = [f"solid {name}"]
    for face in FACES:
        a, b, c = CORNERS[list(face)]
        n = np.cross(b - a, c - a)
        lines += [f"  facet normal {n[0]:e} {n[1]:e} {n[2]:e}", "    outer loop",
                  *(f"      vertex {p[0]:e} {p[1]:e} {p[2]:e}" for p in (a, b, c)), "    endloop", "  endfacet"]
    path.write_text("\n".join(lines + [f"endsolid {name}", ""]))


def binary_stl(path):
    path.write_bytes(b"solid binary header".ljust(80, b" ") + struct.pack("<I", len(FACES)) + b"".join(
        struct.pack("<3f", 0, 0, 0) + b"".join(struct.pack("<3f", *CORNERS[i]) for i in f) + b"\0\0"
        for f in FACES))


def robot(tmp_path, arm_geometry: str, base_geometry: str = '<box size="0.1 0.1 0.1"/>'):
    path = tmp_path / "robot.urdf"
    path.write_text(f"""<robot name="r">
  <link name="base">{INERTIAL}<collision><geometry>{base_geometry}</geometry></collision></link>
  <link name="arm">{INERTIAL}
    <visual><geometry>{arm_geometry}</geometry></visual>
    <collision><geometry>{arm_geometry}</geometry></collision></link>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="5" velocity="2"/></joint>
</robot>""")
    return str(path)


def _bounds(points):
    points = np.asarray(points)
    return np.concatenate([points.min(axis=0), points.max(axis=0)])


def test_ascii_stl_reads_as_its_binary_twin(tmp_path):
    """MuJoCo alone refuses an ASCII STL ("stl_decoder: number of faces should be between 1 and 200000")."""
    ascii_stl(tmp_path / "part_ascii.stl")
    binary_stl(tmp_path / "part_binary.stl")
    scale = ' scale="2 1 1"'
    ours = read_urdf(robot(tmp_path, f'<mesh filename="part_ascii.stl"{scale}/>'))
    twin = read_urdf(robot(tmp_path, f'<mesh filename="part_binary.stl"{scale}/>'))
    assert not [w for w in ours.warnings if "left out" in w.lower()], ours.warnings
    collider = next(s for s in ours.scene.shapes if s.body == "arm")
    expected = next(s for s in twin.scene.shapes if s.body == "arm")
    # Same triangles, scale applied, placed alike (MuJoCo moves a mesh to its principal frame).
    assert np.allclose(_bounds(collider.mesh.vertices), _bounds(expected.mesh.vertices), atol=1e-6)
    assert np.ptp(np.asarray(collider.mesh.vertices), axis=0).max() == pytest.approx(0.4, abs=1e-6)
    assert collider.pose.pos == pytest.approx(expected.pose.pos, abs=1e-6)
    sources = [s.path for s in ours.mesh_sources.values()]
    assert sources and all(p.endswith("part_ascii.stl") for p in sources), "Blender reads the file itself"


def test_read_stl_merges_shared_corners_and_refuses_what_is_no_stl(tmp_path):
    ascii_stl(tmp_path / "a.stl")
    vertices, triangles = read_stl(str(tmp_path / "a.stl"))
    assert len(vertices) == 8 and triangles.shape == (12, 3)
    assert np.allclose(sorted(map(tuple, vertices)), sorted(map(tuple, CORNERS)))
    (tmp_path / "junk.stl").write_bytes(b"\x01\x02 not an stl at all" * 10)
    with pytest.raises(StlReadError, match="neither a binary STL"):
        read_stl(str(tmp_path / "junk.stl"))
    (tmp_path / "typo.stl").write_text((tmp_path / "a.stl").read_text().replace("vertex", "vertex x", 1))
    with pytest.raises(StlReadError, match="a vertex that is no number"):
        read_stl(str(tmp_path / "typo.stl"))


@pytest.mark.parametrize("uri, why", [
    ("/home/someone/ws/src/bot_description/meshes/arm.stl", "not found"),  # a path from another machine
    ("package://bot_description/meshes/arm.stl", "not found"),  # a package not on the search path
    ("arm.mesh", "cannot be read"),  # Ogre's format: nothing reads it
    ("broken.stl", "cannot be read"),  # neither a binary nor an ASCII STL
])
def test_a_mesh_that_is_missing_or_unreadable_is_left_out_and_the_rest_imported(tmp_path, uri, why):
    (tmp_path / "arm.mesh").write_bytes(b"[MeshSerializer_v1.100]\0binary")
    (tmp_path / "broken.stl").write_bytes(b"\x00" * 30)
    read = read_urdf(robot(tmp_path, f'<mesh filename="{uri}"/>'))
    assert [b.name for b in read.scene.bodies] == ["base", "arm"] and read.scene.joint("j") is not None
    assert [s.body for s in read.scene.shapes] == ["base"] and not read.scene.visuals
    assert sorted(read.left_out_meshes) == [(uri, "arm (collision)"), (uri, "arm (visual)")]
    listed = [w for w in read.warnings if "2 geometries left out" in w]
    assert len(listed) == 1 and "arm (visual)" in listed[0] and "arm (collision)" in listed[0]
    if why == "not found":
        assert "searched" in listed[0]
        if uri.startswith("package://"):  # each place a ROS package may sit, the file's own folder first
            assert str(tmp_path / "bot_description" / "meshes" / "arm.stl") in listed[0]
        else:
            assert uri in listed[0]
    loud = [w for w in read.warnings if "COLLIDER LEFT OUT" in w]
    assert loud == [f"robot.urdf: link arm: COLLIDER LEFT OUT, mesh {uri} {why}: the link now has no "
                    "collision there"]


def test_a_missing_mesh_is_found_once_its_package_is_on_the_search_path(tmp_path):
    meshes = tmp_path / "ws" / "bot_description" / "meshes"
    meshes.mkdir(parents=True)
    ascii_stl(meshes / "arm.stl")
    (tmp_path / "robot").mkdir()
    path = robot(tmp_path / "robot", '<mesh filename="package://bot_description/meshes/arm.stl"/>')
    assert read_urdf(path).left_out_meshes
    read = read_urdf(path, package_paths=[str(tmp_path / "ws")])
    assert not read.left_out_meshes and [s.body for s in read.scene.shapes] == ["base", "arm"]
