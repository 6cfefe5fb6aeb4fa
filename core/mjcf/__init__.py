"""MJCF (MuJoCo XML) import into the physics description, through MuJoCo's own compiler."""

from .reader import MjcfRead, MjcfReadError, read_mjcf

__all__ = ["MjcfRead", "MjcfReadError", "read_mjcf"]
