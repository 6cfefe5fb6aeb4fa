"""What every file format shares: one result of reading a file, one error base, the formats by name,
and reading or writing any of them by the file's name (:func:`read_file`, :func:`write_file`).

USD, MJCF and URDF readers all give a :class:`ReadResult` (the description, the warnings for what was
approximated, and what each format knows beyond the description); a file that cannot be read or
written raises a :class:`FormatError` subclass naming the file and why, so a caller (the importers,
``articula convert``) catches one type whatever the format.
"""

from __future__ import annotations

import os

from .format_types import (FORMATS, FormatError, ReadOptions, ReadResult, UnknownFormatError, format_of,
                           read_error_types, write_error_types)
from .mjcf import read_mjcf
from .mjcf.writer import write_mjcf
from .urdf import is_xacro, read_urdf, read_xacro, write_urdf

__all__ = ["FORMATS", "FormatError", "ReadOptions", "ReadResult", "UnknownFormatError", "format_of",
           "read_error_types", "read_file", "write_error_types", "write_file"]


def read_file(path: str, options: ReadOptions | None = None) -> ReadResult:
    """Read ``path`` as its format; raises a :class:`FormatError` naming the file."""
    options = options or ReadOptions()
    if not os.path.isfile(path):
        raise FormatError(path, "no such file")
    kind = format_of(path)
    if kind == "urdf":
        if is_xacro(path):
            if not options.trust_xacro:
                raise FormatError(path, "a xacro file: it runs the Python expressions written in it, so "
                                        "it is expanded only with --trust-xacro (for files you trust)")
            return read_xacro(path, options.package_paths, options.arguments, options.floating_base)
        return read_urdf(path, package_paths=options.package_paths, floating_base=options.floating_base)
    if kind == "mjcf":
        return read_mjcf(path)
    from .usd.reader import read_usd  # here: the core stays importable where no USD library (pxr) is

    return read_usd(path)


def write_file(scene, path: str, layout: str = "NESTED") -> list[str]:
    """Write ``scene`` to ``path`` in the format its ending names; returns the warnings. Raises the
    writer's error, the old file left as it was."""
    kind = format_of(path)
    if kind == "urdf":
        if path.lower().endswith(".xacro"):
            raise FormatError(path, "xacro is read, never written: write .urdf")
        return write_urdf(scene, path)
    if kind == "mjcf":
        return write_mjcf(scene, path)
    from .usd.writer import write_usd  # here: the core stays importable where no USD library (pxr) is

    return write_usd(scene, path, layout=layout)
