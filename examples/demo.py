"""Articula end to end: build example robots, export, import, bake, render and plot.

``make demo`` runs it with Blender 5.2 as the ``bpy`` module. For each example robot
(``examples/<name>.py``):

1. build it in an empty scene with the example's script and check it with Articula's validation;
   save ``out/<name>_authored.blend``;
2. export it to nested USD (``bpy.ops.articula.export_usd``) as ``out/<name>.usda``, and flat as
   ``out/<name>_flat.usda``; load both in Newton (``ModelBuilder.add_usd``) and print what it built;
   export it for MuJoCo (``articula.export_mjcf``, ``out/<name>.xml``) and ROS
   (``articula.export_urdf``, ``out/<name>.urdf``) and compile both with MuJoCo;
3. import that file into a fresh, empty scene (``bpy.ops.articula.import_usd``) and re-apply the
   example's animation (USD holds the physics, not Blender's keyframes on drive targets);
4. simulate it on Warp/Newton and bake the motion to keyframes (``bpy.ops.articula.bake``);
   save ``out/<name>.blend``;
5. render four frames of the bake with Cycles (CPU) into ``out/renders/`` and tile them into
   ``out/<name>.png``; plot the arm's joint angles against its animated targets.

Then a real robot from a file another tool wrote, pybullet's Franka Panda (``examples/franka_panda.py``,
URDF with textured OBJ meshes, from ``make urdf-corpus``): imported with ``articula.import_urdf``, given
keyed PD drives, baked, exported to USD, MJCF and URDF (each loaded by Newton or compiled by MuJoCo),
grabbed by the hand in the live simulation (Simulate with Record, Ctrl + drag) and rendered.

``--update-docs`` copies the pictures into ``docs/`` for the README. ``--only NAME`` runs one robot.
A step whose operator is not available is skipped with the reason, never imitated; a step that
fails is reported and makes the demo exit with status 1.
"""

import argparse
import math
import shutil
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import bpy
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _render  # noqa: E402
import _support  # noqa: E402
import collision_showcase  # noqa: E402
import franka_panda  # noqa: E402
import quadruped  # noqa: E402
import robotic_finger  # noqa: E402
import six_dof_arm  # noqa: E402

EXAMPLES = (robotic_finger, six_dof_arm, quadruped, collision_showcase)
OUT = _support.OUT
DOCS = _support.REPO / "docs"
FRAMES_SHOWN = 4
SOLVER_NAMES = {"MUJOCO": "MuJoCo's C library", "FEATHERSTONE": "Featherstone, Newton on Warp",
                "XPBD": "XPBD, Newton on Warp"}


class Report:
    """Prints each step with its wall time and keeps the totals."""

    def __init__(self):
        self.skipped: list[str] = []
        self.failed: list[str] = []
        self.files: list[Path] = []
        self.started = time.perf_counter()

    @contextmanager
    def step(self, label: str):
        start = time.perf_counter()
        print(f"  {label} ...", flush=True)
        yield
        print(f"  {label}: {time.perf_counter() - start:6.2f} s", flush=True)

    def skip(self, what: str, why: str):
        self.skipped.append(f"{what}: {why}")
        print(f"  SKIPPED {what}: {why}", flush=True)

    def fail(self, what: str, why: str):
        self.failed.append(f"{what}: {why}")
        print(f"  FAILED {what}: {why}", flush=True)

    def wrote(self, path: Path) -> Path:
        self.files.append(path)
        print(f"    -> {path.relative_to(_support.REPO)}", flush=True)
        return path

    def elapsed(self) -> float:
        return time.perf_counter() - self.started


def operator_missing(name: str) -> str | None:
    """Why ``bpy.ops.articula.<name>`` cannot run, or None when it is registered."""
    if name in dir(bpy.ops.articula):
        return None
    return f"bpy.ops.articula.{name} is not part of this build of Articula yet"


def objects_by_name(scene) -> dict:
    return {obj.name: obj for obj in scene.objects}


