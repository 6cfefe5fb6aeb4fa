"""Whatever imports, bakes (real Blender, 4.5 and 5.2): a body whose inertia sits on or off the triangle
inequality (a plate, principal axes tilted) bakes on MuJoCo, balanced with one note naming it where
MuJoCo's compiler would refuse it ("use 'balanceinertia'"); a URDF inertia MuJoCo reads as not positive imports repaired."""

import sys
from pathlib import Path

import bpy
import numpy as np
import pytest

from articula.addon.adapters import simulation_to_keyframes as bake_module
from articula.addon.adapters.blender_to_description import scene_from_blender
from articula.addon.adapters.description_to_blender import build_scene
from articula.core import samples
from articula.core.model import MassProperties
from articula.core.transforms import quat_from_axis_angle

sys.path.insert(0, str(Path(__file__).parent))
from authoring_helpers import reset_scene_settings  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_scene_settings(clean_scene, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder
    reset_scene_settings(clean_scene)
    clean_scene.render.fps, clean_scene.render.fps_base = 24, 1.0
    yield


@pytest.mark.parametrize("moments, balanced", [((0.3e-3, 0.7e-3, 1.0e-3), False),  # on it: MuJoCo takes it
                                                  ((0.3e-3, 0.6e-3, 1.0e-3), True)])  # off it: balanced
def test_an_inertia_on_or_off_the_triangle_inequality_bakes_on_mujoco(moments, balanced):
    """MuJoCo simulates the MJCF export's model: an inertia on the triangle inequality compiles as written;
    one off it is written balanced, as MuJoCo's balanceinertia does, with one note naming the body."""
    desc = samples.pendulum()
    tilted = quat_from_axis_angle(tuple(np.array([1.0, 2.0, 3.0]) / np.sqrt(14.0)), 0.7)
    desc.bodies[0].mass = MassProperties(mass=1.0, diagonal_inertia=moments, principal_axes=tilted)
    build_scene(bpy.context, desc)
    assert scene_from_blender(bpy.context.scene).body("pendulum_link").mass.diagonal_inertia == pytest.approx(
        moments), "Blender keeps the inertia as authored"
    session, _ = bake_module.bake(bpy.context, 1, 12, "MUJOCO", substeps=10)
    assert np.isfinite(session.sim.body_poses()).all()
    notes = [n for n in session.sim.notes if "A + B >= C" in n]
    assert len(notes) == int(balanced) and all("pendulum_link" in n for n in notes)


def test_a_urdf_inertia_mujoco_reads_as_not_positive_imports_repaired(tmp_path, capfd):
    """MuJoCo's "inertia must have positive eigenvalues" refused the whole file; urdfdom, pybullet and
    Newton load it. It comes in repaired, the repair reported as a warning."""
    path = tmp_path / "sensor.urdf"
    path.write_text("""<robot name="bot">
  <link name="base"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>
    </inertial></link>
  <link name="sensor"><inertial><mass value="0.001"/><inertia ixx="1e-16" iyy="1e-16" izz="1e-16" ixy="0" ixz="0"
    iyz="0"/></inertial></link>
  <joint name="j" type="revolute"><parent link="base"/><child link="sensor"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="5" velocity="2"/></joint>
</robot>""")
    capfd.readouterr()
    assert bpy.ops.articula.import_urdf(filepath=str(path)) == {"FINISHED"}
    assert "Warning: sensor.urdf: repaired: link sensor: inertia not positive definite" in capfd.readouterr().out
    assert min(scene_from_blender(bpy.context.scene).body("sensor").mass.diagonal_inertia) >= 1e-6
