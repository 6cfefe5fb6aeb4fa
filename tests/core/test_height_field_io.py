"""Terrain (MuJoCo height fields) in the description, MJCF and USD: read from MuJoCo's compiled grid,
written back exactly (MJCF's binary hfield file; USD's surface mesh with the grid in ``mjc:hfield:*``),
massless, validated, and collided by Newton as the static triangle mesh of its surface."""

import os

import mujoco
import numpy as np
import pytest
from pxr import Gf, UsdGeom

from articula.core import samples
from articula.core.mass import mass_properties
from articula.core.mjcf import primitives, read_mjcf
from articula.core.mjcf.writer import write_mjcf
from articula.core.model import HeightField, Pose, Shape, ShapeKind
from articula.core.usd.reader import read_usd
from articula.core.usd.writer import build_stage
from articula.core.validation import validate

from ..robot_files import mujoco_robot
from .mjcf_compare import mjcf_differences

WARP_DATA = os.path.join(os.path.dirname(mujoco.__file__), os.pardir, "mujoco_warp", "test_data")

#: A 4 x 5 terrain, rows from -y to +y (MuJoCo's compiled order) as MJCF's inline elevation lists them
#: from +y down; a ball above it.
BUMPS = """<mujoco><asset>
  <hfield name="bumps" nrow="4" ncol="5" size="2 1.5 0.4 0.2"
          elevation="0 1 2 1 0  1 3 4 3 1  0 2 5 2 0  0 0 1 0 0"/></asset>
  <worldbody><geom name="terrain" type="hfield" hfield="bumps" pos="0.5 -0.25 0.1" euler="0 0 30"/>
    <body name="ball" pos="0 0 2"><freejoint/><geom size="0.1"/></body></worldbody></mujoco>"""


@pytest.fixture
def bumps(tmp_path):
    path = tmp_path / "bumps.xml"
    path.write_text(BUMPS)
    return str(path)


def _terrain(scene) -> Shape:
    return next(s for s in scene.shapes if s.kind == ShapeKind.HEIGHT_FIELD)


def test_mjcf_terrain_is_read_as_mujoco_compiles_it(bumps):
    read = read_mjcf(bumps)
    shape = _terrain(read.scene)
    model = mujoco.MjModel.from_xml_path(bumps)
    field = shape.height_field
    assert (field.name, field.nrow, field.ncol) == ("bumps", 4, 5)
    assert (field.half_x, field.half_y, field.elevation, field.base) == pytest.approx((2.0, 1.5, 0.4, 0.2))
    assert field.heights == model.hfield_data.tolist()  # normalized, row 0 at -y: the last row written
    assert field.heights[:5] == pytest.approx([0.0, 0.0, 0.2, 0.0, 0.0])
    assert shape.body is None and shape.pose.pos == pytest.approx((0.5, -0.25, 0.1))
    assert not any("not carried over" in w for w in read.warnings)
    assert not [v for v in read.scene.visuals if v.name.startswith("terrain")]  # drawn by its collider


def test_mjcf_terrain_is_written_back_exactly(bumps, tmp_path):
    out = tmp_path / "written.xml"
    write_mjcf(read_mjcf(bumps).scene, str(out))
    original, written = mujoco.MjModel.from_xml_path(bumps), mujoco.MjModel.from_xml_path(str(out))
    assert mjcf_differences(original, written) == []
    assert np.array_equal(original.hfield_data, written.hfield_data)  # float32 samples, bit for bit
    assert written.geom_group[0] == 0  # drawn in MuJoCo's viewer, as the original


@pytest.mark.parametrize("name", ["hfield/hfield.xml", "ray.xml"])
def test_mujoco_warp_terrains_round_trip(name, tmp_path):
    path = os.path.join(WARP_DATA, name)
    out = tmp_path / "out.xml"
    write_mjcf(read_mjcf(path).scene, str(out))
    differences = mjcf_differences(mujoco.MjModel.from_xml_path(path), mujoco.MjModel.from_xml_path(str(out)))
    assert [d for d in differences if d.startswith(("height field", "colliders of world"))] == []


def test_a_flat_terrain_stays_inline_zeros(tmp_path):
    """dm_control's quadruped: a 201 x 201 grid its task fills at run time, written without a file."""
    scene = read_mjcf(mujoco_robot("quadruped")).scene
    field = _terrain(scene).height_field
    assert (field.nrow, field.ncol) == (201, 201) and not any(field.heights)
    out = tmp_path / "quadruped.xml"
    write_mjcf(scene, str(out))
    assert not [f for f in os.listdir(tmp_path / "quadruped_assets") if f.endswith(".bin")]
    model = mujoco.MjModel.from_xml_path(str(out))
    assert (int(model.hfield_nrow[0]), int(model.hfield_ncol[0])) == (201, 201)


