"""The simulations that load every Warp kernel a Newton solver's run uses, for ``warm_kernels`` (and
so ``tools/build_kernels.py``): the primitives' warm-up scene (``sim.simulation``) and a second scene
with what it lacks (a triangle mesh and a convex hull on the ground, a ball on a height field, a mimic
joint), each stepped, read back and grabbed as Simulate does."""

from __future__ import annotations

from ..core.model import (Body, DofMotion, HeightField, JointType, MeshData, Mimic, PhysicsScene, Pose,
                          SceneSettings, Shape, ShapeKind, make_joint)

_CUBE_VERTICES = [(x, y, z) for x in (-0.1, 0.1) for y in (-0.1, 0.1) for z in (-0.1, 0.1)]
_CUBE_TRIANGLES = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1),
                   (2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]


def meshes_and_mimic_scene() -> PhysicsScene:
    """A mesh, a convex hull, a ball on a height field and a finger that mimics another: Newton's mesh
    inertia, its mesh- and height-field-contact narrow phase and its mimic-joint kernels."""
    scene = PhysicsScene(name="warmup_meshes", settings=SceneSettings(ground_plane=True))
    cube = MeshData(vertices=list(_CUBE_VERTICES), triangles=list(_CUBE_TRIANGLES))
    scene.bodies += [Body("mesh", Pose((0.0, 0.0, 0.1))), Body("hull", Pose((1.0, 0.0, 0.1))),
                     Body("palm", Pose((2.0, 0.0, 0.5))),
                     Body("finger_a", Pose((2.0, 0.1, 0.5)), parent="palm"),
                     Body("finger_b", Pose((2.0, -0.1, 0.5)), parent="palm")]
    scene.shapes += [Shape("mesh_shape", ShapeKind.MESH, "mesh", mesh=cube),
                     Shape("hull_shape", ShapeKind.CONVEX_HULL, "hull", mesh=cube)]
    scene.shapes += [Shape(f"{name}_box", ShapeKind.BOX, name, half_extents=(0.02, 0.02, 0.05))
                     for name in ("palm", "finger_a", "finger_b")]
    mount = make_joint("palm_mount", JointType.FIXED, None, "palm")  # one articulation, as Featherstone needs
    mount.local_pose0 = Pose((2.0, 0.0, 0.5))
    scene.joints.append(mount)
    for name in ("finger_a", "finger_b"):
        slide = make_joint(f"{name}_slide", JointType.PRISMATIC, "palm", name, axis="Y")
        slide.local_pose0 = Pose((0.0, 0.1 if name == "finger_a" else -0.1, 0.0))
        dof = slide.dofs[0]
        dof.motion, dof.lower, dof.upper = DofMotion.LIMITED, -0.05, 0.05
        scene.joints.append(slide)
    scene.joints[-1].mimic = Mimic("finger_a_slide", gear=-1.0)
    _add_ball_on_terrain(scene, Pose((4.0, 0.0, 0.0)))
    return scene


def _add_ball_on_terrain(scene: PhysicsScene, at: Pose) -> None:
    """A static 3 x 3 height field with a bump (the warm-up's terrain) and a ball resting on it."""
    bump = HeightField("warmup_bump", nrow=3, ncol=3, half_x=0.3, half_y=0.3, elevation=0.05, base=0.05,
                       heights=[0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0])
    scene.shapes.append(Shape("terrain", ShapeKind.HEIGHT_FIELD, pose=at, height_field=bump))
    ball = Pose((at.pos[0] + 0.15, at.pos[1], at.pos[2] + 0.1))
    scene.bodies.append(Body("terrain_ball", ball))
    scene.shapes.append(Shape("terrain_ball_sphere", ShapeKind.SPHERE, "terrain_ball", radius=0.05))


def run_warmup(simulation, scenes: list[PhysicsScene], solver, device: str) -> None:
    """Simulate each of ``scenes`` two steps with ``simulation`` (``sim.simulation.Simulation``) on
    ``solver`` and ``device``, read it back, and grab it."""
    from .picking import Grab

    for scene in scenes:
        sim = simulation(scene, device=device, solver=solver, warm=False)
        if "base" in sim.kinematic_keys:  # the kinematic root's kernels
            sim.set_kinematic_poses({"base": Pose((0.1, 0.0, 1.0))})
        sim.advance(2.0 * sim.dt, check=False)
        sim.body_poses()
        sim.joint_positions()
        Grab(sim).hit((1.0, 0.0, 2.0), (0.0, 0.0, -1.0))  # Ctrl+drag: no stall on the first grab
