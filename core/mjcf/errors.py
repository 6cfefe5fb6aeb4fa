"""The MJCF writer's error, below the writer and its extras (sensors, equalities, tendons) that raise it."""

from __future__ import annotations

from ..format_types import FormatError


class MjcfWriteError(FormatError):
    """An MJCF file that cannot be written (or that MuJoCo refuses to compile); ``problems`` lists why."""

    def __init__(self, file: str, problems: list[str]):
        self.problems = list(problems)
        super().__init__(file, "; ".join(self.problems))
