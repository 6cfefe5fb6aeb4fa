"""The device kit's archive (tools/device/kit.py): split into parts that each fit one call, received one
part per call the way the lent GPU machine gets them, checked against the manifest, joined and unpacked."""

import importlib.util
import json
import random
import shutil
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("device_kit", ROOT / "tools" / "device" / "kit.py")
kit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(kit)

PART_LIMIT = 100_000


@pytest.fixture
def built(tmp_path):
    """A kit of two wheels (random bytes, which xz cannot shrink) split into .device-kit/part-N/."""
    generator = random.Random(7)
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for name, size in (("alpha-1.0-py3-none-any.whl", 180_000), ("beta-2.0-cp312-cp312-x.whl", 70_000)):
        (wheels / name).write_bytes(generator.randbytes(size))
    archive = tmp_path / "articula-kit.tar.xz"
    with tarfile.open(archive, "w:xz") as tar:
        for path in sorted(wheels.iterdir()):
            tar.add(path, arcname=path.name)
    listed = [{"file": path.name, "size": path.stat().st_size, "sha256": kit.sha256_file(path)}
              for path in sorted(wheels.iterdir())]
    out = tmp_path / ".device-kit"
    manifest = kit.split_archive(archive, out, PART_LIMIT, {"wheels": listed})
    return out, wheels, archive, manifest


def carry(kit_dir: Path, part: dict, call_dir: Path) -> Path:
    """A call's checkout: only the one part folder it carries (the last call's folder is gone)."""
    if call_dir.exists():
        shutil.rmtree(call_dir)
    shutil.copytree(kit_dir / part["folder"], call_dir / part["folder"])
    return call_dir


def test_parts_are_the_fewest_that_fit_and_as_equal_as_can_be():
    assert kit.part_sizes(250, 100) == [84, 83, 83]
    assert kit.part_sizes(200, 100) == [100, 100]
    assert kit.part_sizes(5, 100) == [5]
    with pytest.raises(ValueError):
        kit.part_sizes(5, 0)


def test_each_part_fits_and_carries_the_manifest(built):
    out, _, archive, manifest = built
    parts = manifest["parts"]
    assert len(parts) == 3
    assert all(part["size"] <= PART_LIMIT for part in parts)
    assert sum(part["size"] for part in parts) == archive.stat().st_size
    assert manifest["archive"]["sha256"] == kit.sha256_file(archive)
    for part in parts:
        folder = out / part["folder"]
        assert sorted(path.name for path in folder.iterdir()) == sorted([part["file"], kit.MANIFEST])
        assert json.loads((folder / kit.MANIFEST).read_text()) == manifest
        assert kit.sha256_file(folder / part["file"]) == part["sha256"]


def test_another_split_of_the_same_archive_is_another_kit(built, tmp_path):
    out, _, archive, manifest = built
    parts = [out / part["folder"] / part["file"] for part in manifest["parts"]]
    assert kit.join_parts(parts, tmp_path / "joined") == manifest["archive"]["sha256"]
    again = kit.split_archive(archive, tmp_path / "again", PART_LIMIT // 2, {})
    assert len(again["parts"]) == 6
    assert again["kit_id"] != manifest["kit_id"]


def test_parts_received_one_per_call_join_into_the_wheels(built, tmp_path):
    out, wheels, _, manifest = built
    store, call = tmp_path / "store", tmp_path / "call"
    statuses = []
    for part in manifest["parts"]:
        carried = carry(out, part, call)
        statuses.append(kit.main(["receive", "--carried", str(carried), "--store", str(store)]))
    assert statuses == [kit.WAITING_FOR_PARTS, kit.WAITING_FOR_PARTS, 0]
    # A part carried again (a repeated call) is not stored twice.
    _, received, missing = kit.receive(carry(out, manifest["parts"][0], call), store)
    assert (received, missing) == ([], [])
    dest = tmp_path / "unpacked"
    assert kit.main(["unpack", "--store", str(store), "--dest", str(dest)]) == 0
    for wheel in wheels.iterdir():
        assert (dest / wheel.name).read_bytes() == wheel.read_bytes()


def test_a_damaged_part_is_refused_by_name_and_not_stored(built, tmp_path):
    out, _, _, manifest = built
    second = manifest["parts"][1]
    call = carry(out, second, tmp_path / "call")
    damaged = call / second["folder"] / second["file"]
    data = bytearray(damaged.read_bytes())
    data[1000] ^= 0xFF
    damaged.write_bytes(bytes(data))
    store = tmp_path / "store"
    with pytest.raises(ValueError, match="part 2"):
        kit.receive(call, store)
    assert not (store / manifest["kit_id"] / second["file"]).exists()
    assert kit.main(["receive", "--carried", str(call), "--store", str(store)]) == 2


def test_unpack_refuses_until_every_part_is_there(built, tmp_path):
    out, _, _, manifest = built
    store = tmp_path / "store"
    kit.receive(carry(out, manifest["parts"][0], tmp_path / "call"), store)
    with pytest.raises(FileNotFoundError, match=r"parts \[2, 3\]"):
        kit.unpack(store, tmp_path / "unpacked")


def test_a_call_without_a_part_says_what_to_carry(tmp_path):
    with pytest.raises(FileNotFoundError, match="carry a part folder"):
        kit.receive(tmp_path / "nothing", tmp_path / "store")


@pytest.fixture
def warp_cache(tmp_path):
    """A Warp kernel cache as a GPU run leaves it: CUDA binaries and metadata, CPU objects, sources."""
    generator = random.Random(11)
    cache = tmp_path / "warp-cache"
    module = cache / "1.19.0" / "wp_newton_solver_abc1234"
    module.mkdir(parents=True)
    for name in ("wp_newton_solver_abc1234.sm90.cubin", "wp_newton_solver_abc1234.meta",
                 "wp_newton_solver_abc1234.o", "wp_newton_solver_abc1234.cu"):
        (module / name).write_bytes(generator.randbytes(60_000))
    (cache / "1.19.0" / "articula-1.8.0-featherstone-cuda-grab.built").write_text("2026-11-27")
    return cache


def test_the_cuda_kernels_come_back_in_pieces_and_restore(warp_cache, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    pieces = kit.pack_cache(warp_cache, out, 50_000, 8)
    assert len(pieces) == 3
    assert sorted(path.name for path in out.iterdir()) == [path.name for path in pieces]
    assert all(path.stat().st_size <= 50_000 for path in pieces)
    restored = tmp_path / "next-lease"
    assert kit.restore_cache(out, restored) == 2
    module = "1.19.0/wp_newton_solver_abc1234/wp_newton_solver_abc1234"
    for suffix in (".sm90.cubin", ".meta"):
        original = warp_cache / f"{module}{suffix}"
        assert (restored / f"{module}{suffix}").read_bytes() == original.read_bytes()
    # CPU objects are built for the lent machine's own CPU; a marker would claim kernels left behind.
    assert not (restored / f"{module}.o").exists()
    assert not list(restored.rglob("*.built"))


def test_a_cache_too_big_for_the_places_left_leaves_nothing(warp_cache, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    assert kit.pack_cache(warp_cache, out, 50_000, 2) == []
    assert list(out.iterdir()) == []


def test_a_cache_with_a_piece_missing_restores_nothing(warp_cache, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    pieces = kit.pack_cache(warp_cache, out, 50_000, 8)
    pieces[-1].unlink()
    restored = tmp_path / "next-lease"
    assert kit.main(["restore-cache", "--pieces", str(out), "--cache", str(restored)]) == 2
    assert [path for path in restored.rglob("*")] == []
