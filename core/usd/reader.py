"""USD stage -> physics description, from any UsdPhysics producer.

World transforms first: every prim's world matrix is brought
to Z-up meters, each body keeps its rigid pose, and scale moves onto its colliders and visuals.
Joint frames are computed from both bodies' sides. Per-DOF properties are read from every
dialect :mod:`.dialect` knows. Anything unreadable raises :class:`UsdReadError` naming the file,
prim and attribute; unknown attributes are ignored.
"""

from __future__ import annotations

import math
import re
import os
from functools import lru_cache
from typing import Optional, Union

import numpy as np
from pxr import Gf, Sdf, Tf, Usd, UsdGeom, UsdPhysics, UsdShade

from . import dialect as D
from . import physics_parse
from .actuation import ActuationReader
from .errors import UsdReadError
from .height_fields import read_height_field
from .isaac import is_generated_material, read_robot_schema
from .mujoco_model import (JOINT_MARGIN, JOINT_SOLIMP_LIMIT, JOINT_SOLREF_LIMIT, JOINT_SPRINGREF,
                           MujocoModelReader)
from ..articulation import infer_parents
from ..collision import should_collide
from ..format_types import ReadResult
from ..mass import MassError, mass_properties, shape_volume
from ..model import (
    DEFAULT_SOLIMP, DEFAULT_SOLREF, INF, Body, Dof, DofAxis, DofMotion, Joint, JointType, MassProperties,
    MeshData, PhysicsMaterial, PhysicsScene, Pose, SceneSettings, Shape, ShapeKind, Solver, Visual,
    dof_axes_for,
)
from ..transforms import pose_inverse, pose_mul, quat_from_matrix, quat_mul, quat_normalize

_SCALE_TOLERANCE = 1e-5
_Y_UP_TO_Z_UP = Gf.Matrix4d().SetRotate(Gf.Rotation(Gf.Vec3d(1.0, 0.0, 0.0), 90.0))
_API_NAMES: dict[type, str] = {}  # API schema class -> its applied-schema name
_NOT_AUTHORED = object()
_BLOCKS = tuple(getattr(Sdf, name) for name in ("ValueBlock", "AnimationBlock") if hasattr(Sdf, name))
_VEC3_TYPES = frozenset((Gf.Vec3f, Gf.Vec3d, Gf.Vec3h))
_PLAIN_KINDS = {"int": int, "bool": bool, "token": str}
_QUAT_TYPES = frozenset((Gf.Quatf, Gf.Quatd, Gf.Quath))
_UNAUTHORED_VELOCITY = (0.0, 0.0, 0.0)  # asked for by identity: a velocity not authored


PARSERS = ("auto", "usd", "python")


def read_usd(source: Union[str, os.PathLike, Usd.Stage], renest: bool = True,
             parser: str = "auto") -> ReadResult:
    """Read a file path or an open stage. ``renest``: give flat bodies parents from the joints.

    ``parser``: "usd" takes the bodies and joints from USD's own C++ UsdPhysics parse (USD 25.08+)
    and reads in Python only what it does not carry; "python" walks the stage in Python alone (all
    USD versions). Both give the same description (tests/core/test_usd_parse_parity.py). A stage
    the C++ parse complains about, or that the parse path refuses, is read by the Python reader, so
    bad input gets its errors naming prim and attribute. "auto" is the faster of the two, measured
    (bench/bench_usd_import.py): "python", since the parse and its Python descriptors cost more than
    the reading they spare (the dialect attributes, transforms, colliders, visuals and masses are
    read in Python either way)."""
    if parser not in PARSERS:
        raise ValueError(f"parser must be one of {PARSERS}, not {parser!r}")
    stage, file = _open(source)
    try:
        if parser == "usd" and physics_parse.available():
            parsed = physics_parse.parse_physics(stage)
            if not parsed.diagnostics:
                try:
                    return _ParsedStageReader(stage, file, renest, parsed).read()
                except UsdReadError:
                    pass  # the Python reader below gives the same error, or reads what the fast path refused
        elif parser == "usd":
            raise RuntimeError("this USD has no C++ UsdPhysics parse (USD 25.08 or later); "
                               "use parser='python'")
        return _StageReader(stage, file, renest).read()
    except UsdReadError:
        raise
    except Tf.ErrorException as error:
        raise UsdReadError(file, None, None,
                           f"USD failed while reading: {readable_usd_error(error)}") from error


def _open(source) -> tuple[Usd.Stage, Optional[str]]:
    if isinstance(source, Usd.Stage):
        layer = source.GetRootLayer()
        return source, layer.realPath or layer.identifier
    file = os.fspath(source)
    if not os.path.isfile(file):
        raise UsdReadError(file, None, None, "no such file")
    try:
        stage = Usd.Stage.Open(file, Usd.Stage.LoadAll)
    except Tf.ErrorException as error:
        raise UsdReadError(file, None, None, f"not a readable USD file ({_first_line(error)})") from error
    if stage is None:
        raise UsdReadError(file, None, None, "not a readable USD file")
    return stage, file


_CPP_LOCATION = re.compile(r"Error in '[^']*' at line \d+ in file [^:]*:\s*")
_CPP_NAMESPACE = re.compile(r"\bpxr\w*__pxrReserved__::")


def readable_usd_error(error: Exception) -> str:
    """USD's exception text without C++ source locations and namespaces, one line."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    text = lines[-1] if lines else type(error).__name__
    text = _CPP_NAMESPACE.sub("", _CPP_LOCATION.sub("", text)).strip()
    if len(text) > 1 and text[0] == text[-1] == "'":
        text = text[1:-1]
    return text or type(error).__name__


_first_line = readable_usd_error


def _api_name(schema: type) -> str:
    """An API schema class's applied-schema name."""
    name = _API_NAMES.get(schema)
    if name is None:
        name = _API_NAMES[schema] = Usd.SchemaRegistry.GetSchemaTypeName(schema)
    return name


# ------------------------------------------------------------------------------------ matrix helpers
def _decompose(matrix: Gf.Matrix4d) -> tuple[Pose, tuple[float, float, float]]:
    """A row-vector world matrix -> (rigid pose, scale per local axis); negative scale on X."""
    a, b, c, _, d, e, f, _, g, h, i, _, tx, ty, tz, _ = _plain(matrix)
    sx, sy, sz = (math.sqrt(a * a + b * b + c * c), math.sqrt(d * d + e * e + f * f),
                  math.sqrt(g * g + h * h + i * i))
    if min(sx, sy, sz) <= 0.0:
        raise ValueError("degenerate transform (zero scale)")
    kx, ky, kz = 1.0 / sx, 1.0 / sy, 1.0 / sz
    ux, uy, uz = a * kx, b * kx, c * kx
    vx, vy, vz = d * ky, e * ky, f * ky
    wx, wy, wz = g * kz, h * kz, i * kz
    if (uy * vz - uz * vy) * wx + (uz * vx - ux * vz) * wy + (ux * vy - uy * vx) * wz < 0.0:
        ux, uy, uz, sx = -ux, -uy, -uz, -sx
    # Row i (u, v, w) is the image of local axis i: the column-vector matrix is its transpose.
    rotation = quat_from_matrix(((ux, vx, wx), (uy, vy, wy), (uz, vz, wz)))
    return Pose(pos=(tx, ty, tz), rot=rotation), (sx, sy, sz)


def _plain(value) -> list:
    """A Gf vector or matrix, or a Vt array, as a flat list of Python numbers: one buffer copy
    instead of Python iteration, which costs a C++ exception at the end of every Gf/Vt object."""
    return np.asarray(value).ravel().tolist()


def _pose_matrix(pose: Pose) -> Gf.Matrix4d:
    m = Gf.Matrix4d().SetRotate(Gf.Quatd(*pose.rot))
    m.SetTranslateOnly(Gf.Vec3d(*pose.pos))
    return m


def _flat_floats(value) -> list[float]:
    """The numbers of an xformOp value (scalar, vector, quaternion or matrix)."""
    if value is None:
        return []
    if isinstance(value, (int, float)):
        return [float(value)]
    if isinstance(value, (Gf.Quatd, Gf.Quatf, Gf.Quath)):
        return [float(value.GetReal()), *(float(v) for v in value.GetImaginary())]
    numbers: list[float] = []
    for item in value:
        numbers.extend(_flat_floats(item))
    return numbers


def _uniform(scale) -> bool:
    a = [abs(s) for s in scale]
    return max(a) - min(a) <= _SCALE_TOLERANCE * max(a)


def _triangulate(counts, indices) -> list[tuple[int, int, int]]:
    if counts.count(3) == len(counts):  # already triangles (what most producers write)
        return list(zip(indices[0::3], indices[1::3], indices[2::3]))
    triangles, start = [], 0
    for count in counts:
        for k in range(1, count - 1):
            triangles.append((indices[start], indices[start + k], indices[start + k + 1]))
        start += count
    return triangles


