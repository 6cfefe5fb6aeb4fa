"""A modal's status line reaches Blender only when its text changes (addon.status_line).

Blender has no getter for the status bar's text, so the workspace and area here record what they
are handed; the real workspace takes the same calls at the end."""

import bpy

from articula.addon.status_line import StatusLine


class Recorder:
    def __init__(self):
        self.texts = []

    def status_text_set(self, text):
        self.texts.append(text)

    def header_text_set(self, text):
        self.texts.append(text)


class Context:
    def __init__(self):
        self.workspace, self.area = Recorder(), Recorder()


def test_a_timer_repeating_the_same_text_sets_it_once():
    context, line = Context(), StatusLine(header=True)
    for text in ["Building: 1 s", "Building: 1 s", "Building: 1 s", "Building: 2 s", None, None]:
        line.show(context, text)
    assert context.workspace.texts == ["Building: 1 s", "Building: 2 s", None]
    assert context.area.texts == context.workspace.texts


def test_without_header_the_area_keeps_its_own():
    context, line = Context(), StatusLine()
    line.show(context, "Simulating")
    assert context.workspace.texts == ["Simulating"] and context.area.texts == []


def test_blenders_own_workspace_takes_the_texts():
    line = StatusLine(header=True)
    line.show(bpy.context, "Articula status line test")
    line.show(bpy.context, None)
    assert line.text is None
