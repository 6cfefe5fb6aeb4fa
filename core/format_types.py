"""The types every file format shares: one result of reading a file, one error base, the read options,
and the formats by name. Readers and writers import these; :mod:`.formats` (above them) dispatches a
file to its reader or writer by name and re-exports all of this.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional

from .model import PhysicsScene

__all__ = ["FORMATS", "FormatError", "ReadOptions", "ReadResult", "UnknownFormatError", "format_of",
           "read_error_types", "write_error_types"]


class FormatError(Exception):
    """A file that cannot be read or written: ``file`` and ``message`` say which and why."""

    def __init__(self, file: Optional[str], message: str):
        self.file = file
        self.message = message
        super().__init__(f"file {file}: {message}" if file else message)


class UnknownFormatError(FormatError):
    """A file whose name or content is no format Articula reads or writes."""


@dataclass
class ReadResult:
    """A file read into the description. Each format fills what it knows; the rest stays empty."""

    scene: PhysicsScene
    warnings: list[str] = field(default_factory=list)
    #: Visual name -> the mesh file it was read from (MJCF, URDF).
    mesh_sources: dict = field(default_factory=dict)
    #: Material name -> the image file of its 2D color texture (MJCF).
    material_textures: dict = field(default_factory=dict)
    #: Mesh files that were left out (missing, or unreadable), with the links using them (URDF).
    left_out_meshes: list[tuple[str, str]] = field(default_factory=list)
    #: "body:<name>" etc. -> prim path (USD).
    prim_paths: dict[str, str] = field(default_factory=dict)
    #: Prims carrying only PhysicsArticulationRootAPI right above a body (USD).
    articulation_wrappers: list[str] = field(default_factory=list)

    def __iter__(self):  # ``scene, warnings = read_usd(...)``
        return iter((self.scene, self.warnings))


#: Format name -> the file name endings it has.
FORMATS = {
    "usd": (".usd", ".usda", ".usdc"),
    "mjcf": (".xml", ".mjcf"),
    "urdf": (".urdf", ".xacro"),
}


def format_of(path: str) -> str:
    """``usd``, ``mjcf`` or ``urdf`` for ``path``, by its ending; an ``.xml`` file by its root element
    (``<robot>``: URDF, else MJCF) when it exists. Raises :class:`UnknownFormatError`."""
    lower = path.lower()
    for name, endings in FORMATS.items():
        if lower.endswith(endings):
            if lower.endswith(".xml") and os.path.isfile(path) and _root_tag(path) == "robot":
                return "urdf"
            return name
    endings = ", ".join(e for es in FORMATS.values() for e in es)
    raise UnknownFormatError(path, f"not a file Articula reads or writes (its name ends in none of "
                                   f"{endings})")


@dataclass
class ReadOptions:
    """How to read URDF and xacro files: package folders, xacro trust and arguments, and whether the
    root link floats."""

    trust_xacro: bool = False
    package_paths: list[str] = field(default_factory=list)
    arguments: dict[str, str] = field(default_factory=dict)
    floating_base: bool = False


def read_error_types() -> tuple[type, ...]:
    """Every reader's error: each is a :class:`FormatError`."""
    return (FormatError,)


def write_error_types() -> tuple[type, ...]:
    """Every writer's error (each a :class:`FormatError`), and the file system's."""
    return (FormatError, OSError)



def _root_tag(path: str) -> str:
    import xml.etree.ElementTree as ET

    try:
        for _event, element in ET.iterparse(path, events=("start",)):
            return element.tag
    except (ET.ParseError, OSError, UnicodeDecodeError):
        pass
    return ""
