"""Where a robot's colliders reach down to, and floating robots raised to stand on the ground.

A URDF robot read with a floating base starts where the file puts its root, usually the origin, with
its legs below z = 0: on a ground plane its feet would start inside the ground. :func:`lift_onto_ground`
raises each floating robot whose colliders reach below ``z = 0`` until its lowest collider point is at
``clearance`` above it (every body of the robot moves up alike; its pose in the air is kept).
"""

from __future__ import annotations

import math

import numpy as np

from .articulation import find_articulations
from .collision import should_collide
from .mesh_files import vertex_array
from .model import Body, PhysicsScene, Pose, Shape, ShapeKind
from .transforms import pose_mul, quat_to_matrix

_AXIS = {"X": 0, "Y": 1, "Z": 2}
#: What stands on the ground: a plane or terrain is the ground, not on it.
_GROUND_KINDS = (ShapeKind.PLANE, ShapeKind.HEIGHT_FIELD)


def lowest_point(shape: Shape, body_pose: Pose) -> float:
    """The lowest world z of ``shape`` on a body at ``body_pose`` (``-inf`` for a plane or terrain)."""
    if shape.kind in _GROUND_KINDS:
        return -math.inf
    pose = pose_mul(body_pose, shape.pose)
    down = np.asarray(quat_to_matrix(pose.rot), dtype=float)[2]  # world z of the shape's local axes
    z = pose.pos[2]
    if shape.kind == ShapeKind.SPHERE:
        return z - shape.radius
    if shape.kind == ShapeKind.BOX:
        return z - float(np.abs(down) @ np.asarray(shape.half_extents, dtype=float))
    if shape.kind in (ShapeKind.CAPSULE, ShapeKind.CYLINDER):
        along = abs(float(down[_AXIS[shape.axis]]))
        if shape.kind == ShapeKind.CAPSULE:
            return z - along * shape.half_height - shape.radius
        return z - along * shape.half_height - shape.radius * math.sqrt(max(0.0, 1.0 - along * along))
    if shape.mesh is not None and shape.mesh.vertices:
        vertices = vertex_array(shape.mesh) * np.asarray(shape.scale, dtype=float)
        return z + float((vertices @ down).min())
    return z


def floating_robots(scene: PhysicsScene) -> list[list[Body]]:
    """The bodies of each robot whose root no joint holds to the world (and is not kinematic)."""
    held = {j.body1 for j in scene.joints if j.body0 is None}
    robots = []
    for articulation in find_articulations(scene):
        root = scene.body(articulation.root)
        if root.name not in held and not root.kinematic:
            robots.append([scene.body(name) for name in articulation.bodies])
    return robots


def lift_onto_ground(scene: PhysicsScene, clearance: float = 0.001) -> dict[str, float]:
    """Raise each floating robot whose colliders reach below ``z = 0`` so that its lowest collider point
    is ``clearance`` above it; returns {root body: metres raised} for those raised."""
    raised = {}
    for bodies in floating_robots(scene):
        names = {b.name for b in bodies}
        lowest = min((lowest_point(s, scene.body(s.body).pose) for s in scene.shapes if s.body in names),
                     default=math.inf)
        if not math.isfinite(lowest) or lowest >= 0.0:
            continue
        lift = clearance - lowest
        for body in bodies:
            x, y, z = body.pose.pos
            body.pose = Pose((x, y, z + lift), body.pose.rot)
        raised[bodies[0].name] = lift
    return raised



def _on_the_ground(shape: Shape, tolerance: float) -> bool:
    """A static plane through z = 0 facing +Z: where the scene's ground plane is."""
    if shape.kind != ShapeKind.PLANE or shape.body is not None:
        return False
    normal = np.asarray(quat_to_matrix(shape.pose.rot), dtype=float)[:, 2]
    return normal[2] >= 1.0 - tolerance and abs(shape.pose.pos[2]) <= tolerance


def floor_as_ground(scene: PhysicsScene, tolerance: float = 1e-6) -> str | None:
    """The static plane that already is the scene's ground plane for every collider of every body (an
    MJCF file's floor with *Ground Plane* on, say), or None. A second plane there gives every contact
    twice; where some collider would meet only the ground plane (another world, a group the floor
    leaves out), both stay."""
    if not scene.settings.ground_plane:
        return None
    floors = [shape for shape in scene.shapes if _on_the_ground(shape, tolerance)]
    if not floors:
        return None
    for shape in scene.shapes:
        if shape.body is not None and not any(
                should_collide(floor.world, shape.world, floor.collision_group, shape.collision_group)
                for floor in floors):
            return None
    return floors[0].name
