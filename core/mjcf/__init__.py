"""MJCF (MuJoCo XML) read and write of the physics description, through MuJoCo's own compiler."""

from .reader import MeshSource, MjcfRead, MjcfReader, MjcfReadError, read_mjcf
from .writer import MjcfWriteError, assets_folder_name, write_mjcf

__all__ = ["MeshSource", "MjcfRead", "MjcfReadError", "MjcfReader", "MjcfWriteError", "assets_folder_name",
           "read_mjcf", "write_mjcf"]
