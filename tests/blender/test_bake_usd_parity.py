"""Must show, in Blender: baking an imported file gives the same motion as Newton simulating the
same file through its own ``add_usd`` with the same solver and step (positions within 1 mm, 1 s)."""

import bpy
import numpy as np
import pytest
from mathutils import Quaternion, Vector

from articula.core.model import Body, JointType, PhysicsScene, Pose, Shape, ShapeKind, make_joint
from articula.core.usd.writer import write_usd

FPS, SUBSTEPS = 24, 25  # 600 steps per second


def double_pendulum() -> PhysicsScene:
    """Two capsule links on Y hinges, starting horizontal; contact-free (collision group 0).

    (Newton's add_usd makes no articulation of a one-joint robot, so the single pendulum sample
    cannot be compared: Featherstone would leave it hanging.)"""
    scene = PhysicsScene(name="double_pendulum")
    for i, name in enumerate(("upper", "lower")):
        pivot = Pose((0.5 * i, 0.0, 1.0))
        scene.bodies.append(Body(name, pivot, parent="upper" if i else None))
        scene.shapes.append(Shape(f"{name}_rod", ShapeKind.CAPSULE, name, pose=Pose((0.25, 0.0, 0.0)),
                                  radius=0.03, half_height=0.2, axis="X", collision_group=0))
        joint = make_joint(f"{name}_hinge", JointType.REVOLUTE, "upper" if i else None, name, axis="Y",
                           local_pose0=Pose((0.5, 0.0, 0.0)) if i else pivot)
        joint.dofs[0].armature = 0.01
        scene.joints.append(joint)
    return scene


def newton_poses(path: str, solver: str, seconds: float) -> dict:
    """Body name -> world pose (px, py, pz, qx, qy, qz, qw) after ``seconds`` of Newton alone."""
    newton = pytest.importorskip("newton")
    try:
        builder = newton.ModelBuilder()
        builder.add_usd(path)
    except (ImportError, AttributeError) as error:  # Blender 4.5's USD 25.02 lacks UsdPhysics.Axis
        pytest.skip(f"Newton's add_usd is not usable here: {error}")
    model = builder.finalize(device="cpu")
    if solver == "FEATHERSTONE":
        stepper = newton.solvers.SolverFeatherstone(model)
    else:
        stepper = newton.solvers.SolverMuJoCo(model, use_mujoco_cpu=True, separate_worlds=False, iterations=10)
    state_0, state_1, control = model.state(), model.state(), model.control()
    newton.eval_fk(model, model.joint_q, model.joint_qd, state_0)
    dt = 1.0 / (FPS * SUBSTEPS)
    for _ in range(round(seconds / dt)):
        state_0.clear_forces()
        stepper.step(state_0, state_1, control, None, dt)
        state_0, state_1 = state_1, state_0
    return {label.rsplit("/", 1)[-1]: p for label, p in zip(model.body_label, state_0.body_q.numpy())}


@pytest.mark.parametrize("solver", ["FEATHERSTONE", "MUJOCO"])
def test_baked_import_matches_newton_add_usd(clean_scene, tmp_path, solver):
    path = str(tmp_path / "double_pendulum.usda")
    write_usd(double_pendulum(), path)
    assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}
    clean_scene.render.fps, clean_scene.render.fps_base = FPS, 1.0
    clean_scene.articula.mujoco.iterations = 10  # as the reference's SolverMuJoCo(iterations=10)
    assert bpy.ops.articula.bake(frame_start=1, frame_end=FPS + 1, solver=solver, substeps=SUBSTEPS) == {"FINISHED"}
    clean_scene.frame_set(FPS + 1)  # one second after the start
    bpy.context.view_layer.update()
    reference = newton_poses(path, solver, 1.0)
    lower = clean_scene.objects["lower"]
    assert np.linalg.norm(np.array(lower.matrix_world.translation) - (0.5, 0.0, 1.0)) > 0.3  # it swung
    for name in ("upper", "lower"):
        obj = clean_scene.objects[name]
        tip = np.array(obj.matrix_world @ Vector((0.5, 0.0, 0.0)))  # orientation shows at the tip
        x, y, z, w = reference[name][3:]
        reference_tip = reference[name][:3] + np.array(Quaternion((w, x, y, z)) @ Vector((0.5, 0.0, 0.0)))
        assert np.linalg.norm(np.array(obj.matrix_world.translation) - reference[name][:3]) < 1e-3, name
        assert np.linalg.norm(tip - reference_tip) < 1e-3, name
