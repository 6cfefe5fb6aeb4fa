"""The physics description -> URDF (one robot, one kinematic tree), written with the standard library.

What a URDF says and how the description maps onto it:

- Links. Each body is a link. ``<inertial>``: mass, center of mass and the full inertia tensor in the
  link frame (explicit mass, else computed from the colliders as the USD export does). Colliders and
  visuals are ``<collision>``/``<visual>`` elements, several per link: box, cylinder and sphere
  natively (a cylinder along X or Y gets a rotated origin: URDF's is along Z); a capsule, convex hull
  or triangle mesh is a binary STL in ``meshes/``; visuals are OBJ files with their .mtl (the color).
  Mesh paths are ``package://<package_name>/meshes/...`` (the URDF's folder being the package root)
  when a package name is given, else relative (``meshes/...``).
- Link frames. URDF has no joint frame of its own on the child: a link's frame IS its joint frame,
  and a revolute joint turns the child about the origin of its link frame. The description places a
  joint in each body (``local_pose0``/``local_pose1``). A link frame is therefore the body frame
  shifted by a fixed offset, the position of its joint in the body (``local_pose1.pos``), wherever
  that joint rotates; the body's rotation is kept, and the joint axis is written in that frame.
  Inertial, visuals, colliders and child joints are written relative to the shifted frame, so every
  point of the robot stays where it is; a prismatic joint needs no shift (a translation moves every
  point alike). Robots read from URDF (joint at the child's origin) keep their link frames exactly.
- Joints. FIXED -> fixed, REVOLUTE -> revolute (limited) or continuous (unlimited), PRISMATIC ->
  prismatic. A joint from the world to the root is written from a ``world`` link (ROS's fixed base);
  a root without one is URDF's floating root (no joint; its world pose is not carried). Spherical and
  D6 joints, and several joints stacked on one body pair (MuJoCo's multi-joint bodies), become a
  chain of massless links with one single-DOF joint each (``<joint>_<axis>`` joints, ``<joint>_<axis>_link``
  links), applied in the order MuJoCo applies a body's joints; the warning names them.
- ``<limit lower upper effort velocity>``: urdfdom requires all four on revolute and prismatic joints
  and refuses ``inf``: an effort or velocity without limit is written 0 (pybullet's and Articula's
  reading: none given), an unlimited prismatic joint gets +-1e10 m (Newton's own "unlimited").
  ``<dynamics damping friction>`` (viscous damping, static friction), ``<mimic>``.
- Drives and actuators -> a ``<transmission>`` (SimpleTransmission, the hardware interface of the
  drive type) and one ``<ros2_control>`` block: per joint a command interface (position for a drive
  with stiffness or a position servo, velocity for a damping-only drive or velocity servo, effort for
  a motor) and position/velocity state interfaces starting at the joint's initial state.
- Filtered pairs and parent/child pairs (where the scene filters them) -> an SRDF beside the URDF
  (``<disable_collisions>``, what MoveIt reads).

- Sites and cameras -> frame links (massless links on fixed joints) on their bodies, as ROS carries a
  sensor's frame: ``<site>``, and for a camera ``<camera>`` in ROS's body convention (+X forward, +Z
  up: the frame Gazebo's camera looks down) with its child ``<camera>_optical_frame`` in ROS's optical
  convention (+Z forward, +Y down: the frame ROS's images name). Both, because ROS's drivers and Gazebo
  need both; MuJoCo's and Blender's camera frame (-Z forward, +Y up) is neither, so it is turned on the
  way out and back on the way in. Names are made unique against links and joints.
- Sensors -> Gazebo's ``<gazebo reference="link"><sensor type=...>`` tags (imu, force_torque, contact,
  ray, camera) and, for IMUs and force-torque sensors, ``<sensor>`` entries in ``<ros2_control>``;
  the mapping is core/urdf/sensors.py's.

What URDF cannot say (collision groups, worlds, physics materials, drive gains, armature, springs,
soft limits, cone limits, loop-closing joints, tendons, static geometry, other robots, lights,
keyframes, equalities, spatial tendons, contact pairs, actuators on sites or bodies, the sensors
Gazebo has no type for) is named in one warning.
Written atomically: every file goes to a temporary name first and is renamed into place
only when all were written; a failure leaves the old files.
"""

from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Callable, Optional

from ..articulation import Articulation, find_articulations
from ..files import write_files_atomically
from ..format_types import FormatError
from ..mass import MassError, mass_properties
from ..mesh_files import binary_stl, mtl_bytes, number, obj_bytes, portable_name
from ..mjcf import primitives
from ..model import (ActuatorKind, Dof, DofMotion, Joint, JointType, MassProperties, MeshData,
                     PhysicsScene, Pose, Shape, ShapeKind, Visual)
