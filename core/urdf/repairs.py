"""Repairs for URDF files that ROS, pybullet and Newton load but MuJoCo's strict compiler refuses.

Each repair runs on the text or on the ElementTree handed to MuJoCo (the user's file is never
written) and is reported as one plain note naming the element and what was assumed, so a file
people load every day in other tools comes in with a warning instead of a refusal:

- junk after ``</robot>`` (a NUL byte) is dropped;
- numbers separated by commas (``xyz="0.07, 0, -0.69"``) are read as separated by spaces;
- xacro's ``$(optenv NAME default)`` left unexpanded is its default, as xacro gives it when NAME
  is not set (the user's environment is never read);
- a vector with more numbers than it holds (an ``rpy`` of four) keeps the first ones;
- a number attribute with trailing junk (``lower="-1.57."``) is read as C's ``atof`` reads it (as
  pybullet does); one that is no number at all (``lower="-PI"``) is dropped: the URDF default;
- a joint with several ``<axis>`` keeps the first (as urdfdom and Newton do);
- a ``<limit>`` whose lower is above its upper is no limit (as pybullet and Newton read it);
- a pybullet ``spherical`` joint comes in as a ball joint about its frame's Z; pybullet's swing
  limits (``lower`` about X, ``upper`` about Y, :data:`SphericalLimit`) become its cone angles, the
  twist limit (no place in the description) is named as left out;
- pybullet's ``<plane normal>`` geometry (no URDF type) becomes an infinite plane collider
  (:func:`add_planes`), its visual is left out; other geometry no URDF knows (pybullet's ``<cdf>``)
  is left out;
- blank lines before ``<?xml`` are ignored (the XML declaration must come first).

What no repair reads stays an error naming the file (:func:`check_tree`): a link with two parents
or a cycle of links (a URDF is a tree), besides text that is no XML or has no ``<robot>``.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

#: Attributes that hold a fixed number of numbers.
VECTOR_SIZES = {"xyz": 3, "rpy": 3, "scale": 3, "size": 3, "rgba": 4, "normal": 3}
#: Attributes (by element) that hold one number.
NUMBER_ATTRIBUTES = {
    "limit": ("lower", "upper", "effort", "velocity"),
    "dynamics": ("damping", "friction"),
    "mass": ("value",),
    "inertia": ("ixx", "ixy", "ixz", "iyy", "iyz", "izz"),
    "sphere": ("radius",),
    "cylinder": ("radius", "length"),
    "capsule": ("radius", "length"),
    "safety_controller": ("soft_lower_limit", "soft_upper_limit", "k_position", "k_velocity"),
    "mimic": ("multiplier", "offset"),
}
#: The geometry elements URDF (and MuJoCo's URDF compiler) know.
URDF_GEOMETRY = ("box", "cylinder", "sphere", "mesh", "capsule")
_NUMBER_PREFIX = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_OPTENV = re.compile(r"\$\(optenv\s+\S+\s*([^)]*)\)")
_ROBOT_END = "</robot>"


def repair_text(text: str) -> tuple[str, list[str]]:
    """The text without what follows ``</robot>`` (only whitespace may); notes blank lines before
    ``<?xml`` (the reader feeds the text from its first ``<``, keeping the file's line count)."""
    notes = []
    stripped = text.lstrip()
    if stripped.startswith("<?xml") and len(stripped) != len(text):
        lines = text[:len(text) - len(stripped)].count("\n")
        notes.append(f"{lines} blank line{'s' if lines != 1 else ''} before <?xml ignored" if lines else
                     "blank space before <?xml ignored")
    end = text.rfind(_ROBOT_END)
    if end < 0:
        return text, notes
    end += len(_ROBOT_END)
    tail = text[end:]
    if not tail.strip():
        return text, notes
    line, count = text[:end].count("\n") + 1, len(tail.strip())
    return text[:end] + "\n", notes + [f"{count} character{'s' if count != 1 else ''} after </robot> (line "
                                       f"{line}) ignored ({tail.strip()[:20]!r})"]


@dataclass
class SphericalLimit:
    """pybullet's limit of a ``spherical`` joint (btMultiBodySphericalJointLimit, made when lower,
    upper, twist and effort are all above 0): in the joint frame, the swing about X within
    +-``swing_x`` (``lower``), about Y within +-``swing_y`` (``upper``), the twist about Z within
    +-``twist``."""

    swing_x: float
    swing_y: float
    twist: float


@dataclass
class TreeRepairs:
    """What :func:`repair_tree` did: its notes, the planes taken out for :func:`add_planes` and the
    spherical joints' limits taken out (by joint name) for the reader to set on the ball joints."""

    notes: list[str] = field(default_factory=list)
    planes: list[dict] = field(default_factory=list)
    spherical: dict[str, SphericalLimit] = field(default_factory=dict)


class TreeError(ValueError):
    """A ``<robot>`` that is no tree of links (the reader names the file)."""


def check_tree(root: ET.Element) -> None:
    """Raise :class:`TreeError` for a link that is the child of two joints or links that form a
    cycle: no repair can say which joint the file means."""
    parent_of: dict[str, tuple[str, str]] = {}  # child link -> (parent link, joint)
    for joint in root.findall("joint"):
        parent, child = joint.find("parent"), joint.find("child")
        if parent is None or child is None:
            continue  # MuJoCo's compiler names it
        name, child_link = joint.get("name", "?"), child.get("link")
        if child_link in parent_of:
            first = parent_of[child_link][1]
            raise TreeError(f"link {child_link} is the child of two joints ({first}, {name}): a URDF is a "
                            "tree of links")
        parent_of[child_link] = (parent.get("link"), name)
    for start in parent_of:
        seen, link = [start], start
        while link in parent_of:
            link = parent_of[link][0]
            if link == start:
                joints = [parent_of[l][1] for l in seen]
                raise TreeError(f"joints {', '.join(joints)} form a cycle of links "
                                f"({' -> '.join(seen + [start])}): a URDF is a tree of links")
            if link in seen:
                break  # a cycle that does not hold start: found from its own links
            seen.append(link)


def root_links(root: ET.Element) -> set[str]:
    """Links no joint has as its child: the ones the world holds."""
    children = {c.get("link") for j in root.findall("joint") for c in j.findall("child")}
    return {link.get("name") for link in root.findall("link")} - children


def repair_tree(root: ET.Element) -> TreeRepairs:
    """Repair ``root`` (a ``<robot>``) in place for MuJoCo."""
    done = TreeRepairs()
    for owner in list(root):
        where = f"{owner.tag} {owner.get('name', '?')}"
        for element in owner.iter():
            _repair_attributes(element, where, done.notes)
        if owner.tag == "joint":
            _repair_joint(owner, where, done)
    done.planes = _take_planes(root, done.notes)
    return done


def _repair_attributes(element: ET.Element, where: str, notes: list[str]) -> None:
    for name, size in VECTOR_SIZES.items():
        value = element.get(name)
        if value is not None:
            fixed = _vector(value, size)
            if fixed != value:
                element.set(name, fixed)
                notes.append(f"{where}: <{element.tag} {name}=\"{value}\"> read as \"{fixed}\"")
    for name in NUMBER_ATTRIBUTES.get(element.tag, ()):
        value = element.get(name)
        if value is None:
            continue
        expanded = _OPTENV.sub(lambda m: m.group(1).strip() or "0", value)
        if _is_number(expanded):
            if expanded != value:
                element.set(name, expanded)
                notes.append(f"{where}: <{element.tag} {name}=\"{value}\"> read as \"{expanded}\"")
            continue
        prefix = _NUMBER_PREFIX.match(expanded.strip())
        if prefix:  # "-1.57." read as C's atof reads it (pybullet, which wrote such files)
            element.set(name, prefix.group(0))
            notes.append(f"{where}: <{element.tag} {name}=\"{value}\"> read as \"{prefix.group(0)}\"")
            continue
        del element.attrib[name]
        notes.append(f"{where}: <{element.tag} {name}=\"{value}\"> is no number and was left out")


def _vector(value: str, size: int) -> str:
    """``value`` with xacro's optenv defaults, commas as separators and at most ``size`` numbers;
    unchanged when it has no such problem (other problems stay for MuJoCo to name)."""
    text = _OPTENV.sub(lambda m: m.group(1).strip(), value).replace(",", " ")
    numbers = text.split()
    if not all(_is_number(n) for n in numbers):
        return value
    if len(numbers) > size:
        numbers = numbers[:size]
    fixed = " ".join(numbers)
    return value if fixed == " ".join(value.split()) else fixed


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _repair_joint(joint: ET.Element, where: str, done: TreeRepairs) -> None:
    notes = done.notes
    axes = joint.findall("axis")
    for extra in axes[1:]:
        joint.remove(extra)
        notes.append(f"{where}: {len(axes)} <axis> elements, the first ({axes[0].get('xyz')}) kept")
    limit = joint.find("limit")
    if joint.get("type") == "spherical":
        if limit is not None:
            _take_spherical_limit(joint, limit, where, done)
        return
    if limit is not None and _is_number(limit.get("lower", "")) and _is_number(limit.get("upper", "")) \
            and float(limit.get("lower")) > float(limit.get("upper")):  # pybullet and Newton: no limit
        notes.append(f"{where}: <limit lower=\"{limit.get('lower')}\" upper=\"{limit.get('upper')}\"> "
                     "(lower above upper) read as no limit, as pybullet does")
        del limit.attrib["lower"], limit.attrib["upper"]


def _take_spherical_limit(joint: ET.Element, limit: ET.Element, where: str, done: TreeRepairs) -> None:
    """pybullet's ``<limit lower upper twist>`` of a spherical joint (which MuJoCo's compiler refuses
    on a ball joint) taken out: kept as a :class:`SphericalLimit` when pybullet makes one."""
    written = {n: limit.get(n) for n in ("lower", "upper", "twist") if limit.get(n) is not None}
    if not written:
        return
    for name in written:
        del limit.attrib[name]
    values = {n: float(v) if _is_number(v) else 0.0 for n, v in written.items()}
    effort = float(limit.get("effort")) if _is_number(limit.get("effort", "")) else 0.0
    text = " ".join(f'{n}="{v}"' for n, v in written.items())
    if not all(values.get(n, 0.0) > 0.0 for n in ("lower", "upper", "twist")) or effort <= 0.0:
        done.notes.append(f"{where}: spherical joint <limit {text}> read as no limit, as pybullet does "
                          "(it limits a spherical joint only when lower, upper, twist and effort are all "
                          "above 0)")
        return
    cone = SphericalLimit(values["lower"], values["upper"], values["twist"])
    done.spherical[joint.get("name", "")] = cone
    done.notes.append(f"{where}: pybullet spherical joint <limit {text}>: a ball joint about Z whose swing "
                      f"cone has half-angles {cone.swing_y:g} rad toward X and {cone.swing_x:g} rad toward Y "
                      "(pybullet bounds the swing about X and Y separately); its twist limit "
                      f"+-{cone.twist:g} rad is not carried (a spherical joint has none in the description)")


def _take_planes(root: ET.Element, notes: list[str]) -> list[dict]:
    planes = []
    static = root_links(root)
    for link in root.findall("link"):
        for kind in ("collision", "visual"):
            for element in link.findall(kind):
                geometry = element.find("geometry")
                shapes = [g for g in geometry if isinstance(g.tag, str)] if geometry is not None else []
                unknown = [g.tag for g in shapes if g.tag not in URDF_GEOMETRY]
                known = [g.tag for g in shapes if g.tag in URDF_GEOMETRY or g.tag == "plane"]
                if unknown and not known:
                    link.remove(element)
                    notes.append(f"link {link.get('name')}: {kind} geometry <{unknown[0]}> is no URDF "
                                 "geometry and was left out")
                    continue
                plane = geometry.find("plane") if geometry is not None else None
                if plane is None:
                    continue
                link.remove(element)
                if kind == "visual":
                    notes.append(f"link {link.get('name')}: a pybullet <plane> visual left out (the plane "
                                 "collider shows it)")
                    continue
                if link.get("name") not in static:
                    notes.append(f"link {link.get('name')}: a pybullet <plane> collider on a moving link "
                                 "left out (an infinite plane must be static)")
                    continue
                origin = element.find("origin")
                planes.append({"link": link.get("name"), "normal": _floats(plane.get("normal"), (0.0, 0.0, 1.0)),
                               "xyz": _floats(origin.get("xyz") if origin is not None else None, (0.0, 0.0, 0.0)),
                               "rpy": _floats(origin.get("rpy") if origin is not None else None, (0.0, 0.0, 0.0))})
                notes.append(f"link {link.get('name')}: a pybullet <plane> collider read as an infinite plane")
    return planes


def _floats(text, default) -> tuple:
    try:
        values = tuple(float(v) for v in text.split()) if text else default
    except ValueError:
        return default
    return values if len(values) == 3 else default


def add_planes(spec, mujoco, planes: list[dict]) -> None:
    """Each plane taken out by :func:`repair_tree` as a MuJoCo plane geom of the world (a plane is
    static: only a root link's is kept, and a root link's frame is the world's)."""
    for plane in planes:
        body = spec.worldbody
        quat = _quat_mul(_rpy_quat(plane["rpy"]), _z_to(plane["normal"]))
        body.add_geom(type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0.0, 0.0, 1.0], pos=list(plane["xyz"]),
                      quat=list(quat), name=f"{plane['link']}_plane")


def _rpy_quat(rpy) -> tuple:
    """URDF's fixed-axis roll, pitch, yaw as a (w, x, y, z) quaternion (Rz * Ry * Rx)."""
    r, p, y = (0.5 * a for a in rpy)
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return (cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy,
            cr * sp * cy + sr * cp * sy, cr * cp * sy - sr * sp * cy)


def _z_to(normal) -> tuple:
    """The shortest rotation taking +Z onto ``normal``."""
    length = math.sqrt(sum(c * c for c in normal)) or 1.0
    x, y, z = (c / length for c in normal)
    if z < -1.0 + 1e-12:
        return (0.0, 1.0, 0.0, 0.0)
    w = 1.0 + z
    norm = math.sqrt(w * w + y * y + x * x)
    return (w / norm, -y / norm, x / norm, 0.0)


def _quat_mul(a, b) -> tuple:
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw)
