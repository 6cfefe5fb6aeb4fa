"""Per-DOF joint effects Newton's solvers lack, as Warp kernels applied through ``control.joint_f``.

Joint friction (per DOF, ``Dof.static_friction``, ``dynamic_friction`` and ``viscous_damping``):

- a joint at rest stays at rest while the effort applied to it is below ``static_friction``;
- a moving joint feels ``-sign(qd) * (dynamic_friction + viscous_damping * |qd|)``.

Which solver does what natively (Newton 1.8):

=====================  ============  ==========  ======
piece                  FEATHERSTONE  MUJOCO      XPBD
=====================  ============  ==========  ======
viscous damping        native        native      drive (*)
static/dynamic         kernel        kernel      kernel
effort limit (drives)  kernel        native      no
velocity limit         kernel        kernel      no
=====================  ============  ==========  ======

(*) on XPBD viscous damping is its velocity drive (``joint_target_kd``, :mod:`sim.builder`): an implicit
damper, where an explicit torque from here blew up light links.

MuJoCo's own ``frictionloss`` is not used: it has one level for static and dynamic friction.

Stiction is a hold: when a joint slows below the speed one step of dynamic friction removes, it
sticks at an anchor and a stiff, critically damped spring (bounded by ``static_friction``) holds
it there; when the spring would need more than ``static_friction`` the applied effort exceeds
static friction and the joint breaks away (a critically damped spring's force approaches the
applied effort without overshoot, so it measures that effort). The spring's frequency is ``HOLD_OMEGA_DT / dt``
over the DOF's joint-space inertia, so it stays stable with explicit integration.
"""

from __future__ import annotations

import numpy as np
import warp as wp

#: Hold spring frequency times the step: 0.25 keeps the damper (2 * omega * dt = 0.5) four times
#: inside the explicit stability bound, leaving room for inertia below the estimate.
HOLD_OMEGA_DT = 0.25


@wp.kernel
def joint_friction_kernel(
    joint_q: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
    q_index: wp.array(dtype=int),
    qd_index: wp.array(dtype=int),
    static_effort: wp.array(dtype=float),
    dynamic_effort: wp.array(dtype=float),
    viscous: wp.array(dtype=float),
    hold_kp: wp.array(dtype=float),
    hold_kd: wp.array(dtype=float),
    rest_speed: wp.array(dtype=float),
    applied_f: wp.array(dtype=float),
    stuck: wp.array(dtype=int),
    anchor: wp.array(dtype=float),
    joint_f: wp.array(dtype=float),
):
    i = wp.tid()
    d = qd_index[i]
    qd = joint_qd[d]
    q = float(0.0)
    if q_index[i] >= 0:
        q = joint_q[q_index[i]]
    f = -viscous[i] * qd
    coulomb = float(0.0)
    if stuck[i] == 0 and wp.abs(qd) <= rest_speed[i] and static_effort[i] > 0.0:
        stuck[i] = 1
        anchor[i] = q
    if stuck[i] == 1:
        offset = float(0.0)
        if q_index[i] >= 0:
            offset = q - anchor[i]
        spring = -hold_kp[i] * offset
        if wp.abs(spring) <= static_effort[i]:
            # The spring's force settles at the applied effort without overshoot (critical
            # damping), so it alone decides breakaway; the damper only shapes the hold.
            coulomb = wp.clamp(spring - hold_kd[i] * qd, -static_effort[i], static_effort[i])
        else:
            stuck[i] = 0  # breakaway: the applied effort beat static friction
            coulomb = wp.sign(spring) * dynamic_effort[i]
    else:
        coulomb = -wp.sign(qd) * dynamic_effort[i]
    joint_f[d] = applied_f[d] + f + coulomb


@wp.kernel
def clamped_drive_kernel(
    joint_q: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
    target_q: wp.array(dtype=float),
    target_qd: wp.array(dtype=float),
    q_index: wp.array(dtype=int),
    qd_index: wp.array(dtype=int),
    stiffness: wp.array(dtype=float),
    damping: wp.array(dtype=float),
    max_effort: wp.array(dtype=float),
    joint_f: wp.array(dtype=float),
):
    """A PD drive clamped to its effort limit, added to ``joint_f`` (after the friction kernel)."""
    i = wp.tid()
    c = q_index[i]
    d = qd_index[i]
    f = stiffness[i] * (target_q[c] - joint_q[c]) + damping[i] * (target_qd[d] - joint_qd[d])
    joint_f[d] = joint_f[d] + wp.clamp(f, -max_effort[i], max_effort[i])


@wp.kernel
def clamp_velocity_kernel(
    q_index: wp.array(dtype=int),
    qd_index: wp.array(dtype=int),
    limit: wp.array(dtype=float),
    dt: float,
    joint_q: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
):
    """Clamp a DOF's speed after a step and take back the distance the excess speed covered
    (the solvers integrate positions with the new velocity: q += dt * qd)."""
    i = wp.tid()
    d = qd_index[i]
    qd = joint_qd[d]
    excess = qd - wp.clamp(qd, -limit[i], limit[i])
    joint_qd[d] = qd - excess
    if q_index[i] >= 0:
        joint_q[q_index[i]] = joint_q[q_index[i]] - dt * excess