@pytest.mark.parametrize("layout, parser", [("NESTED", "usd"), ("FLAT", "usd"), ("NESTED", "python")])
def test_usd_carries_the_grid_and_its_surface(bumps, layout, parser):
    scene = read_mjcf(bumps).scene
    stage = build_stage(scene, layout)
    prim = next(p for p in stage.Traverse() if p.HasAttribute("mjc:hfield:elevation"))
    assert prim.GetTypeName() == "Mesh" and prim.GetAttribute("physics:approximation").Get() == "none"
    points = np.asarray(prim.GetAttribute("points").Get())
    field = _terrain(scene).height_field
    assert len(points) == field.nrow * field.ncol
    assert points[7] == pytest.approx((*field.sample_xy(1, 2), field.height_at(1, 2)), abs=1e-6)
    back = _terrain(read_usd(stage, parser=parser).scene)
    assert back.height_field == field  # exact: the samples travel as written
    assert back.pose.pos == pytest.approx(_terrain(scene).pose.pos, abs=1e-9)


def test_a_scaled_terrain_prim_scales_its_sizes(bumps):
    stage = build_stage(read_mjcf(bumps).scene, "FLAT")
    prim = next(p for p in stage.Traverse() if p.HasAttribute("mjc:hfield:elevation"))
    xform = UsdGeom.Xformable(prim)
    xform.AddScaleOp(opSuffix="user").Set(Gf.Vec3f(2.0, 1.0, 0.5))
    field = _terrain(read_usd(stage).scene).height_field
    assert (field.half_x, field.half_y, field.elevation, field.base) == pytest.approx((4.0, 1.5, 0.2, 0.1))


def test_a_grid_that_does_not_add_up_is_read_as_its_mesh_with_a_warning(bumps):
    stage = build_stage(read_mjcf(bumps).scene, "NESTED")
    prim = next(p for p in stage.Traverse() if p.HasAttribute("mjc:hfield:elevation"))
    prim.GetAttribute("mjc:hfield:nrow").Set(7)
    read = read_usd(stage)
    assert not [s for s in read.scene.shapes if s.kind == ShapeKind.HEIGHT_FIELD]
    assert [s for s in read.scene.shapes if s.kind == ShapeKind.MESH and s.body is None]
    assert any("7 x 5 samples with 20 values" in w for w in read.warnings)


def test_newton_collides_the_usd_terrain_as_a_static_mesh(bumps, tmp_path):
    import newton

    out = str(tmp_path / "bumps.usda")
    build_stage(read_mjcf(bumps).scene, "NESTED").GetRootLayer().Export(out)
    builder = newton.ModelBuilder()
    builder.add_usd(out)
    static_meshes = [i for i, t in enumerate(builder.shape_type)
                     if int(t) == int(newton.GeoType.MESH) and builder.shape_body[i] == -1]
    assert len(static_meshes) == 1
    assert len(builder.shape_source[static_meshes[0]].vertices) == 20


def _field(**changes) -> HeightField:
    values = dict(name="t", nrow=2, ncol=3, half_x=1.0, half_y=1.0, elevation=0.5, base=0.1,
                  heights=[0.0, 0.5, 1.0, 0.25, 0.0, 0.75])
    values.update(changes)
    return HeightField(**values)


@pytest.mark.parametrize("changes, message", [
    (dict(nrow=1, heights=[0.0, 0.5, 1.0]), "at least 2 x 2 samples"),
    (dict(heights=[0.0, 0.5]), "(2 x 3, 2 given)"),
    (dict(elevation=0.0), "must be positive"),
    (dict(heights=[0.0, 0.5, 1.5, 0.25, 0.0, 0.75]), "must lie in [0, 1]"),
])
def test_a_bad_grid_is_an_error_naming_the_collider(changes, message):
    scene = samples.pendulum()
    scene.shapes.append(Shape("terrain", ShapeKind.HEIGHT_FIELD, None, world=-1, height_field=_field(**changes)))
    errors = [p for p in validate(scene) if p.subject == "terrain" and p.severity == "ERROR"]
    assert errors and message in errors[0].message


def test_a_terrain_on_a_moving_body_warns_and_adds_no_mass():
    scene = samples.pendulum()
    body = scene.joints[0].body1
    before = mass_properties(scene, body).mass
    scene.shapes.append(Shape("rock", ShapeKind.HEIGHT_FIELD, body, pose=Pose(), world=scene.body(body).world,
                              height_field=_field()))
    assert mass_properties(scene, body).mass == before
    assert any(p.subject == "rock" and "height field on moving body" in p.message for p in validate(scene))


def test_the_surface_has_a_vertex_per_sample_and_faces_up():
    mesh = primitives.height_field(_field())
    assert len(mesh.vertices) == 6 and len(mesh.triangles) == 4
    v = np.asarray(mesh.vertices)
    for a, b, c in mesh.triangles:
        assert np.cross(v[b] - v[a], v[c] - v[a])[2] > 0


def test_urdf_writes_a_terrain_on_a_link_as_its_surface_and_says_so(tmp_path):
    from articula.core.urdf.writer import write_urdf

    scene = samples.pendulum()
    body = scene.joints[0].body1
    scene.shapes.append(Shape("rock", ShapeKind.HEIGHT_FIELD, body, world=scene.body(body).world,
                              height_field=_field()))
    warnings = write_urdf(scene, str(tmp_path / "robot.urdf"))
    assert any("height field rock" in w for w in warnings)
    assert "rock" in (tmp_path / "robot.urdf").read_text()
    assert [f for f in os.listdir(tmp_path / "meshes") if "rock" in f]
