"""For Newton's maintainers: SolverFeatherstone steps every world after the first to NaN when the model
holds a loop-closing joint (a joint added after the articulations' trees, as ``add_usd`` adds the fourth
joint of a four-bar linkage).

Three links hinged in a chain from the world and a loop joint from the last back to the first, replicated
into two worlds and stepped on the CPU without contacts: world 1's body poses are NaN after its first
step of 1 ms, world 0's stay finite. The same model in one world (``--worlds 1``), or in two without the loop joint
(``--without-loop-joint``), stays finite. Articula leaves loop-closing joints out of Featherstone's model
for this (Featherstone does not enforce them anyway).

    python tools/upstream/newton_featherstone_loop_joint.py [--without-loop-joint] [--worlds N]

Seen with Newton 1.8.0 and Warp 1.19.0 on the CPU (2026-12-07).
"""

import argparse

import numpy as np
import warp as wp

import newton


def fourbar(without_loop_joint: bool) -> newton.ModelBuilder:
    """Three links hinged in a chain from the world (one articulation), the last hinged back to the
    first by a loop-closing joint added after the articulation."""
    robot = newton.ModelBuilder()
    inertia = wp.mat33(np.eye(3) * 1e-3)
    at = lambda x, y, z: wp.transform((x, y, z), wp.quat_identity())  # noqa: E731
    hinge_y = (0.0, 1.0, 0.0)
    links = [robot.add_link(xform=at(x, 0.0, 1.0), mass=1.0, inertia=inertia) for x in (0.0, 0.0, 1.0)]
    for link in links:
        robot.add_shape_box(link, hx=0.05, hy=0.05, hz=0.05)
    joints = [robot.add_joint_revolute(-1, links[0], parent_xform=at(0.0, 0.0, 1.0), axis=hinge_y),
              robot.add_joint_revolute(links[0], links[1], parent_xform=at(0.5, 0.0, 0.0), axis=hinge_y),
              robot.add_joint_revolute(links[1], links[2], parent_xform=at(1.0, 0.0, 0.0), axis=hinge_y)]
    robot.add_articulation(joints)
    if not without_loop_joint:
        robot.add_joint_revolute(links[2], links[0], parent_xform=at(-0.5, 0.0, 0.0), child_xform=at(0.5, 0.0, 0.0),
                                 axis=hinge_y)
    return robot


def fourbar_in_worlds(worlds: int, without_loop_joint: bool) -> newton.Model:
    scene = newton.ModelBuilder()
    scene.replicate(fourbar(without_loop_joint), worlds, spacing=(3.0, 0.0, 0.0))
    return scene.finalize(device="cpu")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--without-loop-joint", action="store_true")
    parser.add_argument("--worlds", type=int, default=2)
    args = parser.parse_args()
    with wp.ScopedDevice("cpu"):
        model = fourbar_in_worlds(args.worlds, args.without_loop_joint)
        print(f"{model.joint_count} joints, {model.articulation_count} articulations, "
              f"{model.world_count} worlds")
        solver = newton.solvers.SolverFeatherstone(model)
        state, next_state, control = model.state(), model.state(), model.control()
        newton.eval_fk(model, model.joint_q, model.joint_qd, state)
        for step in range(1, 11):
            solver.step(state, next_state, control, None, 1e-3)  # no contacts needed
            state, next_state = next_state, state
            q = state.body_q.numpy()
            world = model.body_world.numpy()
            bad = sorted({int(w) for w in world[~np.isfinite(q).all(axis=1)]})
            if bad:
                print(f"step {step}: NaN body poses in worlds {bad}")
                return 1
    print("10 steps: every world finite")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
