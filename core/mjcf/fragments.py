"""MJCF files that are pieces of another model, and what to tell someone who opens one.

Model collections split robots into files that a scene file pulls in with ``<include file=...>``:
a ``<mujocoinclude>`` file, or a ``<mujoco>`` whose ``<body>`` elements stand at the top level
(gymnasium-robotics' ``fetch/robot.xml``, ``hand/robot.xml``), which MuJoCo compiles to an empty
world. Opened on their own they fail or hold no robot; the files that include them, found nearby,
are what the user meant to open.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET

_INCLUDE = re.compile(r"""<include\b[^>]*?\bfile\s*=\s*["']([^"']+)["']""")
#: Files looked at for includes of a fragment, at most (a model collection's folders are small).
_MOST_FILES = 200
#: Bytes of each file read: MJCF files are small, a huge one is no scene file.
_MOST_BYTES = 1 << 18


def is_include_file_error(message: str) -> bool:
    """MuJoCo refused a ``<mujocoinclude>`` root ("Unrecognized XML model type")."""
    return "mujocoinclude" in message


def has_top_level_bodies(path: str) -> bool:
    """The file's root holds ``<body>`` elements outside any ``<worldbody>`` (MuJoCo ignores them)."""
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError):
        return False
    return any(child.tag == "body" for child in root)


def _nearby_files(path: str) -> list[str]:
    """XML files in ``path``'s folder, the folder above and that folder's other subfolders."""
    folder = os.path.dirname(os.path.abspath(path))
    above = os.path.dirname(folder)
    folders = [folder, above] + sorted(
        os.path.join(above, name) for name in _listing(above)
        if os.path.isdir(os.path.join(above, name)) and os.path.join(above, name) != folder)
    found = []
    for each in folders:
        found += [os.path.join(each, name) for name in sorted(_listing(each))
                  if name.lower().endswith(".xml")]
        if len(found) >= _MOST_FILES:
            break
    return found[:_MOST_FILES]


def _listing(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def including_files(path: str) -> list[str]:
    """Files near ``path`` that include it (paths relative to ``path``'s folder)."""
    target = os.path.normcase(os.path.abspath(path))
    here = os.path.dirname(target)
    found = []
    for candidate in _nearby_files(path):
        if os.path.normcase(os.path.abspath(candidate)) == target:
            continue
        try:
            with open(candidate, encoding="utf-8", errors="replace") as f:
                text = f.read(_MOST_BYTES)
        except OSError:
            continue
        folder = os.path.dirname(candidate)
        if any(os.path.normcase(os.path.normpath(os.path.join(folder, name))) == target
               for name in _INCLUDE.findall(text)):
            found.append(os.path.relpath(candidate, here))
    return found


def fragment_advice(path: str) -> str:
    """What to open instead of the fragment ``path``."""
    includers = including_files(path)
    if not includers:
        return "open the file that includes it"
    return f"open a file that includes it ({_listed(includers)})"


def included_note(path: str) -> str:
    """For a file MuJoCo cannot compile: "" or, when files nearby include it, a note naming them."""
    includers = including_files(path)
    if not includers:
        return ""
    return (" (other files include this one as a piece of their model: open one of them, "
            f"{_listed(includers)})")


def _listed(names: list[str]) -> str:
    return ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
