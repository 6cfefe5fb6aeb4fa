"""Body-pair collision filters in the Newton model are exactly core.collision's rule."""

from itertools import combinations

import pytest

from articula.core import samples
from articula.core.collision import filtered_body_pairs
from articula.sim.builder import build_model


def newton_filtered_body_pairs(built) -> set[frozenset[str]]:
    names = {int(index): name for (name, _), index in zip(built.body_keys, built.body_index)}
    shape_body = built.model.shape_body.numpy()
    return {frozenset((names[shape_body[a]], names[shape_body[b]]))
            for a, b in built.model.shape_collision_filter_pairs
            if shape_body[a] >= 0 and shape_body[b] >= 0 and shape_body[a] != shape_body[b]}


def finger(collide_joint_bodies: bool, filter_parent: bool):
    scene = samples.robotic_finger()
    scene.joint("rotational").collide_bodies = collide_joint_bodies
    scene.settings.collision_filter_parent = filter_parent
    return scene


@pytest.mark.parametrize("collide_joint_bodies", [False, True])
@pytest.mark.parametrize("filter_parent", [True, False])
def test_newton_filters_the_body_pairs_core_filters(collide_joint_bodies, filter_parent):
    scene = finger(collide_joint_bodies, filter_parent)
    with_shapes = {s.body for s in scene.shapes if s.body}
    expected = {p for p in filtered_body_pairs(scene) if p <= with_shapes}
    assert newton_filtered_body_pairs(build_model(scene, "FEATHERSTONE", device="cpu")) == expected
