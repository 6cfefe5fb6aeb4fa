"""URDF -> the physics description, through MuJoCo's own URDF compiler.

Why MuJoCo's parser: it is bundled already (no new wheel per platform and Python), maintained
(MuJoCo 3.17), and it resolves what a URDF means into numbers the same way MJCF is resolved:
link frames, inertials, joint axes and limits, ``<dynamics damping friction>``, ``<limit effort>``,
primitive and mesh geometry (STL, OBJ) with their material colors, mimic joints (as equality
constraints). Told to by MuJoCo's own URDF extension element (``<mujoco><compiler
discardvisual="false" fusestatic="false" strippath="false"/></mujoco>``, added to the text handed
to MuJoCo), it keeps visuals and fixed links. The alternatives weighed: urdf-parser-py (ROS's own,
pure Python, but last released in 2021 and importing PyYAML, a per-platform binary wheel) and
yourdfpy (lxml and trimesh: heavy binary dependencies); neither is bundled.

What MuJoCo's compiler drops is read from the same ElementTree: ``<limit velocity>`` (MuJoCo has no
joint velocity limit) and ``<transmission>`` elements (a MOTOR actuator where the mapping is exact,
else named in the one warning of what is not carried over). ``<mimic>`` becomes MuJoCo's joint
equality, read as ``Joint.mimic`` (offset + multiplier * leader) by the MJCF reader's rules;
``<limit effort>`` becomes MuJoCo's actuatorfrcrange, read as the DOF's effort limit (``max_effort``). Mesh URIs (``package://name/...``, relative or absolute paths, ``file://``)
are resolved here against the file's folder, its parents and the package search path. COLLADA
``.dae`` meshes, which MuJoCo cannot read, are read by pycollada (core/urdf/collada.py), and STL
files MuJoCo's decoder refuses (ASCII ones) by core/urdf/stl.py; both are handed to MuJoCo as
triangles. A mesh file that is missing (an absolute path from another machine, a package not on the
search path) or that nothing here reads (Ogre ``.mesh``, a broken ``.dae``) is left out with its geoms
and the rest imported, as Blender's importers go on past a missing texture: a warning lists the
links and the paths searched or why the file cannot be read, and each collider left out gets a
warning of its own (its link has no collision there now).

Gazebo's sensor tags and ros2_control's sensors, which MuJoCo's compiler skips, are read from the same
tree by core/urdf/sensors.py into sensors, sites and cameras.

Mapping: each link -> a body (fixed links stay bodies, welded by FIXED joints named as in the
URDF); the root link is fixed to the world (Newton's add_urdf default), or floats with
``floating_base`` (a legged robot, a mobile base: Newton's ``floating=True``, pybullet's default, Isaac
Sim's *Fix Base Link* off); revolute/continuous ->
REVOLUTE (continuous unlimited), prismatic -> PRISMATIC; ``<collision>`` -> colliders (meshes as
convex hulls, as MuJoCo collides them), ``<visual>`` -> visual meshes with their colors. Masses are
MuJoCo's (the ``<inertial>``, else computed from the geometry).
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Optional
from urllib.parse import unquote, urlparse

import numpy as np

from ..files import parent_folders
from ..format_types import FormatError, ReadResult
from ..mjcf.reader import MeshSource, MjcfReader as _Reader  # noqa: F401  (MeshSource: re-exported)
from .collada import ColladaReadError, read_collada
from .stl import StlReadError, mujoco_reads_stl, read_stl
from .repairs import TreeError, add_planes, check_tree, repair_text, repair_tree
from .sensors import read_sensors
from .xacro_detect import NamespaceRecorder, xacro_use
from ..model import INF, Actuator, DofMotion, JointType, MassProperties, Pose
from ..transforms import quat_from_matrix, quat_mul, quat_normalize

#: What a moving link without an <inertial> gets (MuJoCo cannot compile a massless moving body).
MIN_MASS = 1e-9
MIN_INERTIA = 1e-12
#: Mesh formats MuJoCo's compiler reads.
MUJOCO_MESH_FORMATS = (".stl", ".obj", ".msh")
#: Newton's correction of an inertia that is not positive definite (newton/_src/geometry/inertia.py:
#: _INERTIA_REL_TOL, _INERTIA_ABS_FLOOR, _INERTIA_ABS_ADJUSTMENT).
NEWTON_INERTIA_RELATIVE, NEWTON_INERTIA_FLOOR, NEWTON_INERTIA_SHIFT = 1.0e-6, 1.0e-10, 1.0e-6
#: MuJoCo refuses a full inertia whose smallest principal moment is below its mjEPS (1e-14 kg m^2);
#: ten times that leaves room for the rounding of its own eigen solver.
MUJOCO_MIN_MOMENT = 1.0e-13


class UrdfReadError(FormatError):
    """A URDF file that cannot be read: the message names the file and the element."""


#: What reading a URDF gives: the one result type of every format.
UrdfRead = ReadResult


def searched_paths(uri: str, urdf_path: str, package_paths=()) -> list[str]:
    """Every file a URDF mesh ``uri`` may name, in the order they are tried.

    ``package://pkg/rest``: ``<dir>/pkg/rest`` then ``<dir>/rest`` for each dir of the package search
    path, the URDF's folder and its parents (ROS packages sit above their ``urdf`` folder);
    ``file://`` and plain paths: as given when absolute, else against the URDF's folder, the search
    path and the parents (pybullet's additional search path: differential/diff_ring.urdf names
    differential/diff_ring.stl)."""
    folder = os.path.dirname(os.path.abspath(urdf_path))
    if uri.startswith("package://"):
        package, _, inner = uri[len("package://"):].partition("/")
        bases = [*package_paths, folder, *parent_folders(folder)]
        candidates = [c for base in bases for c in (os.path.join(base, package, inner), os.path.join(base, inner))]
    else:
        if uri.startswith("file://"):
            uri = unquote(urlparse(uri).path)
        candidates = [uri] if os.path.isabs(uri) else [
            os.path.join(base, uri) for base in [folder, *package_paths, *parent_folders(folder)]]
    return list(dict.fromkeys(os.path.abspath(c) for c in candidates))


def resolve_uri(uri: str, urdf_path: str, package_paths=()) -> str | None:
    """The file a URDF mesh ``uri`` names (the first of :func:`searched_paths` that exists), or None."""
    return next((p for p in searched_paths(uri, urdf_path, package_paths) if os.path.isfile(p)), None)


class _UrdfReader(_Reader):
    Error = UrdfReadError
    names_includers = False

    def __init__(self, path: str, package_paths=(), floating_base: bool = False):
        super().__init__(path, visuals_from_colliders=False)
        self.package_paths = [os.path.abspath(p) for p in package_paths]
        self.floating_base = floating_base
        self.left_out: list[tuple[str, str]] = []
        self.user_mesh_files: dict[str, str] = {}  # mesh name -> its file, read here for MuJoCo
        self._collada: dict[str, object] = {}  # file -> its ColladaMesh, or why it cannot be read
        self.unreadable: dict[str, str] = {}  # mesh URI -> why its file could not be read
        self.missing: dict[str, list[str]] = {}  # mesh URI not found -> the paths searched

    def parse(self):
        try:
            with open(self.path, encoding="utf-8") as f:
                text, notes = repair_text(f.read())
            builder = NamespaceRecorder(insert_comments=True)
            parser = ET.XMLParser(target=builder)  # keeps the line count
            parser.feed(text.lstrip())  # blank lines before <?xml are common
            root = parser.close()
        except OSError as error:
            raise UrdfReadError(self.path, f"cannot be read ({error.strerror})") from error
        except (ET.ParseError, UnicodeDecodeError) as error:
            raise UrdfReadError(self.path, f"not valid XML ({error})") from error
        if root.tag != "robot":
            raise UrdfReadError(self.path, f"the root element is <{root.tag}>, not <robot>")
        _refuse_xacro(self.path, root, builder.uris_of("xacro"))
        self.xml = root
        try:
            check_tree(root)
        except TreeError as error:
            raise UrdfReadError(self.path, str(error)) from None
        repaired = repair_tree(root)
        for note in notes + repaired.notes:
            self.warn(f"repaired: {note}")
        self.spherical_limits = repaired.spherical
        self.velocity_limits = {}
        self.fixed_joints = {}
        self.written_kinds = {}
        for joint in root.findall("joint"):
            name = joint.get("name", "")
            limit = joint.find("limit")
            self.written_kinds[name] = (joint.get("type"), _written_range(limit))
            if limit is not None and limit.get("velocity") is not None:
                try:
                    self.velocity_limits[name] = float(limit.get("velocity"))
                except ValueError as error:
                    raise UrdfReadError(self.path, f"joint {name}: <limit velocity> is not a number") from error
            child = joint.find("child")
            if joint.get("type") == "fixed" and child is not None:
                self.fixed_joints[child.get("link")] = name
        self.transmissions = [_transmission(t) for t in root.findall("transmission")]
        self.deformables = [d.get("name", "") for d in root.findall("deformable")]  # pybullet's extension
        extension = root.find("mujoco")
        if extension is None:
            extension = ET.SubElement(root, "mujoco")
        compiler = extension.find("compiler")
        if compiler is None:
            compiler = ET.SubElement(extension, "compiler")
        compiler.set("discardvisual", "false")
        compiler.set("fusestatic", "false")
        compiler.set("strippath", "false")
        compiler.set("inertiafromgeom", "false")  # URDF masses are the <inertial>s alone
        serialized = ET.tostring(root, encoding="unicode")
        # MuJoCo's messages count lines of the text it was given: shift them to the file's.
        offset = text[:text.find("<robot")].count("\n") - serialized[:serialized.find("<robot")].count("\n")
        try:
            spec = self.mujoco.MjSpec.from_string(serialized)
        except Exception as error:
            message = re.sub(r"line (\d+)", lambda m: f"line {int(m.group(1)) + offset}", " ".join(str(error).split()))
            raise UrdfReadError(self.path, message) from error
        add_planes(spec, self.mujoco, repaired.planes)
        if self.floating_base:
            self.float_roots(spec)
        self.make_inertias_positive(spec)
        self.resolve_meshes(spec)
        self.drop_empty_geoms(spec)
        # Each link's <inertial> as written, before compiling may balance, bound or fill it in.
        self.inertials = {b.name: _urdf_inertial(b) for b in spec.bodies}
        return spec

    def float_roots(self, spec) -> None:
        """A free joint on each root link the world holds by nothing else; a root jointed to the world
        (through the file's own ``world`` link) stays as written, said."""
        for body in spec.worldbody.bodies:
            if body.joints:
                names = ", ".join(j.name for j in body.joints)
                self.warn(f"floating base: link {body.name!r} is jointed to the world ({names}) by the "
                          "file's world link: left as written")
            else:
                body.add_freejoint()

    def make_inertias_positive(self, spec) -> None:
        """A full inertia with a principal moment MuJoCo reads as not positive (a rod written as a
        tensor of rank 2, or a small link's moment lost to the file's rounding: MuJoCo refuses any
        below :data:`MUJOCO_MIN_MOMENT`), repaired with a warning (:meth:`make_inertia_positive`)."""
        for body in spec.bodies:
            self.make_inertia_positive(body)

    def make_inertia_positive(self, body, force: bool = False) -> bool:
        """Corrected as Newton's finalize corrects it (newton.geometry.inertia.verify_and_correct_
        inertia): a shift of the diagonal that lifts the smallest moment to a millionth of the largest
        (at least 1e-10) plus 1e-6 kg m^2. ``force``: MuJoCo refused it though it looked positive here."""
        full = np.asarray(body.fullinertia, dtype=float)
        if not body.explicitinertial or not np.all(np.isfinite(full)) or not np.any(full != 0.0):
            return False
        xx, yy, zz, xy, xz, yz = full
        moments = np.linalg.eigvalsh(np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]))
        if moments[0] > max(1e-9 * moments[-1], MUJOCO_MIN_MOMENT) and not force:
            return False
        threshold = max(NEWTON_INERTIA_RELATIVE * moments[-1], NEWTON_INERTIA_FLOOR)
        shift = max(threshold - moments[0], 0.0) + NEWTON_INERTIA_SHIFT
        body.fullinertia = [xx + shift, yy + shift, zz + shift, xy, xz, yz]
        self.warn(f"repaired: link {body.name}: inertia not positive definite (principal moments "
                  f"{_moments_text(moments)}), {shift:.3g} kg m^2 added on its diagonal as Newton does")
        return True

    def drop_empty_geoms(self, spec) -> None:
        """Geometry of size 0 (a ``<sphere radius="0"/>`` marker) is no shape: left out, named."""
        G = self.mujoco.mjtGeom
        sized = {int(G.mjGEOM_SPHERE): 1, int(G.mjGEOM_CAPSULE): 2, int(G.mjGEOM_CYLINDER): 2,
                 int(G.mjGEOM_BOX): 3, int(G.mjGEOM_ELLIPSOID): 3}
        empty = [g for g in spec.geoms if int(g.type) in sized and min(g.size[:sized[int(g.type)]]) <= 0.0]
        for geom in empty:
            spec.delete(geom)
        if empty:
            self.warn(f"{len(empty)} geometries of size 0 left out (links "
                      f"{', '.join(sorted({g.parent.name for g in empty}))})")

    def resolve_meshes(self, spec) -> None:
        """Each mesh file found and read (MuJoCo's formats, COLLADA and ASCII STL read here); one
        that is missing or that nothing here reads is left out with its geoms (named in warnings)."""
        users: dict[str, list] = {}
        for geom in spec.geoms:
            if geom.meshname:
                users.setdefault(geom.meshname, []).append(geom)
        for mesh in list(spec.meshes):
            uri = mesh.file
            path = resolve_uri(uri, self.path, self.package_paths)
            if path is None:
                self.missing[uri] = searched_paths(uri, self.path, self.package_paths)
                self.leave_out(spec, mesh, users.get(mesh.name, []), uri)
                continue
            extension = os.path.splitext(path)[1].lower()
            if extension == ".dae":
                reason = self.load_collada(mesh, path)
            elif extension == ".stl":
                reason = self.load_stl(mesh, path)
            elif extension in MUJOCO_MESH_FORMATS:
                reason, mesh.file = None, path
            else:
                reason = ""  # a format nothing here reads (Ogre .mesh, PLY): the extension says it
            if reason is not None:
                if reason:
                    self.unreadable[uri] = reason
                self.leave_out(spec, mesh, users.get(mesh.name, []), uri)

    def leave_out(self, spec, mesh, geoms: list, uri: str) -> None:
        for geom in geoms:
            kind = "visual" if geom.contype == 0 and geom.conaffinity == 0 else "collision"
            self.left_out.append((uri, f"{geom.parent.name} ({kind})"))
            spec.delete(geom)
        spec.delete(mesh)

    def load_stl(self, mesh, path: str) -> Optional[str]:
        """A binary STL MuJoCo's decoder takes stays its file; another (ASCII, or more faces than
        MuJoCo takes) is read by core/urdf/stl.py and handed to MuJoCo as triangles. None when
        read, else why it could not be."""
        if mujoco_reads_stl(path):
            mesh.file = path
            return None
        try:
            vertices, triangles = read_stl(path)
        except (StlReadError, OSError) as error:
            return str(error)
        mesh.file = ""
        mesh.uservert = vertices.ravel().tolist()
        mesh.userface = triangles.ravel().tolist()
        self.user_mesh_files[mesh.name] = path
        return None

    def load_collada(self, mesh, path: str) -> Optional[str]:
        """A COLLADA mesh's polygons handed to MuJoCo as triangles (core/urdf/collada.py: units
        applied, ``up_axis`` ignored, as ROS reads them); the file stays the visual's source for
        Blender. None when read, else why it could not be."""
        if path not in self._collada:
            try:
                self._collada[path] = read_collada(path)
            except ColladaReadError as error:
                self._collada[path] = str(error)
        read = self._collada[path]
        if isinstance(read, str):
            return read
        for image in read.missing_images:
            self.warn(f"{os.path.basename(path)}: texture {image} not found; drawn in its material's color")
        mesh.file = ""
        mesh.uservert = read.vertices.ravel().tolist()
        mesh.userface = read.triangles().ravel().tolist()
        self.user_mesh_files[mesh.name] = path
        return None

    def recover(self, message: str) -> bool:
        """URDF files that ROS and Newton load but MuJoCo's checks refuse."""
        compiler = self.spec.compiler
        refused = re.search(r"positive eigenvalues.*Element name '([^']*)'", message)
        if refused and self.make_inertia_positive(self.spec.body(refused.group(1)), force=True):
            return True
        if "balanceinertia" in message and not compiler.balanceinertia:
            compiler.balanceinertia = True
            self.warn(f"inertias that break the triangle inequality were balanced as MuJoCo does ({message})")
            return True
        if "mjMINVAL" in message and compiler.boundmass <= 0.0:
            compiler.boundmass, compiler.boundinertia = MIN_MASS, MIN_INERTIA
            self.warn(f"moving links without mass got {MIN_MASS:g} kg and {MIN_INERTIA:g} kg m^2 ({message})")
            return True
        texcoords = re.search(r"missing face texture coordinate in '([^']+)'", message)
        if texcoords and self.load_obj_geometry(texcoords.group(1)):
            return True
        flat = re.search(r"mesh volume is too small: (\S+)", message)
        if flat:  # a flat mesh (a floor plane, cloth): MuJoCo's own advice, its surface as the shell
            mesh = self.spec.mesh(flat.group(1))
            if mesh is not None and mesh.inertia != self.mujoco.mjtMeshInertia.mjMESH_INERTIA_SHELL:
                mesh.inertia = self.mujoco.mjtMeshInertia.mjMESH_INERTIA_SHELL
                return True
        return super().recover(message)

    def load_obj_geometry(self, path: str) -> bool:
        """An OBJ whose faces name texture coordinates it lacks (pybullet's table): MuJoCo refuses
        it, Blender and Newton read it. Its vertices and faces go to MuJoCo directly (the file's
        ``v`` and ``f`` lines; polygons as fans), the texture coordinates left out, the file kept
        as the visual's source for Blender's own OBJ importer."""
        meshes = [m for m in self.spec.meshes if m.file == path]
        if not meshes:
            return False
        vertices, faces = _obj_geometry(path)
        for mesh in meshes:
            mesh.file = ""
            mesh.uservert, mesh.userface = vertices, faces
            self.user_mesh_files[mesh.name] = path
        self.warn(f"repaired: {os.path.basename(path)}: faces name texture coordinates the file lacks; "
                  "read without them")
        return True

    def add_body(self, i: int) -> None:
        """The link's own <inertial>, as written (MuJoCo may have balanced or bounded it to compile;
        a link without one has no mass, as in Newton's add_urdf)."""
        super().add_body(i)
        body = self.scene.bodies[-1]
        body.mass = self.inertials.get(self.mujoco.mj_id2name(self.model, self.mujoco.mjtObj.mjOBJ_BODY, i),
                                       MassProperties(mass=0.0))

    def mesh_file(self, spec_mesh):
        """resolve_meshes made every file absolute; a mesh read here (COLLADA, or an OBJ read by
        load_obj_geometry) has none left."""
        return spec_mesh.file or self.user_mesh_files.get(spec_mesh.name) or None

    def fixed_joint_name(self, i: int, name: str) -> str:
        own = self.fixed_joints.get(self.body_names[i])
        return own if own and not any(j.name == own for j in self.scene.joints) else self._free_joint_name(name)

    def keep_written_kinds(self) -> None:
        """Each joint's kind and range as the file has them, as urdfdom reads it: a continuous joint
        has no limit whatever its <limit> says, and a revolute or prismatic joint limited to
        lower = upper (0 0 included, which MuJoCo reads as no limit) stays limited there."""
        for joint in self.scene.joints:
            kind, written = self.written_kinds.get(joint.name, (None, None))
            if len(joint.dofs) != 1:
                continue
            dof = joint.dofs[0]
            if kind == "continuous":
                dof.motion, dof.lower, dof.upper = DofMotion.FREE, -INF, INF
            elif kind in ("revolute", "prismatic") and written is not None and written[0] <= written[1]:
                dof.motion, (dof.lower, dof.upper) = DofMotion.LIMITED, written

    def finish(self) -> None:
        self.keep_written_kinds()
        for joint in self.scene.joints:
            cone = self.spherical_limits.get(joint.name)
            if cone is not None and joint.type == JointType.SPHERICAL:  # pybullet's twist axis is Z
                joint.axis = "Z"  # cone 0: from Z toward X (the swing about Y); cone 1: toward Y
                joint.cone_limit0, joint.cone_limit1 = cone.swing_y, cone.swing_x
            limit = self.velocity_limits.get(joint.name)
            if limit is not None and limit > 0.0:
                for dof in joint.dofs:
                    dof.velocity_limit = limit
            for dof in joint.dofs:  # URDF effort limits are symmetric: MuJoCo keeps them as actuator
                if dof.max_effort == 0.0:  # force ranges; 0 means none given
                    dof.max_effort = INF
        self.warn_left_out()
        if self.deformables:
            self.unsupported.append(f"{len(self.deformables)} deformables ({', '.join(self.deformables)})")
        self.add_transmissions()

    def warn_left_out(self) -> None:
        """One warning for missing files (with the paths searched), one for unreadable ones, and
        one line of its own for each collider left out: that link has no collision there now."""
        missing = [(uri, where) for uri, where in self.left_out if uri in self.missing]
        unreadable = [(uri, where) for uri, where in self.left_out if uri not in self.missing]
        if missing:
            searched = "; ".join(f"{uri}: {', '.join(self.missing[uri])}" for uri in dict.fromkeys(u for u, _ in missing))
            self.warn(f"{len(missing)} geometries left out, their mesh files were not found: "
                      + "; ".join(f"{where}: {uri}" for uri, where in missing) + f" (searched {searched})")
        if unreadable:
            files = sorted({uri for uri, _ in unreadable})
            self.warn(f"{len(unreadable)} geometries left out, their mesh files cannot be read "
                      f"({', '.join(sorted({os.path.splitext(f)[1] for f in files}))}): "
                      + "; ".join(f"{where}: {uri}" + (f" ({self.unreadable[uri]})" if uri in self.unreadable else "")
                                  for uri, where in unreadable))
        for uri, where in dict.fromkeys(self.left_out):
            if where.endswith(" (collision)"):
                link = where[:-len(" (collision)")]
                why = "not found" if uri in self.missing else "cannot be read"
                self.warn(f"link {link}: COLLIDER LEFT OUT, mesh {uri} {why}: the link now has no collision "
                          "there")

    def add_transmissions(self) -> None:
        """A ROS ``<transmission>`` names how a controller commands a joint, not a force law. One case
        maps exactly: a SimpleTransmission of one joint through an effort interface, whose command is
        the joint's effort (ros_control commands joints in joint space, so ``mechanicalReduction``,
        the actuator-side ratio, does not change it; gazebo_ros_control clamps it to ``<limit
        effort>``): a MOTOR actuator, gear 1, ctrl range +-effort. Position and velocity interfaces
        run a controller whose gains are not in the URDF, and other transmission types couple
        several joints or actuators: named as not mapped."""
        not_mapped = []
        taken = {a.name for a, *_ in self.scene.actuators()}
        for t in self.transmissions:
            joint = self.scene.joint(t.joints[0]) if len(t.joints) == 1 else None
            why = t.not_exact()
            if why is None and (joint is None or len(joint.dofs) != 1):
                why = f"joint {', '.join(t.joints)} is no revolute, continuous or prismatic joint of the file"
            if why is not None:
                not_mapped.append(f"{t.name} ({why})")
                continue
            dof = joint.dofs[0]
            name = self._unique(t.actuator or t.name, taken)
            taken.add(name)
            limit = dof.max_effort if 0.0 < dof.max_effort < INF else None
            dof.actuators.append(Actuator.motor(name, ctrl_range=(-limit, limit) if limit else None))
        if not_mapped:
            self.unsupported.append(f"{len(not_mapped)} transmissions not mapped exactly "
                                    f"({'; '.join(not_mapped)})")

    def read(self) -> UrdfRead:
        result = super().read()
        return UrdfRead(scene=result.scene, warnings=result.warnings, left_out_meshes=self.left_out,
                        mesh_sources=self.mesh_sources)


