"""Export a 200-body scene with Articula and with Blender's own USD exporter, in one run.

RATIO usd_export_200 = Blender's ``wm.usd_export`` time / ``articula.export_usd`` time (best of
several runs each), same objects, same process. Aim: >= 1.0 (we are no slower than Blender, while
writing the physics Blender's exporter leaves out).
"""

import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="articula-bench-"))
ROOT = Path(__file__).resolve().parents[1]
ROBOTS, LINKS, RUNS = 10, 20, 5


def load_articula():
    """The repository as the package ``articula``, registered like an enabled extension."""
    spec = importlib.util.spec_from_file_location("articula", ROOT / "__init__.py",
                                                  submodule_search_locations=[str(ROOT)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["articula"] = module
    spec.loader.exec_module(module)
    from articula.addon.pxr_runtime import ensure_blender_pxr

    ensure_blender_pxr()
    module.register()
    return module


def chain_scene(robots: int = ROBOTS, links: int = LINKS):
    """``robots`` fixed-base arms of ``links`` revolute links: a box collider and a box visual each."""
    from articula.core.model import JointType, PhysicsMaterial, PhysicsScene, Pose, Shape, ShapeKind, Visual, make_joint
    from articula.core.samples import box_mesh
    from articula.core.transforms import pose_relative

    scene = PhysicsScene(name="bench_robots", materials=[PhysicsMaterial("steel", density=7800.0)])
    for r in range(robots):
        parent = None
        for k in range(links):
            name = f"robot{r:02d}_link{k:02d}"
            pose = Pose(pos=(r * 1.0, 0.0, 0.1 + 0.1 * k))
            from articula.core.model import Body
            scene.bodies.append(Body(name=name, pose=pose, parent=parent))
            half = (0.02, 0.02, 0.045)
            scene.shapes.append(Shape(name=f"{name}_collider", kind=ShapeKind.BOX, body=name,
                                      half_extents=half, material="steel"))
            scene.visuals.append(Visual(name=f"{name}_visual", body=name, mesh=box_mesh(half)))
            joint = make_joint(f"{name}_joint", JointType.REVOLUTE if parent else JointType.FIXED, parent, name,
                               axis="Y")
            joint.local_pose0 = pose_relative(scene.body(parent).pose, pose) if parent else pose
            if parent:
                dof = joint.dofs[0]
                dof.drive_enabled, dof.drive_stiffness, dof.drive_damping = True, 50.0, 2.0
            scene.joints.append(joint)
            parent = name
    return scene


def best_time(action, runs: int = RUNS, before=None) -> float:
    """The fastest of ``runs`` timings of ``action``; ``before`` (untimed) runs ahead of each."""
    times = []
    for _ in range(runs):
        if before is not None:
            before()
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return min(times)


def main():
    import bpy

    load_articula()
    from articula.addon.adapters.description_to_blender import build_scene

    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    build_scene(bpy.context, chain_scene())
    bodies = sum(1 for o in bpy.context.scene.objects if o.articula.body.enabled)
    folder = tempfile.mkdtemp(prefix="articula-bench-usd-")
    ours_path, blender_path = os.path.join(folder, "ours.usdc"), os.path.join(folder, "blender.usdc")

    def ours():
        assert bpy.ops.articula.export_usd(filepath=ours_path, allow_warnings=True) == {"FINISHED"}

    def blender():
        assert bpy.ops.wm.usd_export(filepath=blender_path) == {"FINISHED"}

    ours(), blender()  # warm up both (imports, first-use caches)
    t_ours, t_blender = best_time(ours), best_time(blender)
    print(f"objects {len(bpy.context.scene.objects)}, bodies {bodies}: articula {t_ours * 1e3:.1f} ms, "
          f"wm.usd_export {t_blender * 1e3:.1f} ms")
    print(f"RATIO usd_export_{bodies} {t_blender / t_ours:.3f} 1.0 wm.usd_export {t_blender * 1e3:.0f} ms / "
          f"articula.export_usd {t_ours * 1e3:.0f} ms, {len(bpy.context.scene.objects)} objects, best of {RUNS}")


if __name__ == "__main__":
    main()
