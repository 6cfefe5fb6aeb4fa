"""Collision groups and worlds: boxes that pass through or land on each other, two worlds.

The scene comes from ``core.samples.collision_showcase`` through ``build_scene``. Each box's
collider has ``articula.collider.collision_group`` and ``.world`` set (Physics panel, Collider):

- group 0 collides with nothing (falls through the ground);
- a positive group collides with itself and with negative groups (the two group-1 boxes stack;
  the group-2 box falls through the group-1 box onto the ground);
- a negative group collides with everything except the same negative group (the ground is -2,
  so every box that collides at all lands on it; the -1 box lands on a group-1 box);
- world 0 and world 1 never touch (the two overlapping boxes ``robot_world0`` and ``robot_world1``
  fall through each other); world -1 (the ground) is shared by every world.
"""

import sys
from pathlib import Path

import bpy  # noqa: F401  (the bpy module must come first)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _support  # noqa: E402

NAME = "collision_showcase"
FRAME_END = 48  # 2 s at 24 fps
# Frames the demo renders: the start; the group-2 box halfway through the group-1 box; the
# group-0 box sinking through the ground; the end (the group-2 box then sits inside the group-1 one).
RENDER_FRAMES = (1, 7, 12, 48)


def build(context) -> dict:
    from articula.addon.adapters.description_to_blender import build_scene
    from articula.core.model import Pose
    from articula.core.samples import box_mesh, collision_showcase

    robot = collision_showcase()
    # For the pictures (the camera looks from +x, -y): world 1's box in purple and moved towards
    # the camera, a smaller group-2 box off the group-1 box's centre, so that the boxes that pass
    # through each other stick out of each other's sides.
    next(v for v in robot.visuals if v.body == "robot_world1").color = (0.55, 0.3, 0.85, 1.0)
    robot.body("robot_world1").pose = Pose(pos=(0.08, 0.92, 0.35))
    small = (0.07, 0.07, 0.07)
    robot.body("box_group2").pose = Pose(pos=(1.0, -0.08, 0.5))
    next(s for s in robot.shapes if s.body == "box_group2").half_extents = small
    next(v for v in robot.visuals if v.body == "box_group2").mesh = box_mesh(small)
    objects = build_scene(context, robot)
    # Newton's own world rule, as Newton steps it (MuJoCo keeps the worlds apart with collision masks).
    context.scene.articula.solver = "XPBD"
    return objects


def animate(objects) -> None:
    """No animation: the boxes fall."""


if __name__ == "__main__":
    _support.articula()
    _support.main(sys.modules[__name__])