def _written_range(limit) -> Optional[tuple[float, float]]:
    """(lower, upper) of a <limit> that writes both as numbers, else None."""
    try:
        return float(limit.get("lower")), float(limit.get("upper"))
    except (AttributeError, TypeError, ValueError):
        return None


@dataclass
class _Transmission:
    """A ROS ``<transmission>``: its name, type, joints, hardware interfaces and first actuator."""

    name: str
    type: str
    joints: list[str]
    interfaces: list[str]
    actuator: str

    def not_exact(self) -> str | None:
        """Why it does not map exactly to a MOTOR actuator (None when it does)."""
        if not self.type.endswith("SimpleTransmission"):
            return f"type {self.type or 'not given'}"
        if len(self.joints) != 1:
            return f"{len(self.joints)} joints"
        kinds = {i.rsplit("/", 1)[-1] for i in self.interfaces}
        if kinds != {"EffortJointInterface"}:
            return (f"{', '.join(sorted(kinds)) or 'no hardware interface'}: a controller whose gains "
                    "are not in the URDF")
        return None


def _transmission(element) -> _Transmission:
    """Both the ROS 1 form (``<type>``, interfaces under ``<joint>``) and the older one (a ``type``
    attribute, interfaces under ``<actuator>``)."""
    kind = (element.findtext("type") or element.get("type") or "").strip()
    joints = [j.get("name", "") for j in element.findall("joint")]
    interfaces = [(h.text or "").strip() for h in element.iter("hardwareInterface")]
    actuator = next((a.get("name", "") for a in element.findall("actuator")), "")
    return _Transmission(element.get("name", ""), kind, joints, interfaces, actuator)