# ----------------------------------------------------------------------------------------- reader
class _StageReader:
    def __init__(self, stage: Usd.Stage, file: Optional[str], renest: bool):
        self.stage, self.file, self.renest = stage, file, renest
        self.warnings: list[str] = []
        self.paths: dict[str, str] = {}
        self.xforms = UsdGeom.XformCache(Usd.TimeCode.Default())
        self.to_meters_z_up = self._stage_conversion()
        self.scene = PhysicsScene()
        self.body_prims: dict[str, Usd.Prim] = {}  # body name -> prim
        self.body_by_path: dict[Sdf.Path, Body] = {}
        self.body_scale: dict[str, tuple] = {}
        self.mjc_angle_scale = math.pi / 180.0  # MuJoCo's compiler default: degrees
        self._worldless_bodies: set[str] = set()  # bodies with no world attribute of their own
        self._collider_worlds: dict[str, list[Shape]] = {}  # body -> its colliders with a world
        self._collider_masses: list[tuple[Shape, Usd.Prim, float]] = []  # colliders' own masses (kg)
        self._worldless_shapes: dict[str, list[Shape]] = {}  # body -> its colliders without one
        self.materials_by_path: dict[Sdf.Path, str] = {}
        self.shape_prims: dict[str, Usd.Prim] = {}
        self.used_names: dict[str, set[str]] = {}
        self.root_layer = stage.GetRootLayer()
        self._properties: dict[Usd.Prim, tuple] = {}  # prim -> (its attribute specs or None, authored names)
        self._applied: dict[Usd.Prim, frozenset] = {}
        self._all_prims, self._type_names, self._applied_list = None, [], []  # see _index
        self._is_a: dict[tuple[str, type], bool] = {}
        self._world: dict[Usd.Prim, Gf.Matrix4d] = {}
        self._poses: dict[Usd.Prim, tuple[Pose, tuple]] = {}
        self._colors: dict[Sdf.Path, tuple] = {}
        self._material_names: dict[Sdf.Path, Optional[str]] = {}
        self._inverse_poses: dict[str, Gf.Matrix4d] = {}  # body name -> inverse of its pose matrix
        self._body_inverses: dict[str, Pose] = {}  # body name -> inverse of its pose
        self._owners: dict[Sdf.Path, Optional[Body]] = {}  # prim path -> the body at or above it
        self._bound: dict[tuple[Usd.Prim, str], UsdShade.Material] = {}  # (prim, purpose) -> material
        self._last_prim, self._last_spec, self._last_specs, self._last_names = None, None, None, frozenset()

    # -- errors and typed attribute access
    def error(self, prim, attribute: Optional[str], message: str) -> UsdReadError:
        path = str(prim.GetPath()) if hasattr(prim, "GetPath") else (str(prim) if prim else None)
        return UsdReadError(self.file, path, attribute, message)

    def warn(self, prim, message: str) -> None:
        self.warnings.append(f"{prim.GetPath()}: {message}")

    def value(self, prim: Usd.Prim, name: str, kind: str = "float", default=None, allow_inf: bool = True):
        """The authored value of ``name`` checked against ``kind`` (float, int, bool, token, vec3,
        quat, floats); ``default`` when not authored."""
        if prim is not self._last_prim:
            self._select(prim)
        if name not in self._last_names:  # most names asked for are not authored: no USD call
            return default
        value = self._authored_value(prim, name)
        if value is _NOT_AUTHORED:
            return default
        if kind == "float" and type(value) is float and -INF < value < INF:  # the common cases, checked first
            return value
        value_type = type(value)
        if value_type is _PLAIN_KINDS.get(kind):  # an int, bool or token of its own type
            return value
        if kind == "vec3" and value_type in _VEC3_TYPES:
            x, y, z = _plain(value)  # iterating a Gf vector costs a C++ exception
            if -INF < x < INF and -INF < y < INF and -INF < z < INF:
                return (x, y, z)
        elif kind == "quat" and value_type in _QUAT_TYPES:
            w, (x, y, z) = value.GetReal(), _plain(value.GetImaginary())
            if -INF < w < INF and -INF < x < INF and -INF < y < INF and -INF < z < INF \
                    and w * w + x * x + y * y + z * z != 0.0:
                return (w, x, y, z)
        return self._checked(prim, name, kind, value, allow_inf)

    def _authored_value(self, prim: Usd.Prim, name: str):
        """What ``Get()`` gives for an attribute with an authored value, else ``_NOT_AUTHORED``.
        From the prim's own spec where that is its only opinion (no composition to resolve)."""
        if prim is not self._last_prim:
            self._select(prim)
        if name not in self._last_names:
            return _NOT_AUTHORED
        specs = self._last_specs
        try:
            if specs is not None:
                spec = specs.get(name)
                if spec is None:
                    return _NOT_AUTHORED
                value = spec.default
                if value is not None and not isinstance(value, _BLOCKS):
                    return value
            attr = prim.GetAttribute(name)  # no plain default: time samples, a block, a declaration
            if not attr or not attr.HasAuthoredValue():
                return _NOT_AUTHORED
            return attr.Get()
        except Tf.ErrorException as error:
            raise self.error(prim, name, f"unreadable value ({_first_line(error)})") from error

    def _select(self, prim: Usd.Prim) -> None:
        """Make ``prim`` the one whose properties are at hand: one prim's attributes are asked for
        in a row. Its attribute specs when one spec (root layer, same path) is all its opinions, so
        a spec's default is the composed value at the default time (else None), and the names of
        its authored properties (a set: asking for a name that is not there costs no USD call)."""
        found = self._properties.get(prim)
        if found is None:
            stack = prim.GetPrimStack()
            if len(stack) == 1 and stack[0].path == prim.GetPath() and stack[0].layer == self.root_layer:
                found = (stack[0], stack[0].attributes, frozenset(stack[0].GetInfo("properties")))
            else:
                found = (None, None, frozenset(prim.GetAuthoredPropertyNames()))
            self._properties[prim] = found
        self._last_prim, (self._last_spec, self._last_specs, self._last_names) = prim, found

    def authored(self, prim: Usd.Prim, name: str) -> bool:
        """A fast first test: is a property of that name authored on the prim at all?"""
        return name in self._names(prim)

    def _names(self, prim: Usd.Prim) -> frozenset:
        """The names of the prim's authored properties."""
        if prim is not self._last_prim:
            self._select(prim)
        return self._last_names

    def has_api(self, prim: Usd.Prim, schema: type, instance: str = "") -> bool:
        """``prim.HasAPI(schema[, instance])`` from the prim's applied schema names, read once."""
        applied = self._applied.get(prim)
        if applied is None:
            applied = self._applied[prim] = frozenset(prim.GetAppliedSchemas())
        name = _api_name(schema)
        return (f"{name}:{instance}" if instance else name) in applied

    def _index(self, prims: list) -> None:
        """Each prim's type name and applied schemas, read once for the passes over every prim."""
        self._all_prims = prims
        self._type_names = [prim.GetTypeName() for prim in prims]
        applied = [frozenset(prim.GetAppliedSchemas()) for prim in prims]
        self._applied_list = applied
        self._applied.update(zip(prims, applied))

    def with_api(self, prims: list, schema: type) -> list:
        """The prims of ``prims`` that have ``schema`` applied, in their order."""
        if prims is not self._all_prims:
            return [prim for prim in prims if self.has_api(prim, schema)]
        name = _api_name(schema)
        return [prim for prim, applied in zip(prims, self._applied_list) if name in applied]

    def of_type(self, prims: list, schema: type) -> list:
        """The prims of ``prims`` that are a ``schema``, in their order."""
        if prims is not self._all_prims:
            return [prim for prim in prims if self.is_a(prim, schema)]
        matching = {name for name in set(self._type_names) if self._type_is_a(name, schema, prims)}
        return [prim for prim, name in zip(prims, self._type_names) if name in matching]

    def _type_is_a(self, type_name: str, schema: type, prims: list) -> bool:
        key = (type_name, schema)
        found = self._is_a.get(key)
        if found is None:
            found = self._is_a[key] = prims[self._type_names.index(type_name)].IsA(schema)
        return found

    def is_a(self, prim: Usd.Prim, schema: type) -> bool:
        """``prim.IsA(schema)``, which depends on the prim's type name only: asked once per type."""
        key = (prim.GetTypeName(), schema)
        found = self._is_a.get(key)
        if found is None:
            found = self._is_a[key] = prim.IsA(schema)
        return found

    def _checked(self, prim, name, kind, value, allow_inf):
        def number(v):
            if type(v) is float and math.isfinite(v):  # the common case, checked first
                return v
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise self.error(prim, name, f"expected a number, found {type(v).__name__} {v!r}")
            v = float(v)
            if math.isnan(v):
                raise self.error(prim, name, "value is NaN")
            if math.isinf(v) and not allow_inf:
                raise self.error(prim, name, "value is infinite")
            return v

        if kind == "float":
            return number(value)
        if kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise self.error(prim, name, f"expected an int, found {type(value).__name__} {value!r}")
            return value
        if kind == "bool":
            if not isinstance(value, bool):
                raise self.error(prim, name, f"expected a bool, found {type(value).__name__} {value!r}")
            return value
        if kind == "token":
            if not isinstance(value, str):
                raise self.error(prim, name, f"expected a token, found {type(value).__name__} {value!r}")
            return value
        if kind == "vec3":
            if not hasattr(value, "__len__") or isinstance(value, str) or len(value) != 3:
                raise self.error(prim, name, f"expected 3 numbers, found {value!r}")
            return tuple(number(v) for v in _plain(value))
        if kind == "quat":
            if not isinstance(value, (Gf.Quatf, Gf.Quatd, Gf.Quath)):
                raise self.error(prim, name, f"expected a quaternion, found {type(value).__name__}")
            imaginary = value.GetImaginary()
            q = (number(value.GetReal()), number(imaginary[0]), number(imaginary[1]), number(imaginary[2]))
            if sum(c * c for c in q) == 0.0:
                raise self.error(prim, name, "zero quaternion")
            return q
        if kind == "floats":
            if not hasattr(value, "__len__") or isinstance(value, str):
                raise self.error(prim, name, f"expected an array, found {value!r}")
            return [number(v) for v in _plain(value)]
        raise ValueError(kind)

    def unique_name(self, kind: str, prim: Usd.Prim) -> str:
        if prim is not self._last_prim:
            self._select(prim)
        spec = self._last_spec  # the prim's only spec: its metadata and path without composing
        prim_name = prim.GetName()
        if spec is not None:
            path = spec.path
            name = (spec.GetInfo("displayName") if spec.HasInfo("displayName") else "") or prim_name
        else:
            path = prim.GetPath()
            name = prim.GetDisplayName() or prim_name
        taken = self.used_names.setdefault(kind, set())
        candidate, n = name, 1
        while candidate in taken:
            candidate, n = f"{name}_{n}", n + 1
        taken.add(candidate)
        self.paths[f"{kind}:{candidate}"] = str(path)
        if candidate == name and name != prim_name and _kept_prim_name(name, prim_name):
            self.scene.prim_names.setdefault(candidate, prim_name)
        return candidate

    # -- stage units
    def _stage_conversion(self) -> Gf.Matrix4d:
        meters = UsdGeom.GetStageMetersPerUnit(self.stage)
        if not math.isfinite(meters) or meters <= 0.0:
            raise self.error(self.stage.GetPseudoRoot(), "metersPerUnit", f"invalid value {meters}")
        self.meters_per_unit = meters
        self.kilograms_per_unit = UsdPhysics.GetStageKilogramsPerUnit(self.stage)
        conversion = Gf.Matrix4d().SetScale(meters)
        if UsdGeom.GetStageUpAxis(self.stage) == UsdGeom.Tokens.y:
            conversion = conversion * _Y_UP_TO_Z_UP
        return conversion

    def world_matrix(self, prim: Usd.Prim) -> Gf.Matrix4d:
        matrix = self._world.get(prim)
        if matrix is None:
            matrix = self.xforms.GetLocalToWorldTransform(prim) * self.to_meters_z_up
            # Any inf or NaN entry makes the determinant inf or NaN (inf * 0 is NaN): one C call
            # instead of iterating 16 Gf values in Python (~100x slower, 0.4 s at 2,000 bodies).
            if not math.isfinite(matrix.GetDeterminant()):
                raise self._non_finite_transform(prim)
            self._world[prim] = matrix
        return matrix

    def _non_finite_transform(self, prim: Usd.Prim) -> UsdReadError:
        """The error for a prim whose world transform is not finite, naming the xformOp (on the
        prim or an ancestor) that holds inf or NaN."""
        current = prim
        while current and not current.IsPseudoRoot():
            ops = UsdGeom.Xformable(current).GetOrderedXformOps() if current.IsA(UsdGeom.Xformable) else ()
            for op in ops:
                flat = _flat_floats(op.Get(Usd.TimeCode.Default()))
                if not all(math.isfinite(v) for v in flat):
                    return self.error(current, op.GetAttr().GetName(),
                                      f"transform value {tuple(flat)} is not finite (inf or NaN)")
            current = current.GetParent()
        return self.error(prim, None, "world transform is not finite (inf or NaN)")

    def world_pose(self, prim: Usd.Prim) -> tuple[Pose, tuple]:
        pose = self._poses.get(prim)
        if pose is None:
            try:
                pose = self._poses[prim] = _decompose(self.world_matrix(prim))
            except ValueError as error:
                raise self.error(prim, "xformOpOrder", str(error)) from error
        return pose

    # -- top level
    def read(self) -> ReadResult:
        prims = list(Usd.PrimRange.Stage(self.stage, Usd.TraverseInstanceProxies()))
        if not prims:
            raise UsdReadError(self.file, None, None, "the stage is empty")
        default = self.stage.GetDefaultPrim()
        self.scene.name = (default.GetDisplayName() or default.GetName()) if default else "World"
        self._index(prims)
        self._read_scene_settings(prims)
        self._read_physics_materials(prims)
        bodies = [p for p in self.with_api(prims, UsdPhysics.RigidBodyAPI) if self._is_body(p)]
        for prim in bodies:
            self._read_body(prim)
        colliders = self.with_api(prims, UsdPhysics.CollisionAPI)
        self._bind_materials(colliders, D.PHYSICS_BINDING_PURPOSE)
        for prim in colliders:
            self._read_collider(prim)
        self._worlds_from_colliders()
        collider_set = set(colliders)
        meshes = [p for p in self.of_type(prims, UsdGeom.Mesh) if p not in collider_set]
        self._bind_materials(meshes, UsdShade.Tokens.allPurpose)
        for prim in meshes:
            self._read_visual(prim)
        mujoco = MujocoModelReader(self, prims, self._type_names)
        for prim in self.of_type(prims, UsdPhysics.Joint):
            if not mujoco.is_equality(prim):  # a MuJoCo weld or connect: read as an Equality below
                self._read_joint(prim)
        mujoco.read_frames()
        ActuationReader(self, prims, mujoco.frame_targets()).read()
        self._read_collision_groups(prims)
        self._read_filtered_pairs(bodies)
        self._assign_parents(bodies)
        self._read_articulation_roots(prims)
        self._check_joint_cycles()
        mujoco.read_rest()
        self._complete_masses()
        self._read_robot_schema()
        return ReadResult(self.scene, self.warnings, prim_paths=self.paths,
                          articulation_wrappers=self._articulation_wrappers())

    def _articulation_wrappers(self) -> list[str]:
        return [str(root.GetPath()) for root in self.articulation_roots
                if not self.has_api(root, UsdPhysics.RigidBodyAPI)
                and any(self.has_api(child, UsdPhysics.RigidBodyAPI) for child in root.GetChildren())]

    def _read_robot_schema(self) -> None:
        """The Isaac robot schema's robot type and link/joint order (core/usd/isaac.py)."""
        read_robot_schema(self.stage, self.scene, {path: key for key, path in self.paths.items()})

    # -- scene
    def _read_scene_settings(self, prims) -> None:
        settings = self.scene.settings = SceneSettings()
        scene_prim = next(iter(self.of_type(prims, UsdPhysics.Scene)), None)
        # MuJoCo angles (mjc:ref) are degrees unless the scene's compiler says radians (as Newton).
        angle = self.value(scene_prim, "mjc:compiler:angle", "token") if scene_prim is not None else None
        self.mjc_angle_scale = 1.0 if angle == "radian" else math.pi / 180.0
        if scene_prim is None:
            return
        direction = self.value(scene_prim, "physics:gravityDirection", "vec3", (0.0, 0.0, 0.0))
        magnitude = self.value(scene_prim, "physics:gravityMagnitude", "float", -INF)
        if not math.isfinite(magnitude) or magnitude < 0.0:
            magnitude = 9.81 / self.meters_per_unit  # UsdPhysics: earth gravity
        if direction == (0.0, 0.0, 0.0):  # UsdPhysics: down the stage's up axis
            settings.gravity = (0.0, 0.0, -magnitude * self.meters_per_unit)
        else:
            d = self.to_meters_z_up.TransformDir(Gf.Vec3d(*direction)).GetNormalized()
            g = d * magnitude * self.meters_per_unit
            settings.gravity = (g[0], g[1], g[2])
        steps = self.value(scene_prim, D.TIME_STEPS_PER_SECOND, "int")
        if steps and steps > 0:
            settings.steps_per_second = float(steps)
        iterations = self.value(scene_prim, D.MAX_SOLVER_ITERATIONS, "int")
        if iterations and iterations > 0:
            settings.solver_iterations = iterations
        kinds = {"Token": "token", "Bool": "bool", "Int": "int", "Double": "float"}
        for field_name, (attr, type_name) in D.SCENE_SETTINGS.items():
            value = self.value(scene_prim, attr, kinds[type_name])
            if value is None:
                continue
            if field_name == "solver":
                try:
                    value = Solver(value)
                except ValueError as error:
                    raise self.error(scene_prim, attr, f"unknown solver {value!r}") from error
            setattr(settings, field_name, value)

    def _read_physics_materials(self, prims) -> None:
        for prim in self.with_api(prims, UsdPhysics.MaterialAPI):
            if is_generated_material(prim):
                continue  # a generated one stands for "no material" (core/usd/isaac.py)
            density = self.value(prim, D.DENSITY)
            material = PhysicsMaterial(
                name=self.unique_name("material", prim),
                static_friction=self.value(prim, D.STATIC_FRICTION, default=0.0),
                dynamic_friction=self.value(prim, D.DYNAMIC_FRICTION, default=0.0),
                restitution=self.value(prim, D.RESTITUTION, default=0.0),
                torsional_friction=self.value(prim, D.TORSIONAL_FRICTION, default=0.0),
                rolling_friction=self.value(prim, D.ROLLING_FRICTION, default=0.0),
                density=density * self.kilograms_per_unit / self.meters_per_unit ** 3
                if density and density > 0.0 else None,
            )
            self.scene.materials.append(material)
            self.materials_by_path[prim.GetPath()] = material.name

    # -- bodies
    def _is_body(self, prim: Usd.Prim) -> bool:
        return self.has_api(prim, UsdPhysics.RigidBodyAPI) and self.value(
            prim, "physics:rigidBodyEnabled", "bool", True) is not False

    def _read_body(self, prim: Usd.Prim) -> None:
        pose, scale = self.world_pose(prim)
        if not _uniform(scale):
            self.warn(prim, f"non-uniform scale {tuple(round(s, 6) for s in scale)} on a rigid body: "
                            "the body keeps its pose, its colliders and visuals take the scale")
        body = Body(name=self.unique_name("body", prim), pose=pose)
        body.kinematic = self.value(prim, D.KINEMATIC, "bool", False)
        to_world = self.to_meters_z_up
        velocity = self.value(prim, D.VELOCITY, "vec3", _UNAUTHORED_VELOCITY)
        if velocity is not _UNAUTHORED_VELOCITY:  # else at rest, the body's default (most bodies)
            v = to_world.TransformDir(Gf.Vec3d(*velocity))
            body.linear_velocity = (v[0], v[1], v[2])
        omega = self.value(prim, D.ANGULAR_VELOCITY, "vec3", _UNAUTHORED_VELOCITY)
        if omega is not _UNAUTHORED_VELOCITY:
            w = to_world.TransformDir(Gf.Vec3d(*(D.angle_from_usd(c) for c in omega))) / self.meters_per_unit
            body.angular_velocity = (w[0], w[1], w[2])
        world = self.value(prim, D.WORLD_ATTR, "int")
        body.world = 0 if world is None else world
        if world is None:
            self._worldless_bodies.add(body.name)
        self.scene.bodies.append(body)
        self.body_prims[body.name] = prim
        self.body_by_path[prim.GetPath()] = body
        self.body_scale[body.name] = scale
        self._owners.clear()  # answers given before this body are stale

    def _worlds_from_colliders(self) -> None:
        """A body with no world of its own takes the one its colliders agree on (a world authored
        only on collider prims); its colliders without a world follow it."""
        for name in self._worldless_bodies:
            worlds = {shape.world for shape in self._collider_worlds.get(name, [])}
            if len(worlds) != 1:
                continue
            world = worlds.pop()
            self.scene.body(name).world = world
            for shape in self._worldless_shapes.get(name, []):
                shape.world = world

    def _owner_body(self, prim: Usd.Prim) -> Optional[Body]:
        """The body at or above ``prim`` (None: static), by prim path; each path's answer is kept
        (every body is read before the first question)."""
        if not prim or prim.IsPseudoRoot():
            return None
        path, owners = prim.GetPath(), self._owners
        found = owners.get(path, _NOT_AUTHORED)
        if found is not _NOT_AUTHORED:
            return found
        below, root = [], Sdf.Path.absoluteRootPath
        while True:
            found = self.body_by_path.get(path)
            if found is not None:
                break
            below.append(path)
            path = path.GetParentPath()
            if path == root or path.isEmpty:
                break
            found = owners.get(path, _NOT_AUTHORED)
            if found is not _NOT_AUTHORED:
                break
        for path in below:
            owners[path] = found
        return found

    def _local_matrix(self, prim: Usd.Prim, body: Optional[Body]) -> tuple[Pose, tuple]:
        """The prim's pose and scale in its body's frame (world frame for static prims)."""
        matrix = self.world_matrix(prim)
        if body is not None:
            matrix = matrix * self._inverse_pose_matrix(body)
        try:
            return _decompose(matrix)
        except ValueError as error:
            raise self.error(prim, "xformOpOrder", str(error)) from error

    def _inverse_pose_matrix(self, body: Body) -> Gf.Matrix4d:
        inverse = self._inverse_poses.get(body.name)
        if inverse is None:
            inverse = self._inverse_poses[body.name] = _pose_matrix(body.pose).GetInverse()
        return inverse

    # -- colliders
    def _read_collider(self, prim: Usd.Prim) -> None:
        if self.value(prim, "physics:collisionEnabled", "bool", True) is False:
            return
        body = self._owner_body(prim)
        pose, scale = self._local_matrix(prim, body)
        shape = Shape(name=self.unique_name("shape", prim), kind=ShapeKind.BOX,
                      body=body.name if body else None, pose=pose)
        if not self._read_shape_geometry(prim, shape, scale):
            self.used_names["shape"].discard(shape.name)
            return
        shape.material = self._bound_physics_material(prim)
        density = self.value(prim, D.DENSITY)
        if density and density > 0.0:
            shape.density = density * self.kilograms_per_unit / self.meters_per_unit ** 3
        mass = self.value(prim, D.MASS)
        if mass and mass > 0.0:  # UsdPhysics: a collider's own mass wins over any density
            self._collider_masses.append((shape, prim, mass * self.kilograms_per_unit))
        group = self.value(prim, D.COLLISION_GROUP_ATTR, "int")
        shape.collision_group = 1 if group is None else group
        world = self.value(prim, D.WORLD_ATTR, "int")
        shape.world = world if world is not None else (body.world if body else -1)
        if world is not None and body is not None:
            self._collider_worlds.setdefault(body.name, []).append(shape)
        elif body is not None:
            self._worldless_shapes.setdefault(body.name, []).append(shape)
        shape.contact_margin = self.value(prim, D.CONTACT_MARGIN, default=0.0) * self.meters_per_unit
        gap = self.value(prim, D.CONTACT_GAP, default=0.0)
        shape.contact_gap = gap * self.meters_per_unit if math.isfinite(gap) else 0.0
        self.scene.shapes.append(shape)
        self.shape_prims[shape.name] = prim

    def _read_shape_geometry(self, prim: Usd.Prim, shape: Shape, scale) -> bool:
        a = [abs(s) for s in scale]
        if self.is_a(prim, UsdGeom.Cube):
            half = self.value(prim, "size", default=2.0) / 2.0
            shape.kind, shape.half_extents = ShapeKind.BOX, (half * a[0], half * a[1], half * a[2])
        elif self.is_a(prim, UsdGeom.Sphere):
            if not _uniform(scale):
                self.warn(prim, "non-uniform scale on a sphere collider: its largest radius is used")
            shape.kind, shape.radius = ShapeKind.SPHERE, self.value(prim, "radius", default=1.0) * max(a)
        elif prim.GetTypeName() in ("Capsule", "Cylinder", "Capsule_1", "Cylinder_1"):
            axis = self.value(prim, "axis", "token", "Z")
            i = "XYZ".index(axis)
            radius = self.value(prim, "radius", default=None)
            if radius is None:  # Capsule_1 / Cylinder_1 with two radii
                radius = max(self.value(prim, "radiusTop", default=1.0),
                             self.value(prim, "radiusBottom", default=1.0))
            perpendicular = [a[k] for k in range(3) if k != i]
            if abs(perpendicular[0] - perpendicular[1]) > _SCALE_TOLERANCE * max(perpendicular):
                self.warn(prim, "non-uniform scale across a round collider: its largest radius is used")
            shape.kind = ShapeKind.CAPSULE if prim.GetTypeName().startswith("Capsule") else ShapeKind.CYLINDER
            shape.axis, shape.radius = axis, radius * max(perpendicular)
            shape.half_height = self.value(prim, "height", default=2.0) * a[i] / 2.0
        elif self.is_a(prim, UsdGeom.Plane):
            axis = self.value(prim, "axis", "token", "Z")
            to_z = {"X": (0.5 ** 0.5, 0.0, 0.5 ** 0.5, 0.0), "Y": (0.5 ** 0.5, -(0.5 ** 0.5), 0.0, 0.0)}
            if axis in to_z:
                shape.pose = pose_mul(shape.pose, Pose(rot=to_z[axis]))
            shape.kind = ShapeKind.PLANE
        elif self.is_a(prim, UsdGeom.Mesh) and (field := read_height_field(self, prim, scale)) is not None:
            shape.kind, shape.height_field = ShapeKind.HEIGHT_FIELD, field
        elif self.is_a(prim, UsdGeom.Mesh):
            approximation = self.value(prim, D.APPROXIMATION, "token", "none")
            shape.kind = D.APPROXIMATION_KINDS.get(approximation, ShapeKind.CONVEX_HULL)
            if shape.kind in (ShapeKind.BOX, ShapeKind.SPHERE):  # bounding shapes: fit the points
                self._fit_bounding(prim, shape, scale)
            else:
                shape.mesh, shape.scale = self._mesh_data(prim), scale
        else:
            self.warn(prim, f"{prim.GetTypeName() or 'untyped'} collider is not supported; skipped")
            return False
        return True

    def _fit_bounding(self, prim: Usd.Prim, shape: Shape, scale) -> None:
        mesh = self._mesh_data(prim)
        points = [tuple(p[i] * scale[i] for i in range(3)) for p in mesh.vertices] or [(0.0, 0.0, 0.0)]
        lo = [min(p[i] for p in points) for i in range(3)]
        hi = [max(p[i] for p in points) for i in range(3)]
        centre = tuple((l + h) / 2.0 for l, h in zip(lo, hi))
        shape.pose = pose_mul(shape.pose, Pose(pos=centre))
        half = tuple((h - l) / 2.0 for l, h in zip(lo, hi))
        if shape.kind == ShapeKind.BOX:
            shape.half_extents = half
        else:
            shape.radius = max(math.dist(p, centre) for p in points)

    def _mesh_data(self, prim: Usd.Prim) -> MeshData:
        points = prim.GetAttribute("points").Get() or []
        counts = _plain(prim.GetAttribute("faceVertexCounts").Get() or [])
        indices = _plain(prim.GetAttribute("faceVertexIndices").Get() or [])
        if sum(counts) != len(indices) or (len(indices) and max(indices) >= len(points)):
            raise self.error(prim, "faceVertexIndices", "face indices do not match the points")
        array = np.asarray(points, dtype=float).reshape(-1, 3)
        if np.isnan(array).any():
            raise self.error(prim, "points", "value is NaN")
        vertices = [tuple(v) for v in array.tolist()]
        return MeshData(vertices=vertices, triangles=_triangulate(counts, indices))

    def _bind_materials(self, prims: list, purpose: str) -> None:
        """Each prim's bound material for ``purpose``, resolved for all of them in one call."""
        materials, _ = UsdShade.MaterialBindingAPI.ComputeBoundMaterials(prims, purpose)
        self._bound.update(((prim, purpose), material) for prim, material in zip(prims, materials))

    def bound_material(self, prim: Usd.Prim, purpose: str) -> UsdShade.Material:
        material = self._bound.get((prim, purpose))
        if material is None:
            material, _ = UsdShade.MaterialBindingAPI(prim).ComputeBoundMaterial(purpose)
        return material

    def _bound_physics_material(self, prim: Usd.Prim) -> Optional[str]:
        material = self.bound_material(prim, D.PHYSICS_BINDING_PURPOSE)
        if not material:
            return None
        return self.materials_by_path.get(material.GetPrim().GetPath())

    # -- visuals
    def _read_visual(self, prim: Usd.Prim) -> None:
        imageable = UsdGeom.Imageable(prim)
        if imageable.ComputePurpose() not in (UsdGeom.Tokens.default_, UsdGeom.Tokens.render):
            return
        if imageable.ComputeVisibility() == UsdGeom.Tokens.invisible:
            return
        body = self._owner_body(prim)
        pose, scale = self._local_matrix(prim, body)
        material = self.bound_material(prim, UsdShade.Tokens.allPurpose)
        visual = Visual(name=self.unique_name("visual", prim), body=body.name if body else None,
                        mesh=self._mesh_data(prim), pose=pose, scale=scale)
        visual.color = self._color(prim, material)
        if material:
            visual.material_name = self._material_name(material)
        self.scene.visuals.append(visual)

    def _material_name(self, material: UsdShade.Material) -> Optional[str]:
        """A render material's name, None for one made up for a color; read once per material."""
        path = material.GetPath()
        name = self._material_names.get(path, _NOT_AUTHORED)
        if name is _NOT_AUTHORED:
            prim = material.GetPrim()
            name = None if prim.GetCustomDataByKey(D.GENERATED_MATERIAL_KEY) else (
                prim.GetDisplayName() or prim.GetName())
            self._material_names[path] = name
        return name

    def _color(self, prim: Usd.Prim, material: Optional[UsdShade.Material]):
        rgb, alpha = self._material_color(material) if material else (None, 1.0)
        if rgb is None:
            colors = UsdGeom.Gprim(prim).GetDisplayColorAttr().Get()
            rgb = tuple(float(c) for c in _plain(colors[0])) if colors else (0.8, 0.8, 0.8)
            opacities = UsdGeom.Gprim(prim).GetDisplayOpacityAttr().Get()
            alpha = float(opacities[0]) if opacities else 1.0
        return (rgb[0], rgb[1], rgb[2], alpha)

    def _material_color(self, material: UsdShade.Material) -> tuple:
        """(RGB or None, alpha) of a UsdPreviewSurface material; read once per material."""
        path = material.GetPath()
        if path not in self._colors:
            rgb, alpha = None, 1.0
            shader = material.ComputeSurfaceSource()[0]
            if shader and shader.GetIdAttr().Get() == D.PREVIEW_SURFACE_ID:
                diffuse, opacity = shader.GetInput("diffuseColor"), shader.GetInput("opacity")
                if diffuse and diffuse.Get() is not None:
                    rgb = tuple(float(c) for c in _plain(diffuse.Get()))
                if opacity and opacity.Get() is not None:
                    alpha = float(opacity.Get())
            self._colors[path] = (rgb, alpha)
        return self._colors[path]

    # -- joints
    def _joint_body(self, prim: Usd.Prim, attribute: str):
        """(body or None, prim of the frame the local pose is in) of one side of a joint."""
        if attribute not in self._names(prim):  # not authored: no targets
            return None, None
        relationship = prim.GetRelationship(attribute)
        targets = relationship.GetTargets() if relationship else []
        if not targets:
            return None, None
        if len(targets) > 1:
            raise self.error(prim, attribute, f"{len(targets)} targets; a joint side has one body")
        body = self.body_by_path.get(targets[0])
        if body is not None:  # a body's prim exists: no need to look it up
            return body, self.body_prims[body.name]
        target = self.stage.GetPrimAtPath(targets[0])
        if not target or not target.IsValid():
            raise self.error(prim, attribute, f"target {targets[0]} does not exist")
        return self.body_by_path.get(target.GetPath()), target

    def _frame(self, joint_prim: Usd.Prim, body: Optional[Body], frame_prim, side: int) -> Pose:
        """The joint frame in ``body``'s frame (world when None), from this side's local pose."""
        pos = self.value(joint_prim, (D.LOCAL_POS0, D.LOCAL_POS1)[side], "vec3", (0.0, 0.0, 0.0),
                         allow_inf=False)
        rot = self.value(joint_prim, (D.LOCAL_ROT0, D.LOCAL_ROT1)[side], "quat", (1.0, 0.0, 0.0, 0.0))
        if frame_prim:
            frame_matrix, frame_pose = self.world_matrix(frame_prim), self.world_pose(frame_prim)[0]
        else:
            frame_matrix = self.to_meters_z_up
            frame_pose = _decompose(frame_matrix)[0]
        p = frame_matrix.Transform(Gf.Vec3d(*pos))
        world = Pose(pos=(p[0], p[1], p[2]), rot=quat_normalize(quat_mul(frame_pose.rot, rot)))  # frame * rot
        return pose_mul(self._inverse_pose(body), world) if body else world

    def _inverse_pose(self, body: Body) -> Pose:
        inverse = self._body_inverses.get(body.name)
        if inverse is None:
            inverse = self._body_inverses[body.name] = pose_inverse(body.pose)
        return inverse

    def _read_joint(self, prim: Usd.Prim) -> None:
        joint_type = D.JOINT_TYPES_BY_PRIM.get(prim.GetTypeName())
        if joint_type is None:
            self.warn(prim, f"{prim.GetTypeName()} is not supported; skipped")
            return
        body0, frame0 = self._joint_body(prim, D.BODY0)
        body1, frame1 = self._joint_body(prim, D.BODY1)
        pose0 = self._frame(prim, body0, frame0, 0)
        pose1 = self._frame(prim, body1, frame1, 1)
        if body1 is None:
            if body0 is None:
                raise self.error(prim, D.BODY1, "the joint connects no rigid body")
            body0, body1, pose0, pose1 = None, body0, pose1, pose0
        axis = self.value(prim, D.JOINT_AXIS, "token", "X")
        if axis not in ("X", "Y", "Z"):
            raise self.error(prim, D.JOINT_AXIS, f"axis must be X, Y or Z, not {axis!r}")
        joint = Joint(name=self.unique_name("joint", prim), type=joint_type,
                      body0=body0.name if body0 else None, body1=body1.name,
                      local_pose0=pose0, local_pose1=pose1, axis=axis)
        joint.enabled = self.value(prim, D.JOINT_ENABLED, "bool", True)
        joint.collide_bodies = self.value(prim, D.COLLISION_ENABLED, "bool", False)
        joint.exclude_from_articulation = self.value(prim, D.EXCLUDE_FROM_ARTICULATION, "bool", False)
        if joint_type == JointType.SPHERICAL:
            for attr, name in ((D.CONE_ANGLE0, "cone_limit0"), (D.CONE_ANGLE1, "cone_limit1")):
                cone = self.value(prim, attr, default=-1.0)
                setattr(joint, name, D.angle_from_usd(cone) if 0.0 <= cone < INF else INF)
        joint.dofs = [self._read_dof(prim, joint_type, axis_) for axis_ in dof_axes_for(joint_type, axis)]
        self._read_dof_arrays(prim, joint)
        self._read_mjc_force_range(prim, joint)
        self._dofs_to_si(joint)
        self._apply_mjc_reference(prim, joint)
        self.scene.joints.append(joint)

    def _read_mjc_force_range(self, prim: Usd.Prim, joint: Joint) -> None:
        """MuJoCo's joint force range bounds the same effort as a drive's maxForce: keep the tighter
        (Newton's add_usd does the same; an asymmetric range keeps its larger magnitude)."""
        limit = self.mjc_force_limit(prim, joint)
        if limit < INF:
            for dof in joint.active_dofs():
                dof.max_effort = min(dof.max_effort, limit)

    def mjc_force_limit(self, prim: Usd.Prim, joint: Joint) -> float:
        """The effort limit MuJoCo's joint force range (``mjc:actuatorfrcrange``) sets; INF: none."""
        low = self.value(prim, D.MJC_FORCE_RANGE_MIN, allow_inf=False)
        high = self.value(prim, D.MJC_FORCE_RANGE_MAX, allow_inf=False)
        if low is None and high is None or joint.type not in (JointType.REVOLUTE, JointType.PRISMATIC):
            return INF
        low, high = float(low or 0.0), float(high or 0.0)
        limited = self.value(prim, D.MJC_FORCE_LIMITED, "token", "auto")
        if limited == "true" or (limited == "auto" and low < high):
            return max(abs(low), abs(high))
        return INF

    def reread_effort_limit(self, prim: Usd.Prim, joint: Joint) -> None:
        """Each DOF's effort limit from the joint's MuJoCo force range alone (its drive was dropped)."""
        for dof in joint.dofs:
            dof.max_effort = INF
        self._read_mjc_force_range(prim, joint)

    def _apply_mjc_reference(self, prim: Usd.Prim, joint: Joint) -> None:
        """MuJoCo's ``mjc:ref`` -> ``Dof.reference``, ``mjc:margin`` -> ``Dof.limit_margin``, the limit's
        ``mjc:solreflimit``/``solimplimit`` and the spring's ``mjc:springref``. The
        limits already are the file's coordinate (mujoco-usd-converter writes MuJoCo's range as it is);
        drive targets and JointStateAPI positions are the joint frames' (0 at the authored pose), so
        they move to the file's coordinate by ``ref``."""
        if joint.type not in (JointType.REVOLUTE, JointType.PRISMATIC):
            return
        dof = joint.dofs[0]
        unit = 1.0 if dof.axis.is_angular else self.meters_per_unit  # MuJoCo keeps margins in radians
        dof.limit_margin = float(self.value(prim, JOINT_MARGIN, default=0.0) or 0.0) * unit
        dof.limit_solref = tuple(self.value(prim, JOINT_SOLREF_LIMIT, "floats", None) or DEFAULT_SOLREF)
        dof.limit_solimp = tuple(self.value(prim, JOINT_SOLIMP_LIMIT, "floats", None) or DEFAULT_SOLIMP)
        scale = self.mjc_angle_scale if dof.axis.is_angular else self.meters_per_unit  # degrees, stage units
        dof.spring_reference = float(self.value(prim, JOINT_SPRINGREF, default=0.0) or 0.0) * scale
        ref = self.value(prim, D.MJC_REF) if self.authored(prim, D.MJC_REF) else None
        if not ref:
            return
        ref *= scale
        dof.reference = ref
        dof.initial_position += ref
        if dof.drive_enabled and dof.drive_stiffness:  # a velocity drive's target means nothing: kept
            dof.target_position += ref

    def _dofs_to_si(self, joint: Joint) -> None:
        """Every per-DOF value from the stage's units to SI (angles are radians by now)."""
        m, kg = self.meters_per_unit, self.kilograms_per_unit
        if m == 1.0 and kg == 1.0:
            return
        for dof in joint.dofs:
            for name in D.DOF_STAGE_DIMENSIONS:
                value = getattr(dof, name)
                setattr(dof, name, D.dof_stage_to_si(name, value, dof.axis.is_angular, m, kg))

    def _read_dof(self, prim: Usd.Prim, joint_type: JointType, axis: DofAxis) -> Dof:
        dof = Dof(axis=axis)
        angular = axis.is_angular
        instance = D.dof_instance(joint_type, axis)
        self._read_limit(prim, joint_type, dof, instance)
        if dof.motion == DofMotion.LOCKED:
            return dof  # a locked axis is not a DOF: joint-wide dialect values skip it
        if self.has_api(prim, UsdPhysics.DriveAPI, instance):
            dof.drive_enabled = True
            token = self.value(prim, D.drive_attr(instance, "type"), "token", "force")
            dof.drive_type = D.DRIVE_TYPES_BY_TOKEN.get(token, dof.drive_type)
            read = lambda name, unit: D.from_usd(  # noqa: E731
                self.value(prim, D.drive_attr(instance, name), default=0.0), unit, angular)
            dof.drive_stiffness = read("stiffness", D.Unit.PER_ANGLE)
            dof.drive_damping = read("damping", D.Unit.PER_ANGLE)
            dof.target_position = read("targetPosition", D.Unit.ANGLE)
            dof.target_velocity = read("targetVelocity", D.Unit.ANGLE)
            max_force = self.value(prim, D.drive_attr(instance, "maxForce"), default=INF)
            dof.max_effort = INF if max_force < 0.0 else max_force
        self._read_joint_state(prim, dof, instance, angular)
        if not self._names(prim).isdisjoint(_dialect_name_set(instance)):  # most joints author none
            read_fields: set[str] = set()
            for p, names in _dialect_names(instance):
                self._read_dof_property(prim, dof, p, names, angular, read_fields)
        if dof.dynamic_friction > dof.static_friction:
            dof.static_friction = dof.dynamic_friction
        return dof

    def _read_joint_state(self, prim: Usd.Prim, dof: Dof, instance: str, angular: bool) -> None:
        """JointStateAPI: where the file starts this DOF (the joint's zero stays its frames')."""
        for name, field in (("position", "initial_position"), ("velocity", "initial_velocity")):
            value = self.value(prim, D.state_attr(instance, name), default=0.0, allow_inf=False)
            setattr(dof, field, D.from_usd(value, D.Unit.ANGLE, angular))

    def _read_limit(self, prim: Usd.Prim, joint_type: JointType, dof: Dof, instance: str) -> None:
        angular = dof.axis.is_angular
        if joint_type in (JointType.REVOLUTE, JointType.PRISMATIC):
            low = self.value(prim, D.LOWER_LIMIT, default=-INF)
            high = self.value(prim, D.UPPER_LIMIT, default=INF)
        elif joint_type == JointType.D6:
            low = self.value(prim, D.limit_attr(instance, "low"))
            high = self.value(prim, D.limit_attr(instance, "high"))
            if low is None and high is None and not self.has_api(prim, UsdPhysics.LimitAPI, instance):
                return  # UsdPhysics: an axis without a limit is free (Newton 1.8 locks it)
            low, high = -INF if low is None else low, INF if high is None else high
            if low >= high:  # UsdPhysics locks low > high; an empty range is locked too
                dof.motion = DofMotion.LOCKED
                return
        else:
            return
        if math.isinf(low) and math.isinf(high):
            return
        dof.motion = DofMotion.LIMITED
        dof.lower = D.from_usd(low, D.Unit.ANGLE, angular)
        dof.upper = D.from_usd(high, D.Unit.ANGLE, angular)

    def _read_dof_property(self, prim: Usd.Prim, dof: Dof, p: D.DofProperty, names: tuple, angular: bool,
                           read_fields: set[str]) -> None:
        """The first dialect that authors ``p`` wins; a single friction value also sets the
        static friction unless a dialect authored that one. ``names``: (dialect, attribute)."""
        for dialect, name in names:
            value = self._authored_value(prim, name)
            if value is _NOT_AUTHORED or (hasattr(value, "__len__") and not isinstance(value, str)):
                continue  # an array newton:* attribute is the per-DOF dialect (newton:dofs)
            value = self._checked(prim, name, "float", value, True)
            if dialect == "newton" and value == D.NEWTON_UNSET:
                continue
            unit = p.mjc_unit if dialect == "mjc" else p.unit
            value = D.from_usd(value, unit, angular)
            if not math.isfinite(value):
                value = getattr(Dof(axis=dof.axis), p.field)
            setattr(dof, p.field, value)
            read_fields.add(p.field)
            for target in p.also_sets:
                if target not in read_fields:
                    setattr(dof, target, value)
            return

    def _read_dof_arrays(self, prim: Usd.Prim, joint: Joint) -> None:
        """The per-DOF NewtonJointAPI arrays, one value per DOF that ``newton:dofs`` names."""
        attr = prim.GetAttribute(D.DOF_TOKENS_ATTR)
        if not attr or not attr.HasAuthoredValue():
            return
        tokens = list(attr.Get() or [])
        for index, token in enumerate(tokens):
            dof = joint.dofs[0] if token in D.SINGLE_DOF_TOKENS and joint.dofs else joint.dof(token) \
                if token in {a.value for a in DofAxis} else None
            if dof is None:
                raise self.error(prim, D.DOF_TOKENS_ATTR, f"{token!r} is not a DOF of this joint")
            for p in D.DOF_PROPERTIES:
                if p.dof_array is None or p.physx_axis and self._has_physx_axis(prim, joint, dof, p):
                    continue
                array_attr = prim.GetAttribute(p.dof_array)
                if (not array_attr or not array_attr.HasAuthoredValue()
                        or not array_attr.GetTypeName().isArray):
                    continue
                values = self.value(prim, p.dof_array, "floats")
                if index >= len(values):
                    raise self.error(prim, p.dof_array, f"{len(values)} values for {len(tokens)} DOFs")
                setattr(dof, p.field, D.from_usd(values[index], p.unit, dof.axis.is_angular))

    def _has_physx_axis(self, prim, joint: Joint, dof: Dof, p: D.DofProperty) -> bool:
        attr = prim.GetAttribute(D.physx_axis_attr(D.dof_instance(joint.type, dof.axis), p.physx_axis))
        return bool(attr and attr.HasAuthoredValue())

    # -- collision groups and filters
    def _read_collision_groups(self, prims) -> None:
        """Custom ints (newton:collision_group) win; otherwise PhysicsCollisionGroup prims become
        Newton groups."""
        groups = self.of_type(prims, UsdPhysics.CollisionGroup)
        if not groups or not self.scene.shapes:
            return
        authored = [s for s in self.scene.shapes
                    if self.shape_prims[s.name].GetAttribute(D.COLLISION_GROUP_ATTR).HasAuthoredValue()]
        if authored:
            return
        membership: dict[str, tuple[str, ...]] = {}
        for prim in groups:
            query = UsdPhysics.CollisionGroup(prim).GetCollidersCollectionAPI().ComputeMembershipQuery()
            for shape_name, shape_prim in self.shape_prims.items():
                if query.IsPathIncluded(shape_prim.GetPath()):
                    membership[shape_name] = membership.get(shape_name, ()) + (str(prim.GetPath()),)
        table = UsdPhysics.CollisionGroup.ComputeCollisionGroupTable(self.stage)

        def key(shape: Shape) -> tuple:  # colliders alike: same groups, same world
            return membership.get(shape.name, ()), shape.world

        classes = sorted({key(s) for s in self.scene.shapes})

        def collide(a: tuple, b: tuple) -> bool:
            return all(table.IsCollisionEnabled(Sdf.Path(x), Sdf.Path(y)) for x in a[0] for y in b[0])

        wanted = {(i, j): collide(a, b) for i, a in enumerate(classes) for j, b in enumerate(classes)}
        assignment = _group_numbers([world for _, world in classes], wanted)
        if assignment is None:
            self.warn(groups[0], "these collision groups have no Newton group equivalent; "
                                 "every collider keeps group 1")
            return
        number = dict(zip(classes, assignment))
        for shape in self.scene.shapes:
            shape.collision_group = number[key(shape)]

    def _read_filtered_pairs(self, bodies) -> None:
        for prim in bodies:
            rel = prim.GetRelationship("physics:filteredPairs")
            if not rel:
                continue
            for target in rel.GetTargets():
                target_prim = self.stage.GetPrimAtPath(target)
                other = self._owner_body(target_prim) if target_prim else None
                if other is None:
                    raise self.error(prim, "physics:filteredPairs", f"target {target} is not a rigid body")
                pair = (self.body_by_path[prim.GetPath()].name, other.name)
                if pair[0] != pair[1] and pair not in self.scene.filtered_pairs:
                    self.scene.filtered_pairs.append(pair)

    # -- articulations and the tree
    def _read_articulation_roots(self, prims) -> None:
        self.articulation_roots: list[Usd.Prim] = self.with_api(prims, UsdPhysics.ArticulationRootAPI)
        self._children: dict[Optional[str], list[Body]] = {}  # one index: children_of scans every body
        for body in self.scene.bodies:
            self._children.setdefault(body.parent, []).append(body)
        for root in self.articulation_roots:
            enabled = self.value(root, D.SELF_COLLISION_ATTR, "bool")
            if enabled is None:
                enabled = self.value(root, D.PHYSX_SELF_COLLISION_ATTR, "bool", True)
            for body in self._topmost_bodies(root):
                self._set_tree_self_collision(body, enabled)

    def _set_tree_self_collision(self, body: Body, enabled: bool) -> None:
        """The root's setting holds for its whole tree (the writer authors it on the root); a
        loop, not recursion, for chains of any length."""
        pending = [body]
        while pending:
            body = pending.pop()
            body.self_collision = enabled
            pending.extend(self._children.get(body.name, ()))

    def _topmost_bodies(self, root: Usd.Prim) -> list[Body]:
        body = self.body_by_path.get(root.GetPath())
        if body is not None:
            return [body]
        found = []
        for prim in Usd.PrimRange(root, Usd.TraverseInstanceProxies()):
            if prim.GetPath() in self.body_by_path and self.body_by_path[prim.GetPath()].parent is None:
                found.append(self.body_by_path[prim.GetPath()])
        return found

    def _ancestor_body(self, prim: Usd.Prim) -> Optional[Body]:
        return self._owner_body(prim.GetParent()) if prim.GetParent() else None

    def _assign_parents(self, bodies) -> None:
        for prim in bodies:
            parent = self._ancestor_body(prim)
            if parent is not None:
                self.body_by_path[prim.GetPath()].parent = parent.name
        if not self.renest:
            return
        by_name = {body.name: body for body in self.scene.bodies}
        for child, parent in infer_parents(self.scene).items():
            body = by_name[child]
            if body.parent is None and not self._is_ancestor(by_name, child, parent):
                body.parent = parent

    @staticmethod
    def _is_ancestor(by_name: dict, name: str, of: str) -> bool:
        """Whether ``name`` is ``of`` or one of its parents (a parent there would close a cycle)."""
        seen = set()
        while of is not None and of not in seen:
            if of == name:
                return True
            seen.add(of)
            of = by_name[of].parent
        return False

    def _check_joint_cycles(self) -> None:
        """A closed loop of tree joints (none excluded from the articulation) has no tree."""
        roots = {}

        def find(name):
            while roots.get(name, name) != name:
                name = roots[name]
            return name

        pairs_seen = set()
        for joint in self.scene.joints:
            if not joint.enabled or joint.exclude_from_articulation or joint.body0 is None:
                continue
            pair = frozenset((joint.body0, joint.body1))
            if pair in pairs_seen:
                continue  # stacked single-DOF joints on one body pair make one joint (MJCF)
            pairs_seen.add(pair)
            a, b = find(joint.body0), find(joint.body1)
            if a == b and self._in_articulation(joint):
                raise self.error(self.stage.GetPrimAtPath(self.paths[f"joint:{joint.name}"]), None,
                                 "joint cycle: this joint closes a loop of articulation joints; "
                                 "mark one joint of the loop physics:excludeFromArticulation")
            roots[a] = b

    def _in_articulation(self, joint: Joint) -> bool:
        """Whether the joint's child lies under an ArticulationRootAPI prim (or is one)."""
        path = self.body_prims[joint.body1].GetPath()
        return any(path.HasPrefix(root.GetPath()) for root in self.articulation_roots)

    # -- mass
    def _complete_masses(self) -> None:
        """Explicit mass properties for every body: authored MassAPI values over the shapes'."""
        self._collider_mass_densities()
        for body in self.scene.bodies:
            prim = self.body_prims[body.name]
            mass = self.value(prim, D.MASS)
            com = self.value(prim, D.CENTER_OF_MASS, "vec3", allow_inf=False)
            inertia = self.value(prim, D.DIAGONAL_INERTIA, "vec3", allow_inf=False)
            axes = self.value(prim, D.PRINCIPAL_AXES, "quat")
            scale = self.body_scale[body.name]
            kg, m = self.kilograms_per_unit, self.meters_per_unit
            if mass is not None and mass > 0.0 and inertia is not None and any(inertia):
                computed = MassProperties(mass=0.0)
            else:
                computed = self._shape_mass(body)
            props = MassProperties(mass=computed.mass, center_of_mass=computed.center_of_mass,
                                   diagonal_inertia=computed.diagonal_inertia,
                                   principal_axes=computed.principal_axes)
            if mass is not None and mass > 0.0:
                if computed.mass > 0.0 and (inertia is None or not any(inertia)):
                    props.diagonal_inertia = tuple(i * mass * kg / computed.mass
                                                   for i in computed.diagonal_inertia)
                props.mass = mass * kg
            if com is not None:  # authored in the prim's scaled local space (meters via scale)
                props.center_of_mass = tuple(c * s for c, s in zip(com, scale))
            if inertia is not None and any(inertia):
                props.diagonal_inertia = tuple(i * kg * m * m for i in inertia)
            if axes is not None:
                props.principal_axes = _normalized(axes)
            body.mass = props

    def _collider_mass_densities(self) -> None:
        """UsdPhysics: a body's mass is the sum of its colliders', each collider's own MassAPI mass
        where authored (above 0), else density x volume. An authored mass is kept as the density that
        gives it (mass / volume): the description's one rule, which every consumer reads back as that
        mass; centre of mass and inertia then follow from the collider's shape."""
        for shape, prim, mass in self._collider_masses:
            try:
                volume = shape_volume(shape).volume
            except ValueError as error:  # an open mesh: no volume to spread the mass over
                self.warn(prim, f"collider mass {mass:g} kg not used ({error}); density x volume instead")
                continue
            if volume > 0.0:
                shape.density = mass / volume

    def _shape_mass(self, body: Body) -> MassProperties:
        prim = self.body_prims[body.name]
        density = self.value(prim, D.DENSITY)
        if density and density > 0.0:
            for shape in self.scene.shapes_of(body.name):
                if shape.density is None:
                    shape.density = density * self.kilograms_per_unit / self.meters_per_unit ** 3
        try:
            return mass_properties(self.scene, body.name)
        except MassError:
            self.warn(prim, "no mass and no colliders to compute it from: mass 0")
            return MassProperties(mass=0.0)


