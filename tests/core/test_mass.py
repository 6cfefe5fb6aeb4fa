"""Mass properties against analytic values, density precedence and the pruning rule."""

import math

import numpy as np
import pytest
from articula.core import samples
from articula.core.mass import MassError, mass_properties, principal_axes, shape_volume
from articula.core.model import (
    DEFAULT_DENSITY,
    Body,
    MassProperties,
    MeshData,
    PhysicsMaterial,
    PhysicsScene,
    Pose,
    Shape,
    ShapeKind,
)
from articula.core.transforms import quat_from_axis_angle, quat_to_matrix


def one_body(*shapes, materials=()):
    scene = PhysicsScene(bodies=[Body("b")], materials=list(materials))
    for shape in shapes:
        shape.body = "b"
        scene.shapes.append(shape)
    return scene


def inertia_matrix(props):
    r = np.asarray(quat_to_matrix(props.principal_axes))
    return r @ np.diag(props.diagonal_inertia) @ r.T


def test_box():
    box = Shape("s", ShapeKind.BOX, half_extents=(0.1, 0.2, 0.3), density=500.0)
    props = mass_properties(one_body(box), "b")
    m = 500.0 * 0.2 * 0.4 * 0.6
    assert props.mass == pytest.approx(m)
    assert props.diagonal_inertia == pytest.approx(
        (m / 12 * (0.4**2 + 0.6**2), m / 12 * (0.2**2 + 0.6**2), m / 12 * (0.2**2 + 0.4**2)))
    assert props.principal_axes == (1.0, 0.0, 0.0, 0.0) and props.center_of_mass == (0.0, 0.0, 0.0)


def test_sphere():
    props = mass_properties(one_body(Shape("s", ShapeKind.SPHERE, radius=0.3)), "b")
    m = DEFAULT_DENSITY * 4 / 3 * math.pi * 0.3**3
    assert props.mass == pytest.approx(m)
    assert props.diagonal_inertia == pytest.approx((0.4 * m * 0.09,) * 3)


@pytest.mark.parametrize("axis", "XYZ")
def test_cylinder_along_each_axis(axis):
    r, h = 0.1, 0.25
    props = mass_properties(one_body(Shape("s", ShapeKind.CYLINDER, radius=r, half_height=h, axis=axis)), "b")
    m = DEFAULT_DENSITY * math.pi * r * r * 2 * h
    assert props.mass == pytest.approx(m)
    expected = [m * (3 * r * r + (2 * h) ** 2) / 12] * 3
    expected["XYZ".index(axis)] = m * r * r / 2
    assert props.diagonal_inertia == pytest.approx(expected)


def test_capsule_of_zero_length_is_a_sphere():
    capsule = shape_volume(Shape("c", ShapeKind.CAPSULE, radius=0.2, half_height=0.0))
    sphere = shape_volume(Shape("s", ShapeKind.SPHERE, radius=0.2))
    assert capsule.volume == pytest.approx(sphere.volume)
    assert np.allclose(capsule.inertia, sphere.inertia)


def capsule_mesh(r, h, segments=96, rings=48):
    """A closed, outward-facing tessellated Z capsule, to check the analytic capsule independently."""
    heights = []  # (ring radius, z) from bottom to top; the equator appears at -h and at +h
    for i in range(1, rings):
        phi = -math.pi / 2 + math.pi * i / rings
        if i == rings // 2:
            heights += [(r, -h), (r, h)]
        else:
            heights.append((r * math.cos(phi), r * math.sin(phi) + math.copysign(h, phi)))
    vertices = [(0.0, 0.0, -h - r)]
    for ring_r, z in heights:
        vertices += [(ring_r * math.cos(2 * math.pi * k / segments),
                      ring_r * math.sin(2 * math.pi * k / segments), z) for k in range(segments)]
    top = len(vertices)
    vertices.append((0.0, 0.0, h + r))
    ring = lambda j, k: 1 + j * segments + k % segments
    triangles = [(0, ring(0, k + 1), ring(0, k)) for k in range(segments)]
    for j in range(len(heights) - 1):
        for k in range(segments):
            triangles += [(ring(j, k), ring(j, k + 1), ring(j + 1, k + 1)),
                          (ring(j, k), ring(j + 1, k + 1), ring(j + 1, k))]
    last = len(heights) - 1
    triangles += [(top, ring(last, k), ring(last, k + 1)) for k in range(segments)]
    return MeshData(vertices=vertices, triangles=triangles)


