"""IMUs and touch sensors as Isaac Sim's sensor prims (core/usd/isaac_sensors.py): written beside the
``mjc:`` sensors with the right parent, pose and period, read back without duplicates, and read as
sites and sensors from a file that has only Isaac sensor prims."""

import math
from pathlib import Path

import pytest
from pxr import Gf, Sdf, Usd, UsdGeom, Vt

from articula.core import samples
from articula.core.model import Pose, Sensor, Site, SiteKind
from articula.core.transforms import poses_close
from articula.core.usd.compare import scene_differences
from articula.core.usd.gf_poses import pose_of
from articula.core.usd.reader import read_usd
from articula.core.usd.writer import build_stage

TILT = (math.cos(0.2), math.sin(0.2), 0.0, 0.0)
SCHEMA = (Path(__file__).resolve().parents[2] / ".venv-nvidia/lib/python3.12/site-packages/usd/schema/isaac"
          / "sensor_schema/generatedSchema.usda")


def _sensed_quadruped():
    scene = samples.quadruped()
    scene.sites += [Site(name="imu", body="torso", pose=Pose(pos=(0.05, 0.0, 0.02), rot=TILT)),
                    Site(name="foot", body="front_left_shin", pose=Pose(pos=(0.0, 0.0, -0.2)),
                         size=(0.02, 0.005, 0.005)),
                    Site(name="pad", body="rear_left_shin", kind=SiteKind.BOX, size=(0.01, 0.02, 0.02))]
    scene.sensors += [Sensor(name="accel", kind="accelerometer", target="imu", target_kind="site",
                             update_rate=200.0),
                      Sensor(name="gyro", kind="gyro", target="imu", target_kind="site", update_rate=200.0),
                      Sensor(name="foot_touch", kind="touch", target="foot", target_kind="site"),
                      Sensor(name="pad_touch", kind="touch", target="pad", target_kind="site",
                             update_rate=50.0),
                      Sensor(name="hip_pos", kind="jointpos", target="front_left_hip", target_kind="joint")]
    return scene


@pytest.fixture(scope="module")
def sensed():
    return _sensed_quadruped()


def _isaac_prims(stage: Usd.Stage) -> dict[str, Usd.Prim]:
    return {p.GetName(): p for p in stage.Traverse() if p.GetTypeName().startswith("Isaac")}


def _local_pose(prim: Usd.Prim) -> Pose:
    return pose_of(UsdGeom.Xformable(prim).GetLocalTransformation())


def test_imu_and_touch_sensors_export_as_isaac_prims_on_their_sites_bodies(sensed):
    stage = build_stage(sensed)
    paths = read_usd(stage).prim_paths
    prims = _isaac_prims(stage)
    assert sorted(prims) == ["foot_contact", "imu_imu", "pad_contact"]
    imu, foot, pad = prims["imu_imu"], prims["foot_contact"], prims["pad_contact"]
    assert imu.GetTypeName() == "IsaacImuSensor" and foot.GetTypeName() == "IsaacContactSensor"
    assert str(imu.GetParent().GetPath()) == paths["body:torso"]
    assert str(foot.GetParent().GetPath()) == paths["body:front_left_shin"]
    assert poses_close(_local_pose(imu), sensed.site("imu").pose)
    assert poses_close(_local_pose(foot), sensed.site("foot").pose)
    assert imu.GetAttribute("sensorPeriod").Get() == pytest.approx(1 / 200.0)
    assert not foot.GetAttribute("sensorPeriod").HasAuthoredValue()  # rate 0: the schema's default
    assert pad.GetAttribute("sensorPeriod").Get() == pytest.approx(1 / 50.0)
    assert foot.GetAttribute("radius").Get() == pytest.approx(0.02)
    assert pad.GetAttribute("radius").Get() == pytest.approx(0.03)  # the box's corner
    assert list(imu.GetAttribute("mjc:sensor:names").Get()) == ["accel", "gyro"]
    assert list(foot.GetAttribute("mjc:sensor:names").Get()) == ["foot_touch"]


