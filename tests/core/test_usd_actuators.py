"""MuJoCo actuators, fixed tendons and mimic joints through USD (issue 16), checked with Newton 1.8's
own reading of the files (``SolverMuJoCo.register_custom_attributes`` + ``add_usd``)."""

from __future__ import annotations

import os
import warnings

import pytest

newton = pytest.importorskip("newton")
pytest.importorskip("newton_usd_schemas")

from .robot_models import actuator_rows, coupling_rows, load_usd_mujoco, row_differences, tendon_rows  # noqa: E402

FIXTURE_XML = os.path.join(os.path.dirname(__file__), "..", "data", "arm_gripper.xml")
CONVERTED = os.path.expanduser("~/.cache/articula/corpus/articula_arm_gripper/arm_gripper.usda")
needs_converted = pytest.mark.skipif(not os.path.exists(CONVERTED), reason="run `make corpus` first")


def newton_mjcf_model(path):
    from newton.solvers import SolverMuJoCo

    builder = newton.ModelBuilder()
    SolverMuJoCo.register_custom_attributes(builder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder.add_mjcf(path)
    return builder.finalize(device="cpu")


@needs_converted
def test_rows_of_the_converted_fixture_match_newtons_mjcf_reading():
    """The comparison helpers see the same motors, tendon and coupling in the converter's USD as in
    Newton's own reading of the MJCF (so they can be used to compare our exports)."""
    usd, mjcf = load_usd_mujoco(CONVERTED), newton_mjcf_model(FIXTURE_XML)
    rows = actuator_rows(usd)
    assert [r["target"] for r in rows] == ["joint forearm dof 0", "joint shoulder dof 0", "joint upper_arm dof 0",
                                             "tendon grip"]
    assert rows[0]["gainprm"][0] == 300.0 and rows[0]["force_limits"] == (-80.0, 80.0)
    assert row_differences(rows, actuator_rows(mjcf)) == []
    assert tendon_rows(usd) == tendon_rows(mjcf) and len(tendon_rows(usd)) == 1
    assert coupling_rows(usd), "the fixture's finger coupling"
