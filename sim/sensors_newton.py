"""Sensor readings on Newton's solvers (Featherstone, XPBD, MuJoCo through Newton), from Newton's state.

MuJoCo's definitions in numpy on ``state_0`` (no Warp kernel is built for them):

- frames (site, xbody, body, geom, camera) from ``body_q`` and the description's local poses; a point's
  velocity from the body's centre-of-mass velocity and spin (``body_qd``, world frame);
- accelerations (``accelerometer``, ``framelinacc``: proper acceleration, +9.81 up at rest, about 0
  in free fall, in the site's frame or the world's; ``frameangacc``) from
  the change of ``body_qd`` since the reader's last sample, taken at each :meth:`read` whose time
  moved on: the mean over the steps between two readings (none before the second);
- ``force``/``torque`` at a site: the wrench the parent exerts on the site body's subtree through its
  joint (at rest: the weight below it), from Newton's ``body_parent_f``, which the solver fills in
  every state that has the array (the reader adds it to the simulation's states);
- ``touch``: 1 while a collider of the site's body touches something, 0 while none does (Newton's
  Featherstone gives contacts, not their forces; MuJoCo's contacts come through its solver's export);
- joint sensors, one value per DOF of the joint, from the simulation's joint coordinates.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from ..core.model import Body, Pose, Sensor
from ..core.transforms import quat_from_matrix, quat_to_matrix
from .sensor_reader import SensorReader, channel_names, on_mujoco_c

#: A contact closer than this (m, after the colliders' margins) touches.
TOUCH_DISTANCE = 1e-3

_FRAME_KINDS = frozenset({"site", "xbody", "body", "geom", "camera"})
_ACCELERATIONS = frozenset({"accelerometer", "framelinacc", "frameangacc"})
_WRENCHES = frozenset({"force", "torque"})


def _matrix(quat_xyzw: np.ndarray) -> np.ndarray:
    x, y, z, w = quat_xyzw
    return np.asarray(quat_to_matrix((w, x, y, z)))


def _quat_wxyz(matrix: np.ndarray) -> np.ndarray:
    q = np.asarray(quat_from_matrix(matrix.tolist()))
    return q if q[0] >= 0 else -q  # MuJoCo's framequat has w >= 0


class _Frame:
    """A frame attached to a Newton body (``body`` -1: the world) at ``local`` in its body frame."""

    def __init__(self, body: int, local: Pose):
        self.body = body
        self.local_pos = np.asarray(local.pos, dtype=float)
        self.local_rot = np.asarray(quat_to_matrix(local.rot))


class NewtonSensorReader(SensorReader):
    """Readings of a :class:`sim.simulation.Simulation` on Newton's state; see the module."""

    @classmethod
    def reads(cls, sim) -> bool:
        return not on_mujoco_c(sim)

    def __init__(self, sim):
        super().__init__(sim, sim.scene)
        model = sim.model
        self.gravity = np.asarray(model.gravity.numpy(), dtype=float).reshape(-1, 3)[0]
        self.body_com = model.body_com.numpy().astype(float)
        self.body_mass = model.body_mass.numpy().astype(float)
        self.body_inertia = model.body_inertia.numpy().astype(float)  # body frame, about the COM
        self.shape_body = model.shape_body.numpy()
        self._frames: dict[tuple, Optional[_Frame]] = {}
        self._exported_contacts = None  # a MuJoCo solver's contacts in Newton's form
        self._touching_bodies: Optional[set[int]] = None  # bodies in contact now, found once a reading
        self._sample = None  # (time, body_qd) of the last reading
        self._acceleration = None  # (n, 6) body accelerations between the last two samples
        self._wrenches_from = self._request_parent_wrenches()
        for name, sensor in self.sensors.items():
            why = self._refusal(sensor)
            if why:
                self.unavailable[name] = why
            elif sensor.kind in _ACCELERATIONS:
                self.notes[name] = "the mean acceleration since the last reading (MuJoCo's is the step's)"
            elif sensor.kind == "touch":
                self.notes[name] = ("1 while a collider of its body touches something, else 0 "
                                    "(MuJoCo's is the normal force inside the site, N)")

    # set-up ----------------------------------------------------------------------------------

    def _request_parent_wrenches(self) -> Optional[int]:
        """Give the states ``body_parent_f`` so the solver fills it; the step count from which it holds
        a solver's wrenches, or None when this simulation's steps do not fill it."""
        if not any(s.kind in _WRENCHES for s in self.sensors.values()):
            return None
        if getattr(self.sim, "direct", None) is not None or not self._solver_fills("BODY_PARENT_F"):
            return None
        import warp as wp

        model = self.sim.model
        # every state the simulation copies between (a reset copies its start into both)
        states = (self.sim._state_0, self.sim.state_1, getattr(self.sim, "start", None))
        for state in filter(None, states):
            if getattr(state, "body_parent_f", None) is None:
                state.body_parent_f = wp.zeros(model.body_count, dtype=wp.spatial_vector, device=model.device)
        return self.sim.steps

    def _contacts(self):
        """The contacts of the current step: Newton's collision pipeline's, else the ones a MuJoCo solver
        exports into Newton's form (made once, refreshed at each reading); None when there are none."""
        if getattr(self.sim, "contacts", None) is not None:
            return self.sim.contacts
        if not hasattr(self.sim.solver, "update_contacts"):
            return None
        if self._exported_contacts is None:
            import newton

            model, solver = self.sim.model, self.sim.solver
            room = solver.get_max_contact_count() if hasattr(solver, "get_max_contact_count") else 0
            room = max(room, model.rigid_contact_max or 0, 1)
            self._exported_contacts = newton.Contacts(room, 0, device=model.device)
        return self._exported_contacts

    def _solver_fills(self, observable: str) -> bool:
        from newton.solvers import SolverBase

        kind = getattr(SolverBase.ObservableKind, observable)
        return kind in getattr(type(self.sim.solver), "SUPPORTED_OBSERVABLES", ())

    def _refusal(self, sensor: Sensor) -> Optional[str]:
        kind = sensor.kind
        solver = self.sim.solver_kind.value
        if kind in _WRENCHES and self._wrenches_from is None:
            return f"{solver} gives Newton's state no joint wrenches here"
        if kind == "touch" and self._contacts() is None:
            return f"{solver} gives no contacts here: no touch"
        if kind in ("jointpos", "jointvel"):
            dofs = self._joint_dofs(sensor.target)
            if not dofs:
                return f"no joint {sensor.target!r} with a DOF"
            known = self.sim.joint_positions(0) if kind == "jointpos" else self.sim.joint_velocities(0)
            missing = [axis for key in dofs if key not in known for axis in key[1:]]
            return f"joint {sensor.target!r} has no coordinate for {missing} here" if missing else None
        if kind not in _READERS:
            return f"{solver} on Newton gives no {kind} reading"
        if kind in ("framelinacc", "frameangacc") and sensor.reference:
            return f"{kind} is read in the world's frame only"
        for kind_of, name in ((sensor.target_kind, sensor.target), (sensor.reference_kind, sensor.reference)):
            frame = self._frame(kind_of, name, 0) if name else None
            if name and (frame is None or frame.body == -2):
                return f"{kind_of} {name!r} is not a frame on a body of Newton's model"
        return None

    def _frame(self, kind: Optional[str], name: str, replica: int) -> Optional[_Frame]:
        key = (kind, name, replica)
        if key not in self._frames:
            self._frames[key] = self._find_frame(kind, name, replica)
        return self._frames[key]

    def _find_frame(self, kind: Optional[str], name: str, replica: int) -> Optional[_Frame]:
        scene = self.scene
        if kind == "site":
            item = next((s for s in scene.sites if s.name == name), None)
        elif kind == "geom":
            item = next((s for s in scene.shapes if s.name == name), None)
        elif kind == "camera":
            item = next((c for c in scene.cameras if c.name == name), None)
        elif kind in ("xbody", "body"):
            body = next((b for b in scene.bodies if b.name == name), None)
            if body is None:
                return None
            return _Frame(self._body_index(name, replica), self._body_local(kind, body))
        else:
            return None
        if item is None:
            return None
        return _Frame(self._body_index(item.body, replica) if item.body else -1, item.pose)

    def _body_index(self, name: str, replica: int) -> int:
        built = self.sim.built
        try:
            return int(built.body_index[built.key_index(name, replica)])
        except ValueError:
            return -2  # merged into its parent or left out: no body of its own in Newton's model

    @staticmethod
    def _body_local(kind: str, body: Body) -> Pose:
        if kind == "xbody" or body.mass is None:
            return Pose()
        return Pose(body.mass.center_of_mass, body.mass.principal_axes)  # MuJoCo's inertial frame

    def _joint_dofs(self, name: Optional[str]) -> list[tuple[str, str]]:
        """The (joint, axis) keys a joint sensor reads: the DOF with that file name, or every DOF of the
        joint with that name."""
        for joint in self.scene.joints:
            named = [(joint.name, d.axis.value) for d in joint.dofs if d.name == name]
            if named:
                return named
        joint = next((j for j in self.scene.joints if j.name == name), None)
        return [(joint.name, d.axis.value) for d in joint.dofs] if joint else []

    def channel_names(self, name: str) -> tuple[str, ...]:
        sensor = self.sensors[name]
        if sensor.kind in ("jointpos", "jointvel"):
            dofs = self._joint_dofs(sensor.target)
            if len(dofs) > 1:
                return tuple(axis for _, axis in dofs)
        return channel_names(sensor)

    # reading ---------------------------------------------------------------------------------

    def read(self, replica: int = 0) -> dict[str, dict[str, float]]:
        state = self.sim.state_0
        self._q = state.body_q.numpy().astype(float)
        self._qd = state.body_qd.numpy().astype(float)
        self._touching_bodies = None
        self._take_sample()
        return super().read(replica)

    def _take_sample(self):
        time = float(self.sim.time)
        if self._sample is not None and time < self._sample[0]:  # reset: start over
            self._sample, self._acceleration = None, None
            if self._wrenches_from is not None:
                self._wrenches_from = 0
        if self._sample is None or time > self._sample[0]:
            if self._sample is not None:
                self._acceleration = (self._qd - self._sample[1]) / (time - self._sample[0])
            self._sample = (time, self._qd.copy())

    def _values(self, sensor: Sensor, replica: int) -> Optional[np.ndarray]:
        if sensor.kind in _ACCELERATIONS and self._acceleration is None:
            return None  # the first reading: no change of velocity seen yet
        if sensor.kind in _WRENCHES and self.sim.steps <= self._wrenches_from:
            return None  # no step has filled the wrenches yet
        return _READERS[sensor.kind](self, sensor, replica)

    def _pose(self, frame: _Frame) -> tuple[np.ndarray, np.ndarray]:
        """World position and rotation matrix of ``frame``."""
        if frame.body < 0:
            return frame.local_pos, frame.local_rot
        q = self._q[frame.body]
        rot = _matrix(q[3:7])
        return q[:3] + rot @ frame.local_pos, rot @ frame.local_rot

    def _motion(self, frame: _Frame) -> tuple[np.ndarray, np.ndarray]:
        """World linear velocity of ``frame``'s origin and the body's angular velocity."""
        if frame.body < 0:
            return np.zeros(3), np.zeros(3)
        v, w = self._qd[frame.body, :3], self._qd[frame.body, 3:]
        return v + np.cross(w, self._pose(frame)[0] - self._com(frame.body)), w

    def _com(self, body: int) -> np.ndarray:
        q = self._q[body]
        return q[:3] + _matrix(q[3:7]) @ self.body_com[body]

    def _target(self, sensor: Sensor, replica: int) -> _Frame:
        return self._frame(sensor.target_kind or "site", sensor.target, replica)

    def _reference(self, sensor: Sensor, replica: int) -> Optional[_Frame]:
        return self._frame(sensor.reference_kind, sensor.reference, replica) if sensor.reference else None

    # site sensors (MuJoCo: in the site's frame)
    def _gyro(self, sensor, replica):
        frame = self._target(sensor, replica)
        return self._pose(frame)[1].T @ self._motion(frame)[1]

    def _velocimeter(self, sensor, replica):
        frame = self._target(sensor, replica)
        return self._pose(frame)[1].T @ self._motion(frame)[0]

    def _accelerometer(self, sensor, replica):
        frame = self._target(sensor, replica)
        return self._pose(frame)[1].T @ self._proper_acceleration(frame)

    def _proper_acceleration(self, frame: _Frame) -> np.ndarray:
        """World acceleration of ``frame``'s origin less gravity's (what an accelerometer feels)."""
        if frame.body < 0:
            return -self.gravity
        acc, w = self._acceleration[frame.body], self._qd[frame.body, 3:]
        r = self._pose(frame)[0] - self._com(frame.body)
        return acc[:3] + np.cross(acc[3:], r) + np.cross(w, np.cross(w, r)) - self.gravity

    def _framelinacc(self, sensor, replica):
        return self._proper_acceleration(self._target(sensor, replica))

    def _frameangacc(self, sensor, replica):
        frame = self._target(sensor, replica)
        return np.zeros(3) if frame.body < 0 else self._acceleration[frame.body, 3:]

    def _wrench(self, sensor, replica) -> tuple[np.ndarray, np.ndarray]:
        """The parent's force on the site body's subtree and its torque about the site, site frame."""
        frame = self._target(sensor, replica)
        pos, rot = self._pose(frame)
        wrench = self.sim.state_0.body_parent_f.numpy()[frame.body].astype(float)
        force, torque_at_com = wrench[:3], wrench[3:]
        torque = torque_at_com + np.cross(self._com(frame.body) - pos, force)
        return rot.T @ force, rot.T @ torque

    def _force(self, sensor, replica):
        return self._wrench(sensor, replica)[0]

    def _torque(self, sensor, replica):
        return self._wrench(sensor, replica)[1]

    def _touch(self, sensor, replica):
        body = self._target(sensor, replica).body
        return np.array([1.0 if self._touching(body) else 0.0])

    def _touching(self, body: int) -> bool:
        if self._touching_bodies is None:
            self._touching_bodies = self._bodies_in_contact()
        return body in self._touching_bodies

    def _bodies_in_contact(self) -> set[int]:
        """Newton bodies with a collider closer than :data:`TOUCH_DISTANCE` to another (after margins)."""
        contacts = self._contacts()
        if contacts is self._exported_contacts:
            self.sim.solver.update_contacts(contacts, self.sim.state_0)
        count = int(contacts.rigid_contact_count.numpy()[0])
        if count == 0:
            return set()
        bodies = [self.shape_body[contacts.rigid_contact_shape0.numpy()[:count]],
                  self.shape_body[contacts.rigid_contact_shape1.numpy()[:count]]]
        local = [contacts.rigid_contact_point0.numpy()[:count], contacts.rigid_contact_point1.numpy()[:count]]
        world = [self._points_in_world(b, p) for b, p in zip(bodies, local)]
        normal = contacts.rigid_contact_normal.numpy()[:count]
        margins = (contacts.rigid_contact_margin0.numpy()[:count]
                   + contacts.rigid_contact_margin1.numpy()[:count])
        touching = np.einsum("ij,ij->i", world[1] - world[0], normal) - margins < TOUCH_DISTANCE
        return {int(b) for side in bodies for b in side[touching] if b >= 0}

    def _points_in_world(self, bodies: np.ndarray, points: np.ndarray) -> np.ndarray:
        """``points`` given in their ``bodies``' frames (-1: the world's), in world space."""
        out = np.array(points, dtype=float)
        moving = bodies >= 0
        q = self._q[bodies[moving]]
        xyz, w = q[:, 3:6], q[:, 6:7]
        p = out[moving]
        t = 2.0 * np.cross(xyz, p)  # a unit quaternion's rotation: p + w t + xyz x t
        out[moving] = q[:, :3] + p + w * t + np.cross(xyz, t)
        return out

    # frame sensors (MuJoCo: in the reference frame, else the world)
    def _relative(self, sensor, replica) -> tuple[np.ndarray, np.ndarray, Optional[_Frame]]:
        pos, rot = self._pose(self._target(sensor, replica))
        ref = self._reference(sensor, replica)
        if ref is None:
            return pos, rot, None
        ref_pos, ref_rot = self._pose(ref)
        return ref_rot.T @ (pos - ref_pos), ref_rot.T @ rot, ref

    def _framepos(self, sensor, replica):
        return self._relative(sensor, replica)[0]

    def _framequat(self, sensor, replica):
        return _quat_wxyz(self._relative(sensor, replica)[1])

    def _framelinvel(self, sensor, replica):
        target = self._target(sensor, replica)
        velocity = self._motion(target)[0]
        ref = self._reference(sensor, replica)
        if ref is None:
            return velocity
        ref_pos, ref_rot = self._pose(ref)
        ref_v, ref_w = self._motion(ref)
        relative = velocity - ref_v - np.cross(ref_w, self._pose(target)[0] - ref_pos)
        return ref_rot.T @ relative

    def _frameangvel(self, sensor, replica):
        spin = self._motion(self._target(sensor, replica))[1]
        ref = self._reference(sensor, replica)
        if ref is None:
            return spin
        return self._pose(ref)[1].T @ (spin - self._motion(ref)[1])

    def _subtreecom(self, sensor, replica):
        bodies = self._subtree_bodies(sensor, replica)
        masses = self.body_mass[bodies]
        coms = np.array([self._com(i) for i in bodies])
        return masses @ coms / masses.sum()

    def _subtree_bodies(self, sensor, replica) -> list[int]:
        return [i for i in (self._body_index(n, replica) for n in self._subtree(sensor.target)) if i >= 0]

    def _subtreelinvel(self, sensor, replica):
        bodies = self._subtree_bodies(sensor, replica)
        masses = self.body_mass[bodies]
        return masses @ self._qd[bodies, :3] / masses.sum()

    def _subtreeangmom(self, sensor, replica):
        """Angular momentum of the subtree about its centre of mass, world frame."""
        bodies = self._subtree_bodies(sensor, replica)
        masses = self.body_mass[bodies]
        com = self._subtreecom(sensor, replica)
        velocity = masses @ self._qd[bodies, :3] / masses.sum()
        total = np.zeros(3)
        for body, mass in zip(bodies, masses):
            rot = _matrix(self._q[body, 3:7])
            spin = self._qd[body, 3:]
            total += rot @ self.body_inertia[body] @ rot.T @ spin
            total += mass * np.cross(self._com(body) - com, self._qd[body, :3] - velocity)
        return total

    def _clock(self, sensor, replica):
        return np.array([self.sim.time])

    def _subtree(self, root: str) -> list[str]:
        children: dict[Optional[str], list[str]] = {}
        for body in self.scene.bodies:
            children.setdefault(body.parent, []).append(body.name)
        names, todo = [], [root]
        while todo:
            name = todo.pop()
            names.append(name)
            todo += children.get(name, [])
        return names

    # joint sensors
    def _jointpos(self, sensor, replica):
        values = self.sim.joint_positions(replica)  # the file's coordinate
        return np.array([values[key] for key in self._joint_dofs(sensor.target)])

    def _jointvel(self, sensor, replica):
        values = self.sim.joint_velocities(replica)
        return np.array([values[key] for key in self._joint_dofs(sensor.target)])


