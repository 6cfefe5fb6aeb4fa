"""Sdf authoring shared by the USD writers: a prim spec being authored (:class:`Prim`), the same calls
recorded for later (:class:`Recording`), and the transform and mesh attributes every writer sets.

Below the writer (``core.usd.writer``), the physics author, the actuation and the MuJoCo model modules,
which all author through it.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
from pxr import Gf, Sdf, UsdGeom, Vt

from ..mesh_files import triangle_arrays
from ..model import MeshData, Pose

T = Sdf.ValueTypeNames


class Prim:
    """One prim spec being authored; applied API schemas are collected and set at the end."""

    def __init__(self, layer: Sdf.Layer, path: Sdf.Path, type_name: str, name: Optional[str] = None,
                 resolve=None):
        self.path = path
        self.resolve = resolve  # (kind, name) -> path, for targets written as Recording's are
        self.spec = spec = Sdf.CreatePrimInLayer(layer, path)
        spec.specifier = Sdf.SpecifierDef
        if type_name:  # "": a typeless prim
            spec.typeName = type_name
        if name is not None and name != path.name:
            self.spec.SetInfo("displayName", name)
        self.schemas: list[str] = []

    @classmethod
    def existing(cls, layer: Sdf.Layer, path: Sdf.Path, spec: Sdf.PrimSpec, resolve=None) -> "Prim":
        """The prim spec ``spec`` at ``path``, as it is (its specifier and type kept)."""
        prim = cls.__new__(cls)
        prim.path, prim.resolve, prim.spec, prim.schemas = path, resolve, spec, []
        return prim

    def apply(self, *schemas: str) -> "Prim":
        self.schemas += [s for s in schemas if s not in self.schemas]
        return self

    def set(self, name: str, type_name, value, custom: bool = False, uniform: bool = False) -> Sdf.AttributeSpec:
        variability = Sdf.VariabilityUniform if uniform else Sdf.VariabilityVarying
        attr = Sdf.CreatePrimAttributeInLayer(self.spec.layer, self.path.AppendProperty(name), type_name,
                                              variability, custom)
        if value is not None:
            attr.default = value
        return attr

    def rel(self, name: str, targets: list) -> None:
        """``targets``: paths, or (kind, name) pairs that ``resolve`` turns into paths."""
        resolve = self.resolve
        Sdf.RelationshipSpec(self.spec, name, False).targetPathList.explicitItems = [
            resolve(*t) if type(t) is tuple else t for t in targets]

    def author(self, recording: "Recording") -> "Prim":
        """Author ``recording``'s properties and schemas, in the order they were recorded.

        Specs are made by path with the layer's free functions, cheaper than the spec constructors
        (4.3 against 5.5 us an attribute with its value, measured on Blender's stage); the values
        are of the attributes' exact types already (:meth:`Recording.set`)."""
        layer, resolve, append = self.spec.layer, self.resolve, self.path.AppendProperty
        attribute, bare_attribute = Sdf.CreatePrimAttributeInLayer, Sdf.JustCreatePrimAttributeInLayer
        relationship, uniform = Sdf.JustCreateRelationshipInLayer, Sdf.VariabilityUniform
        for name, type_name, value, custom, variability, targets in recording.properties:
            property_path = append(name)
            if targets is not None:
                relationship(layer, property_path, uniform, False)
                layer.GetRelationshipAtPath(property_path).targetPathList.explicitItems = [
                    resolve(*t) if type(t) is tuple else t for t in targets]
            elif value is None:
                bare_attribute(layer, property_path, type_name, variability, custom)
            else:
                attribute(layer, property_path, type_name, variability, custom).default = value
        return self.apply(*recording.schemas)

    def done(self) -> None:
        if self.schemas:
            key = tuple(self.schemas)
            op = _SCHEMA_OPS.get(key)
            if op is None:
                op = _SCHEMA_OPS[key] = Sdf.TokenListOp.Create(prependedItems=self.schemas)
            self.spec.SetInfo("apiSchemas", op)


# applied schemas -> their list op, made once (a third of done's time)
_SCHEMA_OPS: dict[tuple, Sdf.TokenListOp] = {}


class Recording:
    """What a prim's writer authors (the same calls as on a :class:`Prim`), kept to be authored
    later (:meth:`Prim.author`) onto a prim whose path is known only then: the physics of a
    body, joint or collider depends on the description alone, so it can be worked out on a worker
    thread while Blender's exporter writes the prims. Targets that are other prims go in as
    (kind, name)."""

    __slots__ = ("properties", "schemas", "pose")

    def __init__(self):
        self.properties: list[tuple] = []
        self.schemas: list[str] = []
        self.pose: Optional[Pose] = None  # a collider's: the pose it was recorded at

    def apply(self, *schemas: str) -> "Recording":
        self.schemas += [s for s in schemas if s not in self.schemas]
        return self

    def set(self, name: str, type_name, value, custom: bool = False, uniform: bool = False) -> None:
        exact = _EXACT_SCALARS.get(type_name) if value is not None else None
        self.properties.append((name, type_name, value if exact is None else exact(value), custom,
                                Sdf.VariabilityUniform if uniform else Sdf.VariabilityVarying, None))

    def rel(self, name: str, targets: list) -> None:
        self.properties.append((name, None, None, False, Sdf.VariabilityUniform, targets))


# A scalar recorded as its attribute's C++ type (a Python float is a double, a str no token), so
# authoring it converts nothing.
_EXACT_SCALARS = {T.Float: Vt.Float, T.Double: Vt.Double, T.Int: Vt.Int, T.Bool: Vt.Bool, T.Token: Vt.Token}


def quatd(q) -> Gf.Quatd:
    return Gf.Quatd(q[0], q[1], q[2], q[3])


def quatf(q) -> Gf.Quatf:
    return Gf.Quatf(q[0], q[1], q[2], q[3])


# Attributes whose value is their UsdPhysics schema's fallback are left out: every consumer reads
# the fallback when nothing is authored (a joint's frames at its bodies' origins, a drive's zero
# targets, unlimited force and force type), and a robot's file has a fifth fewer specs to write.
ORIGIN = Gf.Vec3f(0.0, 0.0, 0.0)
IDENTITY = Gf.Quatf(1.0, 0.0, 0.0, 0.0)


def set_unless_fallback(prim, name: str, type_name, value, fallback, uniform: bool = False) -> None:
    """``prim.set`` unless ``value`` is ``fallback`` (None: always set)."""
    if fallback is None or value != fallback:
        prim.set(name, type_name, value, uniform=uniform)


_RIGID_ORDER = Vt.TokenArray(["xformOp:translate", "xformOp:orient"])
_SCALED_ORDER = Vt.TokenArray(["xformOp:translate", "xformOp:orient", "xformOp:scale"])


def set_pose(prim: Prim, pose: Pose, scale=None) -> None:
    prim.set("xformOp:translate", T.Double3, Gf.Vec3d(*pose.pos))
    prim.set("xformOp:orient", T.Quatd, quatd(pose.rot))
    order = _RIGID_ORDER
    if scale is not None and tuple(scale) != (1.0, 1.0, 1.0):
        prim.set("xformOp:scale", T.Double3, Gf.Vec3d(*scale))
        order = _SCALED_ORDER
    prim.set("xformOpOrder", T.TokenArray, order, uniform=True)


def set_mesh(prim: Prim, mesh: MeshData) -> None:
    # Whole arrays through numpy (float32 rounding as Gf.Vec3f's), not element by element.
    vertices, triangles = triangle_arrays(mesh, np.float32, np.int32)
    points = Vt.Vec3fArray.FromNumpy(vertices)
    indices = triangles.reshape(-1)
    prim.set("points", T.Point3fArray, points)
    prim.set("faceVertexCounts", T.IntArray, Vt.IntArray.FromNumpy(np.full(len(indices) // 3, 3, np.int32)))
    prim.set("faceVertexIndices", T.IntArray, Vt.IntArray.FromNumpy(indices))
    prim.set("subdivisionScheme", T.Token, UsdGeom.Tokens.none, uniform=True)
    prim.set("extent", T.Float3Array, UsdGeom.PointBased.ComputeExtent(points))