def check(scene, label: str) -> None:
    problems = _support.scene_problems(scene)
    errors = [p for p in problems if p.severity == "ERROR"]
    print(f"    {label}: {len(errors)} error(s), {len(problems) - len(errors)} warning(s)")
    for problem in problems:
        print(f"      {problem.severity.lower()}: {problem.subject}: {problem.message}")
    if errors:
        raise SystemExit(f"{label}: the scene does not validate; see the errors above")


def run_operator(name: str, report: Report, what: str, **kwargs) -> bool:
    """Run ``bpy.ops.articula.<name>``; False when it is missing (skipped) or fails (reported)."""
    why = operator_missing(name)
    if why:
        report.skip(what, why)
        return False
    try:
        result = getattr(bpy.ops.articula, name)(**kwargs)
    except RuntimeError as error:  # the operator reported an error
        report.fail(what, str(error).strip())
        return False
    if "FINISHED" not in result:
        report.fail(what, f"bpy.ops.articula.{name} returned {set(result)}")
        return False
    return True


def build(example, report: Report) -> dict:
    scene = _support.empty_scene()
    with report.step(f"build ({example.__name__}.py)"):
        objects = example.build(bpy.context)
        example.animate(objects)
        bodies = sum(o.articula.body.enabled for o in scene.objects)
        joints = sum(o.articula.joint.enabled for o in scene.objects)
        print(f"    {bodies} bodies, {joints} joints, "
              f"{sum(o.articula.collider.enabled for o in scene.objects)} colliders")
        check(scene, "validation")
    report.wrote(_support.save_blend(OUT / f"{example.NAME}_authored.blend"))
    return objects


def export_and_import(example, report: Report, objects: dict) -> dict:
    """Export to nested (and flat) USD, then import the nested file into an empty scene.

    Returns the objects of the scene the rest of the demo works on: the imported one, or the
    authored one when export or import is not available.
    """
    usda = OUT / f"{example.NAME}.usda"
    with report.step("export nested USD"):
        exported = run_operator("export_usd", report, "export", filepath=str(usda), layout="NESTED")
    if not exported:
        return objects
    exports = [report.wrote(usda)]
    flat = OUT / f"{example.NAME}_flat.usda"
    with report.step("export flat USD"):
        if run_operator("export_usd", report, "flat export", filepath=str(flat), layout="FLAT"):
            exports.append(report.wrote(flat))
    with report.step(f"load {'both files' if len(exports) > 1 else 'it'} in Newton (ModelBuilder.add_usd)"):
        for path in exports:
            print(f"    {path.name}: {newton_summary(path)}")
    export_mjcf_and_urdf(example.NAME, report)
    if operator_missing("import_usd"):
        report.skip("import", operator_missing("import_usd") + "; baking the authored scene instead")
        return objects
    scene = _support.empty_scene()
    with report.step("import it into an empty scene"):
        if not run_operator("import_usd", report, "import", filepath=str(usda)):
            raise SystemExit(f"import of {usda} failed")
        objects = objects_by_name(scene)
        example.animate(objects)
        check(scene, "validation after import")
    return objects


def export_mjcf_and_urdf(name: str, report: Report) -> None:
    """Export the robot for MuJoCo (MJCF) and ROS (URDF) too, and compile both with MuJoCo."""
    for operator, fmt, suffix in (("export_mjcf", "MJCF", ".xml"), ("export_urdf", "URDF", ".urdf")):
        path = OUT / f"{name}{suffix}"
        with report.step(f"export {fmt} and compile it with MuJoCo"):
            if run_operator(operator, report, f"{name} {fmt} export", filepath=str(path)):
                print(f"    {report.wrote(path).name}: {mujoco_summary(path)}")


def mujoco_summary(path: Path) -> str:
    """What MuJoCo's own compiler builds from an MJCF or URDF file."""
    import mujoco

    model = mujoco.MjModel.from_xml_path(str(path))
    return (f"{model.nbody - 1} bodies, {model.njnt} joints, {model.nv} DOFs, {model.ngeom} geoms, "
            f"{model.nu} actuators")


