"""Description -> Newton model: names, indices, joints, worlds, replicas, clear errors."""

import math

import numpy as np
import pytest

from articula.core import samples
from articula.core.model import (
    Body, DofMotion, JointType, PhysicsScene, Pose, SceneSettings, Shape, ShapeKind, Solver, make_joint,
)
from articula.sim.builder import SimulationBuildError, build_model, replica_offsets
from articula.sim.preflight import SolverRefusal
from articula.sim.simulation import Simulation, resolve_device


def test_body_order_and_start_poses_match_the_description():
    scene = samples.six_dof_arm()
    sim = Simulation(scene, device="cpu", solver="FEATHERSTONE")
    assert sim.body_names == [b.name for b in scene.bodies]
    poses = sim.body_poses()
    for body, pose in zip(scene.bodies, poses):
        assert np.allclose(pose[:3], body.pose.pos, atol=1e-5), body.name
        assert abs(abs(np.dot(pose[3:], body.pose.rot)) - 1.0) < 1e-5, body.name


def test_d6_keeps_only_unlocked_axes_with_their_limits():
    scene = samples.d6_sampler()
    built = build_model(scene, Solver.FEATHERSTONE, "cpu")
    axes = sorted(a for (j, a, r) in built.dofs if j == "d6_joint")
    assert axes == ["rotX", "rotY", "transX"]
    model = built.model
    lower, upper = model.joint_limit_lower.numpy(), model.joint_limit_upper.numpy()
    trans_x = built.dofs[("d6_joint", "transX", 0)].qd_index
    rot_y = built.dofs[("d6_joint", "rotY", 0)].qd_index
    assert (lower[trans_x], upper[trans_x]) == pytest.approx((-0.05, 0.05))
    assert (lower[rot_y], upper[rot_y]) == pytest.approx((-0.5, 0.5))
    assert model.joint_limit_ke.numpy()[rot_y] == pytest.approx(100.0)
    assert model.joint_target_ke.numpy()[rot_y] == pytest.approx(20.0)
    assert model.joint_armature.numpy()[built.dofs[("d6_joint", "rotX", 0)].qd_index] == pytest.approx(0.01)
    assert any("cone limits" in note for note in built.notes)


def test_mass_comes_from_the_core_mass_rule():
    from articula.core.mass import mass_properties

    scene = samples.six_dof_arm()
    built = build_model(scene, Solver.FEATHERSTONE, "cpu")
    masses = built.model.body_mass.numpy()[built.body_index]
    expected = [mass_properties(scene, b.name).mass for b in scene.bodies]
    assert np.allclose(masses, expected, rtol=1e-5)


def test_replicas_are_laid_on_a_grid_in_separate_worlds():
    scene = samples.quadruped()
    scene.settings.replicas, scene.settings.replica_spacing = 4, 3.0
    built = build_model(scene, Solver.FEATHERSTONE, "cpu")
    assert replica_offsets(4, 3.0) == [(0, 0, 0), (3, 0, 0), (0, 3, 0), (3, 3, 0)]
    assert len(built.body_keys) == 4 * len(scene.bodies)
    assert built.model.world_count == 4
    q = built.model.body_q.numpy()
    torso = [built.body_index[built.key_index("torso", r)] for r in range(4)]
    assert np.allclose(q[torso, :3] - q[torso[0], :3], [(0, 0, 0), (3, 0, 0), (0, 3, 0), (3, 3, 0)], atol=1e-5)
    worlds = built.model.body_world.numpy()[torso]
    assert list(worlds) == [0, 1, 2, 3]
    # The ground plane is global: built once.
    assert list(built.model.shape_world.numpy()).count(-1) == 1


def test_four_bar_loop_joint_is_kept_outside_the_tree_and_featherstone_says_it_leaves_it_out():
    built = build_model(samples.four_bar(), Solver.XPBD, "cpu")
    loop = built.model.joint_label.index("rocker_to_ground")
    assert built.model.joint_articulation.numpy()[loop] == -1
    assert not built.notes
    built = build_model(samples.four_bar(), Solver.FEATHERSTONE, "cpu")
    assert "rocker_to_ground" not in built.model.joint_label
    assert built.left_out_joints == {"rocker_to_ground"}
    assert any("rocker_to_ground" in note for note in built.notes)


def test_four_bar_simulates_on_featherstone_without_its_loop_joint():
    # Newton's articulation range runs on over a loop-closing joint added after the tree; the stability
    # check before the first step read its DOF as the tree's and failed ("could not broadcast ...").
    sim = Simulation(samples.four_bar(), device="cpu", solver="FEATHERSTONE")
    start = sim.joint_positions()[("crank_hinge", "rotY")]
    sim.advance(0.2)
    assert any("rocker_to_ground" in note for note in sim.notes)
    assert np.isfinite(sim.body_poses()).all()
    assert abs(sim.joint_positions()[("crank_hinge", "rotY")] - start) > 1e-3  # the tree swings, unclosed
    sim.close()


