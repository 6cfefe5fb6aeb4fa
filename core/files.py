"""File-system helpers every reader and writer shares: nothing half-written, permissions kept."""

import os
import shutil
import tempfile
from typing import Callable


def replaced_file_mode(path: str) -> int:
    """The permissions of the file about to be replaced, else what a plain ``open()`` would give
    (a temporary file from ``mkstemp`` is 0600, which a rename would otherwise keep)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def parent_folders(folder: str) -> list[str]:
    """Every folder above ``folder``, nearest first (where ROS packages are looked for)."""
    found = []
    while os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
        found.append(folder)
    return found


def replace_atomically(path: str, write: Callable[[str], None]) -> None:
    """``write(temporary)`` writes the new file to a temporary sibling of ``path``, which then
    replaces ``path`` (keeping its permissions); when ``write`` raises, ``path`` is untouched and
    the temporary file gone."""
    path = os.path.abspath(path)
    folder, name = os.path.split(path)
    fd, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=os.path.splitext(name)[1], dir=folder)
    os.close(fd)
    try:
        write(temporary)
        os.chmod(temporary, replaced_file_mode(path))
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def write_files_atomically(path: str, files: dict[str, bytes]) -> None:
    """Write ``files`` (path relative to ``path``'s folder -> bytes) to temporary names in that
    folder, then rename each into place in order (put ``path`` itself last); a failure before the
    renames leaves the old files and no temporary ones. Raises OSError."""
    folder = os.path.dirname(os.path.abspath(path))
    staging = tempfile.mkdtemp(prefix=f".{os.path.basename(path)}.", dir=folder)
    try:
        staged = []
        for relative, data in files.items():
            temporary = os.path.join(staging, relative)
            os.makedirs(os.path.dirname(temporary), exist_ok=True)
            with open(temporary, "wb") as f:
                f.write(data)
            staged.append((temporary, os.path.join(folder, relative)))
        mode = replaced_file_mode(path)
        for temporary, final in staged:
            os.makedirs(os.path.dirname(final), exist_ok=True)
            os.chmod(temporary, mode)
            os.replace(temporary, final)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