class _ParsedStageReader(_StageReader):
    """The reader with the bodies and joints (their relationships, flags, limits and drives) from
    USD's C++ UsdPhysics parse; transforms, colliders, visuals, masses and every dialect attribute
    are read as the Python reader reads them, so both give the same description."""

    def __init__(self, stage: Usd.Stage, file: Optional[str], renest: bool,
                 parsed: physics_parse.ParsedPhysics):
        super().__init__(stage, file, renest)
        self.parsed = parsed
        self._parsed_prim, self._parsed_answers = None, {}

    def _is_body(self, prim: Usd.Prim) -> bool:
        desc = self.parsed.bodies.get(prim.GetPath())
        return desc is not None and desc.rigidBodyEnabled

    def value(self, prim: Usd.Prim, name: str, kind: str = "float", default=None, allow_inf: bool = True):
        """The parse's value where it carries ``name``, else read. An unauthored attribute is the
        schema's fallback in both (the Python default here); an authored one the parse reports as
        the fallback may be one it could not read (a wrong type): read in Python, which says why."""
        answers = self._answers(prim)
        parsed = answers.get(name, _NOT_AUTHORED) if answers else _NOT_AUTHORED
        if parsed is _NOT_AUTHORED:
            return super().value(prim, name, kind, default, allow_inf)
        if not self.authored(prim, name):
            return default
        if parsed == _PARSE_FALLBACKS.get(name.rsplit(":", 1)[-1], _NOT_AUTHORED):
            return super().value(prim, name, kind, default, allow_inf)
        return self._checked(prim, name, kind, parsed, allow_inf)

    def _answers(self, prim: Usd.Prim) -> dict:
        if prim is not self._parsed_prim:  # one prim's attributes are asked for in a row
            self._parsed_prim, self._parsed_answers = prim, _parsed_values(self.parsed, prim.GetPath())
        return self._parsed_answers

    def _joint_body(self, prim: Usd.Prim, attribute: str):
        desc = self.parsed.joints.get(prim.GetPath())
        if desc is None:
            return super()._joint_body(prim, attribute)
        target = desc.rel0 if attribute == D.BODY0 else desc.rel1
        if target.isEmpty:
            if prim.GetRelationship(attribute) and prim.GetRelationship(attribute).GetTargets():
                raise self.error(prim, attribute, "the C++ parse dropped this target")  # read again in Python
            return None, None
        found = self.stage.GetPrimAtPath(target)
        if not found or not found.IsValid():
            raise self.error(prim, attribute, f"target {target} does not exist")
        return self.body_by_path.get(target), found


