"""``blender -c articula ...`` in real Blender (4.5 and 5.2): enabling Articula registers the command
with ``bpy.utils.register_cli_command``, disabling it removes it, and the registered handler converts
and checks robots with Blender's own pxr. (No Blender binary here: the handler is called as Blender
calls it, with the arguments after the command's name.)"""

import os

import bpy
import pytest

from articula.addon import cli_command
from articula.core.usd.reader import read_usd

PYBULLET_DATA = os.environ.get("ARTICULA_PYBULLET_DATA",
                               os.path.expanduser("~/.cache/articula/pybullet_data"))
R2D2 = os.path.join(PYBULLET_DATA, "r2d2.urdf")


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder


def test_enabling_registers_the_command_and_disabling_removes_it(articula_addon):
    handle = cli_command._handle
    assert type(handle).__name__ == "PyCapsule"  # what bpy.utils.register_cli_command returns
    cli_command.unregister()
    try:
        assert cli_command._handle is None
        with pytest.raises(ValueError, match="already been removed"):
            bpy.utils.unregister_cli_command(handle)  # Articula's unregister removed it from Blender
    finally:
        cli_command.register()
    assert cli_command._handle is not None


def test_the_command_converts_and_checks_with_blenders_usd(articula_addon, tmp_path, capsys):
    if not os.path.isfile(R2D2):
        pytest.skip("pybullet's files come with `make urdf-corpus`")
    target = tmp_path / "r2d2.usda"
    assert cli_command.execute(["convert", R2D2, str(target)]) == 0
    assert len(read_usd(str(target)).scene.bodies) == 16
    assert cli_command.execute(["check", str(target)]) == 0
    assert f"{target}: 16 bodies" in capsys.readouterr().out
    broken = tmp_path / "broken.urdf"
    broken.write_text("<robot name='broken'>")
    assert cli_command.execute(["convert", str(broken), str(tmp_path / "broken.usda")]) == 1
    assert f"error: file {broken}" in capsys.readouterr().err
    assert not (tmp_path / "broken.usda").exists()
    assert cli_command.execute(["convert", "--help"]) == 0
    assert "blender -c articula convert" in capsys.readouterr().out


def test_the_command_simulates_a_usd_robot_read_with_blenders_usd(articula_addon, tmp_path, capsys):
    """``blender -c articula simulate``: the robot read with Blender's pxr, stepped by MuJoCo."""
    from articula.core import samples
    from articula.core.usd.writer import write_usd

    robot = tmp_path / "pendulum.usda"
    write_usd(samples.pendulum(), str(robot))
    poses = tmp_path / "poses.csv"
    assert cli_command.execute(["simulate", str(robot), "--seconds", "0.5", "--poses", str(poses)]) == 0
    out = capsys.readouterr().out
    assert "on MUJOCO (cpu), 30 frames" in out and "pendulum_link" in poses.read_text().splitlines()[0]
    assert len(poses.read_text().splitlines()) == 32  # the header, the start and 30 frames
    assert cli_command.execute(["simulate", str(tmp_path / "missing.usda")]) == 1
    assert "missing.usda" in capsys.readouterr().err
