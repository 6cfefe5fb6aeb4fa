"""Height fields (MuJoCo's hfield terrain) in the simulation: static terrain as Newton's height field on
Featherstone and XPBD, as MuJoCo's own on MuJoCo (the MJCF export, and Newton's conversion); a height
field on a moving body as the triangle mesh of its surface, with a note."""

import mujoco
import numpy as np
import pytest

from articula.core.model import Body, HeightField, PhysicsScene, Pose, SceneSettings, Shape, ShapeKind
from articula.sim.builder import SimulationBuildError, build_model
from articula.sim.simulation import Simulation

RADIUS = 0.05
ELEVATION = 0.2

# Two terraces joined by a slope: MuJoCo reads an inline elevation's first row at +y, so the terrain is
# ELEVATION high for y >= 0.4 and 0 for y <= -0.4. A ball lands on each terrace; with the rows flipped
# the two would swap heights.
TERRACES = f"""
<mujoco model="terraces">
  <asset>
    <hfield name="terraces" nrow="4" ncol="3" size="0.6 1.2 {ELEVATION} 0.1"
            elevation="1 1 1  1 1 1  0 0 0  0 0 0"/>
  </asset>
  <worldbody>
    {{terrain}}
    <body name="high_ball" pos="0.1 0.8 {{high_drop}}">
      <freejoint/>
      <geom type="sphere" size="{RADIUS}" density="1000"/>
    </body>
    <body name="low_ball" pos="-0.1 -0.8 {{low_drop}}">
      <freejoint/>
      <geom type="sphere" size="{RADIUS}" density="1000"/>
    </body>
  </worldbody>
</mujoco>
"""
IN_THE_WORLD = '<geom name="terrain" type="hfield" hfield="terraces"/>'
# A body without a joint is welded to the world: its terrain stays a (static) height field, where it is.
RAISED = 0.1
ON_A_WELDED_BODY = f'<body name="ground" pos="0 0 {RAISED}">{IN_THE_WORLD}</body>'


def _terraces(mjcf_text, terrain=IN_THE_WORLD, raised=0.0):
    text = TERRACES.format(terrain=terrain, high_drop=raised + ELEVATION + 0.15, low_drop=raised + 0.15)
    return mjcf_text(text, "terraces.xml")


def _rest(scene, solver, seconds=1.0, **options):
    """Where each body is after ``seconds``, and the simulation."""
    sim = Simulation(scene, device="cpu", solver=solver, **options)
    sim.advance(seconds)
    names = [name for name, _ in sim.body_keys]
    return {name: np.asarray(pose[:3], dtype=float) for name, pose in zip(names, sim.body_poses())}, sim


def _rest_in_mujoco(path, seconds=1.0):
    """MuJoCo stepping the original file (the reference for the MuJoCo solver), and its model."""
    model = mujoco.MjModel.from_xml_path(path)
    data = mujoco.MjData(model)
    mujoco.mj_step(model, data, round(seconds / model.opt.timestep))
    return {model.body(i).name: data.xpos[i].copy() for i in range(1, model.nbody)}, model


def _assert_on_the_terraces(rest, raised=0.0, tolerance=0.004):
    high, low = rest["high_ball"], rest["low_ball"]
    assert high[2] == pytest.approx(raised + ELEVATION + RADIUS, abs=tolerance)
    assert low[2] == pytest.approx(raised + RADIUS, abs=tolerance)
    # On the flat terraces they stay where they landed (no roll down the slope, no fall through).
    assert high[:2] == pytest.approx((0.1, 0.8), abs=0.01)
    assert low[:2] == pytest.approx((-0.1, -0.8), abs=0.01)


@pytest.mark.parametrize("solver", ["FEATHERSTONE", "XPBD"])
def test_balls_rest_on_the_terraces_in_newton(mjcf_text, solver):
    scene, _ = _terraces(mjcf_text)
    rest, sim = _rest(scene, solver)
    _assert_on_the_terraces(rest)
    assert not [note for note in sim.notes if "height field" in note]


@pytest.mark.parametrize("direct", [True, False], ids=["mjcf_export", "newton_conversion"])
def test_mujoco_rests_where_mujoco_rests_the_original_file(mjcf_text, direct):
    scene, path = _terraces(mjcf_text)
    rest, sim = _rest(scene, "MUJOCO", mujoco_direct=direct)
    _assert_on_the_terraces(rest)
    reference, model = _rest_in_mujoco(path)
    for ball in ("high_ball", "low_ball"):
        assert rest[ball] == pytest.approx(reference[ball], abs=0.001)
    if not direct:  # Newton's conversion gives MuJoCo the file's grid, its rows and its solid base
        converted = sim.solver.mj_model
        np.testing.assert_allclose(converted.hfield_size, model.hfield_size, rtol=1e-6)
        np.testing.assert_allclose(converted.hfield_data, model.hfield_data, atol=1e-6)