def _ints(values, device) -> wp.array:
    return wp.array(np.asarray(values, dtype=np.int32), dtype=int, device=device)


def _floats(values, device) -> wp.array:
    return wp.array(np.asarray(values, dtype=np.float32), dtype=float, device=device)


class JointEffects:
    """Friction, clamped drives and velocity limits for the DOFs that need them.

    ``dofs`` are :class:`sim.builder.DofInfo`; ``inertia`` the joint-space inertia per Newton DOF.
    """

    def __init__(self, dofs, inertia: np.ndarray, dt: float, joint_dof_count: int, *,
                 kernel_damping: bool, kernel_effort_limit: bool, device):
        self.device = device
        self.dt = dt
        self.applied_f = wp.zeros(joint_dof_count, dtype=float, device=device)
        friction = [d for d in dofs if d.dof.static_friction > 0.0 or d.dof.dynamic_friction > 0.0
                    or (kernel_damping and d.dof.viscous_damping > 0.0)]
        self.friction_count = len(friction)
        if friction:
            m = np.array([inertia[d.qd_index] for d in friction])
            omega = HOLD_OMEGA_DT / dt
            static = np.array([max(d.dof.static_friction, d.dof.dynamic_friction) for d in friction])
            dynamic = np.array([d.dof.dynamic_friction for d in friction])
            self.f_q = _ints([d.q_index for d in friction], device)
            self.f_qd = _ints([d.qd_index for d in friction], device)
            self.f_static = _floats(static, device)
            self.f_dynamic = _floats(dynamic, device)
            self.f_viscous = _floats([d.dof.viscous_damping if kernel_damping else 0.0 for d in friction], device)
            self.f_kp = _floats(m * omega * omega, device)
            self.f_kd = _floats(2.0 * m * omega, device)
            # The speed one step of dynamic friction removes: below it the joint sticks.
            self.f_rest = _floats(np.maximum(2.0 * dynamic * dt / m, 1e-6), device)
            self.stuck = wp.zeros(len(friction), dtype=int, device=device)
            self.anchor = wp.zeros(len(friction), dtype=float, device=device)
        drives = [d for d in dofs if kernel_effort_limit and d.q_index >= 0 and d.dof.drive_enabled
                  and np.isfinite(d.dof.max_effort)
                  and (d.dof.drive_stiffness != 0.0 or d.dof.drive_damping != 0.0)]
        self.drive_count = len(drives)
        if drives:
            scale = [inertia[d.qd_index] if d.dof.drive_type.value == "ACCELERATION" else 1.0 for d in drives]
            self.d_q = _ints([d.q_index for d in drives], device)
            self.d_qd = _ints([d.qd_index for d in drives], device)
            self.d_ke = _floats([d.dof.drive_stiffness * s for d, s in zip(drives, scale)], device)
            self.d_kd = _floats([d.dof.drive_damping * s for d, s in zip(drives, scale)], device)
            self.d_max = _floats([d.dof.max_effort for d in drives], device)
        limited = [d for d in dofs if np.isfinite(d.dof.velocity_limit)]
        self.limit_count = len(limited)
        if limited:
            self.v_q = _ints([d.q_index for d in limited], device)
            self.v_qd = _ints([d.qd_index for d in limited], device)
            self.v_limit = _floats([d.dof.velocity_limit for d in limited], device)

    @property
    def writes_joint_f(self) -> bool:
        return bool(self.friction_count or self.drive_count)

    def set_applied(self, control_joint_f: wp.array, values: np.ndarray):
        """User efforts: kept apart so the kernels add to them instead of overwriting them."""
        self.applied_f.assign(np.asarray(values, dtype=np.float32))
        control_joint_f.assign(self.applied_f)

    def apply(self, joint_q: wp.array, joint_qd: wp.array, control, more_follow: bool = False):
        """Write friction and clamped drive efforts into ``control.joint_f`` (before a step).

        ``more_follow``: another kernel adds to ``joint_f`` after this one (sim.actuators)."""
        if self.drive_count or more_follow:
            wp.copy(control.joint_f, self.applied_f)  # the drive kernel adds to joint_f
        if self.friction_count:
            wp.launch(joint_friction_kernel, dim=self.friction_count, device=self.device, inputs=[
                joint_q, joint_qd, self.f_q, self.f_qd, self.f_static, self.f_dynamic, self.f_viscous,
                self.f_kp, self.f_kd, self.f_rest, self.applied_f, self.stuck, self.anchor,
                control.joint_f])
        if self.drive_count:
            wp.launch(clamped_drive_kernel, dim=self.drive_count, device=self.device, inputs=[
                joint_q, joint_qd, control.joint_target_q, control.joint_target_qd, self.d_q, self.d_qd,
                self.d_ke, self.d_kd, self.d_max, control.joint_f])

    def clamp_velocities(self, joint_q: wp.array, joint_qd: wp.array) -> bool:
        """Velocity limits (after a step), for solvers whose state is joint_q/joint_qd.

        Returns True when it ran (body poses then need forward kinematics)."""
        if self.limit_count:
            wp.launch(clamp_velocity_kernel, dim=self.limit_count, device=self.device,
                      inputs=[self.v_q, self.v_qd, self.v_limit, self.dt, joint_q, joint_qd])
        return bool(self.limit_count)
