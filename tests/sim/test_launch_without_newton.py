"""Where MuJoCo's C library does all the stepping, a process never imports Newton or Warp (seconds at its
first simulation): ``start_simulation``, the sensors, ``articula simulate``, the kernel check Blender's
Simulate and Bake make. Newton's solvers still start through the same call."""

import subprocess
import sys

import pytest

MUJOCO_ONLY = """
import sys
from articula.core import samples
from articula.sim.launch import start_simulation
from articula.sim.kernel_build import KernelBuild
from articula.sim.sensors import SensorReader

scene = samples.pendulum()
assert KernelBuild.start("MUJOCO", "auto", 1) is None
sim = start_simulation(scene, device="auto", solver="MUJOCO")
sim.advance(0.5)
SensorReader.of(sim).read()
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
