"""Pinocchio's model of a URDF, as JSON (run by tests/core/test_urdf_export.py in .venv-pin).

Pinocchio parses URDF with urdfdom, ROS's own parser: a file it loads is a URDF ROS reads. Printed,
at the neutral configuration: each link's world placement and its own inertia in world axes (mass,
center of mass, tensor about it); each moving joint's type, world anchor and axis, position,
effort and velocity limits, damping and friction. Usage: python pinocchio_probe.py ROBOT.urdf
"""

import json
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pinocchio as pin

def joint_axis(joint, joint_data) -> tuple[str, np.ndarray]:
    """(kind, axis in the joint frame): kind revolute, continuous or prismatic, from the joint's motion
    subspace (its one column: linear part, then angular)."""
    name = joint.shortname()[len("JointModel"):]
    subspace = np.asarray(joint_data.S).reshape(6, -1)[:, 0]
    if name.startswith("P"):
        return "prismatic", subspace[:3]
    if name.startswith(("RUB", "RevoluteUnbounded")):
        return "continuous", subspace[3:]
    if name.startswith("R"):
        return "revolute", subspace[3:]
    return name, np.zeros(3)


def own_inertias(model):
    """Each link's own inertia, in its joint's frame: fixed-joint frames carry their child's, the
    joint's inertia less those is the link that the joint moves."""
    own, appended = {}, {}
    for k, frame in enumerate(model.frames):
        if frame.type == pin.FrameType.FIXED_JOINT:
            appended.setdefault(frame.parentJoint, []).append(frame.placement.act(frame.inertia))
            child = next((f for f in model.frames if f.type == pin.FrameType.BODY and f.parentFrame == k), None)
            if child is not None:
                own[child.name] = (frame.parentJoint, frame.placement.act(frame.inertia))
    for k, frame in enumerate(model.frames):
        if frame.type == pin.FrameType.BODY and frame.name not in own:  # a joint's link, or the root
            inertia = model.inertias[frame.parentJoint].copy()
            for part in appended.get(frame.parentJoint, []):
                inertia = inertia - part
            own[frame.name] = (frame.parentJoint, inertia)
    return own


def _root_link(path: str) -> str:
    root = ET.parse(path).getroot()
    children = {c.get("link") for c in root.iter("child")}
    return next((link.get("name") for link in root.findall("link") if link.get("name") not in children), "")


def main(path: str) -> None:
    model = pin.buildModelFromUrdf(path) if _root_link(path) == "world" else \
        pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())  # a floating root: its inertia kept
    data = model.createData()
    q = pin.neutral(model)
    pin.forwardKinematics(model, data, q)
    pin.updateFramePlacements(model, data)
    links = {}
    for k, frame in enumerate(model.frames):
        if frame.type == pin.FrameType.BODY:
            placement = data.oMf[k]
            links[frame.name] = {"pos": placement.translation.tolist(),
                                 "rot": placement.rotation.tolist()}
    for name, (joint, inertia) in own_inertias(model).items():
        world = data.oMi[joint].act(inertia)
        links[name].update(mass=float(world.mass), com=world.lever.tolist(), inertia=world.inertia.tolist())
    joints = {}
    for j in range(1, model.njoints):
        joint = model.joints[j]
        if model.names[j] == "root_joint":  # the free flyer added above
            continue
        kind, axis = joint_axis(joint, data.joints[j])
        placement = data.oMi[j]
        v, qi = joint.idx_v, joint.idx_q
        joints[model.names[j]] = {
            "kind": kind, "anchor": placement.translation.tolist(), "axis": (placement.rotation @ axis).tolist(),
            "parent": model.names[model.parents[j]],
            "lower": float(model.lowerPositionLimit[qi]), "upper": float(model.upperPositionLimit[qi]),
            "effort": float(model.effortLimit[v]), "velocity": float(model.velocityLimit[v]),
            "damping": float(model.damping[v]), "friction": float(model.friction[v])}
    json.dump({"name": model.name, "links": links, "joints": joints}, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