from ..transforms import pose_inverse, pose_mul, poses_close, quat_rotate, quat_to_matrix
from ..validation import blocks_writing, validate_with_masses
from . import sensors

#: Newton's "unlimited" joint position (newton's MAXVAL): written where URDF demands a number.
UNLIMITED = 1e10
STL_HEADER = b"Articula URDF export"
WORLD_LINK = "world"
#: Rotations taking URDF's cylinder axis (+Z) onto a shape's axis.
_AXIS_ROTATIONS = {"Z": (1.0, 0.0, 0.0, 0.0), "X": (math.sqrt(0.5), 0.0, math.sqrt(0.5), 0.0),
                   "Y": (math.sqrt(0.5), -math.sqrt(0.5), 0.0, 0.0)}
_UNIT = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}


class UrdfWriteError(FormatError):
    """A scene that cannot be written as URDF; ``problems`` lists each reason. No file was written."""

    def __init__(self, path: Optional[str], problems: list[str]):
        self.path = path
        self.problems = list(problems)
        super().__init__(path, "cannot be exported:\n  " + "\n  ".join(self.problems))
        self.args = (f"cannot export {path or 'URDF'}:\n  " + "\n  ".join(self.problems),)


def write_urdf(scene: PhysicsScene, path: str, package_name: str = "", root: Optional[str] = None,
               visual_files: Optional[Callable[[Visual, str], Optional[dict[str, bytes]]]] = None) -> list[str]:
    """Write the robot of ``scene`` rooted at body ``root`` (None: the first tree with a joint, else
    the first) to ``path``, its meshes to ``meshes/`` and its SRDF beside it; returns the warnings.

    ``visual_files(visual, stem)``: the files of a visual's mesh when the caller has better ones than
    the description's triangles (Blender's OBJ export: UVs, materials, textures), as ``{file name:
    bytes}`` with ``<stem>.obj`` among them, in the visual's own frame before its scale; None: the
    description's mesh is written.

    Raises :class:`UrdfWriteError` for a scene that cannot be written (validation's blocking
    problems, an unknown root); nothing is written then."""
    problems, masses = validate_with_masses(scene)
    refused = [str(p) for p in problems if blocks_writing(p)]
    if refused:
        raise UrdfWriteError(path, refused)
    articulations = find_articulations(scene)
    chosen = _choose(articulations, root, path)
    document = _Writer(scene, chosen, masses, package_name, os.path.splitext(os.path.basename(path))[0],
                       visual_files)
    document.build()
    others = [a.root for a in articulations if a is not chosen]
    if others:
        document.cannot_say.append(f"{len(others)} other robots or bodies (one robot per URDF: "
                                   f"{_listed(others)})")
    _write_files(path, document)
    warnings = [str(p) for p in problems]
    warnings += document.notes
    if document.cannot_say:
        warnings.append("URDF cannot say, not written: " + "; ".join(document.cannot_say))
    return warnings


def _choose(articulations: list[Articulation], root: Optional[str], path: str) -> Articulation:
    if not articulations:
        raise UrdfWriteError(path, ["no rigid bodies to export"])
    if root is not None:
        found = next((a for a in articulations if root in a.bodies), None)
        if found is None:
            raise UrdfWriteError(path, [f"body {root!r} is no rigid body of the scene"])
        return found
    return next((a for a in articulations if a.joints or a.base_joint), articulations[0])


def _listed(names, shown: int = 8) -> str:
    names = list(names)
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")


# ------------------------------------------------------------------------------------- numbers
_num = number


def _vec(values) -> str:
    return " ".join(_num(v) for v in values)


def _rpy(q) -> tuple[float, float, float]:
    """URDF's fixed-axis roll, pitch, yaw (R = Rz(yaw) Ry(pitch) Rx(roll)) of quaternion ``q``."""
    m = quat_to_matrix(q)
    sin_pitch = max(-1.0, min(1.0, -m[2][0]))
    pitch = math.asin(sin_pitch)
    if abs(sin_pitch) < 1.0 - 1e-12:
        return math.atan2(m[2][1], m[2][2]), pitch, math.atan2(m[1][0], m[0][0])
    return 0.0, pitch, math.atan2(-m[0][1], m[1][1])  # gimbal lock: the roll folded into the yaw


