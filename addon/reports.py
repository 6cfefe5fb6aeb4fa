"""Messages a user reads in Blender's reports: one severity each (Blender's report type carries
it), the object named, no second severity word inside the text."""

from __future__ import annotations

import re

_SEVERITY_PREFIX = re.compile(r"^\s*(?:(?:ERROR|WARNING|INFO|Error|Warning|Info)\s*:\s*)+")


def problem_text(problem) -> str:
    """A validation problem as '<object>: <message>' (its severity goes in the report type)."""
    return f"{problem.subject}: {problem.message}" if problem.subject else problem.message


def report_type(severity: str) -> set:
    """Blender's report type for a problem's severity."""
    return {"ERROR"} if severity == "ERROR" else {"WARNING"}


def plain(text) -> str:
    """``text`` without leading severity words ('ERROR: ', 'Error: WARNING: ')."""
    return _SEVERITY_PREFIX.sub("", str(text))
