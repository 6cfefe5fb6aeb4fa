"""Sensors made outside a file (in Blender, by a script) carry no MJCF settings: the writer gives them
what MJCF's parser would, so MuJoCo compiles them."""

import pytest

pytest.importorskip("mujoco")

from articula.core import samples  # noqa: E402
from articula.core.mjcf.writer import build_spec  # noqa: E402
from articula.core.model import Sensor, Site  # noqa: E402


def test_a_rangefinder_made_without_settings_measures_distance():
    scene = samples.pendulum()
    scene.sites.append(Site("eye", scene.bodies[0].name))
    scene.sensors.append(Sensor("range", "rangefinder", target="eye", target_kind="site"))
    model = build_spec(scene).model
    assert model.nsensor == 1 and list(model.sensor_intprm[0][:3]) == [1, 0, 0]
