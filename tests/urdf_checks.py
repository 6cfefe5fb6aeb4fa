"""Checks of Articula's URDF exports shared by the bpy-free and the Blender tiers: Pinocchio's model of a
URDF (urdfdom parses it; tests/core/pinocchio_probe.py run in .venv-pin) against the description."""

import json
import math
import os
import subprocess

import numpy as np
import pytest

from articula.core.articulation import find_articulations
from articula.core.mass import mass_properties
from articula.core.model import DofMotion, Joint, JointType, MassProperties, Pose
from articula.core.transforms import pose_inverse, pose_mul, quat_to_matrix, transform_point

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PIN_PYTHON = os.environ.get("ARTICULA_PIN_PYTHON", os.path.join(ROOT, ".venv-pin", "bin", "python"))
PROBE = os.path.join(ROOT, "tests", "core", "pinocchio_probe.py")
ATOL = 1e-6


def pinocchio_raw(path: str):
    """(exit code, stdout, stderr) of the probe on ``path``; skips when .venv-pin is not built."""
    if not os.path.exists(PIN_PYTHON):
        pytest.skip("Pinocchio's venv (.venv-pin) not built: run `make .venv-pin/.requirements-installed`")
    run = subprocess.run([PIN_PYTHON, "-W", "ignore", PROBE, path], capture_output=True, text=True)
    return run.returncode, run.stdout, run.stderr


def pinocchio(path: str) -> dict:
    """Pinocchio's model of ``path`` (urdfdom parses it), or the test fails with urdfdom's message."""
    code, out, err = pinocchio_raw(path)
    assert code == 0, f"urdfdom/Pinocchio could not load {path}:\n{err[-3000:]}"
    return json.loads(out)


# --- the description as URDF should show it -------------------------------------------------------------
def link_offset(art, body: str) -> tuple:
    """Where the writer puts a link frame in its body: the anchor of the last rotating joint of its edge."""
    offset = (0.0, 0.0, 0.0)
    for joint in art.edge_joints(body):
        if any(d.axis.is_angular for d in joint.active_dofs()):
            offset = joint.local_pose1.pos
    return offset


def robot_of(scene):
    articulations = find_articulations(scene)
    return next((a for a in articulations if a.joints or a.base_joint), articulations[0])


def link_frames(scene, art) -> dict:
    """Each link's frame (body pose shifted to its joint anchor), relative to the root link's."""
    frames = {b: pose_mul(scene.body(b).pose, Pose(link_offset(art, b))) for b in art.bodies}
    root = pose_inverse(frames[art.root])
    return {b: pose_mul(root, f) for b, f in frames.items()}


def matrix(pose: Pose) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = np.asarray(quat_to_matrix(pose.rot))
    m[:3, 3] = pose.pos
    return m


def pin_matrix(entry) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = np.asarray(entry["rot"])
    m[:3, 3] = entry["pos"]
    return m


def body_mass(scene, name: str) -> MassProperties:
    body = scene.body(name)
    try:
        return body.mass if body.mass is not None else mass_properties(scene, name)
    except Exception:
        return MassProperties(mass=0.0)