def _refuse_xacro(path: str, root, xacro_uris=()) -> None:
    """A xacro file (macros, ``${...}`` expressions) is a program that writes a URDF: expanding it
    means running Python expressions from the file, which Articula never does. Say how to expand it."""
    found = xacro_use(root, xacro_uris)
    if found is not None:
        raise UrdfReadError(path, f"a xacro file, not a URDF ({found}): expand it first (ROS: "
                                  "`xacro robot.urdf.xacro > robot.urdf`); Articula runs no expressions from the "
                                  "files it opens")


def _obj_geometry(path: str) -> tuple[list[float], list[int]]:
    """The vertices (flat x, y, z) and triangles (flat indices) of an OBJ's ``v`` and ``f`` lines."""
    vertices, faces = [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split()
            if parts and parts[0] == "v" and len(parts) >= 4:
                vertices += [float(c) for c in parts[1:4]]
            elif parts and parts[0] == "f" and len(parts) >= 4:
                count = len(vertices) // 3
                corners = [int(p.split("/")[0]) for p in parts[1:]]
                corners = [c - 1 if c > 0 else count + c for c in corners]  # 1-based, or relative
                for k in range(1, len(corners) - 1):
                    faces += [corners[0], corners[k], corners[k + 1]]
    return vertices, faces


def _moments_text(moments) -> str:
    """Principal moments as a user reads them: a moment within rounding error of zero (relative to
    the largest, where the eigen solver's last bits differ by CPU and BLAS) is written 0."""
    noise = 1e-12 * float(np.max(np.abs(moments)))
    return ", ".join("0" if abs(m) <= noise else f"{m:.3g}" for m in moments)


def _urdf_inertial(spec_body) -> MassProperties:
    if spec_body is None or not spec_body.explicitinertial:
        return MassProperties(mass=0.0)
    full = np.asarray(spec_body.fullinertia, dtype=float)
    if np.all(np.isfinite(full)) and np.any(full != 0.0):
        xx, yy, zz, xy, xz, yz = full
        tensor = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    else:
        tensor = np.diag(np.asarray(spec_body.inertia, dtype=float))
    moments, axes = np.linalg.eigh(tensor)
    if np.linalg.det(axes) < 0.0:
        axes[:, 0] = -axes[:, 0]
    frame = quat_normalize(tuple(float(c) for c in spec_body.iquat))
    principal = quat_normalize(quat_mul(frame, quat_from_matrix(axes.tolist())))
    return MassProperties(mass=float(spec_body.mass), center_of_mass=tuple(float(c) for c in spec_body.ipos),
                          diagonal_inertia=tuple(float(max(m, 0.0)) for m in moments), principal_axes=principal)


def read_urdf(path: str, package_paths=(), floating_base: bool = False) -> UrdfRead:
    """Read a URDF file into the description; raises :class:`UrdfReadError` naming file and element.

    ``package_paths``: folders searched for ``package://`` meshes (after which the file's own folder
    and its parents are searched). ``floating_base``: the root link floats (a free joint) instead of
    being fixed to the world."""
    reader = _UrdfReader(path, package_paths, floating_base)
    read = reader.read()
    read.warnings += read_sensors(reader.xml, read.scene)
    if not read.scene.bodies:
        links = ", ".join(repr(link.get("name")) for link in reader.xml.iter("link")) or "none"
        read.warnings.append(f"no link becomes a rigid body (links: {links}): nothing to simulate")
    return read