def test_four_bar_replicas_on_featherstone_move_alike():
    # With the loop joint in the model, Newton's Featherstone stepped the second world to NaN at once.
    scene = samples.four_bar()
    scene.settings.replicas = 2
    sim = Simulation(scene, device="cpu", solver="FEATHERSTONE")
    sim.set_drive_targets({"rocker_to_ground": 0.3})  # a joint Featherstone leaves out: nothing to set
    sim.advance(0.2)
    first, second = sim.joint_positions(0), sim.joint_positions(1)
    assert ("rocker_to_ground", "rotY") not in first  # not simulated, so not reported
    assert first == pytest.approx(second, abs=1e-6) and abs(first[("crank_hinge", "rotY")]) > 1e-3
    sim.close()


def test_replicas_of_unlike_scene_worlds_through_newtons_mujoco_are_refused_with_what_would_hold_them():
    # The showcase's world 0 holds eight bodies, world 1 one: Newton's MuJoCo (MuJoCo Warp, as on a GPU)
    # needs alike worlds; MuJoCo's C library (the CPU's default) keeps them apart with collision masks.
    scene = samples.collision_showcase()
    scene.settings.replicas = 2
    with pytest.raises(SolverRefusal, match="World 0 has 8 bodies.*on the CPU.*FEATHERSTONE or XPBD"):
        Simulation(scene, device="cpu", solver="MUJOCO", mujoco_direct=False)
    Simulation(scene, device="cpu", solver="FEATHERSTONE").close()


def test_kinematic_body_below_a_dynamic_one_is_refused_with_its_name():
    scene = samples.six_dof_arm()
    scene.body("elbow_link").kinematic = True
    with pytest.raises(SimulationBuildError, match="elbow_link"):
        build_model(scene, Solver.FEATHERSTONE, "cpu")


def test_mesh_without_triangles_is_refused_with_its_name():
    scene = samples.pendulum()
    scene.shapes.append(Shape("hull", ShapeKind.CONVEX_HULL, "pendulum_link"))
    with pytest.raises(SimulationBuildError, match="hull"):
        build_model(scene, Solver.FEATHERSTONE, "cpu")


def test_cuda_device_without_a_gpu_is_a_clear_error():
    import warp as wp

    if wp.is_cuda_available():
        assert resolve_device("auto").startswith("cuda")
    else:
        assert resolve_device("auto") == "cpu"
        with pytest.raises(RuntimeError, match="no CUDA"):
            resolve_device("cuda")
    with pytest.raises(ValueError, match="unknown device"):
        resolve_device("tpu")


def test_capsule_axis_is_turned_onto_newton_z():
    scene = PhysicsScene(settings=SceneSettings(gravity=(0.0, 0.0, 0.0)))
    scene.bodies.append(Body("rod", Pose((0.0, 0.0, 1.0))))
    scene.shapes.append(Shape("rod_capsule", ShapeKind.CAPSULE, "rod", radius=0.1, half_height=0.5, axis="X"))
    built = build_model(scene, Solver.FEATHERSTONE, "cpu")
    xform = built.model.shape_transform.numpy()[0]
    # Newton's capsule Z, rotated by the shape's quaternion, must point along X.
    x, y, z, w = xform[3:]
    z_axis = np.array([2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)])
    assert np.allclose(np.abs(z_axis), [1, 0, 0], atol=1e-6)


def test_joint_velocity_limit_is_enforced_on_reduced_solvers():
    scene = PhysicsScene(settings=SceneSettings(gravity=(0.0, 0.0, 0.0)))
    scene.bodies.append(Body("wheel", Pose((0.0, 0.0, 1.0))))
    scene.shapes.append(Shape("wheel_disc", ShapeKind.CYLINDER, "wheel", radius=0.2, half_height=0.02))
    axle = make_joint("axle", JointType.REVOLUTE, None, "wheel", axis="Z",
                      local_pose0=Pose((0.0, 0.0, 1.0)))
    axle.dofs[0].velocity_limit = 2.0
    scene.joints.append(axle)
    for solver in ("FEATHERSTONE", "MUJOCO"):
        sim = Simulation(scene, device="cpu", solver=solver)
        sim.set_joint_efforts({"axle": 50.0})
        sim.advance(0.5)
        speed = sim.joint_velocities()[("axle", "rotZ")]
        assert speed == pytest.approx(2.0, abs=1e-3), solver
        assert sim.joint_positions()[("axle", "rotZ")] == pytest.approx(1.0, abs=0.1), solver
