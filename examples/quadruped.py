"""A quadruped dropped onto the ground: a free-floating torso, four legs, contacts.

The robot comes from ``core.samples.quadruped`` through ``build_scene``; the scene's *Ground
Plane* option adds the ground it lands on. The leg drives are then pointed at a crouch by setting
the joints' ``articula.joint.dofs[0].target_position`` fields, as you would in the Physics panel.
"""

import sys
from pathlib import Path

import bpy  # noqa: F401  (the bpy module must come first)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _support  # noqa: E402

NAME = "quadruped"
FRAME_END = 72  # 3 s at 24 fps
LEGS = ("front_left", "front_right", "rear_left", "rear_right")
CROUCH = {"hip": 0.5, "knee": -1.0}  # rad: thighs forward, knees bent back under the torso
COLORS = {"torso": (0.1, 0.35, 0.6, 1.0), "thigh": (0.9, 0.9, 0.92, 1.0), "shin": (0.15, 0.15, 0.17, 1.0)}


def build(context) -> dict:
    from articula.addon.adapters.description_to_blender import build_scene
    from articula.core.samples import quadruped

    robot = quadruped()
    for visual in robot.visuals:
        visual.color = next(c for part, c in COLORS.items() if part in visual.body)
    objects = build_scene(context, robot)
    for leg in LEGS:
        for joint, target in CROUCH.items():
            objects[f"{leg}_{joint}"].articula.joint.dofs[0].target_position = target
    return objects


def animate(objects) -> None:
    """No animation: gravity and the ground do the work."""


if __name__ == "__main__":
    _support.articula()
    _support.main(sys.modules[__name__])
