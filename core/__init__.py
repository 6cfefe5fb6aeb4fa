"""The bpy-free core: the physics description, its rules, and USD, MJCF and URDF read/write.

Nothing in this package imports bpy; it runs in plain Python with usd-core or Blender's pxr.
"""

from .formats import FormatError, ReadResult, read_file, write_file
from .model import PhysicsScene

__all__ = ["FormatError", "PhysicsScene", "ReadResult", "read_file", "write_file"]