#: The schema's fallback of each attribute the parse carries (by the last part of its name): what
#: the parse reports for an attribute it did not read.
_PARSE_FALLBACKS = {
    "kinematicEnabled": False, "velocity": (0.0, 0.0, 0.0), "angularVelocity": (0.0, 0.0, 0.0),
    "jointEnabled": True, "collisionEnabled": False, "excludeFromArticulation": False, "axis": "X",
    "lowerLimit": -INF, "upperLimit": INF, "type": "force", "stiffness": 0.0, "damping": 0.0,
    "targetPosition": 0.0, "targetVelocity": 0.0, "maxForce": INF,
}


def _parsed_values(parsed: physics_parse.ParsedPhysics, path: Sdf.Path) -> dict:
    """The attribute values the parse carries for one prim (raw, in the stage's units)."""
    body = parsed.bodies.get(path)
    if body is not None:
        return {D.KINEMATIC: body.kinematicBody, D.VELOCITY: tuple(body.linearVelocity),
                D.ANGULAR_VELOCITY: tuple(body.angularVelocity)}
    joint = parsed.joints.get(path)
    if joint is None:
        return {}
    values = {D.JOINT_ENABLED: joint.jointEnabled, D.COLLISION_ENABLED: joint.collisionEnabled,
              D.EXCLUDE_FROM_ARTICULATION: joint.excludeFromArticulation}
    kind = str(joint.type).rsplit(".", 1)[-1]
    if kind in ("RevoluteJoint", "PrismaticJoint"):
        instance = "angular" if kind == "RevoluteJoint" else "linear"
        values[D.JOINT_AXIS] = str(joint.axis).rsplit(".", 1)[-1]
        values[D.LOWER_LIMIT], values[D.UPPER_LIMIT] = joint.limit.lower, joint.limit.upper
        drive = joint.drive
        if drive.enabled:
            values.update({
                D.drive_attr(instance, "type"): "acceleration" if drive.acceleration else "force",
                D.drive_attr(instance, "stiffness"): drive.stiffness,
                D.drive_attr(instance, "damping"): drive.damping,
                D.drive_attr(instance, "targetPosition"): drive.targetPosition,
                D.drive_attr(instance, "targetVelocity"): drive.targetVelocity,
                D.drive_attr(instance, "maxForce"): drive.forceLimit,
            })
    return values


