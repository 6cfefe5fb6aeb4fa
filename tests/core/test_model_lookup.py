"""Name lookups on PhysicsScene stay exact while callers edit the lists in place."""

import copy

from articula.core.model import Body, PhysicsMaterial, PhysicsScene


def test_lookup_follows_replacement_rename_insertion_and_new_lists():
    scene = PhysicsScene(bodies=[Body("a"), Body("b")])
    assert scene.body("a").name == "a" and scene.body("missing") is None and scene.body(None) is None

    scene.bodies[0] = Body("c")
    assert scene.body("a") is None and scene.body("c") is scene.bodies[0]

    scene.bodies[1].name = "z"
    assert scene.body("b") is None and scene.body("z") is scene.bodies[1]

    scene.bodies.insert(0, Body("a"))
    assert scene.body("a") is scene.bodies[0] and scene.body("c") is scene.bodies[1]

    scene.bodies = [Body("q")]
    assert scene.body("q") is scene.bodies[0] and scene.body("a") is None


def test_first_of_duplicate_names_wins_and_copies_compare_equal():
    scene = PhysicsScene(materials=[PhysicsMaterial("steel", 0.7), PhysicsMaterial("steel", 0.1)])
    assert scene.material("steel").static_friction == 0.7
    twin = copy.deepcopy(scene)
    assert twin == scene and twin.material("steel") is twin.materials[0]