@pytest.mark.parametrize("layout", ["NESTED", "FLAT"])
def test_the_isaac_prims_read_back_without_duplicates(sensed, layout):
    back = read_usd(build_stage(sensed, layout)).scene
    assert [d for d in scene_differences(sensed, back) if ".mass: None != " not in d] == []
    assert len(back.sites) == 3 and len(back.sensors) == 5
    assert back.sensor("accel").update_rate == pytest.approx(200.0)  # kept by the Isaac prim alone


def _only_isaac_sensors() -> Usd.Stage:
    """The quadruped without sensors, plus the Isaac sensor prims Isaac Sim would write."""
    stage = build_stage(samples.quadruped())
    torso = read_usd(stage).prim_paths["body:torso"]
    imu = stage.DefinePrim(f"{torso}/Imu_Sensor", "IsaacImuSensor")
    imu.CreateAttribute("xformOp:translate", Sdf.ValueTypeNames.Double3).Set(Gf.Vec3d(0.05, 0.0, 0.02))
    imu.CreateAttribute("xformOp:orient", Sdf.ValueTypeNames.Quatd).Set(Gf.Quatd(*TILT))
    order = Vt.TokenArray(["xformOp:translate", "xformOp:orient"])
    uniform = Sdf.VariabilityUniform
    imu.CreateAttribute("xformOpOrder", Sdf.ValueTypeNames.TokenArray, variability=uniform).Set(order)
    imu.CreateAttribute("sensorPeriod", Sdf.ValueTypeNames.Float).Set(0.005)
    contact = stage.DefinePrim(f"{torso}/Contact_Sensor", "IsaacContactSensor")
    contact.CreateAttribute("xformOp:translate", Sdf.ValueTypeNames.Double3).Set(Gf.Vec3d(0.0, 0.0, -0.1))
    contact.CreateAttribute("xformOpOrder", Sdf.ValueTypeNames.TokenArray,
                            variability=Sdf.VariabilityUniform).Set(Vt.TokenArray(["xformOp:translate"]))
    contact.CreateAttribute("radius", Sdf.ValueTypeNames.Float).Set(0.04)
    return stage


def test_a_file_with_only_isaac_sensor_prims_reads_as_sites_and_sensors():
    scene = read_usd(_only_isaac_sensors()).scene
    imu, pad = scene.site("Imu_Sensor"), scene.site("Contact_Sensor")
    assert imu.body == "torso" and poses_close(imu.pose, Pose(pos=(0.05, 0.0, 0.02), rot=TILT))
    assert pad.body == "torso" and pad.kind == SiteKind.SPHERE and pad.size[0] == pytest.approx(0.04)
    kinds = {(s.target, s.kind) for s in scene.sensors}
    assert kinds == {("Imu_Sensor", "accelerometer"), ("Imu_Sensor", "gyro"), ("Imu_Sensor", "framequat"),
                     ("Contact_Sensor", "touch")}
    assert all(s.target_kind == "site" for s in scene.sensors)
    assert scene.sensor("Imu_Sensor_gyro").update_rate == pytest.approx(200.0)
    assert scene.sensor("Contact_Sensor_touch").update_rate == 0.0
    again = read_usd(build_stage(scene)).scene  # and Articula writes them back in both forms
    assert [d for d in scene_differences(scene, again) if ".mass: None != " not in d] == []


@pytest.mark.skipif(not SCHEMA.exists(), reason="isaacsim-robot-schema (.venv-nvidia) is not installed")
def test_authored_types_and_attributes_are_the_schemas(sensed):
    schema = Sdf.Layer.FindOrOpen(str(SCHEMA))
    layer = build_stage(sensed).GetRootLayer()
    checked = set()
    for prim in _isaac_prims(Usd.Stage.Open(layer)).values():
        spec = layer.GetPrimAtPath(prim.GetPath())
        schema_class = schema.GetPrimAtPath(f"/{spec.typeName}")
        assert schema_class is not None, spec.typeName
        for attr in spec.attributes:
            if attr.custom or attr.name.startswith("xformOp:"):
                continue
            declared = schema_class.attributes.get(attr.name)
            assert declared is not None and declared.typeName == attr.typeName, (spec.typeName, attr.name)
            checked.add(attr.name)
    assert {"sensorPeriod", "radius", "xformOpOrder"} <= checked
