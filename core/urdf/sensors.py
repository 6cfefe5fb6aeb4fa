"""Sites, cameras and sensors in a URDF, as ROS 2 robots carry them.

URDF has no site, camera or sensor. ROS gives each a frame link of its own (a massless link on a fixed
joint) and names the sensor in two extension tags that urdfdom skips: Gazebo's
``<gazebo reference="link"><sensor type="imu|camera|contact|force_torque|ray">`` and, for sensors a
controller reads, a ``<sensor>`` in the ``<ros2_control>`` block with its ``<state_interface>``s.

Frames written:

- A site: link ``<site>`` on joint ``<site>_joint``, at the site's frame (a sensor on it reads there);
  a site named as its body, at the body's origin, is that body's link (a URDF sensor read on a link).
- A camera: link ``<camera>`` in ROS's body convention (+X forward, +Y left, +Z up), which is the frame
  Gazebo's camera looks down (+X), and its child ``<camera>_optical_frame`` in ROS's optical convention
  (+Z forward, +X right, +Y down), the frame image messages name. Both because ROS drivers and Gazebo
  need both (REP 103 and 105); MuJoCo's and Blender's camera frame (-Z forward, +Y up) is neither, so
  it is turned into the body convention on the way out and back on the way in.

Names are made unique against the robot's links and joints (``_1`` added).

MuJoCo's sensors -> Gazebo's, grouped by the site they read at:
accelerometer, gyro and framequat -> one ``imu`` (and a ros2_control sensor with orientation.*,
angular_velocity.*, linear_acceleration.* as present); force and torque -> one ``force_torque``
(measured parent to child in the sensor frame, as MuJoCo does; ros2_control force.*, torque.*); touch ->
``contact`` (on ``<body>_collision``, Gazebo's name of the collision of the site's body or the nearest
ancestor with one: the touch zone is not carried); rangefinder -> ``ray`` (one beam: its site's +Z
turned onto Gazebo's +X by the sensor's ``<pose>``; range up to the cutoff, else 100 m); a camera ->
``camera`` (horizontal fov, image size, clip). Update rate: the sensor's own, else one reading per
simulation step. Noise: Gaussian with the sensor's standard deviation on every axis.

Names: an IMU named ``<name>`` reads back as sensors ``<name>_accelerometer``, ``<name>_gyro``,
``<name>_framequat`` (those its ros2_control interfaces name, else the first two); a force-torque sensor
as ``<name>_force`` and ``<name>_torque``; sensors named so are written as ``<name>`` again.

Read back, a sensor's frame link (massless, no geometry, on one fixed joint, no child; a camera's with
its optical frame) becomes a site of its name (a camera) on its parent and leaves the bodies; so an
exported robot reads back as the robot it was, and is written again with the same links. A sensor on
a link with a body reads at a site named as that link at its origin, written back as the link itself;
a camera there sits on it. A camera keeps its links' names (``Camera.ros_frames``).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Optional

from ..mesh_files import number as _num
from ..model import Camera, CameraMode, JointType, PhysicsScene, Pose, Sensor, Site
from ..transforms import pose_inverse, pose_mul, poses_close, quat_from_matrix

#: The ROS body frame of a camera (+X forward, +Z up) seen from MuJoCo's camera frame (-Z forward, +Y up).
ROS_BODY_IN_CAMERA = quat_from_matrix([[0.0, -1.0, 0.0], [0.0, 0.0, 1.0], [-1.0, 0.0, 0.0]])
#: ROS's optical frame (+Z forward, +Y down) seen from its body frame: rpy (-pi/2, 0, -pi/2).
OPTICAL_IN_ROS_BODY = quat_from_matrix([[0.0, 0.0, 1.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]])
#: Gazebo's ray (+X) seen from a MuJoCo rangefinder's site (+Z): a turn of -pi/2 about Y.
RAY_IN_SITE = quat_from_matrix([[0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
OPTICAL_SUFFIX = "_optical_frame"
#: Gazebo's ray needs a maximum range; MuJoCo's rangefinder has none (m).
RAY_MAX_RANGE = 100.0
RAY_MIN_RANGE = 0.0
#: Gazebo's image size where a camera sets none.
GAZEBO_IMAGE = (320, 240)
AXES = ("x", "y", "z")
#: MuJoCo's integer parameters of a rangefinder that reads its distance (its default data).
RANGEFINDER_DISTANCE = "1 0 0"
IMU_KINDS = ("accelerometer", "gyro", "framequat")
FORCE_TORQUE_KINDS = ("force", "torque")
#: ros2_control state interfaces by MuJoCo kind.
STATE_INTERFACES = {"framequat": ("orientation", ("x", "y", "z", "w")),
                    "gyro": ("angular_velocity", AXES), "accelerometer": ("linear_acceleration", AXES),
                    "force": ("force", AXES), "torque": ("torque", AXES)}
#: Gazebo's IMU and force-torque elements by MuJoCo kind (framequat: no noise element).
GAZEBO_NOISE = {"gyro": ("imu", "angular_velocity"), "accelerometer": ("imu", "linear_acceleration"),
                "force": ("force_torque", "force"), "torque": ("force_torque", "torque")}


@dataclass
class SensorGroup:
    """The sensors one Gazebo sensor stands for: ``gazebo`` type, its name, the link it is on."""

    gazebo: str
    site: Site
    sensors: list[Sensor] = field(default_factory=list)
    name: str = ""


def _text(parent: ET.Element, tag: str, value) -> ET.Element:
    element = ET.SubElement(parent, tag)
    element.text = value if isinstance(value, str) else str(value) if isinstance(value, int) else _num(value)
    return element


def _noise(parent: ET.Element, stddev: float) -> None:
    noise = ET.SubElement(parent, "noise", {"type": "gaussian"})
    _text(noise, "mean", 0.0)
    _text(noise, "stddev", stddev)


# ------------------------------------------------------------------------------------- writing
def group_sensors(scene: PhysicsScene, sites: dict[str, str]) -> tuple[list[SensorGroup], list[str]]:
    """The Gazebo sensors of the sensors on written sites ``sites`` (site -> its link), in the order
    of their first sensor, and the sensors no Gazebo type says (``name (kind)``)."""
    groups: dict[tuple, SensorGroup] = {}
    other = []
    for sensor in scene.sensors:
        site = scene.site(sensor.target) if sensor.target_kind == "site" and sensor.target in sites else None
        gazebo = _gazebo_type(sensor)
        if site is None or gazebo is None:
            other.append(f"{sensor.name} ({sensor.kind})")
            continue
        key = (gazebo, site.name) if gazebo in ("imu", "force_torque") else (gazebo, sensor.name)
        groups.setdefault(key, SensorGroup(gazebo, site)).sensors.append(sensor)
    return list(groups.values()), other


def _gazebo_type(sensor: Sensor) -> Optional[str]:
    if sensor.kind in IMU_KINDS and (sensor.kind != "framequat" or sensor.reference is None):
        return "imu"
    return {"force": "force_torque", "torque": "force_torque", "touch": "contact",
            "rangefinder": "ray"}.get(sensor.kind)


def group_name(group: SensorGroup, taken: set) -> str:
    """An IMU's or force-torque sensor's ``<name>`` where each of its sensors is ``<name>_<kind>``, else a
    lone sensor's name, else the site's."""
    stems = {s.name[: -len(s.kind) - 1] for s in group.sensors if s.name.endswith("_" + s.kind)}
    grouped = group.gazebo in ("imu", "force_torque")
    if grouped and len(stems) == 1 and all(s.name.endswith("_" + s.kind) for s in group.sensors):
        name = stems.pop()
    elif len(group.sensors) == 1:
        name = group.sensors[0].name
    else:
        name = group.site.name
    return unique_name(name, taken)


def unique_name(name: str, taken: set) -> str:
    base, count = name, 1
    while name in taken:
        name, count = f"{base}_{count}", count + 1
    taken.add(name)
    return name


def gazebo_sensor(group: SensorGroup, link: str, rate: float, colliding: Optional[str]) -> ET.Element:
    """``<gazebo reference="link"><sensor ...>`` of a group."""
    gazebo = ET.Element("gazebo", {"reference": link})
    sensor = ET.SubElement(gazebo, "sensor", {"name": group.name, "type": group.gazebo})
    _text(sensor, "always_on", "true")
    _text(sensor, "update_rate", next((s.update_rate for s in group.sensors if s.update_rate), rate))
    if group.gazebo in ("imu", "force_torque"):
        body = ET.SubElement(sensor, group.gazebo)
        if group.gazebo == "force_torque":
            _text(body, "frame", "sensor")
            _text(body, "measure_direction", "parent_to_child")
        order = list(GAZEBO_NOISE)  # SDF's order: angular velocity before linear acceleration
        noisy = [s for s in group.sensors if s.kind in GAZEBO_NOISE]
        for s in sorted(noisy, key=lambda s: order.index(s.kind)):
            if s.noise > 0.0:
                vector = ET.SubElement(body, GAZEBO_NOISE[s.kind][1])
                for axis in AXES:
                    _noise(ET.SubElement(vector, axis), s.noise)
    elif group.gazebo == "contact":
        contact = ET.SubElement(sensor, "contact")
        if colliding is not None:
            _text(contact, "collision", f"{colliding}_collision")
    elif group.gazebo == "ray":
        s = group.sensors[0]
        _text(sensor, "pose", "0 0 0 0 " + _num(-math.pi / 2) + " 0")
        ray = ET.SubElement(sensor, "ray")
        horizontal = ET.SubElement(ET.SubElement(ray, "scan"), "horizontal")
        for tag, value in (("samples", "1"), ("resolution", "1"), ("min_angle", "0"), ("max_angle", "0")):
            _text(horizontal, tag, value)
        limits = ET.SubElement(ray, "range")
        _text(limits, "min", RAY_MIN_RANGE)
        _text(limits, "max", s.cutoff if s.cutoff > 0.0 else RAY_MAX_RANGE)
        if s.noise > 0.0:
            _noise(ray, s.noise)
    return gazebo


def gazebo_camera(camera: Camera, name: str, link: str, optical: str, rate: float) -> ET.Element:
    """``<gazebo reference="link"><sensor type="camera">``: the horizontal field of view of the camera's
    vertical one at its image's aspect; an image size MuJoCo leaves unset (1 x 1) is Gazebo's default."""
    gazebo = ET.Element("gazebo", {"reference": link})
    sensor = ET.SubElement(gazebo, "sensor", {"name": name, "type": "camera"})
    _text(sensor, "always_on", "true")
    _text(sensor, "update_rate", camera.update_rate or rate)
    element = ET.SubElement(sensor, "camera", {"name": name})
    width, height = camera.resolution if tuple(camera.resolution) != (1, 1) else GAZEBO_IMAGE
    aspect = width / height
    _text(element, "horizontal_fov", 2.0 * math.atan(math.tan(camera.fovy / 2.0) * aspect))
    image = ET.SubElement(element, "image")
    _text(image, "width", width)
    _text(image, "height", height)
    _text(image, "format", "R8G8B8")
    clip = ET.SubElement(element, "clip")
    _text(clip, "near", camera.clip_start)
    _text(clip, "far", camera.clip_end)
    _text(element, "optical_frame_id", optical)
    return gazebo


def ros2_control_sensor(group: SensorGroup, link: str) -> Optional[ET.Element]:
    """The ros2_control ``<sensor>`` of an IMU or force-torque group (None for other types)."""
    if group.gazebo not in ("imu", "force_torque"):
        return None
    element = ET.Element("sensor", {"name": group.name})
    kinds = {s.kind for s in group.sensors}
    for kind in ("framequat", "gyro", "accelerometer", "force", "torque"):
        if kind in kinds:
            prefix, components = STATE_INTERFACES[kind]
            for component in components:
                ET.SubElement(element, "state_interface", {"name": f"{prefix}.{component}"})
    _text(element, "param", link).set("name", "frame_id")
    return element


def camera_frames(camera: Camera) -> tuple[Pose, Pose]:
    """The camera's ROS body link in its body's frame, and its optical frame in that link."""
    return pose_mul(camera.pose, Pose(rot=ROS_BODY_IN_CAMERA)), Pose(rot=OPTICAL_IN_ROS_BODY)


def camera_from_ros_body(link_pose: Pose) -> Pose:
    """The MuJoCo camera frame of a ROS camera link at ``link_pose``."""
    return pose_mul(link_pose, pose_inverse(Pose(rot=ROS_BODY_IN_CAMERA)))


def is_camera_moving(camera: Camera) -> bool:
    return camera.mode != CameraMode.FIXED


# ------------------------------------------------------------------------------------- reading
#: Gazebo sensor types read back, and the MuJoCo kinds each becomes where ros2_control does not say.
READ_KINDS = {"imu": ("accelerometer", "gyro"), "force_torque": ("force", "torque"), "contact": ("touch",),
              "ray": ("rangefinder",), "gpu_ray": ("rangefinder",)}
#: ros2_control state interface prefix -> MuJoCo kind.
KIND_OF_INTERFACE = {prefix: kind for kind, (prefix, _) in STATE_INTERFACES.items()}


def read_sensors(root: ET.Element, scene: PhysicsScene) -> list[str]:
    """The Gazebo sensor tags of URDF ``root`` into ``scene``'s sensors and cameras, and the ros2_control
    IMU and force-torque sensors no Gazebo tag names (at their ``frame_id``). MuJoCo's URDF compiler reads
    none of these tags. Where each reads: the module's docstring; a sensor with a ``<pose>`` off its
    link's frame reads at a site ``<sensor>_site``. Returns the warnings (the tags not read)."""
    control = {e.get("name", ""): e for c in root.findall("ros2_control") for e in c.findall("sensor")}
    reader = _SensorReader(scene, control)
    gazebo_names = set()
    for gazebo in root.findall("gazebo"):
        for element in gazebo.findall("sensor"):
            gazebo_names.add(element.get("name", ""))
            reader.read(gazebo.get("reference", ""), element)
    for name, element in control.items():
        if name not in gazebo_names:
            reader.read_control_only(name, element)
    warnings = []
    if reader.not_read:
        warnings.append("sensors not read: " + "; ".join(reader.not_read))
    return warnings


