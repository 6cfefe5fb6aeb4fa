"""Each solver's sensor reader loads when first used: a MuJoCo simulation reads its sensors without
compiling Newton's reader (its module's first import is a good part of a first Bake's time), and the
readers' names stay importable from ``sim.sensors``."""

import subprocess
import sys

MUJOCO_READINGS = """
import sys
from articula.core.mjcf.reader import read_mjcf
from articula.sim.launch import start_simulation
from articula.sim.sensors import SensorReader

with open(sys.argv[1], "w") as f:
    f.write('''<mujoco><worldbody><body name="ball" pos="0 0 1"><freejoint/>
  <geom type="sphere" size="0.1" mass="1"/><site name="imu"/></body></worldbody>
  <sensor><accelerometer name="acc" site="imu"/></sensor></mujoco>''')
scene = read_mjcf(sys.argv[1]).scene
sim = start_simulation(scene, solver="MUJOCO")
sim.advance(0.1)
reader = SensorReader.of(sim)
print(type(reader).__name__, sorted(reader.read()), "articula.sim.sensors_newton" in sys.modules)
"""


def test_a_mujoco_simulation_reads_its_sensors_without_newtons_reader(tmp_path):
    robot = str(tmp_path / "ball.xml")
    done = subprocess.run([sys.executable, "-c", MUJOCO_READINGS, robot], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["MuJoCoSensorReader", "['acc']", "False"]


def test_the_readers_are_named_from_the_sensors_module():
    from articula.sim import sensors
    from articula.sim.sensors_mujoco import MuJoCoSensorReader
    from articula.sim.sensors_newton import NewtonSensorReader

    assert sensors.MuJoCoSensorReader is MuJoCoSensorReader
    assert sensors.NewtonSensorReader is NewtonSensorReader
    assert set(sensors.__all__) <= set(dir(sensors)) | {"MuJoCoSensorReader", "NewtonSensorReader"}


def test_a_simulation_of_newtons_solvers_loads_newtons_reader():
    code = ("import sys\nfrom articula.sim.sensors import SensorReader\n"
            "loaded = lambda: 'articula.sim.sensors_newton' in sys.modules\n"
            "before = loaded()\n"
            "for load in SensorReader.loaders:\n    load(object())  # no MuJoCo model: Newton's\n"
            "print(before, loaded(), [k.__name__ for k in SensorReader.kinds])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False True ['NewtonSensorReader']"
