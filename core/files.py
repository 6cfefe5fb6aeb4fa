"""File-system helpers every reader and writer shares."""

import os


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
