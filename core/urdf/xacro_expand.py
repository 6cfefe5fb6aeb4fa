"""Xacro -> URDF text, with the ``xacro`` package from PyPI (ROS's own), for files the user trusts.

Expanding xacro evaluates Python expressions written in the file (``${...}``), so it runs only when the
user says so (the importer's *Trust this file* checkbox). ROS resolves ``$(find pkg)`` through its
package index and ``$(env ...)`` through the environment; here neither is read:

- ``$(find pkg)`` resolves through the given package paths: a folder named ``pkg`` inside one of them,
  or one of them named ``pkg``; then, as for meshes, the xacro file's own folder and its parents.
- ``$(arg name)`` takes the given arguments, else the file's ``<xacro:arg default>``.
- ``$(env NAME)`` is an error naming the variable; ``$(optenv NAME default)`` gives its default.

A file that cannot be expanded (a missing argument, an unknown package, a broken expression, bad XML)
raises :class:`XacroError` naming the file and, where the text shows it, the line.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import xml.etree.ElementTree as ET

from ..files import parent_folders
from ..format_types import FormatError
from .reader import UrdfReadError, read_urdf
from .xacro_detect import XACRO_NAMESPACE, NamespaceRecorder, is_xacro, xacro_use  # noqa: F401 (re-export)

#: xacro keeps its state in module globals: one expansion at a time.
_LOCK = threading.Lock()


class XacroError(FormatError):
    """A xacro file that cannot be expanded: the message names the file and, where found, the line."""

    def __init__(self, file: str, line: int | None, message: str):
        super().__init__(file, message)
        self.line = line
        if line:
            self.args = (f"file {file}, line {line}: {message}",)


def parse_arguments(text: str) -> dict[str, str]:
    """``name:=value name2:=value2`` (ROS's syntax) -> a dict; raises ValueError on a word without ``:=``."""
    found = {}
    for word in text.split():
        name, separator, value = word.partition(":=")
        if not separator or not name:
            raise ValueError(f"argument {word!r} is not name:=value")
        found[name] = value
    return found


def find_package(name: str, package_paths, start_file: str | None = None) -> str | None:
    """The folder of package ``name``: ``<path>/<name>`` or a path called ``name``, for each package
    path, then the xacro file's folder and its parents (a package holding its own ``urdf`` folder)."""
    bases = [os.path.abspath(p) for p in package_paths]
    if start_file:
        folder = os.path.dirname(os.path.abspath(start_file))
        while True:
            bases.append(folder)
            if os.path.dirname(folder) == folder:
                break
            folder = os.path.dirname(folder)
    for base in bases:
        if os.path.basename(base) == name and os.path.isdir(base):
            return base
        candidate = os.path.join(base, name)
        if os.path.isdir(candidate):
            return candidate
    return None


def expand_xacro(path: str, package_paths=(), arguments: dict[str, str] | None = None) -> str:
    """The URDF text of xacro file ``path``; raises :class:`XacroError` when it cannot be expanded."""
    import xml.parsers.expat

    import xacro
    from xacro import substitution_args

    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise XacroError(path, None, "no such file")
    with _LOCK, _sandboxed(xacro, substitution_args, package_paths, path):
        try:
            document = xacro.process_file(path, mappings=dict(arguments or {}))
            return document.toprettyxml(indent="  ")
        except xml.parsers.expat.ExpatError as error:
            file = _current_file(xacro, path)
            raise XacroError(file, getattr(error, "lineno", None), f"not valid XML ({error})") from None
        except Exception as error:  # xacro's own and the expressions' errors
            file = _current_file(xacro, path)
            suffix = getattr(error, "suffix", None)  # "when evaluating expression '...'"
            while isinstance(getattr(error, "exc", None), Exception):  # xacro wraps the cause
                error = error.exc
            message = " ".join(f"{error} {suffix or ''}".split()) or type(error).__name__
            missing = re.fullmatch(r"Undefined substitution argument (\S+)", message)
            if isinstance(error, substitution_args.ArgException) or missing:
                name = missing.group(1) if missing else str(error)
                message = f"argument {name} is not given and has no default (Arguments: {name}:=value)"
                needle = f"$(arg {name})"
            else:
                needle = _needle(message)
            # A macro's body fails where it is called: the text is in the file that defines it.
            files = [file, *[os.path.abspath(f) for f in getattr(xacro, "all_includes", [])], path]
            line = None
            for candidate in files:
                line = _line_of(candidate, needle)
                if line is not None:
                    file = candidate
                    break
            raise XacroError(file, line, message) from None


@contextlib.contextmanager
def _sandboxed(xacro, substitution_args, package_paths, path: str):
    """xacro's ``find``, ``env`` and ``optenv`` replaced by ones that read no environment, for this call."""
    Error = substitution_args.SubstitutionException

    def find(name):
        found = find_package(name, package_paths, _current_file(xacro, path))
        if found is None:
            raise Error(f"package {name} not found: add its folder (or the folder holding it) to Package "
                        f"Paths [$(find {name})]")
        return found

    def env(name):
        raise Error(f"$(env {name}): Articula reads no environment variable; give the value as an argument")

    def optenv(name, default=""):
        return default

    names = ("_eval_find", "_eval_env", "_eval_optenv")
    saved = {n: getattr(substitution_args, n) for n in names}
    saved_dict = {k: substitution_args._eval_dict[k] for k in ("find", "env", "optenv")}
    saved_root = getattr(xacro, "root_dir", None)
    for n, f in zip(names, (find, env, optenv)):
        setattr(substitution_args, n, f)
    substitution_args._eval_dict.update(find=find, env=env, optenv=optenv)
    xacro.root_dir = os.path.dirname(path)
    xacro.all_includes = []  # the files this expansion includes (xacro only ever appends)
    try:
        yield
    finally:
        for n, f in saved.items():
            setattr(substitution_args, n, f)
        substitution_args._eval_dict.update(saved_dict)
        xacro.root_dir = saved_root
        xacro.substitution_args_context["arg"] = {}


def _current_file(xacro, fallback: str) -> str:
    """The file xacro was reading when it failed (an included one, maybe)."""
    stack = [f for f in (getattr(xacro, "filestack", None) or []) if f]
    return os.path.abspath(stack[-1]) if stack else fallback


def _needle(message: str) -> str | None:
    """The text of the file an error message quotes: ``$(find pkg)``, a ``${...}`` expression, a name."""
    for pattern in (r"\[(\$\([^\]]+\))\]", r"(\$\([^)]*\))", r"(\$\{[^}]*\})", r"\[([^\]]+)\]", r"'([^']+)'",
                    r'"([^"]+)"'):
        match = re.search(pattern, message)
        if match:
            return match.group(1)
    return None


def _line_of(file: str, needle: str | None) -> int | None:
    if not needle:
        return None
    try:
        with open(file, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, start=1):
                if needle in line:
                    return number
    except OSError:
        pass
    return None


def read_xacro(path: str, package_paths=(), arguments: dict[str, str] | None = None,
               floating_base: bool = False):
    """Expand xacro file ``path`` and read the URDF it gives (core.urdf.read_urdf); raises
    :class:`XacroError` or ``UrdfReadError``, both naming ``path``.

    The URDF text is read from a temporary folder; mesh paths relative to the xacro file are made
    absolute first, and ``package://`` meshes are searched in the package paths, then the xacro
    file's folder and its parents."""
    import tempfile
    import xml.etree.ElementTree as ET

    path = os.path.abspath(path)
    text = expand_xacro(path, package_paths, arguments)
    folder = os.path.dirname(path)
    try:
        root = ET.fromstring(text)
    except ET.ParseError as error:
        raise XacroError(path, None, f"the expanded URDF is not valid XML ({error})") from None
    for mesh in root.iter("mesh"):
        name = mesh.get("filename", "")
        if name and "://" not in name and not os.path.isabs(name):
            mesh.set("filename", os.path.join(folder, name))
    stem = os.path.basename(path)
    stem = stem[: -len(".xacro")] if stem.lower().endswith(".xacro") else os.path.splitext(stem)[0]
    searched = [*package_paths, folder]
    with tempfile.TemporaryDirectory(prefix="articula-xacro-") as scratch:
        expanded = os.path.join(scratch, stem if stem.lower().endswith(".urdf") else stem + ".urdf")
        with open(expanded, "w", encoding="utf-8") as f:
            f.write(ET.tostring(root, encoding="unicode"))
        try:
            return read_urdf(expanded, package_paths=searched + parent_folders(folder),
                             floating_base=floating_base)
        except UrdfReadError as error:
            raise UrdfReadError(path, f"{error.message} (in the URDF it expands to)") from None