def pinocchio_differences(scene, pin: dict) -> list[str]:
    """How Pinocchio's model differs from the description: link frames, own inertias (root frame),
    moving joints (anchor, axis, type, limits, damping, friction)."""
    found = []
    art = robot_of(scene)
    frames = link_frames(scene, art)
    links = pin["links"]
    missing = [b for b in art.bodies if b not in links]
    if missing:
        return [f"links missing from Pinocchio's model: {missing}"]
    root = np.linalg.inv(pin_matrix(links[art.root]))
    root_world = matrix(pose_inverse(pose_mul(scene.body(art.root).pose, Pose(link_offset(art, art.root)))))
    for body in art.bodies:
        ours, theirs = matrix(frames[body]), root @ pin_matrix(links[body])
        if not np.allclose(ours, theirs, atol=ATOL):
            found.append(f"link {body} frame:\n{np.round(ours, 6)}\n!=\n{np.round(theirs, 6)}")
        mass = body_mass(scene, body)
        pin_mass = links[body].get("mass", 0.0)
        if not math.isclose(mass.mass, pin_mass, rel_tol=1e-6, abs_tol=1e-9):
            found.append(f"link {body} mass {mass.mass} != {pin_mass}")
            continue
        if mass.mass <= 0.0:
            continue
        world = pose_mul(scene.body(body).pose, Pose(rot=mass.principal_axes))
        com = (root_world @ np.array([*transform_point(scene.body(body).pose, mass.center_of_mass), 1.0]))[:3]
        r = root_world[:3, :3] @ np.asarray(quat_to_matrix(world.rot))
        inertia = r @ np.diag(mass.diagonal_inertia) @ r.T
        pin_com = (root @ np.array([*links[body]["com"], 1.0]))[:3]
        pin_inertia = root[:3, :3] @ np.asarray(links[body]["inertia"]) @ root[:3, :3].T
        if not np.allclose(com, pin_com, atol=ATOL):
            found.append(f"link {body} center of mass {com} != {pin_com}")
        if not np.allclose(inertia, pin_inertia, atol=ATOL * max(1.0, np.abs(inertia).max())):
            found.append(f"link {body} inertia {inertia.ravel()} != {pin_inertia.ravel()}")
    for body in art.bodies:
        for joint in art.edge_joints(body):
            found += _joint_differences(scene, joint, pin["joints"], root, root_world)
    return found


def _joint_differences(scene, joint: Joint, pin_joints: dict, root, root_world) -> list[str]:
    dofs = joint.active_dofs()
    if joint.type == JointType.FIXED or not dofs:
        return [f"joint {joint.name}: fixed, moves in Pinocchio"] if joint.name in pin_joints else []
    found = []
    child = scene.body(joint.body1).pose
    for dof in dofs:
        name = joint.name if len(dofs) == 1 else f"{joint.name}_{dof.axis.value}"
        theirs = pin_joints.get(name)
        if theirs is None:
            found.append(f"joint {name} missing from Pinocchio's model")
            continue
        frame = pose_mul(child, joint.local_pose1)
        axis = np.asarray(quat_to_matrix(frame.rot)) @ np.eye(3)["XYZ".index(dof.axis.letter)]
        axis_root = root[:3, :3] @ np.asarray(theirs["axis"])
        if not np.allclose(root_world[:3, :3] @ axis, axis_root, atol=ATOL):
            found.append(f"joint {name} axis {axis} != {theirs['axis']}")
        angular = dof.axis.is_angular
        kind = ("revolute" if dof.motion == DofMotion.LIMITED else "continuous") if angular else "prismatic"
        if theirs["kind"] != kind:
            found.append(f"joint {name}: {theirs['kind']} != {kind}")
        if kind != "continuous":
            lower, upper = (dof.lower, dof.upper) if dof.motion == DofMotion.LIMITED else (-1e10, 1e10)
            if not np.allclose((theirs["lower"], theirs["upper"]), (lower, upper), atol=ATOL):
                found.append(f"joint {name} limits {(theirs['lower'], theirs['upper'])} != {(lower, upper)}")
        for what, ours, default in (("effort", dof.max_effort, 0.0), ("velocity", dof.velocity_limit, 0.0),
                                    ("damping", dof.viscous_damping, 0.0), ("friction", dof.static_friction, 0.0)):
            ours = ours if math.isfinite(ours) else default
            if kind == "continuous" and what in ("effort", "velocity") and ours == 0.0 \
                    and not (math.isfinite(dof.max_effort) or math.isfinite(dof.velocity_limit)):
                ours = math.inf  # no <limit> at all: Pinocchio's own default
            if not math.isclose(theirs[what], ours, rel_tol=1e-9, abs_tol=1e-12):
                found.append(f"joint {name} {what} {theirs[what]} != {ours}")
    return found