def _origin(parent: ET.Element, pose: Pose) -> None:
    attributes = {}
    if any(pose.pos):
        attributes["xyz"] = _vec(pose.pos)
    rpy = _rpy(pose.rot)
    if any(abs(a) > 0.0 for a in rpy):
        attributes["rpy"] = _vec(rpy)
    if attributes:
        ET.SubElement(parent, "origin", attributes)


def _shift(offset, pose: Pose) -> Pose:
    """``pose`` (in a body frame) seen from the link frame, the body frame moved by ``offset``."""
    return Pose(tuple(p - o for p, o in zip(pose.pos, offset)), pose.rot)


# ------------------------------------------------------------------------------------- joints
@dataclass
class _Step:
    """One single-DOF (or fixed) URDF joint of an edge, in the child body's frame."""

    name: str
    kind: str  # fixed, revolute, continuous, prismatic
    point: tuple  # where it acts in the child body (the link frame's offset)
    axis: tuple  # unit axis in the child body's (and link's) orientation
    dof: Optional[Dof] = None
    joint: Optional[Joint] = None
    synthetic: bool = False  # a name made here (one DOF of a multi-DOF joint)


def _steps(joints: list[Joint]) -> list[_Step]:
    """The single-DOF joints an edge's joints amount to, in the order they apply."""
    steps = []
    for joint in joints:
        if joint.type == JointType.FIXED:
            steps.append(_Step(joint.name, "fixed", (0.0, 0.0, 0.0), (1.0, 0.0, 0.0), joint=joint))
            continue
        frame = joint.local_pose1
        dofs = joint.active_dofs()
        dofs = [d for d in dofs if not d.axis.is_angular] + [d for d in dofs if d.axis.is_angular]
        for dof in dofs:
            angular = dof.axis.is_angular
            kind = "prismatic"
            if angular:
                kind = "revolute" if dof.motion == DofMotion.LIMITED else "continuous"
            several = len(dofs) > 1
            name = f"{joint.name}_{dof.axis.value}" if several else joint.name
            steps.append(_Step(name, kind, frame.pos if angular else (0.0, 0.0, 0.0),
                               quat_rotate(frame.rot, _UNIT[dof.axis.letter]), dof, joint, several))
        if not dofs:  # a D6 with every axis locked: welded
            steps.append(_Step(joint.name, "fixed", (0.0, 0.0, 0.0), (1.0, 0.0, 0.0), joint=joint))
    return steps


# ------------------------------------------------------------------------------------- the document
@dataclass
class _MeshFile:
    relative: str  # meshes/<name>
    data: bytes
    mtl: Optional[tuple[str, bytes]] = None
    extra: dict = field(default_factory=dict)  # meshes/<name> -> bytes: textures and the like