def newton_summary(path: Path) -> str:
    """What Newton 1.8 itself builds from a USD file: counts of bodies, joints, DOFs and shapes."""
    import warp

    warp.config.quiet = True  # no banner in the middle of the demo's report
    import newton

    builder = newton.ModelBuilder()
    builder.add_usd(str(path))
    return (f"{builder.body_count} bodies, {builder.joint_count} joints, "
            f"{builder.joint_dof_count} DOFs, {builder.shape_count} shapes (colliders and visuals)")


def bake(example, report: Report) -> bool:
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, example.FRAME_END
    solver = SOLVER_NAMES.get(scene.articula.solver, scene.articula.solver)
    with report.step(f"simulate and bake frames 1-{example.FRAME_END} ({solver})"):
        baked = run_operator("bake", report, "bake", frame_start=1, frame_end=example.FRAME_END)
    return baked


def joint_angles(scene, joint_names, frames) -> dict:
    """{joint: [angle per frame]}: each revolute joint's angle, measured on the baked objects."""
    from articula.addon.adapters.blender_to_description import scene_from_blender, world_pose
    from articula.core.transforms import AXIS_VECTORS, pose_mul, pose_relative

    scene.frame_set(frames[0])
    desc = scene_from_blender(scene)
    joints = {name: desc.joint(name) for name in joint_names}
    angles = {name: [] for name in joint_names}
    for frame in frames:
        scene.frame_set(frame)
        for name, joint in joints.items():
            body0 = pose_mul(world_pose(scene.objects[joint.body0]), joint.local_pose0)
            rel = pose_relative(body0, world_pose(scene.objects[name])).rot
            along = sum(a * b for a, b in zip(AXIS_VECTORS[joint.axis], rel[1:]))
            angle = 2.0 * math.atan2(along, rel[0])
            angles[name].append(math.remainder(angle, 2.0 * math.pi))
    return angles


def pictures(example, report: Report, objects: dict, baked: bool) -> list[Path]:
    scene = bpy.context.scene
    evenly = [1 + round(i * (example.FRAME_END - 1) / (FRAMES_SHOWN - 1)) for i in range(FRAMES_SHOWN)]
    frames = list(getattr(example, "RENDER_FRAMES", evenly))
    if not baked:
        frames = [1]  # nothing moves without a bake
    pictures = []
    with report.step(f"render frames {frames} (Cycles, CPU)"):
        _render.build_stage(scene, frames)
        scene.frame_set(1)
        report.wrote(_support.save_blend(OUT / f"{example.NAME}.blend"))
        paths = _render.render_frames(scene, frames, OUT / "renders", example.NAME)
        pictures.append(report.wrote(_render.contact_sheet(paths, OUT / f"{example.NAME}.png")))
    if example is six_dof_arm and baked:
        with report.step("plot joint angles"):
            all_frames = list(range(1, example.FRAME_END + 1))
            times = [(f - 1) / scene.render.fps for f in all_frames]
            targets = six_dof_arm.target_curves(objects)
            angles = joint_angles(scene, six_dof_arm.JOINTS, all_frames)
            pictures.append(report.wrote(_render.plot_joint_angles(
                times, angles, targets, OUT / "joint_angles.png",
                "six_dof_arm: baked joint angles (solid) and animated drive targets (dashed)")))
    return pictures


def run(example, report: Report) -> list[Path]:
    print(f"\n== {example.NAME}", flush=True)
    objects = build(example, report)
    objects = export_and_import(example, report, objects)
    baked = bake(example, report)
    return pictures(example, report, objects, baked)


