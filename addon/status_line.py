"""The text a modal operator shows in Blender's status bar while it runs."""

from __future__ import annotations

from typing import Optional


class StatusLine:
    """Hands the status bar (and, with ``header``, the operator's area header) a text only when it
    changes: a modal's timer ticks up to a hundred times a second, its text changes about once a
    second, and every set redraws the bar."""

    def __init__(self, header: bool = False):
        self.header = header
        self.text: Optional[str] = None

    def show(self, context, text: Optional[str]) -> None:
        """Show ``text``; None gives the bar back to Blender."""
        if text == self.text:
            return
        self.text = text
        workspace = getattr(context, "workspace", None)
        if workspace is not None:
            workspace.status_text_set(text)
        area = getattr(context, "area", None) if self.header else None
        if area is not None:
            area.header_text_set(text)
