"""Where MuJoCo's C library does all the stepping, a process never imports Newton or Warp (seconds at its
first simulation): ``start_simulation``, the sensors, grabbing and pushing, the pose write-back,
``articula simulate``, the kernel check Blender's Simulate and Bake make (Blender's own run:
``tests/blender/test_mujoco_without_warp.py``). Newton's solvers still start through the same call."""

import subprocess
import sys

import pytest

MUJOCO_ONLY = """
import sys
from articula.core import samples
from articula.sim.launch import start_simulation
from articula.sim.kernel_build import KernelBuild
from articula.sim.sensors import SensorReader
from articula.sim.picking import GRABBED, Grab, push
from articula.sim.poses import Frames, LocalPoses
import numpy as np

scene = samples.pendulum()
assert KernelBuild.start("MUJOCO", "auto", 1) is None
sim = start_simulation(scene, device="auto", solver="MUJOCO")
grab = Grab(sim)  # Simulate's Ctrl+drag and Shift+click: MuJoCo's mj_ray and Jacobians
assert grab.pick((0.5, 0.0, 3.0), (0.0, 0.0, -1.0)).kind == GRABBED  # the bob, at rest
sim.advance(0.5)
grab.release()
SensorReader.of(sim).read()
push(sim, 0, (0.5, 0.0, 1.0), (1.0, 0.0, 0.0))
poses = sim.body_poses()  # the write-back's world -> parent-relative poses
LocalPoses(Frames(np.array([-1]), np.zeros((1, 3)), np.array([[1.0, 0, 0, 0]]), np.ones(1)), [0])(poses)
assert type(sim).__name__ == "MuJoCoSimulation", type(sim)
print("newton" in sys.modules, "warp" in sys.modules)
"""


def run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_mujoco_on_the_cpu_imports_neither_newton_nor_warp():
    assert run(MUJOCO_ONLY) == "False False"


def test_the_command_simulates_on_mujoco_without_newton(tmp_path):
    from articula.core import samples
    from articula.core.usd.writer import write_usd

    robot = tmp_path / "pendulum.usda"
    write_usd(samples.pendulum(), str(robot))
    code = ("import sys\nfrom articula.sim.cli import main\n"
            f"assert main(['simulate', {str(robot)!r}, '--seconds', '0.2']) == 0\n"
            "print('newton' in sys.modules, 'warp' in sys.modules)")
    assert run(code).splitlines()[-1] == "False False"


@pytest.mark.parametrize("solver", ["XPBD", "MUJOCO_NEWTON"])
def test_newtons_solvers_start_through_the_same_call(solver):
    from articula.core import samples
    from articula.sim.launch import start_simulation
    from articula.sim.simulation import Simulation

    options = {"mujoco_direct": False} if solver == "MUJOCO_NEWTON" else {}
    sim = start_simulation(samples.pendulum(), device="cpu", solver=solver.split("_")[0], **options)
    assert isinstance(sim, Simulation)
    sim.advance(0.1)
