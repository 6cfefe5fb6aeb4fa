"""File > Import in real Blender: objects per body, atomic failures, import -> export -> import."""

import importlib.util
import os

import bpy
import pytest

from articula.addon.adapters.blender_to_description import scene_from_blender
from articula.addon.adapters.description_to_blender import build_scene
from articula.core import samples
from articula.core.usd.compare import scene_differences
from articula.core.usd.reader import read_usd
from articula.core.usd.writer import write_usd

_NEWTON = importlib.util.find_spec("newton")
NEWTON_DIR = os.path.dirname(_NEWTON.origin) if _NEWTON else None


def _snapshot():
    return {name: sorted(getattr(bpy.data, name).keys())
            for name in ("objects", "meshes", "materials", "collections")}


def _objects_state(scene):
    return sorted((o.name, o.parent.name if o.parent else None, tuple(round(v, 6) for v in o.matrix_world.col[3]))
                  for o in scene.objects)


@pytest.fixture
def finger_file(tmp_path):
    path = str(tmp_path / "finger.usda")
    write_usd(samples.robotic_finger(), path)
    return path


def test_import_creates_one_object_per_body_parented_like_the_tree(clean_scene, finger_file):
    assert bpy.ops.articula.import_usd(filepath=finger_file) == {"FINISHED"}
    objects = clean_scene.objects
    for child, parent in [("index_finger_base", "palm"), ("proximal", "index_finger_base"),
                          ("middle", "proximal"), ("distal", "middle")]:
        assert objects[child].articula.body.enabled
        assert objects[child].parent == objects[parent]
    # the file's fixed-base wrapper Xform (articulation root) is dissolved: the export writes it again
    assert objects["palm"].parent == objects["robotic_finger"] and "palm_articulation" not in objects
    assert objects["distal_interphalangeal"].parent == objects["distal"]  # joints on body1
    expected = samples.robotic_finger().body("middle").pose.pos
    assert tuple(objects["middle"].matrix_world.translation) == pytest.approx(expected, abs=1e-6)


def test_import_export_import_is_identity(clean_scene, finger_file, tmp_path):
    bpy.ops.articula.import_usd(filepath=finger_file)
    first = scene_from_blender(clean_scene)
    exported = str(tmp_path / "again.usda")
    assert bpy.ops.articula.export_usd(filepath=exported) == {"FINISHED"}
    assert scene_differences(read_usd(finger_file).scene, read_usd(exported).scene) == []
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    bpy.ops.articula.import_usd(filepath=exported)
    assert scene_differences(first, scene_from_blender(clean_scene)) == []


@pytest.mark.parametrize("layout,up", [("NESTED", "Z"), ("NESTED", "Y"), ("FLAT", "Z")])
def test_import_reads_back_as_the_files_description(clean_scene, tmp_path, layout, up):
    """Blender's objects, adopted, describe exactly what the reader reads from the file (nested and
    flat, re-nested; Z- and Y-up: Blender's importer and the reader turn a Y-up stage the same way)."""
    source = str(tmp_path / "finger_source.usda")
    write_usd(samples.robotic_finger(), source, layout=layout)
    path = tmp_path / f"finger_{layout}_{up}.usda"
    path.write_text(open(source).read().replace('upAxis = "Z"', f'upAxis = "{up}"'))
    assert bpy.ops.articula.import_usd(filepath=str(path)) == {"FINISHED"}
    assert scene_differences(read_usd(str(path)).scene, scene_from_blender(clean_scene)) == []
    colliders = [o for o in clean_scene.objects if o.articula.collider.enabled]
    assert len(colliders) == 5 and all(tuple(o.scale) == pytest.approx((1.0, 1.0, 1.0)) for o in colliders)


