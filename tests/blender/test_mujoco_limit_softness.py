"""MuJoCo's joint limit softness (solreflimit, solimplimit), spring rest (springref) and a tendon's
friction and spring length (frictionloss, springlength) in Blender: as properties, through the
adapters both ways, drawn in the panels, and through File > Import / Export MJCF."""

import math
import os
import sys
from pathlib import Path

import bpy
import pytest

from articula.addon.adapters.blender_to_description import scene_from_blender
from articula.addon.adapters.description_to_blender import build_scene
from articula.core.model import DEFAULT_SOLIMP, DEFAULT_SOLREF, FixedTendon, TendonJoint

mujoco = pytest.importorskip("mujoco")

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "core"))
from authoring_helpers import FLOAT32_TOL, reset_scene_settings  # noqa: E402
from mjcf_compare import ATOL, RTOL  # noqa: E402  (to_xml writes 6 significant digits)
from robot_files import mujoco_robot  # noqa: E402
from test_mujoco_objects import mujoco_finger  # noqa: E402
from test_panels_draw import assert_clean_output, draw_panel, drawn_props  # noqa: E402
from articula.panels import mujoco as mujoco_panels, physics  # noqa: E402

#: Two hinges, one with a soft limit and a spring resting off its zero, the other with a limit in
#: MuJoCo's stiffness/damping form; a fixed tendon and a spatial tendon with friction and a spring length.
SOFT_LIMITS_XML = """<mujoco model="soft_limits">
  <worldbody>
    <body name="upper_arm" pos="0 0 1">
      <joint name="shoulder" type="hinge" axis="0 1 0" range="-60 60" solreflimit="0.005 1"
             solimplimit="0 0.99 0.01" springref="20" stiffness="3"/>
      <geom name="upper_geom" type="capsule" size="0.04" fromto="0 0 0 0 0 -0.3"/>
      <site name="shoulder_site" pos="0.05 0 -0.05"/>
      <body name="forearm" pos="0 0 -0.3">
        <joint name="elbow" type="hinge" axis="0 1 0" range="-90 0" solreflimit="-500 -10"
               solimplimit="0.8 0.9 0.002 0.4 3" springref="-30" stiffness="1.5"/>
        <geom name="forearm_geom" type="capsule" size="0.035" fromto="0 0 0 0 0 -0.25"/>
        <site name="wrist_site" pos="0.05 0 -0.2"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="coupling" frictionloss="0.3" springlength="0.1 0.2" stiffness="5">
      <joint joint="shoulder" coef="1"/>
      <joint joint="elbow" coef="-0.5"/>
    </fixed>
    <spatial name="string" frictionloss="0.2" springlength="0.25" stiffness="2">
      <site site="shoulder_site"/>
      <site site="wrist_site"/>
    </spatial>
  </tendon>
</mujoco>
"""

HINGE_OR_SLIDE = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


@pytest.fixture
def soft_limits_file(tmp_path, clean_scene):
    reset_scene_settings(clean_scene)
    path = tmp_path / "soft_limits.xml"
    path.write_text(SOFT_LIMITS_XML)
    return str(path)


def import_mjcf(path: str):
    assert bpy.ops.articula.import_mjcf(filepath=path) == {"FINISHED"}
    return mujoco.MjModel.from_xml_path(path)


def export_mjcf(tmp_path):
    out = str(tmp_path / "exported.xml")
    assert bpy.ops.articula.export_mjcf(filepath=out) == {"FINISHED"}
    return mujoco.MjModel.from_xml_path(out)


def joint_object(name: str):
    return next(o for o in bpy.data.objects
                if o.articula.joint.enabled and name in (o.name, o.articula.file_name))


def by_name(props, name: str):
    return next(item for item in props if item.name == name)


def limit_softness_differences(original, exported) -> list[str]:
    """Where two compiled models differ, by joint and tendon name, in limit softness, spring rest and
    tendon friction and spring length."""
    found = []

    def compare(what, a, b):
        if not (a.shape == b.shape and (abs(a - b) <= ATOL + RTOL * abs(b)).all()):
            found.append(f"{what}: {a.tolist()} != {b.tolist()}")

    for j in range(original.njnt):
        if int(original.jnt_type[j]) not in HINGE_OR_SLIDE:
            continue  # a free or ball joint's spring rest is its start pose, not a springref
        name = original.joint(j).name
        other = exported.joint(name).id
        compare(f"{name} jnt_solref", original.jnt_solref[j], exported.jnt_solref[other])
        compare(f"{name} jnt_solimp", original.jnt_solimp[j], exported.jnt_solimp[other])
        compare(f"{name} qpos_spring", original.qpos_spring[original.jnt_qposadr[j]],
                exported.qpos_spring[exported.jnt_qposadr[other]])
    for t in range(original.ntendon):
        name = original.tendon(t).name
        other = exported.tendon(name).id
        compare(f"{name} tendon_frictionloss", original.tendon_frictionloss[t:t + 1],
                exported.tendon_frictionloss[other:other + 1])
        compare(f"{name} tendon_lengthspring", original.tendon_lengthspring[t],
                exported.tendon_lengthspring[other])
    return found


