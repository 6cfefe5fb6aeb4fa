"""docs/actuators_control.png (run: .venv/bin/python tools/plot_actuators_control.py): a control keyed 0 -> 45 deg over 1 s on the arm_gripper MJCF's shoulder_yaw
servo, baked through articula.bake on MuJoCo and Featherstone; and, with no keys (ctrl = 0), the elbow's
baked angle against MuJoCo's own C library."""
import sys, math
from pathlib import Path
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import conftest
import bpy, articula
from articula.addon.pxr_runtime import ensure_blender_pxr
ensure_blender_pxr()
articula.register()
import numpy as np, mujoco
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

XML = str(ROOT / "tests" / "data" / "arm_gripper.xml")
END = 51  # 2 s at 25 fps

def angle(joint):
    p = joint.articula.joint
    rel = p.body0.matrix_world.to_quaternion().inverted() @ p.body1.matrix_world.to_quaternion()
    axis, a = rel.to_axis_angle()
    return math.degrees(a * axis["XYZ".index(p.axis)])

def clear():
    for coll in (bpy.data.objects, bpy.data.meshes, bpy.data.materials, bpy.data.actions, bpy.data.collections):
        for item in list(coll):
            coll.remove(item)
    bpy.context.scene.articula.tendons.clear()

def bake(solver, keyed):
    clear()
    assert bpy.ops.articula.import_mjcf(filepath=XML) == {"FINISHED"}
    sc = bpy.context.scene
    sc.render.fps, sc.render.fps_base = 25, 1.0
    sc.frame_start, sc.frame_end = 1, END
    joint = sc.objects["shoulder_yaw"]
    if keyed:
        servo = joint.articula.joint.dofs[0].actuators[0]
        path = "articula.joint.dofs[0].actuators[0].control_angle"
        servo.control_angle = 0.0; joint.keyframe_insert(path, frame=1)
        servo.control_angle = math.radians(45); joint.keyframe_insert(path, frame=26)
    sc.frame_set(1)
    assert bpy.ops.articula.bake(solver=solver, substeps=20) == {"FINISHED"}
    rows = []
    for f in range(1, END + 1):
        sc.frame_set(f)
        ctrl = math.degrees(joint.articula.joint.dofs[0].actuators[0].control)
        rows.append(((f - 1) / 25, ctrl, angle(joint), angle(sc.objects["elbow"])))
    return np.array(rows)

mj_keyed, fs_keyed = bake("MUJOCO", True), bake("FEATHERSTONE", True)
mj_rest = bake("MUJOCO", False)
m = mujoco.MjModel.from_xml_path(XML); d = mujoco.MjData(m)
ref = [math.degrees(d.qpos[2])]
for f in range(1, END):
    for _ in range(20):
        mujoco.mj_step(m, d)
    ref.append(math.degrees(d.qpos[2]))

fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.6))
t = mj_keyed[:, 0]
a.plot(t, mj_keyed[:, 1], "k--", label="keyed control (Blender F-curve)")
a.plot(t, mj_keyed[:, 2], label="baked angle, MuJoCo")
a.plot(t, fs_keyed[:, 2], ":", lw=2, label="baked angle, Featherstone")
a.set_xlabel("time (s)"); a.set_ylabel("shoulder_yaw (deg)")
a.set_title("Position servo, control keyed 0 -> 45 deg over 1 s")
a.legend(loc="lower right", fontsize=8); a.grid(alpha=0.3)
b.plot(t, mj_rest[:, 3], label="baked in Blender (MuJoCo)")
b.plot(t, ref, "--", label="mujoco C library, same MJCF")
b.set_xlabel("time (s)"); b.set_ylabel("elbow (deg)")
b.set_title("No keys: ctrl = 0, the servos hold against gravity")
b.legend(loc="lower right", fontsize=8); b.grid(alpha=0.3)
fig.suptitle("tests/data/arm_gripper.xml imported with articula.import_mjcf, baked with articula.bake", fontsize=9)
fig.tight_layout()
fig.savefig(str(ROOT / "docs" / "actuators_control.png"), dpi=110)
print("final", mj_keyed[25, 2], fs_keyed[25, 2], mj_keyed[-1, 2], fs_keyed[-1, 2], "elbow max diff", np.abs(mj_rest[:, 3] - ref).max())
