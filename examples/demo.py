"""Articula demo: build a small robot in Blender and save it to ``out/demo.blend``.

Run it with ``make demo`` (Blender 5.0 as the ``bpy`` module inside ``.venv``). The robot has two
bodies made with plain bpy: a box ``base`` on the ground and an arm ``link`` standing on it, parented
to ``base`` so that the Blender parent chain is the kinematic tree.
"""

from pathlib import Path

import bpy

OUT = Path(__file__).resolve().parents[1] / "out" / "demo.blend"


def box_mesh(name: str, size: tuple[float, float, float]) -> bpy.types.Mesh:
    """A box mesh centred on its origin, ``size`` in meters along x, y, z."""
    hx, hy, hz = (s / 2 for s in size)
    verts = [(x, y, z) for x in (-hx, hx) for y in (-hy, hy) for z in (-hz, hz)]
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    return mesh


def add_box(name: str, size, location, parent=None) -> bpy.types.Object:
    obj = bpy.data.objects.new(name, box_mesh(name, size))
    bpy.context.scene.collection.objects.link(obj)
    obj.location = location
    if parent is not None:
        obj.parent = parent
        obj.matrix_parent_inverse = parent.matrix_world.inverted()
    return obj


def build_robot() -> dict[str, bpy.types.Object]:
    base = add_box("base", size=(0.4, 0.4, 0.1), location=(0.0, 0.0, 0.05))
    bpy.context.view_layer.update()  # base.matrix_world is needed to parent the link
    link = add_box("link", size=(0.05, 0.05, 0.5), location=(0.0, 0.0, 0.35), parent=base)
    return {"base": base, "link": link}


def main() -> Path:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    robot = build_robot()
    bpy.context.view_layer.update()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    bpy.ops.wm.save_as_mainfile(filepath=str(OUT))
    for name, obj in robot.items():
        print(f"{name}: world position {tuple(round(v, 3) for v in obj.matrix_world.translation)}")
    print(f"saved {OUT}")
    return OUT


if __name__ == "__main__":
    main()