# --- the adapters, without a file ----------------------------------------------------------------

def soft_finger():
    """mujoco_finger with soft limits, spring rests off zero, and tendons with friction and springs."""
    desc = mujoco_finger()
    first, second = desc.joints[1].dofs[0], desc.joints[2].dofs[0]
    first.limit_solref, first.limit_solimp = (0.005, 1.0), (0.0, 0.99, 0.01, 0.5, 2.0)
    first.spring_stiffness, first.spring_reference = 3.0, 0.3
    second.limit_solref, second.limit_solimp = (-500.0, -10.0), (0.8, 0.9, 0.002, 0.4, 3.0)
    second.spring_reference = -0.7
    desc.tendons = [FixedTendon("coupling", [TendonJoint(desc.joints[1].name, 1.0),
                                             TendonJoint(desc.joints[2].name, -0.5)],
                                stiffness=5.0, frictionloss=0.3, spring_length=(0.1, 0.2)),
                    FixedTendon("loose", [TendonJoint(desc.joints[2].name, 1.0)])]
    string = desc.spatial_tendons[0]
    string.frictionloss, string.spring_length = 0.2, (0.25, 0.25)
    return desc


def test_the_fields_go_to_blender_and_come_back(clean_scene):
    desc = soft_finger()
    build_scene(bpy.context, desc)
    back = scene_from_blender(bpy.context.scene)
    for joint in desc.joints[1:3]:
        dof, dof_back = joint.dofs[0], back.joint(joint.name).dofs[0]
        assert dof_back.limit_solref == dof.limit_solref  # decimals that float32 holds come back exactly
        assert dof_back.limit_solimp == dof.limit_solimp
        assert dof_back.spring_reference == pytest.approx(dof.spring_reference, rel=FLOAT32_TOL)
    tendons = {t.name: t for t in back.tendons}
    assert tendons["coupling"].frictionloss == pytest.approx(0.3, rel=FLOAT32_TOL)
    assert tendons["coupling"].spring_length == pytest.approx((0.1, 0.2), rel=FLOAT32_TOL)
    assert tendons["loose"].frictionloss == 0.0 and tendons["loose"].spring_length is None
    string = back.spatial_tendons[0]
    assert string.frictionloss == pytest.approx(0.2, rel=FLOAT32_TOL)
    assert string.spring_length == pytest.approx((0.25, 0.25), rel=FLOAT32_TOL)


def test_mujoco_defaults_come_back_as_the_defaults(clean_scene):
    """Float32 storage leaves MuJoCo's default solref and solimp (0.02, 0.9...) exactly what they
    were, so a writer that leaves defaults out sees them as defaults."""
    desc = soft_finger()
    build_scene(bpy.context, desc)
    back = scene_from_blender(bpy.context.scene)
    untouched = back.joint(desc.joints[3].name).dofs[0]
    assert untouched.limit_solref == DEFAULT_SOLREF and untouched.limit_solimp == DEFAULT_SOLIMP
    assert untouched.spring_reference == 0.0


def test_the_blender_properties_hold_the_description(clean_scene):
    desc = soft_finger()
    build_scene(bpy.context, desc)
    dof = joint_object(desc.joints[2].name).articula.joint.dofs[0]
    assert tuple(dof.limit_solref) == (-500.0, -10.0)
    assert dof.spring_reference_angle == pytest.approx(-0.7, rel=FLOAT32_TOL)  # radians: the angle view
    loose = by_name(clean_scene.articula.tendons, "loose")
    assert tuple(loose.spring_length) == (-1.0, -1.0)  # None: the length at the start, MuJoCo's -1


def test_the_panels_draw_the_new_rows(clean_scene, capfd):
    desc = soft_finger()
    build_scene(bpy.context, desc)
    joint = joint_object(desc.joints[1].name)
    joint.articula.joint.dofs[0].motion = "LIMITED"
    _, log = draw_panel(physics.ARTICULA_PT_joint, joint)
    assert {"limit_solref", "limit_solimp", "spring_reference_angle"} <= drawn_props(log, "ArticulaDofProps")
    _, log = draw_panel(physics.ARTICULA_PT_tendons, joint)
    assert {"frictionloss", "spring_length"} <= drawn_props(log, "ArticulaTendonProps")
    _, log = draw_panel(mujoco_panels.ARTICULA_PT_spatial_tendons, joint)
    assert {"frictionloss", "spring_length"} <= drawn_props(log, "ArticulaSpatialTendonProps")
    assert_clean_output(capfd)


# --- through the import and export operators ---------------------------------------------------

