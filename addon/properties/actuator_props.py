"""One motor: every field of ``core.model.Actuator``, on a DOF (``dofs[i].actuators``) or a tendon.

The UI edits the MuJoCo shortcut the actuator is (``kind``: position or velocity servo with ``kp``/``kv``,
motor); a GENERAL actuator keeps MuJoCo's raw gain, bias and dynamics vectors (hidden), so a file's
actuator leaves exactly as it came in. Values are SI: a position servo's ``control`` and control range
are the DOF's position (radians on a rotational DOF, shown in degrees by the ``*_angle`` views), a
velocity servo's its velocity, a motor's an effort before ``gear``.
"""

import math

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatVectorProperty, StringProperty

from ...core.model import MJC_PRM_SIZE, ActuatorKind
from .common import UNBOUNDED, enum_items, float_prop, unit_view

_KIND_DESCRIPTIONS = {
    "POSITION": "Servo toward the control as a position: force = kp (control - q) - kv q'",
    "VELOCITY": "Servo toward the control as a velocity: force = kv (control - q')",
    "MOTOR": "Open loop: force = gear * control",
    "GENERAL": "MuJoCo's general actuator, kept as the file wrote it (simulated exactly on MuJoCo only)",
}

#: Raw values shown in degrees on a rotational DOF's position or velocity servo.
CONTROL_FIELDS = ("control", "ctrl_min", "ctrl_max")


def _raw_vector(name, description):
    return FloatVectorProperty(name=name, description=description, size=MJC_PRM_SIZE, **UNBOUNDED,
                               options={"HIDDEN"})


class ArticulaActuatorProps(bpy.types.PropertyGroup):
    # ``name`` is the actuator's (MuJoCo's) name; ``prim_name`` the USD prim it came from, if another
    # (a converter's ``tn__...`` encoding of a name with '/'), given back on export.
    prim_name: StringProperty(name="Prim Name", options={"HIDDEN"},
                              description="The USD prim name this actuator came from (kept on export)")
    kind: EnumProperty(name="Kind", items=enum_items(ActuatorKind, descriptions=_KIND_DESCRIPTIONS),
                       default=ActuatorKind.POSITION.value)
    kp: float_prop("Kp", "Position gain (N*m/rad or N/m)", default=100.0, soft_min=0.0)
    kv: float_prop("Kv", "Velocity gain (N*m*s/rad or N*s/m)", soft_min=0.0)
    gear: float_prop("Gear", "Transmission: the actuator's force is multiplied by it, its length is "
                     "gear * q", default=1.0)
    has_ctrl_range: BoolProperty(name="Control Range", description="Clamp the control; off: unlimited")
    ctrl_min: float_prop("Control Min", "Smallest control", default=-1.0)
    ctrl_max: float_prop("Control Max", "Largest control", default=1.0)
    has_force_range: BoolProperty(name="Force Range", description="Clamp the actuator force; off: unlimited")
    force_min: float_prop("Force Min", "Smallest actuator force (N*m or N, before gear)", default=-1.0)
    force_max: float_prop("Force Max", "Largest actuator force (N*m or N, before gear)", default=1.0)
    gravity_compensation: BoolProperty(
        name="Gravity Compensation",
        description="The actuator also carries the gravity of the bodies it moves (MuJoCo actgravcomp)")
    control: float_prop(
        "Control", "The control (MuJoCo ctrl): a position servo's target position, a velocity servo's "
        "target velocity, a motor's effort. Keyframe it to drive the simulated robot; unkeyed it stays "
        "at this value (0: MuJoCo's ctrl = 0)", options={"ANIMATABLE"})
    # GENERAL only: MuJoCo's own vectors and types, kept verbatim.
    gain_prm: _raw_vector("Gain Parameters", "MuJoCo gainprm (GENERAL actuators)")
    bias_prm: _raw_vector("Bias Parameters", "MuJoCo biasprm (GENERAL actuators)")
    dyn_prm: _raw_vector("Dynamics Parameters", "MuJoCo dynprm (GENERAL actuators)")
    # On a site, body, ball joint or spatial tendon (``scene.articula.frame_actuators``): MuJoCo's
    # transmission, by name; empty on a DOF or fixed tendon.
    target_kind: StringProperty(name="Transmission", description="site, body, joint (ball), tendon "
                                "(spatial) or slidercrank; empty: the DOF or tendon it sits on")
    target: StringProperty(name="Target", description="The site, body, ball joint or spatial tendon it moves")
    reference_site: StringProperty(name="Reference Site",
                                   description="A site actuator measures from this site")
    slider_site: StringProperty(name="Slider Site", description="A slider-crank: the site the slider moves "
                                "along (its z axis); the target is the crank's site")
    crank_length: float_prop("Crank Length", "A slider-crank: the connecting rod's length (m; MuJoCo "
                             "cranklength)", soft_min=0.0, subtype="DISTANCE", unit="LENGTH")
    gear_vector: FloatVectorProperty(name="Gear (6)", size=6, **UNBOUNDED, description="Site and ball "
                                     "transmissions: MuJoCo's 6-vector gear (all zero: the gear alone)")
    dyn_type: StringProperty(name="Dynamics Type", default="none", options={"HIDDEN"})
    gain_type: StringProperty(name="Gain Type", default="fixed", options={"HIDDEN"})
    bias_type: StringProperty(name="Bias Type", default="affine", options={"HIDDEN"})
    # The range of the transmission's length a muscle works over (MuJoCo lengthrange).
    has_length_range: BoolProperty(name="Length Range", description="The transmission length range a muscle "
                                   "works over (MuJoCo lengthrange); off: MuJoCo's compiler finds it")
    length_min: float_prop("Length Min", "Shortest transmission length (m or rad)")
    length_max: float_prop("Length Max", "Longest transmission length (m or rad)", default=1.0)

    def dof(self):
        """The DOF this actuator is on (None on a tendon)."""
        path = self.path_from_id()
        if ".dofs[" not in path:
            return None
        return self.id_data.path_resolve(path.rpartition(".actuators[")[0])

    @property
    def in_degrees(self) -> bool:
        """Its control is an angle or angular speed (a servo on a rotational DOF)."""
        dof = self.dof()
        return dof is not None and dof.is_angular and self.kind in ("POSITION", "VELOCITY")

    def view(self, raw: str) -> str:
        """The property to draw for ``raw`` (a degrees view where :attr:`in_degrees`)."""
        return f"{raw}_angle" if raw in CONTROL_FIELDS and self.in_degrees else raw


for _raw in CONTROL_FIELDS:
    _label = _raw.replace("ctrl_", "Control ").replace("_", " ").title()
    ArticulaActuatorProps.__annotations__[f"{_raw}_angle"] = unit_view(
        _raw, _label, f"{_label} (rotational servo: degrees, or degrees/s for a velocity servo)",
        subtype="ANGLE", unit="ROTATION", soft_min=-2 * math.pi, soft_max=2 * math.pi)

classes = (ArticulaActuatorProps,)
