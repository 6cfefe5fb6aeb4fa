"""A real robot from a file another tool wrote: pybullet's Franka Panda (URDF with OBJ meshes).

The file is pybullet 3.2.7's ``pybullet_data/franka_panda/panda.urdf`` (``make urdf-corpus`` extracts
it from pybullet's pinned source archive, never installing pybullet). The script does what a user does:

1. *File > Import > Articula Robot (.urdf)* (``bpy.ops.articula.import_urdf``): links, joints, limits,
   colliders and the textured visual meshes;
2. gives each arm joint a PD drive (the URDF has none) and keys its targets: from the upright rest
   pose into Franka's "ready" pose;
3. grabs the wrist in the live simulation (*Simulate* with *Record*, Ctrl + drag), pulls it forward
   and up and lets go, keeping the recording as keyframes (:func:`grab_and_record`).

``make demo`` runs it between the bake, the exports (USD, MJCF, URDF) and the renders.
Run on its own: ``.venv/bin/python examples/franka_panda.py`` imports it and saves
``out/franka_panda_authored.blend``.
"""

import os
import sys
from pathlib import Path

import bpy
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _support  # noqa: E402

NAME = "franka_panda"
PYBULLET_DATA = Path(os.environ.get("ARTICULA_PYBULLET_DATA", Path.home() / ".cache/articula/pybullet_data"))
URDF = PYBULLET_DATA / "franka_panda" / "panda.urdf"
ARM = [f"panda_joint{i}" for i in range(1, 8)]
FINGER = "panda_finger_joint1"  # panda_finger_joint2 mimics it
HAND = "panda_hand"
WRIST = "panda_link7"  # the flange just above the hand, where the mouse grabs the arm
ABOVE_HAND = np.array((0.0, 0.0, 0.04))  # m: the grab's aim, on the flange
FRAME_END = 72  # the bake: 3 s at 24 fps
READY_FRAME = 40
# Drive targets (rad) of panda_joint1 ... 7 at each key frame: from the upright rest pose (the file's
# zero, joint 4 at its upper limit) down into Franka's "ready" pose, then held.
POSES = {
    1: (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    READY_FRAME: (0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785),
}
FINGER_OPEN = {1: 0.0, READY_FRAME: 0.04}  # m
VIEW = (0.35, -1.6, 0.45)  # the renders' camera: in front of the arm's plane of motion, a little above
PULL = (0.15, 0.0, 0.3)  # m: the mouse moves the grabbed wrist forward and up
LOOK = np.array((0.0, 1.0, 0.0))  # the grab's mouse ray: from the front, at the wrist
FRAME_SIZE = (240, 270)  # px: an upright arm fills a tall frame; four make a 960x270 strip
GRAB_STIFFNESS = 8000.0  # 1/s²: the panel's Grab Stiffness, firm enough to move a driven arm
STIFFNESS, DAMPING = 1000.0, 80.0  # N·m/rad, N·m·s/rad: the arm's drives
FINGER_STIFFNESS, FINGER_DAMPING = 2000.0, 100.0  # N/m, N·s/m


def missing() -> str | None:
    """Why the robot cannot be imported here, or None."""
    if URDF.is_file():
        return None
    return f"{URDF} is missing: `make urdf-corpus` extracts pybullet's robots"


def import_robot(context) -> dict:
    """The Panda imported through the operator, as *File > Import > Articula Robot (.urdf)* does."""
    result = bpy.ops.articula.import_urdf(filepath=str(URDF))
    if "FINISHED" not in result:
        raise RuntimeError(f"the import of {URDF} returned {set(result)}")
    return {obj.name: obj for obj in context.scene.objects}


def add_drives(objects) -> None:
    """A position drive on every arm joint and on the leading finger, as in the Joint panel."""
    for name in (*ARM, FINGER):
        dof = objects[name].articula.joint.dofs[0]
        dof.drive_enabled = True
        dof.drive_type = "FORCE"
        finger = name == FINGER
        dof.drive_stiffness = FINGER_STIFFNESS if finger else STIFFNESS
        dof.drive_damping = FINGER_DAMPING if finger else DAMPING


def animate(objects, poses=POSES) -> None:
    """Keyframe the drive targets through ``poses`` (and the fingers through ``FINGER_OPEN``)."""
    for i, name in enumerate(ARM):
        joint = objects[name]
        for frame, targets in poses.items():
            joint.articula.joint.dofs[0].target_position = targets[i]
            joint.keyframe_insert(data_path="articula.joint.dofs[0].target_position", frame=frame)
    finger = objects[FINGER]
    for frame, opening in FINGER_OPEN.items():
        finger.articula.joint.dofs[0].target_position = opening
        finger.keyframe_insert(data_path="articula.joint.dofs[0].target_position", frame=frame)


def body_position(loop, name: str) -> np.ndarray:
    session = loop.session
    return session.sim.body_poses()[session.row_of[name]][:3].copy()


def grab_and_record(context, settle=48, pull=PULL, pull_frames=24, after=23) -> dict:
    """Simulate with Record from the current frame: after ``settle`` frames grab the wrist with
    Ctrl + left-drag, looking at it from the front (-Y), pull it by ``pull`` (m) over ``pull_frames``,
    let go, run ``after`` more frames and keep the recording (Enter): it becomes the scene's bake.

    Returns what happened: ``held`` {frame: (grabbed point, mouse target)}, the grabbed body, the
    wrist's position before and at the end of the pull, the largest force and its cap, the frames.
    The mouse ray is given to the modal loop as the 3D view would give it.
    """
    from articula.operators import simulate

    context.scene.articula.record_simulation = True
    context.scene.articula.grab_stiffness = GRAB_STIFFNESS
    loop = simulate.start_loop(context, "SCENE", record=True)
    for _ in range(settle):
        loop.handle("TIMER")
    start = body_position(loop, WRIST)
    origin, toward = body_position(loop, HAND) + ABOVE_HAND - LOOK, LOOK
    state = loop.handle("LEFTMOUSE", "PRESS", ray=(origin, toward), ctrl=True)
    if not loop.grabbing:
        loop.handle("ESC")
        raise RuntimeError(f"the wrist could not be grabbed ({state}): {loop.message}")
    body = loop.session.sim.body_keys[loop.grab.row][0]
    held, largest = {}, 0.0
    for i in range(1, pull_frames + 1):
        mouse = origin + np.asarray(pull) * min(1.0, i / (0.75 * pull_frames))
        loop.handle("MOUSEMOVE", "NOTHING", ray=(mouse, toward))
        loop.handle("TIMER")
        largest = max(largest, loop.grab.largest_force)
        held[loop.session.frame] = (loop.grab.point.copy(), loop.grab.target.copy())
    pulled = body_position(loop, WRIST)
    cap = loop.grab.max_force
    loop.handle("LEFTMOUSE", "RELEASE", ray=(mouse, toward))
    for _ in range(after):
        loop.handle("TIMER")
    frames = loop.recording.frames
    if loop.handle("RET") != "FINISHED":
        raise RuntimeError(f"the recording was not kept: {loop.error}")
    return {"held": held, "body": body, "start": start, "pulled": pulled, "largest": largest, "cap": cap,
            "frames": frames}


def render(scene, frames, held: dict, folder: Path) -> list[Path]:
    """Cycles frames of the recording (after :func:`grab_and_record`) into ``folder``, with a camera,
    sun and ground; while the hand is held, the pull is a thin red tube from the grabbed point to
    the mouse (the 3D view draws it as a line)."""
    import _render

    curve = bpy.data.curves.new("pull", "CURVE")
    curve.dimensions, curve.bevel_depth = "3D", 0.006
    spline = curve.splines.new("POLY")
    spline.points.add(1)
    curve.materials.append(_render._material("pull", (0.9, 0.05, 0.05, 1.0)))
    tube = bpy.data.objects.new("pull", curve)
    scene.collection.objects.link(tube)
    _render.build_stage(scene, frames, view=VIEW, size=FRAME_SIZE)
    ground = bpy.data.materials["ground"].node_tree.nodes["Principled BSDF"]
    ground.inputs["Base Color"].default_value = (0.2, 0.22, 0.25, 1.0)  # the white arm stands out
    paths = []
    for frame in frames:
        scene.frame_set(frame)
        pull = held.get(frame)
        tube.hide_render = pull is None
        for point, xyz in zip(spline.points, pull or ()):
            point.co = (*xyz, 1.0)
        paths += _render.render_frames(scene, [frame], folder, NAME)
    return paths


def main() -> Path:
    if missing():
        raise SystemExit(missing())
    scene = _support.empty_scene()
    objects = import_robot(bpy.context)
    add_drives(objects)
    animate(objects)
    for problem in _support.scene_problems(scene):
        print(f"{problem.severity}: {problem.subject}: {problem.message}")
    path = _support.save_blend(_support.OUT / f"{NAME}_authored.blend")
    print(f"{NAME}: {sum(o.articula.body.enabled for o in scene.objects)} bodies, "
          f"{sum(o.articula.joint.enabled for o in scene.objects)} joints; saved {path}")
    return path


if __name__ == "__main__":
    main()