def test_an_imported_robot_holds_the_files_values(soft_limits_file):
    import_mjcf(soft_limits_file)
    shoulder = joint_object("shoulder").articula.joint.dofs[0]
    elbow = joint_object("elbow").articula.joint.dofs[0]
    assert tuple(shoulder.limit_solref) == pytest.approx((0.005, 1.0), rel=FLOAT32_TOL)
    assert tuple(shoulder.limit_solimp) == pytest.approx((0.0, 0.99, 0.01, 0.5, 2.0), rel=FLOAT32_TOL)
    assert shoulder.spring_reference == pytest.approx(math.radians(20.0), rel=FLOAT32_TOL)
    assert tuple(elbow.limit_solref) == (-500.0, -10.0)
    assert elbow.spring_reference == pytest.approx(math.radians(-30.0), rel=FLOAT32_TOL)
    props = bpy.context.scene.articula
    coupling = by_name(props.tendons, "coupling")
    assert coupling.frictionloss == pytest.approx(0.3, rel=FLOAT32_TOL)
    assert tuple(coupling.spring_length) == pytest.approx((0.1, 0.2), rel=FLOAT32_TOL)
    string = by_name(props.spatial_tendons, "string")
    assert string.frictionloss == pytest.approx(0.2, rel=FLOAT32_TOL)
    assert tuple(string.spring_length) == pytest.approx((0.25, 0.25), rel=FLOAT32_TOL)


def test_import_then_export_keeps_limit_softness_springs_and_tendon_friction(soft_limits_file, tmp_path):
    original = import_mjcf(soft_limits_file)
    assert limit_softness_differences(original, export_mjcf(tmp_path)) == []


def test_edits_in_blender_show_in_the_export(soft_limits_file, tmp_path):
    import_mjcf(soft_limits_file)
    shoulder = joint_object("shoulder").articula.joint.dofs[0]
    shoulder.limit_solref, shoulder.spring_reference = (0.01, 0.5), 0.125
    by_name(bpy.context.scene.articula.tendons, "coupling").spring_length = (-1.0, -1.0)
    model = export_mjcf(tmp_path)
    joint = model.joint("shoulder")
    assert tuple(joint.solref) == pytest.approx((0.01, 0.5), rel=RTOL)
    assert model.qpos_spring[joint.qposadr[0]] == pytest.approx(0.125, rel=RTOL)
    # -1, -1: MuJoCo rests the spring at the tendon's length where the joints' springs rest
    elbow_rest = model.qpos_spring[model.joint("elbow").qposadr[0]]
    length_at_rest = 0.125 - 0.5 * elbow_rest
    coupling = model.tendon("coupling").id
    assert tuple(model.tendon_lengthspring[coupling]) == pytest.approx((length_at_rest,) * 2, rel=RTOL)


def off_mujoco_defaults(model) -> bool:
    """Whether a joint's limit softness or a tendon's friction is not MuJoCo's default."""
    joints = [j for j in range(model.njnt) if int(model.jnt_type[j]) in HINGE_OR_SLIDE]
    return (any(tuple(model.jnt_solref[j]) != DEFAULT_SOLREF or tuple(model.jnt_solimp[j]) != DEFAULT_SOLIMP
                for j in joints) or bool(model.ntendon and model.tendon_frictionloss.any()))


@pytest.mark.parametrize("name", ["humanoid_CMU", "fetch", "jaco_three_finger_gripper"])
def test_a_real_robot_keeps_its_limit_softness_and_springs(clean_scene, tmp_path, name):
    """dm_control's humanoid (solimplimit "0 .99 .01" on every joint), gymnasium-robotics' Fetch
    (solreflimit, solimplimit, springref) and robosuite's jaco gripper (tendons with frictionloss)."""
    path = mujoco_robot(name)
    reset_scene_settings(clean_scene)
    original = import_mjcf(path)
    assert off_mujoco_defaults(original)
    assert limit_softness_differences(original, export_mjcf(tmp_path)) == []


# --- through Blender's USD export and back --------------------------------------------------------

@pytest.mark.parametrize("layout", ["NESTED", "FLAT"])
def test_usd_export_and_import_keep_limit_softness_springs_and_tendon_friction(clean_scene, tmp_path, layout):
    """NESTED: Blender's exporter and Articula's hook; FLAT: the core writer on the robot read from Blender.
    The file read back, and imported into Blender again, holds what the description held."""
    from articula.core.usd.reader import read_usd

    desc = soft_finger()
    build_scene(bpy.context, desc)
    path = str(tmp_path / "soft_finger.usda")
    assert bpy.ops.articula.export_usd(filepath=path, layout=layout) == {"FINISHED"}
    assert soft_fields(read_usd(path).scene) == pytest.approx(soft_fields(desc), rel=FLOAT32_TOL)
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    reset_scene_settings(clean_scene)  # the tendons on the scene go too
    assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}
    assert soft_fields(scene_from_blender(clean_scene)) == pytest.approx(soft_fields(desc), rel=FLOAT32_TOL)


def soft_fields(desc) -> dict:
    """What this file is about, one number per key, by joint and tendon name (spring length -1, -1:
    the length at the start)."""
    values = {}
    for joint in desc.joints:
        for dof in joint.dofs:
            numbers = (*dof.limit_solref, *dof.limit_solimp, dof.spring_reference)
            values.update({f"{joint.name} {dof.axis.value} {k}": v for k, v in enumerate(numbers)})
    for tendon in (*desc.tendons, *desc.spatial_tendons):
        numbers = (tendon.frictionloss, *(tendon.spring_length or (-1.0, -1.0)))
        values.update({f"{tendon.name} {k}": v for k, v in enumerate(numbers)})
    return values