BROKEN = {
    "not_usd.usda": "just some text\n",
    "truncated.usda": None,  # half of a real file
    "nan.usda": ("float physics:mass = 0.08448", "float physics:mass = nan"),
    "missing_target.usda": ("rel physics:body1 = </robotic_finger/palm_articulation/palm/index_finger_base>",
                            "rel physics:body1 = </robotic_finger/gone>"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_file_leaves_the_scene_untouched(clean_scene, finger_file, tmp_path, name):
    build_scene(bpy.context, samples.pendulum())  # something already in the scene
    before, objects_before = _snapshot(), _objects_state(clean_scene)
    text = open(finger_file).read()
    change = BROKEN[name]
    if change is None:
        text = text[: len(text) // 2]
    elif isinstance(change, tuple):
        assert change[0] in text
        text = text.replace(change[0], change[1], 1)
    else:
        text = change
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(RuntimeError) as raised:
        bpy.ops.articula.import_usd(filepath=str(path))
    assert str(path) in str(raised.value)
    assert _snapshot() == before and _objects_state(clean_scene) == objects_before


def test_failure_while_building_removes_what_was_made(clean_scene, finger_file, monkeypatch):
    from articula.addon.adapters import description_to_blender

    before = _snapshot()
    original = description_to_blender._Adopter.add_visual

    def explode(self, visual):
        original(self, visual)
        raise ValueError("boom")

    monkeypatch.setattr(description_to_blender._Adopter, "add_visual", explode)
    with pytest.raises(RuntimeError, match="nothing was added"):
        bpy.ops.articula.import_usd(filepath=finger_file)
    assert _snapshot() == before


def _settings_state(scene):
    from articula.addon.property_snapshot import snapshot

    return snapshot(scene.articula)


def test_failed_import_puts_scene_settings_and_materials_back(clean_scene, finger_file, monkeypatch):
    from articula.addon.adapters import description_to_blender

    build_scene(bpy.context, samples.pendulum())  # the user's own robot, settings and materials
    clean_scene.articula.solver_iterations = 17
    settings_before = _settings_state(clean_scene)
    assert settings_before["materials"], "the pendulum brings a material list"

    def explode(self, visual):
        raise ValueError("boom")

    monkeypatch.setattr(description_to_blender._Adopter, "add_visual", explode)
    with pytest.raises(RuntimeError, match="nothing was added"):
        bpy.ops.articula.import_usd(filepath=finger_file)
    assert _settings_state(clean_scene) == settings_before


def test_import_into_a_scene_with_a_robot_keeps_its_settings_and_materials(clean_scene, tmp_path):
    build_scene(bpy.context, samples.pendulum())
    props = clean_scene.articula
    props.steps_per_second = 1234.0
    mine = props.materials[0]
    mine_name, mine_friction = mine.name, mine.static_friction

    other = samples.robotic_finger()
    for material in other.materials:
        material.name = mine_name  # same name, other values: must not overwrite the user's
        material.static_friction = mine_friction + 0.25
    for shape in other.shapes:
        if shape.material is not None:
            shape.material = mine_name
    path = str(tmp_path / "finger_clash.usda")
    write_usd(other, path)

    assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}
    assert props.steps_per_second == 1234.0  # the scene's settings stay
    assert props.materials[mine_name].static_friction == pytest.approx(mine_friction)
    renamed = f"{mine_name}.001"
    assert props.materials[renamed].static_friction == pytest.approx(mine_friction + 0.25)
    imported = [o for o in bpy.data.collections[other.name].objects if o.articula.collider.enabled]
    used = {o.articula.collider.material for o in imported if o.articula.collider.material}
    assert imported and used == {renamed}


def test_import_into_an_empty_scene_takes_the_files_settings(clean_scene, finger_file):
    assert bpy.ops.articula.import_usd(filepath=finger_file) == {"FINISHED"}
    expected = read_usd(finger_file).scene
    assert clean_scene.articula.steps_per_second == pytest.approx(expected.settings.steps_per_second)
    assert [m.name for m in clean_scene.articula.materials] == [m.name for m in expected.materials]


@pytest.mark.skipif(NEWTON_DIR is None, reason="newton not installed")
def test_newton_asset_import_names_objects_after_prims(clean_scene):
    path = os.path.join(NEWTON_DIR, "examples", "assets", "ant.usda")
    assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}
    read = read_usd(path)
    bodies = [o for o in clean_scene.objects if o.articula.body.enabled]
    assert sorted(o.name for o in bodies) == sorted(b.name for b in read.scene.bodies)
    for body in read.scene.bodies:
        prim_name = read.prim_paths[f"body:{body.name}"].rsplit("/", 1)[-1]
        obj = clean_scene.objects[body.name]
        assert obj.name == prim_name
        assert (obj.parent.name if obj.parent else None) == body.parent
    assert any(o.parent is not None for o in bodies)  # the flat ant was re-nested


@pytest.mark.skipif(NEWTON_DIR is None or not hasattr(__import__("pxr").UsdPhysics, "Axis"),
                    reason="newton not installed, or 4.5's USD 25.02 lacks UsdPhysics.Axis for add_usd")
@pytest.mark.parametrize("asset", ["ant.usda", "humanoid.usda", "cartpole.usda"])
def test_newton_asset_whose_joints_share_body_names_exports_to_the_same_model(clean_scene, tmp_path, asset):
    """Joints named like bodies (USD names are unique per parent, Blender's per file) keep pointing
    at the bodies: imported into an empty scene, exported, loaded in Newton like the original."""
    import warnings

    import newton
    import numpy as np

    path = os.path.join(NEWTON_DIR, "examples", "assets", asset)
    assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}
    out = str(tmp_path / "again.usda")
    assert bpy.ops.articula.export_usd(filepath=out) == {"FINISHED"}

    def load(source):
        builder = newton.ModelBuilder()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            builder.add_usd(source)
        return builder.finalize(device="cpu")

    a, b = load(path), load(out)
    leaf = lambda label: label.rsplit("/", 1)[-1]  # noqa: E731
    order = {leaf(label): i for i, label in enumerate(b.body_label)}
    bodies = [order[leaf(label)] for label in a.body_label]
    for attr in ("body_mass", "body_com", "body_inertia"):
        assert np.allclose(getattr(a, attr).numpy(), getattr(b, attr).numpy()[bodies], rtol=1e-4, atol=1e-6), attr
    qa, qb = a.body_q.numpy(), b.body_q.numpy()[bodies].copy()
    qb[:, 3:] *= np.sign(np.sum(qa[:, 3:] * qb[:, 3:], axis=1, keepdims=True))
    assert np.allclose(qa, qb, atol=1e-5)

    def joints_by_child(model):
        child = model.joint_child.numpy()
        return {leaf(model.body_label[c]): int(t) for c, t in zip(child, model.joint_type.numpy())}

    assert joints_by_child(a) == joints_by_child(b)