def test_capsule_matches_a_fine_mesh():
    r, h = 0.1, 0.3
    analytic = mass_properties(one_body(Shape("s", ShapeKind.CAPSULE, radius=r, half_height=h)), "b")
    mesh = mass_properties(one_body(Shape("m", ShapeKind.MESH, mesh=capsule_mesh(r, h))), "b")
    assert mesh.mass == pytest.approx(analytic.mass, rel=2e-3)
    assert mesh.diagonal_inertia == pytest.approx(analytic.diagonal_inertia, rel=3e-3)
    assert mesh.center_of_mass == pytest.approx((0, 0, 0), abs=1e-9)


def test_mesh_box_equals_primitive_box_with_offset_scale_and_flipped_winding():
    half = (0.1, 0.2, 0.3)
    primitive = Shape("s", ShapeKind.BOX, half_extents=half, pose=Pose(pos=(1.0, 2.0, 3.0)))
    box = mass_properties(one_body(primitive), "b")
    unit = samples.box_mesh((1.0, 1.0, 1.0))
    shifted = MeshData([(x + 5.0, y - 2.0, z + 1.0) for x, y, z in unit.vertices], unit.triangles)
    scaled = Shape("m", ShapeKind.CONVEX_HULL, mesh=shifted, scale=half,
                   pose=Pose(pos=(1.0 - 5.0 * 0.1, 2.0 + 2.0 * 0.2, 3.0 - 1.0 * 0.3)))
    mesh = mass_properties(one_body(scaled), "b")
    assert mesh.mass == pytest.approx(box.mass)
    assert mesh.center_of_mass == pytest.approx(box.center_of_mass)
    assert mesh.diagonal_inertia == pytest.approx(box.diagonal_inertia)
    flipped = MeshData(unit.vertices, [(a, c, b) for a, b, c in unit.triangles])
    inward = mass_properties(one_body(Shape("m", ShapeKind.MESH, mesh=flipped, scale=half)), "b")
    assert inward.mass == pytest.approx(box.mass)
    assert inward.diagonal_inertia == pytest.approx(box.diagonal_inertia)


def test_tetrahedron_volume_and_centroid():
    tet = MeshData([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)], [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)])
    unit = shape_volume(Shape("t", ShapeKind.MESH, mesh=tet))
    assert unit.volume == pytest.approx(1 / 6)
    assert unit.centroid == pytest.approx((0.25, 0.25, 0.25))
    # Known tensor of this tetrahedron about its centroid (density 1): diag 1/80, products 1/480.
    expected = np.full((3, 3), 1 / 480) + np.eye(3) * (1 / 80 - 1 / 480)
    assert unit.inertia == pytest.approx(expected)


