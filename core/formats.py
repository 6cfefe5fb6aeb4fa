"""What every file format shares: one result of reading a file, one error base, the formats by name,
and reading or writing any of them by the file's name (:func:`read_file`, :func:`write_file`).

USD, MJCF and URDF readers all give a :class:`ReadResult` (the description, the warnings for what was
approximated, and what each format knows beyond the description); a file that cannot be read or
written raises a :class:`FormatError` subclass naming the file and why, so a caller (the importers,
``articula convert``) catches one type whatever the format.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional

from .model import PhysicsScene

__all__ = ["FORMATS", "FormatError", "ReadOptions", "ReadResult", "UnknownFormatError", "format_of",
           "read_error_types", "read_file", "write_error_types", "write_file"]


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
    """How to read URDF and xacro files: package folders, xacro trust and arguments."""

    trust_xacro: bool = False
    package_paths: list[str] = field(default_factory=list)
    arguments: dict[str, str] = field(default_factory=dict)


def read_error_types() -> tuple[type, ...]:
    """Every reader's error: each is a :class:`FormatError`."""
    return (FormatError,)


def write_error_types() -> tuple[type, ...]:
    """Every writer's error (each a :class:`FormatError`), and the file system's."""
    return (FormatError, OSError)


def read_file(path: str, options: ReadOptions | None = None) -> ReadResult:
    """Read ``path`` as its format; raises a :class:`FormatError` naming the file."""
    options = options or ReadOptions()
    if not os.path.isfile(path):
        raise FormatError(path, "no such file")
    kind = format_of(path)
    if kind == "urdf":
        from .urdf import is_xacro, read_urdf, read_xacro

        if is_xacro(path):
            if not options.trust_xacro:
                raise FormatError(path, "a xacro file: it runs the Python expressions written in it, so "
                                        "it is expanded only with --trust-xacro (for files you trust)")
            return read_xacro(path, options.package_paths, options.arguments)
        return read_urdf(path, package_paths=options.package_paths)
    if kind == "mjcf":
        from .mjcf import read_mjcf

        return read_mjcf(path)
    from .usd.reader import read_usd

    return read_usd(path)


def write_file(scene, path: str, layout: str = "NESTED") -> list[str]:
    """Write ``scene`` to ``path`` in the format its ending names; returns the warnings. Raises the
    writer's error, the old file left as it was."""
    kind = format_of(path)
    if kind == "urdf":
        if path.lower().endswith(".xacro"):
            raise FormatError(path, "xacro is read, never written: write .urdf")
        from .urdf import write_urdf

        return write_urdf(scene, path)
    if kind == "mjcf":
        from .mjcf.writer import write_mjcf

        return write_mjcf(scene, path)
    from .usd.writer import write_usd

    return write_usd(scene, path, layout=layout)


def _root_tag(path: str) -> str:
    import xml.etree.ElementTree as ET

    try:
        for _event, element in ET.iterparse(path, events=("start",)):
            return element.tag
    except (ET.ParseError, OSError, UnicodeDecodeError):
        pass
    return ""
