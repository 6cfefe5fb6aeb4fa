"""URDF read (through MuJoCo's own URDF compiler), trusted xacro expansion, and URDF write."""

from .reader import UrdfRead, UrdfReadError, read_urdf, resolve_uri
from .writer import UrdfWriteError, write_urdf
from .xacro_expand import XacroError, expand_xacro, is_xacro, parse_arguments, read_xacro

__all__ = ["UrdfRead", "UrdfReadError", "UrdfWriteError", "XacroError", "expand_xacro", "is_xacro",
           "parse_arguments", "read_urdf", "read_xacro", "resolve_uri", "write_urdf"]
