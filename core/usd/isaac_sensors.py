"""Sensors in the form Isaac Sim reads: the typed prims of its sensor schema (``isaacsim.robot.schema``'s
``sensor_schema``), written beside the ``mjc:`` sensors of :mod:`.mujoco_model`.

- A site read by an accelerometer or gyro (an IMU): one ``IsaacImuSensor`` under the site's body at
  the site's pose, named ``<site>_imu``.
- A site read by a touch sensor: one ``IsaacContactSensor`` there, named ``<site>_contact``, with
  ``radius`` the radius of a sphere holding the site.
- ``sensorPeriod`` is 1 / the sensor's ``update_rate`` where that is set (else the schema's default).
- ``mjc:sensor:names`` lists the Articula sensors a prim stands for: where those come from the ``mjc:``
  prims, the reader takes them from there (and only their update rate from here). A prim without
  them (a robot from Isaac Sim) is read as a sphere site with an accelerometer, a gyro and a framequat
  (IMU) or a touch sensor (contact).

The schema is registered neither in usd-core nor in Blender's USD: the type names are authored with
Sdf and attributes with the schema's own types (float ``sensorPeriod`` and ``radius``).
"""

from __future__ import annotations

import math
from typing import Optional

from pxr import Usd, UsdGeom, Vt

from ..model import Pose, Sensor, Site, SiteKind
from .gf_poses import pose_of
from .sdf_authoring import T, set_pose

IMU_TYPE, CONTACT_TYPE = "IsaacImuSensor", "IsaacContactSensor"
ISAAC_SENSOR_TYPES = (IMU_TYPE, CONTACT_TYPE)
NAMES_ATTR = "mjc:sensor:names"
PERIOD_ATTR, RADIUS_ATTR = "sensorPeriod", "radius"
IMU_KINDS = ("accelerometer", "gyro")
#: What an Isaac IMU gives, as MuJoCo sensors (name suffix, kind).
IMU_READINGS = (("accelerometer", "accelerometer"), ("gyro", "gyro"), ("orientation", "framequat"))
_SUFFIX = {IMU_TYPE: "imu", CONTACT_TYPE: "contact"}


# -- export
def sensor_groups(scene) -> dict[tuple[str, str], list[Sensor]]:
    """(Isaac type, site name) -> the sensors one Isaac prim stands for: an IMU's accelerometers and
    gyros (and a world framequat of the same site), a contact sensor's touch sensors."""
    sites = {site.name for site in scene.sites}
    groups: dict[tuple[str, str], list[Sensor]] = {}
    on_site = [s for s in scene.sensors if s.target_kind == "site" and s.target in sites]
    for sensor in on_site:
        if sensor.kind in IMU_KINDS:
            groups.setdefault((IMU_TYPE, sensor.target), []).append(sensor)
        elif sensor.kind == "touch":
            groups.setdefault((CONTACT_TYPE, sensor.target), []).append(sensor)
    for sensor in on_site:
        if sensor.kind == "framequat" and sensor.reference is None and (IMU_TYPE, sensor.target) in groups:
            groups[(IMU_TYPE, sensor.target)].append(sensor)
    return groups


def write_isaac_sensors(model_writer) -> None:
    """The Isaac sensor prims of the scene's IMUs and touch sensors (``model_writer``: mujoco_model's
    writer, its sites written)."""
    sites = {site.name: site for site in model_writer.scene.sites}
    for (type_name, site_name), sensors in sensor_groups(model_writer.scene).items():
        _write_prim(model_writer, type_name, sites[site_name], sensors)


def _write_prim(mw, type_name: str, site: Site, sensors: list[Sensor]) -> None:
    name = f"{site.name}_{_SUFFIX[type_name]}"
    path = mw._named_path(mw._parent(site.body), name)
    prim = mw.w.prim(path, type_name, name)
    set_pose(prim, mw._pose_at(path, site.body, site.pose))
    rate = max((s.update_rate for s in sensors), default=0.0)
    if rate > 0.0:
        prim.set(PERIOD_ATTR, T.Float, 1.0 / rate)
    if type_name == CONTACT_TYPE:
        prim.set(RADIUS_ATTR, T.Float, bounding_radius(site))
    prim.set(NAMES_ATTR, T.StringArray, Vt.StringArray([s.name for s in sensors]), custom=True, uniform=True)
    prim.done()


