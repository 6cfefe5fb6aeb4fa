"""Composition as real assets use it (payloads, references, sublayers, variant sets, instanceable
prims): the robot reads exactly as from the flat file, and Newton's add_usd agrees with it."""

import pytest

from articula.core import samples
from articula.core.usd.compare import scene_differences
from articula.core.usd.reader import read_usd
from articula.core.usd.writer import write_usd

ROOT = "robotic_finger"

TOP = {
    "reference": f'def Xform "{ROOT}" (prepend references = @robot.usda@) {{}}',
    "payload": f'def Xform "{ROOT}" (prepend payload = @robot.usda@) {{}}',
    "instanceable": f'def Xform "{ROOT}" (\n    instanceable = true\n    prepend references = @robot.usda@\n) {{}}',
    "variant": f'''def Xform "{ROOT}" (
    variants = {{ string model = "finger" }}
    prepend variantSets = "model"
) {{
    variantSet "model" = {{
        "finger" (prepend references = @robot.usda@) {{ }}
        "none" {{ }}
    }}
}}''',
}


def _write(tmp_path, kind: str) -> str:
    write_usd(samples.robotic_finger(), str(tmp_path / "robot.usda"), layout="NESTED")
    if kind == "sublayer":
        # Stage metadata (up axis, units) is the root layer's, never a sublayer's: say it again.
        text = (f'#usda 1.0\n(\n    defaultPrim = "{ROOT}"\n    upAxis = "Z"\n    metersPerUnit = 1\n'
                f'    subLayers = [@robot.usda@]\n)\n')
    else:
        text = f'#usda 1.0\n(\n    defaultPrim = "{ROOT}"\n    upAxis = "Z"\n    metersPerUnit = 1\n)\n\n{TOP[kind]}\n'
    path = tmp_path / f"top_{kind}.usda"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("kind", ["reference", "payload", "sublayer", "variant", "instanceable"])
def test_composed_robot_reads_like_the_robot_itself(tmp_path, kind):
    top = _write(tmp_path, kind)
    direct = read_usd(str(tmp_path / "robot.usda")).scene
    composed = read_usd(top).scene
    assert composed.bodies and composed.joints and composed.shapes
    assert scene_differences(direct, composed) == []


@pytest.mark.parametrize("kind", ["reference", "payload", "sublayer", "variant", "instanceable"])
def test_newton_loads_the_composed_robot_as_the_robot_itself(tmp_path, kind):
    pytest.importorskip("newton_usd_schemas")
    from .test_usd_newton import _compare_models, load_newton
    top = _write(tmp_path, kind)
    read = read_usd(top)
    _compare_models(load_newton(str(tmp_path / "robot.usda")), load_newton(top), read)