def real_robot(report: Report) -> list[Path]:
    """pybullet's Franka Panda: import, drives, bake, exports, grab, render (``franka_panda.py``)."""
    robot = franka_panda
    print(f"\n== {robot.NAME} (pybullet's URDF)", flush=True)
    if robot.missing():
        report.skip(robot.NAME, robot.missing())
        return []
    scene = _support.empty_scene()
    with report.step("import panda.urdf (articula.import_urdf)"):
        objects = robot.import_robot(bpy.context)
        bodies = sum(o.articula.body.enabled for o in scene.objects)
        joints = sum(o.articula.joint.enabled for o in scene.objects)
        visuals = sum(o.type == "MESH" and not o.articula.collider.enabled for o in scene.objects)
        print(f"    {bodies} bodies, {joints} joints, {visuals} visual meshes")
    with report.step("add PD drives and key their targets"):
        robot.add_drives(objects)
        robot.animate(objects)
        check(scene, "validation")
    report.wrote(_support.save_blend(OUT / f"{robot.NAME}_authored.blend"))
    scene.frame_start, scene.frame_end = 1, robot.FRAME_END
    with report.step(f"simulate and bake frames 1-{robot.FRAME_END} ({SOLVER_NAMES['MUJOCO']})"):
        if not run_operator("bake", report, "Panda bake", frame_start=1, frame_end=robot.FRAME_END):
            return []
    hand = objects[robot.HAND]
    scene.frame_set(robot.FRAME_END)
    where = tuple(round(x, 3) for x in hand.matrix_world.translation)
    print(f"    the hand at frame {scene.frame_current}: {where} m")
    scene.frame_set(1)
    export_all(robot.NAME, report)
    with report.step("Simulate with Record: grab the wrist (Ctrl + drag), pull, let go, keep"):
        played = robot.grab_and_record(bpy.context)
        moved = played["pulled"] - played["start"]
        print(f"    grabbed {played['body']!r}; pulled {np.linalg.norm(moved):.2f} m with at most "
              f"{played['largest']:.0f} N (cap {played['cap']:.0f} N); {played['frames']} frames recorded")
    frames = [1, robot.READY_FRAME, max(played["held"]), scene.frame_start + played["frames"] - 1]
    with report.step(f"render frames {frames} (Cycles, CPU)"):
        paths = robot.render(scene, frames, played["held"], OUT / "renders")
        report.wrote(_support.save_blend(OUT / f"{robot.NAME}.blend"))
        return [report.wrote(_render.contact_sheet(paths, OUT / f"{robot.NAME}.png", columns=len(paths)))]


def export_all(name: str, report: Report) -> None:
    """The scene's robot as NESTED USD (loaded by Newton), MJCF and URDF (compiled by MuJoCo)."""
    usda = OUT / f"{name}.usda"
    with report.step("export nested USD and load it in Newton"):
        if run_operator("export_usd", report, f"{name} USD export", filepath=str(usda), layout="NESTED"):
            print(f"    {report.wrote(usda).name}: {newton_summary(usda)}")
    export_mjcf_and_urdf(name, report)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=[e.NAME for e in EXAMPLES] + [franka_panda.NAME],
                        help="run one example robot")
    parser.add_argument("--update-docs", action="store_true", help="copy the pictures into docs/")
    args = parser.parse_args(argv)

    report = Report()
    _support.articula()
    print(f"Articula demo: Blender {bpy.app.version_string} (bpy module), output in {OUT}")
    made = []
    for example in EXAMPLES:
        if args.only in (None, example.NAME):
            made += run(example, report)
    if args.only in (None, franka_panda.NAME):
        made += real_robot(report)
    if args.update_docs:
        DOCS.mkdir(exist_ok=True)
        for path in made:
            shutil.copyfile(path, DOCS / path.name)
        print(f"\ncopied {len(made)} pictures into {DOCS}")

    print(f"\ndone in {report.elapsed():.1f} s; files in {OUT}:")
    for path in report.files:
        print(f"  {path.relative_to(_support.REPO)}")
    for title, lines in (("skipped steps", report.skipped), ("failed steps", report.failed)):
        if lines:
            print(f"\n{title}:")
            for line in lines:
                print(f"  {line}")
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
