"""URDF import into the physics description, through MuJoCo's own URDF compiler."""

from .reader import UrdfRead, UrdfReadError, read_urdf, resolve_uri

__all__ = ["UrdfRead", "UrdfReadError", "read_urdf", "resolve_uri"]
