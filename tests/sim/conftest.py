"""Simulation tier: plain Python with Newton and Warp on the CPU, never bpy."""

import pytest


@pytest.fixture
def mjcf_text(tmp_path, monkeypatch):
    """MJCF text written into the test's folder (where MuJoCo writes its log) and read:
    ``mjcf_text(XML, "robot.xml")`` -> (the description, the file's path)."""
    from articula.core.mjcf.reader import read_mjcf

    monkeypatch.chdir(tmp_path)

    def read(text: str, name: str):
        path = tmp_path / name
        path.write_text(text)
        return read_mjcf(str(path)).scene, str(path)

    return read
