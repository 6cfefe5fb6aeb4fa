"""Boxes rest on triangle surfaces on Featherstone: a terrain (Newton's height field), a triangle-mesh
collider and the ground plane. Featherstone's contacts are explicit penalty springs; with Newton's fixed
stiffness, damping and friction slope (2500 N/m, 100 N*s/m, 1000 N*s/m, whatever a body weighs) a 64 g
box blew off every surface within a second, a 64 kg box sank 4-6 cm and shook, and a 1 kg box crept
sideways 1 cm/s on a mesh. ``sim.builder.featherstone_contact_materials`` sets them per body instead."""

import numpy as np
import pytest

from articula.core.model import (Body, HeightField, MeshData, PhysicsScene, Pose, SceneSettings, Shape,
                                 ShapeKind)
from articula.sim.simulation import Simulation

#: Half sizes (m) of the boxes: 64 g, 1 kg and 64 kg of water-dense material, side by side.
HALF_SIZES = (0.02, 0.05, 0.2)
SPOTS = (-0.6, 0.0, 0.6)
#: How far (m) a resting box may be from resting on the surface, at every sample over 2 s: its contacts
#: hold its weight about 1 mm deep (sim.builder.CONTACT_REST_DEPTH).
DEPTH_BAND = 0.002
#: How far (m) a resting box may slide over 2 s.
DRIFT = 0.005


def _ground(scene: PhysicsScene, kind: str) -> None:
    if kind == "terrain":
        flat = HeightField("flat", nrow=5, ncol=5, half_x=1.0, half_y=1.0, elevation=0.1, base=0.05,
                           heights=[0.0] * 25)
        scene.shapes.append(Shape("terrain", ShapeKind.HEIGHT_FIELD, height_field=flat, world=-1))
    elif kind == "mesh":
        square = MeshData(vertices=[(-1, -1, 0), (1, -1, 0), (1, 1, 0), (-1, 1, 0)],
                          triangles=[(0, 1, 2), (0, 2, 3)])
        scene.shapes.append(Shape("floor_mesh", ShapeKind.MESH, mesh=square, world=-1))
    else:
        scene.settings.ground_plane = True


def _boxes_on(kind: str) -> PhysicsScene:
    scene = PhysicsScene(name=f"boxes_on_{kind}", settings=SceneSettings(ground_plane=False))
    _ground(scene, kind)
    for half, x in zip(HALF_SIZES, SPOTS):
        name = f"box_{half:g}"
        scene.bodies.append(Body(name, Pose((x, 0.1, half + 0.002))))  # dropped from 2 mm
        scene.shapes.append(Shape(name, ShapeKind.BOX, name, half_extents=(half, half, half)))
    return scene


@pytest.mark.parametrize("kind", ["terrain", "mesh", "plane"])
def test_boxes_of_any_weight_rest_on_a_surface_for_two_seconds(kind):
    sim = Simulation(_boxes_on(kind), device="cpu", solver="FEATHERSTONE")
    start = np.array([pose[:3] for pose in sim.body_poses()])
    rest = start - np.array([0.0, 0.0, 0.002])
    worst_depth = 0.0
    for _ in range(20):
        sim.advance(0.1)
        now = np.array([pose[:3] for pose in sim.body_poses()])
        worst_depth = max(worst_depth, float(np.abs(now[:, 2] - rest[:, 2]).max()))
        assert worst_depth <= DEPTH_BAND, f"{kind}: a box left its rest by {worst_depth * 1000:.1f} mm at " \
                                          f"{sim.time:.1f} s: {now[:, 2] - rest[:, 2]}"
    drift = np.linalg.norm(now[:, :2] - start[:, :2], axis=1)
    assert drift.max() <= DRIFT, f"{kind}: boxes slid {drift} m in 2 s"