def test_terrain_on_a_body_the_world_holds_stays_a_height_field_where_the_body_is(mjcf_text):
    scene, _ = _terraces(mjcf_text, ON_A_WELDED_BODY, RAISED)
    rest, sim = _rest(scene, "FEATHERSTONE")
    _assert_on_the_terraces(rest, RAISED)
    assert not [note for note in sim.notes if "height field" in note]


def test_terrain_in_a_world_is_each_replicas_own(mjcf_text):
    scene, _ = _terraces(mjcf_text)
    scene.settings.replicas = 2
    terrain = next(shape for shape in scene.shapes if shape.name == "terrain")
    terrain.world = 0  # replicated with the world's robots (a global -1 terrain stays at the origin)
    sim = Simulation(scene, device="cpu", solver="XPBD")
    sim.advance(1.0)
    offsets = sim.built.replica_offsets
    assert offsets[0] != offsets[1]
    for (name, replica), pose in zip(sim.body_keys, sim.body_poses()):
        height = pose[2] - offsets[replica][2]
        assert height == pytest.approx(ELEVATION + RADIUS if name == "high_ball" else RADIUS, abs=0.004)


@pytest.mark.parametrize("solver", ["XPBD", "MUJOCO"])
def test_a_grid_short_of_the_full_range_keeps_its_heights(solver):
    """Samples in [0.25, 0.5] (authored in Blender, not MuJoCo's normalized [0, 1]) stay where they are:
    Newton and MuJoCo get the grid's own range, not a stretched one."""
    ramp = HeightField("ramp", nrow=2, ncol=2, half_x=0.5, half_y=0.5, elevation=0.4, base=0.05,
                       heights=[0.25, 0.25, 0.5, 0.5])  # 0.1 m at -y up to 0.2 m at +y
    scene = PhysicsScene(name="short_range", settings=SceneSettings(ground_plane=False))
    scene.shapes.append(Shape("ramp", ShapeKind.HEIGHT_FIELD, height_field=ramp, world=-1))
    scene.bodies.append(Body("ball", Pose((0.0, 0.0, 0.3))))
    scene.shapes.append(Shape("ball", ShapeKind.SPHERE, "ball", radius=RADIUS))
    sim = Simulation(scene, device="cpu", solver=solver, mujoco_direct=False)
    sim.advance(0.25)  # landed on the slope's middle (0.15 m high), not yet rolled far
    x, y, z = sim.body_poses()[0][:3]
    surface = 0.1 + 0.1 * (y + 0.5)
    slope = np.arctan(0.1)
    assert z == pytest.approx(surface + RADIUS / np.cos(slope), abs=0.004)


# A tray carrying a bump of terrain falls onto the floor: Newton keeps height fields static, so the
# tray's collides as its surface mesh, whose rim (z = 0 in the tray's frame) comes to rest on the floor.
MOVING_TERRAIN = """
<mujoco model="moving_terrain">
  <asset>
    <hfield name="bump" nrow="3" ncol="3" size="0.2 0.2 0.05 0.02" elevation="0 0 0  0 1 0  0 0 0"/>
  </asset>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="tray" pos="0 0 0.3">
      <freejoint/>
      <geom name="tray_weight" type="box" size="0.05 0.05 0.01" pos="0 0 0.03" density="1000"/>
      <geom name="tray_terrain" type="hfield" hfield="bump"/>
    </body>
  </worldbody>
</mujoco>
"""


@pytest.mark.parametrize("solver", ["FEATHERSTONE", "XPBD"])
def test_terrain_on_a_moving_body_collides_as_its_surface_mesh_with_a_note(mjcf_text, solver):
    scene, _ = mjcf_text(MOVING_TERRAIN, "moving_terrain.xml")
    rest, sim = _rest(scene, solver)
    assert rest["tray"] == pytest.approx((0.0, 0.0, 0.0), abs=0.005)
    assert any("'tray_terrain'" in note and "triangle mesh" in note for note in sim.notes)


def test_a_height_field_without_its_grid_is_refused_by_name():
    torn = HeightField("torn", nrow=3, ncol=3, half_x=1.0, half_y=1.0, elevation=0.1, base=0.1,
                       heights=[0.0] * 8)  # 3 x 3 samples, 8 heights
    scene = PhysicsScene(name="torn_terrain")
    scene.shapes.append(Shape("torn_terrain", ShapeKind.HEIGHT_FIELD, height_field=torn))
    with pytest.raises(SimulationBuildError, match="'torn_terrain'.*height field"):
        build_model(scene, "XPBD", device="cpu")
