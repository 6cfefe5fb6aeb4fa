"""Errors of the USD reader and writer: each names the file, prim and attribute involved."""

from __future__ import annotations

from typing import Optional

from ..format_types import FormatError


class UsdReadError(FormatError):
    """A stage that cannot become a physics description. Nothing was imported."""

    def __init__(self, file: Optional[str], prim: Optional[str], attribute: Optional[str], message: str):
        self.prim = prim
        self.attribute = attribute
        super().__init__(file, message)

    def __str__(self) -> str:
        where = [part for part in (
            self.file and f"file {self.file}",
            self.prim and f"prim {self.prim}",
            self.attribute and f"attribute {self.attribute}",
        ) if part]
        return f"{', '.join(where)}: {self.message}" if where else self.message


class UsdWriteError(FormatError):
    """A scene that cannot be exported; ``problems`` lists each reason. No file was written."""

    def __init__(self, path: Optional[str], problems: list[str]):
        self.path = path
        self.problems = list(problems)
        target = f" {path}" if path else ""
        super().__init__(path, f"cannot export{target}:\n  " + "\n  ".join(self.problems))

    def __str__(self) -> str:
        return self.message  # names the file already
