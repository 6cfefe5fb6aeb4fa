"""A 6-DOF arm whose joint drives follow an animated target: keyframed drive target positions.

The robot comes from ``core.samples.six_dof_arm`` through ``build_scene`` (the same objects and
``obj.articula`` fields the import operator creates). The animation is plain Blender keyframes on
each joint's ``articula.joint.dofs[0].target_position``: the simulation reads the target every
frame, so the drives chase whatever the Graph Editor shows.
"""

import sys
from pathlib import Path

import bpy

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _support  # noqa: E402

NAME = "six_dof_arm"
FRAME_END = 96  # 4 s at 24 fps
LINK_COLORS = [(0.15, 0.17, 0.2, 1.0), (0.95, 0.55, 0.1, 1.0), (0.85, 0.85, 0.88, 1.0)]
# Drive targets (rad) of joint_1 ... joint_6 at each key frame: reach left, reach right, fold.
POSES = {
    1: (0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    24: (1.0, -0.6, 1.2, 0.0, 0.8, 0.0),
    48: (-1.0, -0.9, 1.6, 1.0, 0.4, 1.5),
    72: (-0.3, 0.5, -1.0, 0.0, -0.6, -1.0),
    96: (0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
}
JOINTS = [f"joint_{i}" for i in range(1, 7)]


def build(context) -> dict:
    from articula.addon.adapters.description_to_blender import build_scene
    from articula.core.samples import six_dof_arm

    robot = six_dof_arm()
    for i, visual in enumerate(robot.visuals):
        visual.color = LINK_COLORS[i % len(LINK_COLORS)]
    return build_scene(context, robot)


def animate(objects) -> None:
    """Keyframe every joint's drive target through ``POSES`` (Bezier in between)."""
    for i, name in enumerate(JOINTS):
        joint = objects[name]
        dof = joint.articula.joint.dofs[0]
        for frame, targets in POSES.items():
            dof.target_position = targets[i]
            joint.keyframe_insert(data_path="articula.joint.dofs[0].target_position", frame=frame)


def target_curves(objects) -> dict:
    """{joint: [target at frame 1, 2, ...]} as the animation gives it (for the plot)."""
    scene = bpy.context.scene
    curves = {name: [] for name in JOINTS}
    for frame in range(1, FRAME_END + 1):
        scene.frame_set(frame)
        for name in JOINTS:
            curves[name].append(objects[name].articula.joint.dofs[0].target_position)
    return curves


if __name__ == "__main__":
    _support.articula()
    _support.main(sys.modules[__name__])