@dataclass
class _SensorReader:
    scene: PhysicsScene
    control: dict
    not_read: list[str] = field(default_factory=list)
    frames: dict = field(default_factory=dict)  # a frame link left out -> (its parent, its pose there)

    def read(self, link: str, element: ET.Element) -> None:
        kind, name = element.get("type", ""), element.get("name", "")
        if self.scene.body(link) is None and link not in self.frames:
            self.not_read.append(f"{name} ({kind}: link {link!r} is no link of the robot)")
            return
        pose = _sdf_pose(element.findtext("pose"))
        rate = _float(element.findtext("update_rate"))
        if kind == "camera":
            self.read_camera(link, name, pose, rate, element.find("camera"))
            return
        if kind not in READ_KINDS or kind in ("ray", "gpu_ray") and _beams(element) != 1:
            self.not_read.append(f"{name} ({kind})")
            return
        if kind in ("ray", "gpu_ray"):
            pose = pose_mul(pose, pose_inverse(Pose(rot=RAY_IN_SITE)))
        site = self.site(link, pose, name)
        for mujoco_kind in self.kinds(kind, name):
            sensor_name = f"{name}_{mujoco_kind}" if kind in ("imu", "force_torque") else name
            sensor = Sensor(sensor_name, mujoco_kind, target=site, target_kind="site",
                            noise=_stddev(element, mujoco_kind), update_rate=rate)
            if mujoco_kind == "rangefinder":
                sensor.cutoff = _float(element.findtext("ray/range/max"))
                sensor.noise = _float(element.findtext("ray/noise/stddev"))
                sensor.settings["intprm"] = RANGEFINDER_DISTANCE
            self.scene.sensors.append(sensor)

    def read_control_only(self, name: str, element: ET.Element) -> None:
        """A ros2_control sensor without a Gazebo tag: an IMU or force-torque sensor by its interfaces."""
        frame = next((p for p in element.findall("param") if p.get("name") == "frame_id"), None)
        link = (frame.text or "").strip() if frame is not None else ""
        said = _interface_kinds(element)
        kind = "imu" if said & set(IMU_KINDS) else "force_torque" if said & set(FORCE_TORQUE_KINDS) else None
        if kind is None or self.scene.body(link) is None and link not in self.frames:
            self.not_read.append(f"{name} (ros2_control: no IMU or force-torque interfaces at a link "
                                 "of the robot)")
            return
        site = self.site(link, Pose(), name)
        for mujoco_kind in self.kinds(kind, name):
            self.scene.sensors.append(Sensor(f"{name}_{mujoco_kind}", mujoco_kind, site, "site"))

    def kinds(self, kind: str, name: str) -> tuple[str, ...]:
        """What a ros2_control sensor of that name says it reads, else all of the Gazebo type's."""
        control = self.control.get(name)
        given = READ_KINDS[kind]
        if control is None or kind not in ("imu", "force_torque"):
            return given
        said = _interface_kinds(control)
        order = ("framequat", "gyro", "accelerometer") if kind == "imu" else FORCE_TORQUE_KINDS
        return tuple(k for k in order if k in said) or given

    def frame(self, link: str) -> tuple[str, Pose]:
        """The body a sensor's link is on and the link's pose there. A frame link (massless, no
        geometry, on one fixed joint, no child) leaves the bodies: what it stood for is a site or a
        camera on its parent now."""
        if link in self.frames:
            return self.frames[link]
        scene = self.scene
        if not self.is_frame_link(link):
            return link, Pose()
        joint = next(j for j in scene.joints if j.body1 == link)
        body, parent = scene.body(link), scene.body(joint.body0)
        self.frames[link] = joint.body0, pose_mul(pose_inverse(parent.pose), body.pose)
        scene.joints.remove(joint)
        scene.bodies.remove(body)
        return self.frames[link]

    def is_frame_link(self, link: str) -> bool:
        scene = self.scene
        mass = scene.body(link).mass
        massless = mass is None or mass.mass <= 0.0 and not any(mass.diagonal_inertia)
        into = [j for j in scene.joints if j.body1 == link]
        return (massless and not scene.shapes_of(link) and not scene.visuals_of(link)
                and not any(j.body0 == link for j in scene.joints) and len(into) == 1
                and into[0].type == JointType.FIXED and scene.body(into[0].body0) is not None
                and not any(s.body == link for s in scene.sites)
                and not any(c.body == link for c in scene.cameras))

    def site(self, link: str, pose: Pose, sensor: str) -> str:
        """The site at ``pose`` in ``link``; one is made where none is: named as the link where it is the
        link's frame."""
        body, at = self.frame(link)
        at = pose_mul(at, pose)
        for site in self.scene.sites:
            if site.body == body and _close(site.pose, at):
                return site.name
        taken = {s.name for s in self.scene.sites}
        own_frame = _close(pose, Pose()) and (link in self.frames or body == link)
        name = unique_name(link if own_frame and link not in taken else f"{sensor}_site", taken)
        self.scene.sites.append(Site(name, body, at))
        return name

    def read_camera(self, link: str, name: str, pose: Pose, rate: float,
                    element: Optional[ET.Element]) -> None:
        """A camera where its link (which looks down +X: ROS's body convention) is, its links named."""
        given = element.findtext("optical_frame_id") if element is not None else None
        optical = given or link + OPTICAL_SUFFIX
        if optical != link and self.scene.body(optical) is not None and self.is_frame_link(optical):
            self.frame(optical)  # ROS's optical frame: the camera says it
        body, at = self.frame(link)
        camera = Camera(name, body, camera_from_ros_body(pose_mul(at, pose)), update_rate=rate)
        kept = optical in self.frames or self.scene.body(optical) is not None
        camera.ros_frames = (link, optical) if kept else (link,)
        if element is not None:
            width = int(_float(element.findtext("image/width"), 320))
            height = int(_float(element.findtext("image/height"), 240))
            hfov = _float(element.findtext("horizontal_fov"), 1.047)  # Gazebo's defaults
            camera.resolution = (width, height)
            camera.fovy = 2.0 * math.atan(math.tan(hfov / 2.0) * height / width)
            camera.clip_start = _float(element.findtext("clip/near"), camera.clip_start)
            camera.clip_end = _float(element.findtext("clip/far"), camera.clip_end)
        self.scene.cameras.append(camera)