_READERS = {
    "gyro": NewtonSensorReader._gyro,
    "velocimeter": NewtonSensorReader._velocimeter,
    "accelerometer": NewtonSensorReader._accelerometer,
    "force": NewtonSensorReader._force,
    "torque": NewtonSensorReader._torque,
    "touch": NewtonSensorReader._touch,
    "framepos": NewtonSensorReader._framepos,
    "framequat": NewtonSensorReader._framequat,
    "framexaxis": lambda self, s, r: self._relative(s, r)[1][:, 0],
    "frameyaxis": lambda self, s, r: self._relative(s, r)[1][:, 1],
    "framezaxis": lambda self, s, r: self._relative(s, r)[1][:, 2],
    "framelinvel": NewtonSensorReader._framelinvel,
    "framelinacc": NewtonSensorReader._framelinacc,
    "frameangacc": NewtonSensorReader._frameangacc,
    "frameangvel": NewtonSensorReader._frameangvel,
    "subtreecom": NewtonSensorReader._subtreecom,
    "subtreelinvel": NewtonSensorReader._subtreelinvel,
    "subtreeangmom": NewtonSensorReader._subtreeangmom,
    "clock": NewtonSensorReader._clock,
    "jointpos": NewtonSensorReader._jointpos,
    "jointvel": NewtonSensorReader._jointvel,
}