@dataclass
class _Writer:
    scene: PhysicsScene
    articulation: Articulation
    masses: dict
    package_name: str
    file_stem: str
    visual_files: Optional[Callable] = None
    notes: list[str] = field(default_factory=list)
    cannot_say: list[str] = field(default_factory=list)
    meshes: list[_MeshFile] = field(default_factory=list)
    srdf: Optional[ET.Element] = None

    def build(self) -> None:
        scene, art = self.scene, self.articulation
        self.robot = ET.Element("robot", {"name": scene.name or self.file_stem})
        self.link_names = set(art.bodies)
        self.joint_names = {j.name for j in scene.joints}
        self.mesh_names: set[str] = set()
        self.mesh_written: dict[tuple, str] = {}
        self.materials: dict[tuple, str] = {}
        self.offsets: dict[str, tuple] = {}  # body -> its link frame's offset in the body frame
        self.chains: list[str] = []
        self.joints_written: list[tuple[_Step, str]] = []  # (step, URDF joint name)
        bodies = set(art.bodies)
        edges = {body: art.edge_joints(body) for body in art.bodies}
        for body in art.bodies:  # parents first: a child's origin needs its parent's offset
            self.write_edge(body, edges[body])
        for body in art.bodies:
            self.write_link(body)
        self.write_frames()
        self.write_actuation()
        self.write_sensors()
        self.write_srdf(bodies)
        self.collect_cannot_say(bodies)
        order = {"link": 0, "joint": 1, "transmission": 2, "ros2_control": 3, "gazebo": 4}
        self.robot[:] = sorted(self.robot, key=lambda element: order.get(element.tag, 5))
        ET.indent(self.robot)

    # -- names
    def unique(self, name: str, taken: set) -> str:
        base, count = name, 1
        while name in taken:
            name, count = f"{base}_{count}", count + 1
        taken.add(name)
        return name

    # -- links
    def write_link(self, body_name: str) -> None:
        link = ET.SubElement(self.robot, "link", {"name": body_name})
        offset = self.offsets.get(body_name, (0.0, 0.0, 0.0))
        self.write_inertial(link, body_name, offset)
        for visual in self.scene.visuals_of(body_name):
            self.write_visual(link, visual, offset)
        for shape in self.scene.shapes_of(body_name):
            self.write_collision(link, shape, offset)

    def write_inertial(self, link: ET.Element, body_name: str, offset) -> None:
        props = self.mass_of(body_name)
        if props is None or props.mass <= 0.0 and not any(props.diagonal_inertia):
            return  # a frame link: no <inertial>, mass 0 (what urdfdom gives)
        inertial = ET.SubElement(link, "inertial")
        _origin(inertial, Pose(tuple(c - o for c, o in zip(props.center_of_mass, offset))))
        ET.SubElement(inertial, "mass", {"value": _num(props.mass)})
        r = quat_to_matrix(props.principal_axes)
        d = props.diagonal_inertia
        tensor = [[sum(r[i][k] * d[k] * r[j][k] for k in range(3)) for j in range(3)] for i in range(3)]
        ET.SubElement(inertial, "inertia", {
            "ixx": _num(tensor[0][0]), "ixy": _num(tensor[0][1]), "ixz": _num(tensor[0][2]),
            "iyy": _num(tensor[1][1]), "iyz": _num(tensor[1][2]), "izz": _num(tensor[2][2])})

    def mass_of(self, body_name: str) -> Optional[MassProperties]:
        body = self.scene.body(body_name)
        if body.mass is not None:
            return body.mass
        if body_name in self.masses:
            return self.masses[body_name]
        try:
            return mass_properties(self.scene, body_name)
        except MassError:
            return None

    def write_visual(self, link: ET.Element, visual: Visual, offset) -> None:
        element = ET.SubElement(link, "visual", {"name": visual.name})
        _origin(element, _shift(offset, visual.pose))
        geometry = ET.SubElement(element, "geometry")
        uri = self.mesh_uri(visual.mesh, f"{link.get('name')}_{visual.name}", ".obj", visual)
        attributes = {"filename": uri}
        if tuple(visual.scale) != (1.0, 1.0, 1.0):
            attributes["scale"] = _vec(visual.scale)
        ET.SubElement(geometry, "mesh", attributes)
        material = ET.SubElement(element, "material", {"name": self.material_name(visual)})
        ET.SubElement(material, "color", {"rgba": _vec(visual.color)})

    def material_name(self, visual: Visual) -> str:
        key = (visual.material_name, tuple(visual.color))
        if key not in self.materials:
            rgba = "".join(f"{min(max(int(round(c * 255)), 0), 255):02x}" for c in visual.color)
            self.materials[key] = self.unique(visual.material_name or f"color_{rgba}", set(self.materials.values()))
        return self.materials[key]

    def write_collision(self, link: ET.Element, shape: Shape, offset) -> None:
        if shape.kind == ShapeKind.PLANE:
            self.cannot_say.append(f"plane collider {shape.name} (no URDF geometry)")
            return
        pose = _shift(offset, shape.pose)
        geometry = ET.Element("geometry")
        kind = shape.kind
        if kind == ShapeKind.BOX:
            ET.SubElement(geometry, "box", {"size": _vec(2.0 * h for h in shape.half_extents)})
        elif kind == ShapeKind.SPHERE:
            ET.SubElement(geometry, "sphere", {"radius": _num(shape.radius)})
        elif kind == ShapeKind.CYLINDER:
            pose = pose_mul(pose, Pose(rot=_AXIS_ROTATIONS[shape.axis]))
            ET.SubElement(geometry, "cylinder", {"radius": _num(shape.radius), "length": _num(2.0 * shape.half_height)})
        else:
            name = f"{link.get('name')}_{shape.name}"
            if kind == ShapeKind.CAPSULE:
                pose = pose_mul(pose, Pose(rot=_AXIS_ROTATIONS[shape.axis]))
                mesh, scale = primitives.capsule(shape.radius, shape.half_height), (1.0, 1.0, 1.0)
            elif kind == ShapeKind.HEIGHT_FIELD:
                self.cannot_say.append(f"height field {shape.name} (URDF has none: its surface as a mesh)")
                mesh, scale = primitives.height_field(shape.height_field), (1.0, 1.0, 1.0)
            else:
                mesh, scale = shape.mesh or MeshData(), shape.scale
            attributes = {"filename": self.mesh_uri(mesh, name, ".stl")}
            if tuple(scale) != (1.0, 1.0, 1.0):
                attributes["scale"] = _vec(scale)
            ET.SubElement(geometry, "mesh", attributes)
        element = ET.SubElement(link, "collision", {"name": shape.name})
        _origin(element, pose)
        element.append(geometry)

    def mesh_uri(self, mesh: MeshData, name: str, extension: str, visual: Optional[Visual] = None) -> str:
        key = (id(mesh), extension, tuple(visual.color) if visual else None)
        if key not in self.mesh_written:
            stem = self.unique(portable_name(name), self.mesh_names)
            relative = f"meshes/{stem}{extension}"
            given = self.visual_files(visual, stem) if visual is not None and self.visual_files else None
            if given and f"{stem}.obj" in given:
                self.meshes.append(_MeshFile(relative, given.pop(f"{stem}.obj"),
                                             extra={f"meshes/{name}": data for name, data in given.items()}))
            elif extension == ".stl":
                self.meshes.append(_MeshFile(relative, binary_stl(mesh, STL_HEADER)))
            else:
                self.meshes.append(_MeshFile(relative, obj_bytes(mesh, stem), (f"meshes/{stem}.mtl",
                                                                           mtl_bytes(stem, visual.color))))
            self.mesh_written[key] = (relative, mesh)  # the mesh kept alive: its id() stays its own
        relative = self.mesh_written[key][0]
        return f"package://{self.package_name}/{relative}" if self.package_name else relative

    # -- joints
    def write_edge(self, body: str, joints: list[Joint]) -> None:
        art = self.articulation
        parent = art.parents.get(body)
        if body == art.root:
            if not joints:
                pose = self.scene.body(body).pose
                if any(abs(c) > 1e-12 for c in pose.pos) or any(abs(c) > 1e-12 for c in pose.rot[1:]):
                    self.notes.append(f"{body} is the robot's floating root: URDF places it at the origin "
                                      f"(its world pose {_vec(round(c, 6) for c in pose.pos)} is not carried)")
                return
            parent = self.unique(WORLD_LINK, self.link_names)
            self.robot.append(ET.Element("link", {"name": parent}))
            parent_offset, rest = (0.0, 0.0, 0.0), pose_mul(joints[0].local_pose0, pose_inverse(joints[0].local_pose1))
        elif not joints:  # a child welded to its parent without a joint (MJCF's bodies without joints)
            rest = _rest(self.scene, parent, body)
            name = self.unique(f"{parent}_to_{body}", self.joint_names)
            self.write_joint(_Step(name, "fixed", (0.0, 0.0, 0.0), (1.0, 0.0, 0.0)), parent, body,
                             _shift(self.offsets.get(parent, (0.0, 0.0, 0.0)), rest))
            return
        else:
            parent_offset = self.offsets.get(parent, (0.0, 0.0, 0.0))
            rest = pose_mul(joints[0].local_pose0, pose_inverse(joints[0].local_pose1))
        steps = _steps(joints)
        if len(steps) > 1:
            self.chains.append(f"{', '.join(j.name for j in joints)} ({body}: {len(steps)} joints "
                               f"{', '.join(s.name for s in steps)})")
        previous_link, previous_point = parent, None
        for k, step in enumerate(steps):
            last = k == len(steps) - 1
            if step.synthetic:
                step.name = self.unique(step.name, self.joint_names)
            child = body if last else self.unique(f"{step.name}_link", self.link_names)
            if previous_point is None:  # the first: from the parent link's frame
                origin = pose_mul(_shift(parent_offset, rest), Pose(step.point))
            else:  # the next: the sub-link frames differ by where their joints act
                origin = Pose(tuple(p - q for p, q in zip(step.point, previous_point)))
            self.write_joint(step, previous_link, child, origin)
            if not last:
                self.robot.append(ET.Element("link", {"name": child}))
            previous_link, previous_point = child, step.point
        self.offsets[body] = tuple(previous_point)

    def write_joint(self, step: _Step, parent: str, child: str, origin: Pose) -> None:
        element = ET.SubElement(self.robot, "joint", {"name": step.name, "type": step.kind})
        _origin(element, origin)
        ET.SubElement(element, "parent", {"link": parent})
        ET.SubElement(element, "child", {"link": child})
        self.joints_written.append((step, step.name))
        if step.kind == "fixed":
            return
        ET.SubElement(element, "axis", {"xyz": _vec(_clean(step.axis))})
        dof = step.dof
        effort = dof.max_effort if math.isfinite(dof.max_effort) else 0.0
        velocity = dof.velocity_limit if math.isfinite(dof.velocity_limit) else 0.0
        if step.kind == "continuous":
            if effort or velocity:
                ET.SubElement(element, "limit", {"effort": _num(effort), "velocity": _num(velocity)})
        else:
            limited = dof.motion == DofMotion.LIMITED
            # URDF's zero is the authored pose; the description's is the file's reference
            lower, upper = (dof.lower - dof.reference, dof.upper - dof.reference) if limited \
                else (-UNLIMITED, UNLIMITED)
            lower, upper = (max(lower, -UNLIMITED), min(upper, UNLIMITED))
            ET.SubElement(element, "limit", {"lower": _num(lower), "upper": _num(upper),
                                             "effort": _num(effort), "velocity": _num(velocity)})
        if dof.viscous_damping or dof.static_friction:
            ET.SubElement(element, "dynamics", {"damping": _num(dof.viscous_damping),
                                                "friction": _num(dof.static_friction)})
        mimic = step.joint.mimic if step.joint is not None else None
        if mimic is not None and len(step.joint.dofs) == 1:
            ET.SubElement(element, "mimic", {"joint": mimic.leader, "multiplier": _num(mimic.gear),
                                             "offset": _num(mimic.offset)})

    # -- drives and actuators
    def ros2_control(self) -> ET.Element:
        """The robot's one ``<ros2_control>`` block (made on first use)."""
        control = self.robot.find("ros2_control")
        if control is None:
            attributes = {"name": self.robot.get("name"), "type": "system"}
            control = ET.SubElement(self.robot, "ros2_control", attributes)
            hardware = ET.SubElement(control, "hardware")
            ET.SubElement(hardware, "plugin").text = "mock_components/GenericSystem"
        return control

    def write_actuation(self) -> None:
        for step, name in self.joints_written:
            dof = step.dof
            if dof is None:
                continue
            interface = _command_interface(dof)
            if interface is None:
                continue
            actuator = dof.actuators[0].name if dof.actuators else f"{name}_motor"
            gear = dof.actuators[0].gear if dof.actuators else 1.0
            transmission = ET.SubElement(self.robot, "transmission", {"name": f"{name}_transmission"})
            ET.SubElement(transmission, "type").text = "transmission_interface/SimpleTransmission"
            joint = ET.SubElement(transmission, "joint", {"name": name})
            ET.SubElement(joint, "hardwareInterface").text = f"hardware_interface/{interface.title()}JointInterface"
            actuator_element = ET.SubElement(transmission, "actuator", {"name": actuator})
            ET.SubElement(actuator_element, "mechanicalReduction").text = _num(gear)
            element = ET.SubElement(self.ros2_control(), "joint", {"name": name})
            ET.SubElement(element, "command_interface", {"name": interface})
            start = dof.initial_position - dof.reference
            for state, value in (("position", start), ("velocity", dof.initial_velocity)):
                state_element = ET.SubElement(element, "state_interface", {"name": state})
                ET.SubElement(state_element, "param", {"name": "initial_value"}).text = _num(value)

    # -- sites, cameras and sensors (core/urdf/sensors.py)
    def write_frame_link(self, name: str, parent: str, origin: Pose) -> str:
        """A massless link on a fixed joint ``<name>_joint``; returns the link's name."""
        link = self.unique(name, self.link_names)
        joint = self.unique(f"{link}_joint", self.joint_names)
        self.robot.append(ET.Element("link", {"name": link}))
        self.write_joint(_Step(joint, "fixed", (0.0, 0.0, 0.0), (1.0, 0.0, 0.0)), parent, link, origin)
        return link

    def write_frames(self) -> None:
        """Each site and camera on a body of the robot as a frame link; the rest named in the warning."""
        bodies = set(self.articulation.bodies)
        self.site_links: dict[str, str] = {}
        self.camera_links: dict[str, tuple[str, str]] = {}
        elsewhere = []
        for site in self.scene.sites:
            if site.body not in bodies:
                elsewhere.append(site.name)
                continue
            offset = self.offsets.get(site.body, (0.0, 0.0, 0.0))
            if site.name == site.body and site.pose == Pose() and not any(offset):
                self.site_links[site.name] = site.body  # the body's own frame (a URDF sensor on a link)
                continue
            origin = _shift(offset, site.pose)
            self.site_links[site.name] = self.write_frame_link(site.name, site.body, origin)
        for camera in self.scene.cameras:
            if camera.body not in bodies:
                elsewhere.append(camera.name)
                continue
            body_link, optical = sensors.camera_frames(camera)
            names = (*(camera.ros_frames or (camera.name,)), "")[:2]
            if names[0] == camera.body and _close_pose(body_link, Pose()) \
                    and not any(self.offsets.get(camera.body, ())):  # a URDF's own link: it looks down +X
                optical_link = names[1] if self.scene.body(names[1]) else names[0]
                self.camera_links[camera.name] = (names[0], optical_link)
                continue
            link = self.write_frame_link(names[0], camera.body,
                                         _shift(self.offsets.get(camera.body, (0.0, 0.0, 0.0)), body_link))
            optical_name = names[1] or link + sensors.OPTICAL_SUFFIX
            self.camera_links[camera.name] = (link, self.write_frame_link(optical_name, link, optical))
        if elsewhere:
            self.cannot_say.append(f"sites and cameras in the world or on other robots "
                                   f"({_listed(elsewhere)})")

    def colliding_link(self, body: Optional[str]) -> Optional[str]:
        """The body or nearest ancestor with colliders (Gazebo lumps fixed frame links into it)."""
        while body is not None and not self.scene.shapes_of(body):
            body = self.articulation.parents.get(body)
        return body

    def write_sensors(self) -> None:
        """Gazebo's sensor tags (and ros2_control's for IMUs and force-torque sensors)."""
        scene = self.scene
        rate = float(scene.settings.steps_per_second)
        groups, other = sensors.group_sensors(scene, self.site_links)
        taken: set[str] = set()
        for group in groups:
            group.name = sensors.group_name(group, taken)
            site = group.site
            link = self.site_links[site.name]
            self.robot.append(sensors.gazebo_sensor(group, link, rate, self.colliding_link(site.body)))
            control = sensors.ros2_control_sensor(group, link)
            if control is not None:
                self.ros2_control().append(control)
        for camera in scene.cameras:
            if camera.name in self.camera_links:
                link, optical = self.camera_links[camera.name]
                name = sensors.unique_name(camera.name, taken)
                self.robot.append(sensors.gazebo_camera(camera, name, link, optical, rate))
        moving = [c.name for c in scene.cameras
                  if c.name in self.camera_links and sensors.is_camera_moving(c)]
        if moving:
            self.cannot_say.append(f"camera modes that track (cameras {_listed(moving)}: written fixed)")
        if other:
            self.cannot_say.append(f"sensors Gazebo has no type for ({_listed(other)})")
        cutoffs = [s.name for g in groups for s in g.sensors if s.cutoff and g.gazebo != "ray"]
        if cutoffs:
            self.cannot_say.append(f"sensor cutoffs ({_listed(cutoffs)})")
        noisy_touch = [s.name for g in groups if g.gazebo == "contact" for s in g.sensors if s.noise]
        if noisy_touch:
            self.cannot_say.append(f"touch sensor noise ({_listed(noisy_touch)})")

    # -- SRDF
    def write_srdf(self, bodies: set) -> None:
        pairs: list[tuple[str, str, str]] = []
        seen = set()

        def add(a, b, reason):
            key = frozenset((a, b))
            if a != b and a in bodies and b in bodies and key not in seen:
                seen.add(key)
                pairs.append((a, b, reason))

        if self.scene.settings.collision_filter_parent:
            for child, parent in self.articulation.parents.items():
                joints = self.articulation.edge_joints(child)
                if not any(j.collide_bodies for j in joints):
                    add(parent, child, "Adjacent")
        for a, b in self.scene.filtered_pairs:
            add(a, b, "User")
        if not pairs:
            return
        self.srdf = ET.Element("robot", {"name": self.robot.get("name")})
        for a, b, reason in pairs:
            ET.SubElement(self.srdf, "disable_collisions", {"link1": a, "link2": b, "reason": reason})
        ET.indent(self.srdf)

    # -- the one warning
    def collect_cannot_say(self, bodies: set) -> None:
        scene, art = self.scene, self.articulation
        say = self.cannot_say
        if self.chains:
            self.notes.append("joints URDF has no type for, written as chains of massless links with one "
                              "joint each: " + "; ".join(self.chains))
        shapes = [s for s in scene.shapes if s.body in bodies]
        groups = sorted({s.collision_group for s in shapes} - {1})
        if groups:
            say.append(f"collision groups {', '.join(map(str, groups))}")
        worlds = sorted(({s.world for s in shapes} | {scene.body(b).world for b in bodies}) - {0})
        if worlds:
            say.append(f"worlds {', '.join(map(str, worlds))}")
        materials = sorted({s.material for s in shapes if s.material})
        if materials:
            say.append(f"physics materials ({_listed(materials)})")
        joints = [j for b in art.bodies for j in art.edge_joints(b)]
        gains = sorted({j.name for j in joints for d in j.dofs
                        if d.drive_enabled and (d.drive_stiffness or d.drive_damping)
                        or any(a.kind != ActuatorKind.MOTOR for a in d.actuators)})
        if gains:
            say.append(f"drive and servo gains (joints {_listed(gains)})")
        for what, test in (("armature", lambda d: d.armature),
                           ("springs", lambda d: d.spring_stiffness),
                           ("soft limits", lambda d: d.limit_stiffness or d.limit_damping),
                           ("MuJoCo limit softness (solreflimit, solimplimit)",
                            lambda d: d.has_soft_mujoco_limit),
                           ("Coulomb friction below the static one", lambda d: d.dynamic_friction != d.static_friction)):
            names = sorted({j.name for j in joints for d in j.dofs if test(d)})
            if names:
                say.append(f"{what} (joints {_listed(names)})")
        cones = sorted(j.name for j in joints if j.type == JointType.SPHERICAL
                       and (math.isfinite(j.cone_limit0) or math.isfinite(j.cone_limit1)))
        if cones:
            say.append(f"cone limits (joints {_listed(cones)})")
        if art.loop_joints:
            say.append(f"loop-closing joints ({_listed(j.name for j in art.loop_joints)})")
        disabled = [j.name for j in scene.joints if not j.enabled and j.body1 in bodies]
        if disabled:
            say.append(f"disabled joints ({_listed(disabled)})")
        if art.kinematic_bodies:
            say.append(f"kinematic bodies ({_listed(art.kinematic_bodies)})")
        if scene.tendons:
            say.append(f"tendons ({_listed(t.name for t in scene.tendons)})")
        static = [s.name for s in scene.shapes if s.body is None] + [v.name for v in scene.visuals if v.body is None]
        if static:
            say.append(f"static geometry ({_listed(static)})")
        velocities = [b for b in bodies if any(scene.body(b).linear_velocity) or any(scene.body(b).angular_velocity)]
        if velocities:
            say.append(f"initial body velocities ({_listed(velocities)})")
        mujoco_model = (("lights", scene.lights), ("keyframes", scene.keyframes),
                        ("weld and connect equalities", scene.equalities),
                        ("tendon equalities", scene.tendon_equalities),
                        ("spatial tendons", scene.spatial_tendons), ("contact pairs", scene.contact_pairs),
                        ("actuators on sites, bodies, ball joints and spatial tendons",
                         scene.frame_actuators))
        for what, items in mujoco_model:
            if items:
                say.append(f"{what} ({_listed(i.name for i in items)})")