def test_open_mesh_is_a_mass_error():
    open_box = samples.box_mesh((1.0, 1.0, 1.0))
    open_box.triangles = open_box.triangles[2:]  # the -X face removed
    with pytest.raises(MassError, match="not closed"):
        mass_properties(one_body(Shape("m", ShapeKind.MESH, mesh=open_box)), "b")
    flat = MeshData([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [(0, 1, 2), (0, 2, 1)])  # two-sided sheet
    with pytest.raises(MassError, match="no volume"):
        mass_properties(one_body(Shape("m", ShapeKind.MESH, mesh=flat)), "b")


def test_parallel_axis_for_two_offset_spheres():
    r, d = 0.05, 0.4
    scene = one_body(Shape("a", ShapeKind.SPHERE, radius=r, pose=Pose(pos=(d, 0, 1))),
                     Shape("c", ShapeKind.SPHERE, radius=r, pose=Pose(pos=(-d, 0, 1))))
    props = mass_properties(scene, "b")
    m = DEFAULT_DENSITY * 4 / 3 * math.pi * r**3
    assert props.mass == pytest.approx(2 * m)
    assert props.center_of_mass == pytest.approx((0, 0, 1))
    own = 0.4 * m * r * r
    shifted = 2 * own + 2 * m * d * d
    assert props.diagonal_inertia == pytest.approx((2 * own, shifted, shifted))


def test_rotated_box_gives_principal_axes():
    rot = quat_from_axis_angle((0.3, -0.5, 0.8), 0.7)
    half = (0.1, 0.25, 0.4)
    props = mass_properties(one_body(Shape("s", ShapeKind.BOX, half_extents=half, pose=Pose(rot=rot))), "b")
    upright = mass_properties(one_body(Shape("s", ShapeKind.BOX, half_extents=half)), "b")
    assert sorted(props.diagonal_inertia) == pytest.approx(sorted(upright.diagonal_inertia))
    r = np.asarray(quat_to_matrix(rot))
    assert inertia_matrix(props) == pytest.approx(r @ np.diag(upright.diagonal_inertia) @ r.T)
    assert math.isclose(sum(c * c for c in props.principal_axes), 1.0)


def test_principal_axes_of_diagonal_tensor_keep_order():
    values, axes = principal_axes(np.diag([3.0, 1.0, 2.0]))
    assert values == (3.0, 1.0, 2.0) and axes == (1.0, 0.0, 0.0, 0.0)


def test_density_precedence_shape_then_material_then_default():
    steel = PhysicsMaterial("steel", density=7800.0)
    plain = PhysicsMaterial("plain")
    box = {"kind": ShapeKind.BOX, "half_extents": (0.5, 0.5, 0.5)}

    def unit_cube_mass(**fields):
        return mass_properties(one_body(Shape("s", **box, **fields), materials=[steel, plain]), "b").mass

    assert unit_cube_mass(material="steel", density=10.0) == pytest.approx(10.0)
    assert unit_cube_mass(material="steel") == pytest.approx(7800.0)
    assert unit_cube_mass(material="plain") == pytest.approx(DEFAULT_DENSITY)
    assert unit_cube_mass() == pytest.approx(DEFAULT_DENSITY)


def test_explicit_mass_wins():
    scene = one_body(Shape("s", ShapeKind.SPHERE, radius=1.0))
    scene.bodies[0].mass = MassProperties(2.0, (0.1, 0, 0), (1.0, 2.0, 2.5))
    props = mass_properties(scene, "b")
    assert props == scene.bodies[0].mass and props is not scene.bodies[0].mass


def test_descendant_bodies_are_pruned():
    scene = samples.robotic_finger()
    palm_before = mass_properties(scene, "palm")
    scene.shapes.append(Shape("heavy", ShapeKind.SPHERE, body="index_finger_base", radius=0.5, density=1e5))
    assert mass_properties(scene, "palm") == palm_before
    assert mass_properties(scene, "index_finger_base").mass > 1e4
    palm_box = 1100.0 * 0.06 * 0.08 * 0.016  # the palm's own collider with the skin's density
    assert palm_before.mass == pytest.approx(palm_box)


def test_planes_and_missing_shapes_are_errors():
    with pytest.raises(MassError, match="no colliders"):
        mass_properties(PhysicsScene(bodies=[Body("b")]), "b")
    with pytest.raises(MassError, match="no colliders"):
        mass_properties(one_body(Shape("p", ShapeKind.PLANE)), "b")
    with pytest.raises(MassError, match="no such body"):
        mass_properties(PhysicsScene(), "ghost")
    with pytest.raises(MassError, match="not positive"):
        mass_properties(one_body(Shape("s", ShapeKind.SPHERE, density=0.0)), "b")


def test_balance_inertia_leaves_a_valid_inertia_alone():
    from articula.core.mass import balance_inertia
    assert balance_inertia(MassProperties(mass=1.0, diagonal_inertia=(1.0, 2.0, 2.5))) is None
    assert balance_inertia(MassProperties(mass=0.0, diagonal_inertia=(1.0, 1.0, 5.0))) is None


@pytest.mark.parametrize("diagonal", [(1.0, 1.0, 5.0), (0.3, 0.7, 1.0), (2.0, 0.0, 2.0)])
def test_balance_inertia_adds_one_amount_to_every_moment(diagonal):
    """What MuJoCo refuses ("inertia must satisfy A + B >= C"), on or past the limit: each moment
    moves by the same amount (Newton's balancing), just past the limit; axes and mass unchanged."""
    from articula.core.mass import BALANCE_MARGIN, balance_inertia
    axes = (0.9, 0.1, 0.3, 0.2)
    props = MassProperties(mass=2.0, center_of_mass=(0.1, 0.0, 0.0), diagonal_inertia=diagonal, principal_axes=axes)
    balanced = balance_inertia(props)
    shift = np.subtract(balanced.diagonal_inertia, diagonal)
    assert shift == pytest.approx([shift[0]] * 3) and shift[0] > 0.0
    a, b, c = sorted(balanced.diagonal_inertia)
    assert a + b == pytest.approx(c * (1.0 + BALANCE_MARGIN), rel=1e-9)
    assert (balanced.mass, balanced.center_of_mass, balanced.principal_axes) == (2.0, (0.1, 0.0, 0.0), axes)
