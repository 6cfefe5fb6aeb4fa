"""The model cache's fingerprint (``sim.model_cache.fingerprint``) reads every field of the description,
enums and one-field dataclasses included, and gives the same digest to equal descriptions however their
objects are shared (the cache's other rules: ``tests/sim/test_sim_model_cache.py``)."""

import copy
import dataclasses

from articula.core import samples
from articula.core.model import DofMotion, JointType, ShapeKind
from articula.sim import model_cache


def digest(scene) -> str:
    return model_cache.fingerprint(scene, "MUJOCO-MJCF", "cpu", 0.002, 100)


def first_dof(scene):
    return next(j for j in scene.joints if j.dofs).dofs[0]


def test_a_changed_enum_changes_the_digest():
    scene = samples.six_dof_arm()
    changes = []
    for edit in (lambda s: setattr(first_dof(s), "motion", DofMotion.FREE),
                 lambda s: setattr(s.joints[0], "type", JointType.PRISMATIC),
                 lambda s: setattr(s.shapes[0], "kind", ShapeKind.SPHERE)):
        changed = copy.deepcopy(scene)
        edit(changed)
        changes.append(digest(changed))
    assert len(set(changes + [digest(scene)])) == len(changes) + 1


def test_every_nested_dataclass_is_read():
    scene = samples.six_dof_arm()
    changed = copy.deepcopy(scene)
    body = changed.bodies[-1]
    body.pose = dataclasses.replace(body.pose, pos=(body.pose.pos[0] + 1e-12, *body.pose.pos[1:]))
    assert digest(changed) != digest(scene)


def test_shared_objects_give_the_digest_of_copies():
    scene = samples.six_dof_arm()
    shared = copy.deepcopy(scene)
    pose = shared.shapes[0].pose
    for shape in shared.shapes:
        if shape.pose == pose:
            shape.pose = pose  # one object where the copy has equal ones
    assert digest(shared) == digest(scene)
    assert digest(scene) == digest(copy.deepcopy(scene))
