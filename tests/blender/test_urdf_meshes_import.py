"""File > Import > URDF with meshes as ROS packages ship them, in real Blender (4.5 and 5.2): an ASCII
STL comes in (MuJoCo reads binary STL only); a mesh that is missing (a path from another machine)
or in a format nothing reads (Ogre .mesh) is left out with warnings, the rest of the robot imported."""

import bpy
import pytest

pytest.importorskip("mujoco")

INERTIAL = '<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>'
CORNERS = [(x, y, z) for x in (-0.1, 0.1) for y in (-0.05, 0.05) for z in (-0.025, 0.025)]
FACES = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1),
         (2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def ascii_stl(path):
    lines = ["solid part"]
    for face in FACES:
        lines += ["facet normal 0 0 0", "outer loop", *(f"vertex {' '.join(map(str, CORNERS[i]))}" for i in face),
                  "endloop", "endfacet"]
    path.write_text("\n".join(lines + ["endsolid part", ""]))


def robot(folder, uri: str) -> str:
    path = folder / "robot.urdf"
    path.write_text(f"""<robot name="bot">
  <link name="base">{INERTIAL}<collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>
  <link name="arm">{INERTIAL}
    <visual><geometry><mesh filename="{uri}"/></geometry></visual>
    <collision><geometry><mesh filename="{uri}"/></geometry></collision></link>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="5" velocity="2"/></joint>
</robot>""")
    return str(path)


def _colliders_of(scene, body: str):
    return [o for o in scene.objects if o.articula.collider.enabled and o.parent and o.parent.name == body]


def test_ascii_stl_visual_and_collider_come_in(clean_scene, tmp_path):
    ascii_stl(tmp_path / "part.stl")
    assert bpy.ops.articula.import_urdf(filepath=robot(tmp_path, "part.stl")) == {"FINISHED"}
    visuals = [o for o in clean_scene.objects if o.type == "MESH" and not o.articula.collider.enabled
               and not o.hide_render]
    assert len(visuals) == 1 and len(visuals[0].data.polygons) == 12  # Blender's STL importer read the file
    dims = sorted(round(d, 4) for d in visuals[0].dimensions)
    assert dims == [0.05, 0.1, 0.2]
    assert _colliders_of(clean_scene, "arm") and _colliders_of(clean_scene, "base")


@pytest.mark.parametrize("uri, why", [
    ("/home/someone/ws/src/bot_description/meshes/arm.stl", "not found"),
    ("package://bot_description/meshes/arm.stl", "not found"),
    ("arm.mesh", "cannot be read"),
])
def test_a_missing_or_unreadable_mesh_is_left_out_with_warnings(clean_scene, tmp_path, capfd, uri, why):
    (tmp_path / "arm.mesh").write_bytes(b"[MeshSerializer_v1.100]\0binary")
    capfd.readouterr()
    assert bpy.ops.articula.import_urdf(filepath=robot(tmp_path, uri)) == {"FINISHED"}
    out = capfd.readouterr().out  # Blender prints an operator's reports in the background
    bodies = sorted(o.name for o in clean_scene.objects if o.articula.body.enabled)
    assert bodies == ["arm", "base"] and any(o.articula.joint.enabled for o in clean_scene.objects)
    assert _colliders_of(clean_scene, "base") and not _colliders_of(clean_scene, "arm")
    assert "2 geometries left out" in out and "arm (collision)" in out
    assert f"Warning: robot.urdf: link arm: COLLIDER LEFT OUT, mesh {uri} {why}: the link now has no collision " \
           "there" in out
    if why == "not found":
        assert "searched" in out