def _close_pose(a: Pose, b: Pose) -> bool:
    return poses_close(a, b, 1e-9, 1e-12)


def _clean(values) -> tuple:
    return tuple(0.0 if abs(v) < 1e-15 else v for v in values)


def _rest(scene: PhysicsScene, parent: str, child: str) -> Pose:
    return pose_mul(pose_inverse(scene.body(parent).pose), scene.body(child).pose)


def _command_interface(dof: Dof) -> Optional[str]:
    if dof.actuators:
        kind = dof.actuators[0].kind
        return {ActuatorKind.POSITION: "position", ActuatorKind.VELOCITY: "velocity"}.get(kind, "effort")
    if dof.drive_enabled:
        if dof.drive_stiffness:
            return "position"
        return "velocity" if dof.drive_damping else "effort"
    return None


# ------------------------------------------------------------------------------------- files
def _write_files(path: str, document: _Writer) -> None:
    """The meshes, the SRDF, then the URDF, each put in place only once all are written; a failure
    before that leaves the old files (core.files.write_files_atomically)."""
    path = os.path.abspath(path)
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        raise UrdfWriteError(path, [f"folder {folder} does not exist"])
    files: dict[str, bytes] = {}
    for mesh in document.meshes:
        files.setdefault(mesh.relative, mesh.data)
        if mesh.mtl is not None:
            files.setdefault(*mesh.mtl)
        for relative, data in mesh.extra.items():
            files.setdefault(relative, data)  # a texture two visuals share
    if document.srdf is not None:
        files[os.path.splitext(os.path.basename(path))[0] + ".srdf"] = _xml_bytes(document.srdf)
    files.pop(os.path.basename(path), None)
    files[os.path.basename(path)] = _xml_bytes(document.robot)  # last: the URDF names the others
    try:
        write_files_atomically(path, files)
    except OSError as error:
        raise UrdfWriteError(path, [f"cannot be written ({error})"]) from error


def _xml_bytes(element: ET.Element) -> bytes:
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(element, encoding="utf-8") + b"\n"