@pytest.mark.skipif(NEWTON_DIR is None, reason="newton not installed")
def test_export_reports_carry_one_severity_each(clean_scene, tmp_path, capfd):
    """Newton's cartpole (bodies that are scaled gprims) imports, exports with its warnings and
    refusals reported once each: 'Warning: <object>: ...', never 'Warning: WARNING: ...'."""
    path = os.path.join(NEWTON_DIR, "examples", "assets", "cartpole.usda")
    assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}
    cart = clean_scene.objects["cart"]
    assert tuple(round(s, 6) for s in cart.matrix_world.to_scale()) == (1.0, 1.0, 1.0)  # scale in the mesh
    capfd.readouterr()
    clean_scene.objects["pole1"].articula.body.mass_mode = "MANUAL"
    clean_scene.objects["pole1"].articula.body.mass = 0.0  # a massless moving body: written, with a warning
    assert bpy.ops.articula.export_usd(filepath=str(tmp_path / "cart.usda")) == {"FINISHED"}
    clean_scene.objects["cart"].scale = (1.0, 2.0, 1.0)  # refused: a body must be a rigid frame
    with pytest.raises(RuntimeError):
        bpy.ops.articula.export_usd(filepath=str(tmp_path / "refused.usda"))
    out = capfd.readouterr().out
    assert "Warning: pole1:" in out and "Error: cart:" in out
    for word in ("WARNING:", "ERROR:"):
        assert f"Warning: {word}" not in out and f"Error: {word}" not in out, out


def _robot_objects(scene):
    return sorted(o.name for o in scene.objects if o.articula.body.enabled or o.articula.joint.enabled)


def test_importing_a_file_again_says_so_and_adds_a_copy_or_replaces_it(clean_scene, tmp_path, capfd):
    path = str(tmp_path / "finger.usda")
    write_usd(samples.robotic_finger(), path)
    assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}
    first = _robot_objects(clean_scene)
    capfd.readouterr()
    assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}  # default: a second copy
    assert "is already in the scene" in capfd.readouterr().out
    assert len(_robot_objects(clean_scene)) == 2 * len(first)
    assert len([c for c in bpy.data.collections if c.get("articula_source")]) == 2

    clean_scene.objects[first[0]].location.x += 1.0  # an edit the replacement drops
    name = next(c.name for c in bpy.data.collections if c.get("articula_source"))
    assert bpy.ops.articula.import_usd(filepath=path, existing="REPLACE") == {"FINISHED"}
    assert _robot_objects(clean_scene) == first  # the file's names again, one robot
    assert not any(name.endswith(".replaced") for name in bpy.data.objects.keys())
    assert [c.name for c in bpy.data.collections if c.get("articula_source")] == [name]
    assert not [m for m in bpy.data.meshes if m.users == 0]  # the old meshes went with their objects
    assert scene_differences(read_usd(path).scene, scene_from_blender(clean_scene)) == []


def test_a_failed_replacement_keeps_the_robot_there(clean_scene, tmp_path):
    path = tmp_path / "finger.usda"
    write_usd(samples.robotic_finger(), str(path))
    assert bpy.ops.articula.import_usd(filepath=str(path)) == {"FINISHED"}
    before = _objects_state(clean_scene)
    path.write_text("#usda 1.0\n(\n broken")
    with pytest.raises(RuntimeError):
        bpy.ops.articula.import_usd(filepath=str(path), existing="REPLACE")
    assert _objects_state(clean_scene) == before


def test_a_chain_deeper_than_python_recursion_round_trips_through_the_operators(clean_scene, tmp_path):
    """An 1,100-link cable: exported by articula.export_usd and imported back by articula.import_usd,
    the same description (past ~950 links export and import raised RecursionError)."""
    from articula.core.mass import mass_properties

    build_scene(bpy.context, samples.hanging_chain(1100))
    before = scene_from_blender(clean_scene)
    for body in before.bodies:  # an import gives every body its mass explicitly
        body.mass = mass_properties(before, body.name)
    path = str(tmp_path / "cable.usda")
    assert bpy.ops.articula.export_usd(filepath=path) == {"FINISHED"}
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    assert bpy.ops.articula.import_usd(filepath=path) == {"FINISHED"}
    after = scene_from_blender(clean_scene)
    assert len(after.bodies) == 1100 and after.body("link_1099").parent == "link_1098"
    assert scene_differences(before, after, tol=1e-4) == []
