"""Built robots kept for the next simulation of the same robot (CPU, the MUJOCO solver).

On the MuJoCo path (:mod:`sim.mujoco_spec`) a simulation's robot is the MJCF export compiled by MuJoCo
(a ``core.mjcf.writer.BuiltSpec``); on Newton's conversion (``mujoco_direct=False``, one world) it is
Newton's model and its ``SolverMuJoCo``, which converts the model to MuJoCo, compiles it and also lays
it out for MuJoCo Warp: about thirty times MuJoCo's own compile of the same robot. A second bake of an
unchanged robot needs none of it again. When a :class:`sim.simulation.Simulation` ends
(:meth:`Simulation.close`, called by Blender's bake and live simulation when they end), its built robot
comes here, under a fingerprint of everything it was built from (the description with its settings,
MuJoCo's options among them, solver, device, step and iterations); the next simulation with the same
fingerprint takes it out (a compiled export gets a fresh ``MjData``; Newton's solver has MuJoCo's data
reset, ``mj_resetData``, then Newton's start state pushed), and starts in about MuJoCo's compile time
or less.

One simulation holds a robot at a time: taking an entry removes it, so a live simulation and a
bake of the same robot at once build their own. A few entries are kept, least recently used
dropped first.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import io
import operator
import pickle
import threading
from collections import OrderedDict
from typing import Any, Optional


#: Built robots kept (each holds a Newton model and a compiled MuJoCo model of it).
CAPACITY = 4


class CachedBuild:  # not a dataclass: generating its methods takes about a millisecond at a first Bake
    __slots__ = ("built", "solver")

    def __init__(self, built: Any, solver: Any):
        self.built = built  # sim.builder.BuiltModel, or core.mjcf.writer.BuiltSpec
        self.solver = solver  # newton.solvers.SolverMuJoCo(use_mujoco_cpu=True); None for a BuiltSpec


_entries: "OrderedDict[str, CachedBuild]" = OrderedDict()
_handed_out: dict[int, Any] = {}  # id(Newton model) -> its solver, until the simulation takes it
_lock = threading.Lock()  # a bake steps (and may end) on a worker thread


def fingerprint(scene, solver, device: str, dt: float, iterations: int) -> Optional[str]:
    """A digest of everything a built model and its solver depend on, or None when the description
    holds something that cannot be pickled (then nothing is cached). Every field of the description's
    dataclasses goes in (meshes included), so any change to any property changes the digest; what a
    dataclass keeps besides its fields (lookup caches) does not."""
    import mujoco

    try:
        data = _fields(scene)
    except Exception:  # noqa: BLE001 - anything unpicklable is simply not cached
        return None
    digest = hashlib.blake2b(data, digest_size=20)
    versions = (mujoco.__version__, _newton_version(solver))
    digest.update(repr((getattr(solver, "value", solver), device, float(dt).hex(), int(iterations),
                        versions)).encode())
    return digest.hexdigest()


def _newton_version(solver) -> str:
    """Newton's version where Newton builds the model; "" for MuJoCo's C library on the MJCF export,
    which Newton never touches (so that path never imports it)."""
    if solver == "MUJOCO-MJCF":
        return ""
    import newton

    return newton.__version__


class _Reducers(dict):
    """The pickler's dispatch table, filled per class on first sight: a dataclass reduces to its class
    name and field values (read at once by an ``attrgetter``), an enum member and an enum class as pickle
    itself writes them; any other class is left to pickle (KeyError). Only the few classes it meets
    call back into Python: about twice as fast as a ``reducer_override``, which pickle calls for every
    tuple, list and string too, and the same bytes."""

    def __init__(self):
        super().__init__()
        self._plain: set = set()

    def __missing__(self, cls):
        if cls in self._plain:
            raise KeyError(cls)
        if dataclasses.is_dataclass(cls):
            reducer = _dataclass_reducer(cls)
        elif issubclass(cls, enum.EnumType):  # an enum class (a global) is written by its name
            reducer = operator.attrgetter("__qualname__")
        elif issubclass(cls, enum.Enum):
            reducer = _enum_member
        else:
            self._plain.add(cls)
            raise KeyError(cls)
        self[cls] = reducer
        return reducer


def _dataclass_reducer(cls):
    name, names = cls.__qualname__, [f.name for f in dataclasses.fields(cls)]
    values = operator.attrgetter(*names) if len(names) > 1 \
        else lambda obj: tuple(getattr(obj, n) for n in names)
    return lambda obj: (_named, (name, values(obj)))


def _enum_member(member):
    return type(member), (member._value_,)


class _FieldPickler(pickle.Pickler):
    """Pickles a dataclass as its class name and field values only, and without the memo (equal
    descriptions give equal bytes whether or not they share objects)."""

    dispatch_table = _Reducers()


def _named(name, fields):  # the reconstructor _FieldPickler names (never called: nothing is unpickled)
    return name, fields


def _fields(scene) -> bytes:
    buffer = io.BytesIO()
    pickler = _FieldPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True  # no memo: no back-references that depend on object identity
    pickler.dump(scene)
    return buffer.getvalue()


def cacheable(solver) -> bool:
    """Only MuJoCo's C library for one world: its whole state is MjData, which resets completely."""
    return bool(getattr(solver, "use_mujoco_cpu", False)) and getattr(solver, "mj_data", None) is not None \
        and solver.model.world_count <= 1