def bounding_radius(site: Site) -> float:
    """The radius of the smallest sphere about the site's origin that holds it."""
    r, half, z = site.size
    if site.kind == SiteKind.SPHERE:
        return float(r)
    if site.kind == SiteKind.CAPSULE:
        return float(r + half)
    if site.kind == SiteKind.CYLINDER:
        return math.hypot(r, half)
    if site.kind == SiteKind.BOX:
        return math.sqrt(r * r + half * half + z * z)
    return float(max(site.size))  # ellipsoid


# -- import
def read_isaac_sensors(model_reader, prims: list[Usd.Prim]) -> None:
    """After the ``mjc:`` sensors: each Isaac sensor prim whose listed sensors were read gives them
    only its update rate; any other is read as a site with its sensors."""
    r, scene = model_reader.r, model_reader.scene
    read = {sensor.name: sensor for sensor in scene.sensors}
    for prim in prims:
        rate = _rate(r, prim)
        listed = [read[name] for name in _listed(prim) if name in read]
        for sensor in listed:
            sensor.update_rate = sensor.update_rate or rate
        if not listed:
            _read_as_site(model_reader, prim, rate)


def _listed(prim: Usd.Prim) -> list[str]:
    attr = prim.GetAttribute(NAMES_ATTR)
    return list(attr.Get() or []) if attr and attr.HasAuthoredValue() else []


def _rate(r, prim: Usd.Prim) -> float:
    period = r.value(prim, PERIOD_ATTR, default=0.0)
    if not period > 0.0:
        return 0.0
    return 1.0 / period


def _read_as_site(model_reader, prim: Usd.Prim, rate: float) -> None:
    r = model_reader.r
    body = r._owner_body(prim)
    site = Site(name=r.unique_name("site", prim), body=body.name if body else None,
                pose=_pose_on_body(r, prim, body))
    if prim.GetTypeName() == CONTACT_TYPE:
        radius = r.value(prim, RADIUS_ATTR, default=-1.0)
        if radius > 0.0:
            site.size = (radius, 0.005, 0.005)
        else:
            r.warn(prim, "a contact sensor without a radius senses its whole body in Isaac Sim; "
                         f"read as a touch sensor on a site of radius {site.size[0]}")
        readings = (("touch", "touch"),)
    else:
        readings = IMU_READINGS
    model_reader.scene.sites.append(site)
    model_reader.site_paths[prim.GetPath()] = site.name
    model_reader.site_bodies[site.name] = site.body
    for suffix, kind in readings:
        name = _unique_name(r, "sensor", f"{site.name}_{suffix}", prim)
        model_reader.scene.sensors.append(Sensor(name=name, kind=kind, target=site.name, target_kind="site",
                                                 update_rate=rate))


def _pose_on_body(r, prim: Usd.Prim, body) -> Pose:
    """The prim's pose in its body's frame (world frame without one). USD's transform cache leaves
    out the xformOps of a prim whose type it does not know: its own ops are read here."""
    matrix = UsdGeom.Xformable(prim).GetLocalTransformation() * r.world_matrix(prim.GetParent())
    if body is not None:
        matrix = matrix * r._inverse_pose_matrix(body)
    return pose_of(matrix)


def _unique_name(r, kind: str, name: str, prim: Usd.Prim) -> str:
    """``name``, numbered where the reader has given it already; its prim recorded as the reader does."""
    taken = r.used_names.setdefault(kind, set())
    candidate, n = name, 1
    while candidate in taken:
        candidate, n = f"{name}_{n}", n + 1
    taken.add(candidate)
    r.paths[f"{kind}:{candidate}"] = str(prim.GetPath())
    return candidate


__all__ = ["ISAAC_SENSOR_TYPES", "read_isaac_sensors", "sensor_groups", "write_isaac_sensors"]