@lru_cache(maxsize=None)
def _dialect_name_set(instance: str) -> frozenset:
    """Every dialect attribute name of one DOF instance."""
    return frozenset(name for _, names in _dialect_names(instance) for _, name in names)


@lru_cache(maxsize=None)
def _dialect_names(instance: str) -> tuple:
    """Per DOF property, its (dialect, attribute name) pairs for one DOF instance, in reading order."""
    def name(dialect, suffix):
        if dialect == "physx_axis":
            return D.physx_axis_attr(instance, suffix)
        return D.physx_limit_attr(instance, suffix) if dialect == "physx_limit" else suffix

    dialects = ("physx_axis", "physx_limit", "newton", "physx_joint", "mjc")
    return tuple((p, tuple((d, name(d, getattr(p, d))) for d in dialects if getattr(p, d) is not None))
                 for p in D.DOF_PROPERTIES)


def _kept_prim_name(name: str, prim_name: str) -> bool:
    """Whether an export must be told the prim name: one the writer would not make again from the
    name (an encoding such as the converter's ``tn__armelbow_sC``, not ``arm_elbow`` or ``arm_elbow_1``)."""
    if prim_name == name:
        return False
    made = Tf.MakeValidIdentifier(name)
    return not re.fullmatch(re.escape(made) + r"(_\d+)?", prim_name)