def take_spec(key: Optional[str]) -> Optional[Any]:
    """The compiled MJCF export (``core.mjcf.writer.BuiltSpec``) kept under ``key``, removed from the
    cache, or None. Its ``MjModel`` is never written by a run (each run makes its own ``MjData``)."""
    if key is None:
        return None
    with _lock:
        entry = _entries.pop(key, None)
    return entry.built if entry is not None else None


def give_back_spec(key: Optional[str], built) -> bool:
    """Keep a simulation's compiled MJCF export under ``key`` for the next simulation (True when kept)."""
    if key is None:
        return False
    with _lock:
        _entries[key] = CachedBuild(built, None)
        _entries.move_to_end(key)
        while len(_entries) > CAPACITY:
            _entries.popitem(last=False)
    return True


def take(key: Optional[str]) -> Optional[CachedBuild]:
    """The entry built under ``key``, removed from the cache and reset, or None (the caller builds)."""
    if key is None:
        return None
    _memoize_version_check()
    with _lock:
        entry = _entries.pop(key, None)
    if entry is None:
        return None
    reset(entry.solver)
    with _lock:
        _handed_out[id(entry.built.model)] = entry.solver
    return entry


def solver_for(model) -> Optional[Any]:
    """The solver :func:`take` handed out with ``model`` (once), or None: a simulation whose model
    came from the cache gets its solver here instead of building one."""
    with _lock:
        return _handed_out.pop(id(model), None)


def give_back(key: Optional[str], built, solver) -> bool:
    """Keep ``built`` and ``solver`` under ``key`` for the next simulation (True when kept)."""
    if key is None or not cacheable(solver):
        return False
    with _lock:
        _handed_out.pop(id(built.model), None)
        _entries[key] = CachedBuild(built, solver)
        _entries.move_to_end(key)
        while len(_entries) > CAPACITY:
            _entries.popitem(last=False)
    return True


def clear() -> None:
    with _lock:
        _entries.clear()
        _handed_out.clear()


def size() -> int:
    with _lock:
        return len(_entries)


@functools.lru_cache(maxsize=1)
def _memoize_version_check() -> None:
    """MuJoCo Warp checks the installed ``mujoco`` package's version on every ``put_model``, which
    ``SolverMuJoCo`` calls even for MuJoCo's C library, by parsing the package metadata (~3 ms a
    build on the idle machine): the answer cannot change while Blender runs, so it is asked once."""
    try:
        from mujoco_warp._src import util_pkg
    except ImportError:
        return
    if not hasattr(util_pkg.check_version, "cache_info"):
        util_pkg.check_version = functools.lru_cache(maxsize=None)(util_pkg.check_version)


def reset(solver) -> None:
    """MjData as a fresh solver leaves it: ``mj_resetData`` (positions, velocities, controls,
    applied forces, activations, warm start, warnings, time, constraint activity), then Newton's
    start state (``model.joint_q``/``joint_qd``, mocap roots) pushed as its constructor does. The
    compiled model is left as it is: the only field a run writes, the reference pose of the welds
    holding kinematic roots, is set again before every step on either path."""
    import mujoco

    m, d = solver.mj_model, solver.mj_data
    mujoco.mj_resetData(m, d)
    solver._update_mjc_data(d, solver.model, None)
    solver._step = 0