def _interface_kinds(control: ET.Element) -> set:
    """The MuJoCo kinds a ros2_control sensor's state interfaces name (``angular_velocity.x``: gyro)."""
    names = [i.get("name", "") for i in control.findall("state_interface")]
    return {KIND_OF_INTERFACE.get(name.split(".")[0]) for name in names}


def _float(text: Optional[str], default: float = 0.0) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return default


def _sdf_pose(text: Optional[str]) -> Pose:
    """SDF's ``x y z roll pitch yaw`` (URDF's fixed-axis rpy)."""
    values = [_float(v) for v in (text or "").split()][:6]
    if len(values) < 6:
        return Pose()
    roll, pitch, yaw = values[3:]
    cr, sr, cp, sp, cy, sy = (math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch),
                              math.cos(yaw), math.sin(yaw))
    matrix = [[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
              [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
              [-sp, cp * sr, cp * cr]]
    return Pose(tuple(values[:3]), quat_from_matrix(matrix))


def _stddev(element: ET.Element, kind: str) -> float:
    if kind not in GAZEBO_NOISE:
        return 0.0
    block, vector = GAZEBO_NOISE[kind]
    return _float(element.findtext(f"{block}/{vector}/x/noise/stddev"))


def _beams(element: ET.Element) -> int:
    samples = int(_float(element.findtext("ray/scan/horizontal/samples"), 1))
    vertical = int(_float(element.findtext("ray/scan/vertical/samples"), 1))
    return samples * vertical


def _close(a: Pose, b: Pose) -> bool:
    return poses_close(a, b, 1e-9, 1e-12)