def _normalized(q):
    n = math.sqrt(sum(c * c for c in q))
    return tuple(c / n for c in q)


def _group_numbers(worlds: list[int], wanted: dict) -> Optional[list[int]]:
    """Newton group numbers for collider classes (each with its world) that reproduce
    ``wanted[(i, j)]`` (collide or not) under Newton's rule, or None. Small searches only."""
    count = len(worlds)
    # Classes with equal rows in one world behave alike and can share one number.
    rows = [(worlds[i], tuple(wanted[(i, j)] for j in range(count))) for i in range(count)]
    distinct = sorted(set(rows), key=rows.index)
    if len(distinct) > 7:
        return None
    index = [distinct.index(row) for row in rows]
    reduced_worlds = [world for world, _ in distinct]
    size = range(len(distinct))
    reduced = {(a, b): distinct[a][1][index.index(b)] for a in size for b in size}
    numbers = _search_group_numbers(reduced_worlds, reduced)
    return None if numbers is None else [numbers[i] for i in index]


def _search_group_numbers(worlds: list[int], wanted: dict) -> Optional[list[int]]:
    count = len(worlds)
    candidates = [1, 0, -1] + [v for k in range(2, count + 1) for v in (k, -k)]

    def consistent(values: list[int]) -> bool:
        n = len(values) - 1  # only the pairs the newest value takes part in
        return all(should_collide(worlds[i], worlds[n], values[i], values[n]) == wanted[(i, n)]
                   for i in range(n + 1))

    def search(values: list[int]) -> Optional[list[int]]:
        if len(values) == count:
            return values
        for candidate in candidates:
            trial = values + [candidate]
            if consistent(trial):
                found = search(trial)
                if found:
                    return found
        return None

    return search([])


__all__ = ["PARSERS", "ReadResult", "UsdReadError", "read_usd"]
