"""Core tier: plain Python with usd-core; bpy must never be imported here."""

import sys

import pytest


@pytest.fixture(autouse=True, scope="session")
def _no_bpy():
    yield
    assert "bpy" not in sys.modules, "a core test imported bpy"
