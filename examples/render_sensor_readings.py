"""Plot a force-torque sensor's readings baked on MuJoCo: a pendulum arm holding a weight at its wrist.

Run: .venv/bin/python examples/render_sensor_readings.py
Builds the arm from MJCF (a hinge at the shoulder, a 0.4 m link, a 1 kg weight held stiff 0.15 m below
the wrist), adds a Force-Torque sensor on the weight with Add Sensor (a new site at the weight's origin,
the wrist), bakes two seconds on MuJoCo, writes the readings with Export Readings (.csv) and plots them
with matplotlib as docs/sensor_readings.png: the force and torque between the weight and the arm, in the
site's frame, as the arm falls from level and swings."""

import csv
import sys
from pathlib import Path

import bpy

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "examples"))
import _support  # noqa: E402

OUT = REPO / "out" / "sensor_readings"
PICTURE = REPO / "docs" / "sensor_readings.png"
FPS, SECONDS, SUBSTEPS = 50, 2.0, 10  # MuJoCo's 2 ms step

ARM = """<mujoco model="arm_with_weight">
  <option timestep="0.002"/>
  <worldbody>
    <body name="upper_arm" pos="0 0 1">
      <joint name="shoulder" type="hinge" axis="0 1 0" damping="0.05"/>
      <geom name="link" type="capsule" fromto="0 0 0 0.4 0 0" size="0.02" mass="0.3"/>
      <body name="weight" pos="0.4 0 0">
        <geom name="hand" type="capsule" fromto="0 0 0 0 0 -0.12" size="0.015" mass="0.05"/>
        <geom name="weight_geom" type="sphere" pos="0 0 -0.15" size="0.05" mass="1"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def bake_arm() -> Path:
    """The arm imported, its force-torque sensor added and baked; the readings' CSV."""
    scene = _support.empty_scene()
    OUT.mkdir(parents=True, exist_ok=True)
    model = OUT / "arm_with_weight.xml"
    model.write_text(ARM)
    assert bpy.ops.articula.import_mjcf(filepath=str(model)) == {"FINISHED"}
    weight = next(o for o in scene.objects if o.name == "weight" and o.articula.body.enabled)
    _support.select_only(weight)
    assert bpy.ops.articula.add_sensor(kind="FORCE_TORQUE") == {"FINISHED"}
    scene.render.fps, scene.render.fps_base = FPS, 1.0
    frames = int(SECONDS * FPS) + 1
    assert bpy.ops.articula.bake(frame_start=1, frame_end=frames, solver="MUJOCO", substeps=SUBSTEPS) \
        == {"FINISHED"}
    readings = OUT / "readings.csv"
    assert bpy.ops.articula.export_readings(filepath=str(readings)) == {"FINISHED"}
    return readings


def read_columns(path: Path) -> dict[str, list[float]]:
    with open(path, newline="") as file:
        rows = list(csv.reader(file))
    return {name: [float(r[i]) for r in rows[1:]] for i, name in enumerate(rows[0])}


def plot(columns: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    force = next(n[:-2] for n in columns if n.endswith("force.x"))
    torque = next(n[:-2] for n in columns if n.endswith("torque.x"))
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(8, 5.2), sharex=True, dpi=100)
    for axes, name, label in ((top, force, "force (N)"), (bottom, torque, "torque (N·m)")):
        for axis, color in zip("xyz", ("#d62728", "#2ca02c", "#1f77b4")):
            axes.plot(columns["time"], columns[f"{name}.{axis}"], color=color, label=axis)
        axes.set_ylabel(f"{name}\n{label}")
        axes.grid(alpha=0.3)
        axes.legend(loc="upper right", ncol=3, fontsize=8)
    top.set_title("Force-torque at the wrist of a swinging arm holding 1 kg (MuJoCo bake, site frame)")
    bottom.set_xlabel("time (s)")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def main() -> None:
    _support.articula()
    readings = bake_arm()
    plot(read_columns(readings), PICTURE)
    print(f"Wrote {PICTURE} from {readings}")


if __name__ == "__main__":
    main()
