"""Newton's MuJoCo conversion (``mujoco_direct=False``: MuJoCo Warp's path on a GPU, MuJoCo's C library
here) gives each geom the collider's own MuJoCo contact settings, as the MJCF export does: margin, gap,
condim, priority, solref, solimp, solmix and friction. Before, every geom got Newton's 0.1 m detection gap
(MuJoCo then rested a box 1.5 mm deeper into a terrain than the export did; the file's integrator and
multi-point contacts were Newton's defaults too) and the solref Newton derives
from its own contact stiffness, whatever the file said."""

import mujoco
import numpy as np
import pytest

from articula.sim.simulation import Simulation

FLAT_GRID = " ".join(["0"] * 25)
HFIELD = f'<hfield name="flat" nrow="5" ncol="5" size="1 1 0.1 0.05" elevation="{FLAT_GRID}"/>'
# A 1 kg box on a flat terrain, on MuJoCo's default contacts.
BOX = f"""
<mujoco model="box_on_terrain">
  <asset>{HFIELD}</asset>
  <worldbody>
    <geom name="terrain" type="hfield" hfield="flat"/>
    <body name="box" pos="0.05 0.05 0.052"><freejoint/>
      <geom name="box" type="box" size="0.05 0.05 0.05" density="1000"/></body>
  </worldbody>
</mujoco>
"""
# Balls on contacts of their own: soft (solref, solimp, condim, priority, friction) and with a 5 mm margin.
# (Newton zeroes every geom's margin in a model with a box, for MuJoCo Warp's native CCD: not here.)
BALLS = f"""
<mujoco model="balls_on_terrain">
  <asset>{HFIELD}</asset>
  <worldbody>
    <geom name="terrain" type="hfield" hfield="flat"/>
    <body name="soft_ball" pos="0.5 0.5 0.06"><freejoint/>
      <geom name="soft_ball" type="sphere" size="0.05" density="1000" solref="0.08 0.7"
            solimp="0.5 0.9 0.01 0.5 2" condim="4" priority="1" friction="0.7 0.01 0.001"
            solmix="0.5"/></body>
    <body name="ball" pos="-0.5 -0.5 0.06"><freejoint/>
      <geom name="ball" type="sphere" size="0.05" density="1000" margin="0.005"/></body>
  </worldbody>
</mujoco>
"""
#: How far (m) a body may rest from where MuJoCo on the MJCF export rests it.
DEPTH_BAND = 0.0007


def _rest(scene, direct: bool):
    """How high each body rests on MuJoCo, the MJCF export (direct) or Newton's conversion: the median of
    its height over 0.5-3 s (MuJoCo keeps a box on a height field rocking a few degrees, 3 mm up and
    down, on the export as on the original file), and the simulation."""
    sim = Simulation(scene, device="cpu", solver="MUJOCO", mujoco_direct=direct)
    sim.advance(0.5)
    heights = []
    for _ in range(50):
        sim.advance(0.05)
        heights.append([pose[2] for pose in sim.body_poses()])
    medians = np.median(np.array(heights, dtype=float), axis=0)
    return {name: height for (name, _), height in zip(sim.body_keys, medians)}, sim


@pytest.mark.parametrize("text", [BOX, BALLS], ids=["box", "balls"])
def test_the_conversion_rests_bodies_where_the_mjcf_export_does(mjcf_text, text):
    scene, _ = mjcf_text(text, "on_terrain.xml")
    reference, _ = _rest(scene, direct=True)
    converted, _ = _rest(scene, direct=False)
    if text is BALLS:  # the soft ball sinks well into the terrain, the other floats on its margin
        assert reference["soft_ball"] < 0.05 - 0.0015 and reference["ball"] > 0.05 + 0.004
    for name in reference:
        assert converted[name] == pytest.approx(reference[name], abs=DEPTH_BAND), name


@pytest.mark.parametrize("text", [BOX, BALLS], ids=["box", "balls"])
def test_the_conversion_gives_each_geom_the_files_contact_settings(mjcf_text, text):
    scene, path = mjcf_text(text, "on_terrain.xml")
    original = mujoco.MjModel.from_xml_path(path)
    _, sim = _rest(scene, direct=False)
    converted = sim.solver.mj_model
    for name in [original.geom(g).name for g in range(original.ngeom)]:
        mine = next(g for g in range(converted.ngeom) if converted.geom(g).name.startswith(name + "_")
                    or converted.geom(g).name == name)
        theirs = original.geom(name).id
        for field in ("geom_margin", "geom_gap", "geom_solref", "geom_solimp", "geom_condim", "geom_priority",
                      "geom_solmix", "geom_friction"):
            np.testing.assert_allclose(getattr(converted, field)[mine], getattr(original, field)[theirs],
                                       rtol=1e-6, atol=1e-7, err_msg=f"{name}: {field}")
