"""The device kit's archive: split into parts that travel one per ``run`` call, received and joined on the
lent GPU machine. Standard library only: it runs under the device's bare Python 3.12 before anything is
installed (``tools/device/install.sh``), and under ``make_kit.py`` here.

    kit.py receive --carried .device-kit --store /tmp/articula-kit  # exit 0: all parts there, 3: not yet
    kit.py unpack --store /tmp/articula-kit --dest DIR                # the archive's files, checked

Layout made by :func:`split_archive` (``.device-kit/``): ``manifest.json`` and ``part-N/`` folders, each
holding one slice of the archive and a copy of the manifest, so that a call carrying one folder brings
all it needs. On the device the parts gather in ``<store>/<kit id>/``, the kit id being the start of the
archive's sha256 and the part count: parts of two different kits never mix.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import math
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

MANIFEST = "manifest.json"
FORMAT = 1
WAITING_FOR_PARTS = 3  # receive's exit status while parts are missing (not an error)
CHUNK = 1 << 20


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        while block := stream.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def part_sizes(total: int, max_part: int) -> list[int]:
    """Sizes of the fewest parts of at most ``max_part`` bytes, as equal as can be: each part keeps the
    same slack below the limit (room for a folder carried beside it)."""
    if max_part <= 0:
        raise ValueError(f"part size must be positive, not {max_part}")
    count = max(1, math.ceil(total / max_part))
    base, extra = divmod(total, count)
    return [base + 1 if index < extra else base for index in range(count)]


def split_archive(archive: Path, out_dir: Path, max_part: int, details: dict) -> dict:
    """Slices ``archive`` into ``out_dir/part-N/`` and writes the manifest (``details`` merged into it)
    there and into every part folder. Returns the manifest."""
    total = archive.stat().st_size
    parts = []
    with open(archive, "rb") as stream:
        for index, size in enumerate(part_sizes(total, max_part), start=1):
            folder = out_dir / f"part-{index}"
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / f"{archive.name}.{index:03d}"
            digest = hashlib.sha256()
            with open(target, "wb") as sink:
                left = size
                while left:
                    block = stream.read(min(CHUNK, left))
                    digest.update(block)
                    sink.write(block)
                    left -= len(block)
            parts.append({"index": index, "folder": folder.name, "file": target.name, "size": size,
                          "sha256": digest.hexdigest()})
    whole = sha256_file(archive)
    # The split is a function of the archive and the part count: the id names both, so that parts of two
    # splits of one archive never mix in a store.
    manifest = {"format": FORMAT, "kit_id": f"{whole[:12]}-{len(parts)}",
                "archive": {"name": archive.name, "size": total, "sha256": whole},
                "parts": parts, **details}
    text = json.dumps(manifest, indent=1) + "\n"
    (out_dir / MANIFEST).write_text(text)
    for part in parts:
        (out_dir / part["folder"] / MANIFEST).write_text(text)
    return manifest


def join_parts(parts: list[Path], target: Path) -> str:
    """The parts concatenated into ``target``; returns its sha256."""
    joined = _JoinedParts(parts)
    with open(target, "wb") as sink:
        while block := joined.read(CHUNK):
            sink.write(block)
    return joined.digest.hexdigest()


def carried_manifest(carried: Path) -> dict | None:
    """The manifest in ``carried`` (``.device-kit``) or in any of its part folders."""
    for path in [carried / MANIFEST, *sorted(carried.glob(f"part-*/{MANIFEST}"))]:
        if path.is_file():
            return json.loads(path.read_text())
    return None


def kit_dir(store: Path, manifest: dict) -> Path:
    return store / manifest["kit_id"]


def missing_parts(store: Path, manifest: dict) -> list[dict]:
    """The parts not yet in the store whole (checked by size, their sha256 when received)."""
    here = kit_dir(store, manifest)
    return [part for part in manifest["parts"]
            if not (here / part["file"]).is_file() or (here / part["file"]).stat().st_size != part["size"]]


def receive(carried: Path, store: Path) -> tuple[dict, list[int], list[dict]]:
    """Copies each part carried in ``carried/part-N/`` into the store, once its sha256 is checked.
    Returns (manifest, indexes received now, parts still missing). A part whose sha256 is wrong raises
    ``ValueError`` naming it, and nothing of it is kept."""
    manifest = carried_manifest(carried)
    if manifest is None:
        raise FileNotFoundError(f"no {MANIFEST} in {carried} or its part-N folders: carry a part folder")
    if manifest.get("format") != FORMAT:
        raise ValueError(f"{carried}: manifest format {manifest.get('format')}, this script reads {FORMAT}")
    here = kit_dir(store, manifest)
    here.mkdir(parents=True, exist_ok=True)
    (here / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    received = []
    for part in missing_parts(store, manifest):
        source = carried / part["folder"] / part["file"]
        if not source.is_file():
            continue
        actual = sha256_file(source)
        if actual != part["sha256"]:
            raise ValueError(f"part {part['index']} ({source}): sha256 {actual[:12]}..., the manifest says "
                             f"{part['sha256'][:12]}...: it was cut or belongs to another kit")
        temporary = here / (part["file"] + ".tmp")
        shutil.copyfile(source, temporary)
        temporary.replace(here / part["file"])
        received.append(part["index"])
    return manifest, received, missing_parts(store, manifest)


class _JoinedParts:
    """The parts read one after the other as one stream, hashed on the way (for tarfile's stream mode)."""

    def __init__(self, paths: list[Path]):
        self._paths = list(paths)
        self._current = None
        self.digest = hashlib.sha256()

    def read(self, size: int = -1) -> bytes:
        chunks = []
        while size != 0:
            if self._current is None:
                if not self._paths:
                    break
                self._current = open(self._paths.pop(0), "rb")
            block = self._current.read(size if size > 0 else CHUNK)
            if not block:
                self._current.close()
                self._current = None
                continue
            self.digest.update(block)
            chunks.append(block)
            if size > 0:
                size -= len(block)
        return b"".join(chunks)

    def close(self):
        if self._current is not None:
            self._current.close()


def unpack(store: Path, dest: Path) -> dict:
    """Joins the store's parts, unpacks the archive into ``dest`` and checks the whole archive's sha256
    and every wheel's against the manifest. Returns the manifest."""
    manifests = sorted(store.glob(f"*/{MANIFEST}"), key=lambda path: path.stat().st_mtime)
    if not manifests:
        raise FileNotFoundError(f"no kit in {store}: run receive first")
    manifest = json.loads(manifests[-1].read_text())
    missing = missing_parts(store, manifest)
    if missing:
        raise FileNotFoundError(f"parts {[part['index'] for part in missing]} of kit {manifest['kit_id']} "
                                f"are not in {store} yet")
    here = kit_dir(store, manifest)
    joined = _JoinedParts([here / part["file"] for part in manifest["parts"]])
    mode = "r|xz" if manifest["archive"]["name"].endswith(".xz") else "r|"
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=joined, mode=mode) as archive:
        archive.extractall(dest, filter="data")
    while joined.read(CHUNK):  # tar's end padding: hash what tarfile left unread
        pass
    joined.close()
    if joined.digest.hexdigest() != manifest["archive"]["sha256"]:
        raise ValueError(f"the joined archive of kit {manifest['kit_id']} differs from the manifest's sha256")
    for wheel in manifest.get("wheels", []):
        path = dest / wheel["file"]
        if not path.is_file() or sha256_file(path) != wheel["sha256"]:
            raise ValueError(f"{wheel['file']}: missing from the archive or not the manifest's")
    return manifest


#: Warp cache files that do not travel between machines: CPU objects (built for the machine's own CPU),
#: sources, and Articula's "kernels built" markers (they would claim modules that were left behind).
CACHE_LEFT_BEHIND = (".o", ".cpp", ".cu", ".built", ".tmp")
CACHE_ARCHIVE = "warp-cache.tar.xz"


def pack_cache(cache: Path, out_dir: Path, max_piece: int, max_pieces: int) -> list[Path]:
    """Warp's CUDA kernels in ``cache`` (cubin/PTX and their metadata) as ``warp-cache.tar.xz.NNN`` pieces
    of at most ``max_piece`` bytes in ``out_dir``; none when more than ``max_pieces`` would be needed."""
    files = sorted(path for path in cache.rglob("*")
                   if path.is_file() and not path.name.endswith(CACHE_LEFT_BEHIND))
    if not files:
        return []
    archive = out_dir / CACHE_ARCHIVE
    xz = shutil.which("xz")
    with open(archive, "wb") as sink:
        compressor = xz and subprocess.Popen([xz, "-6", "-T0", "-c"], stdin=subprocess.PIPE, stdout=sink)
        mode = "w|" if compressor else "w|xz"
        with tarfile.open(fileobj=compressor.stdin if compressor else sink, mode=mode) as tar:
            for path in files:
                tar.add(path, arcname=str(path.relative_to(cache)))
        if compressor:
            compressor.stdin.close()
            compressor.wait()
    sizes = part_sizes(archive.stat().st_size, max_piece)
    pieces = []
    if len(sizes) <= max_pieces:
        with open(archive, "rb") as stream:
            for index, size in enumerate(sizes, start=1):
                pieces.append(out_dir / f"{CACHE_ARCHIVE}.{index:03d}")
                pieces[-1].write_bytes(stream.read(size))
    archive.unlink()
    return pieces


def restore_cache(pieces_dir: Path, cache: Path) -> int:
    """The pieces of :func:`pack_cache` in ``pieces_dir`` unpacked into ``cache``; returns the file count.
    Unpacked aside first: pieces missing or cut leave the cache as it was (a cut binary would be loaded)."""
    pieces = sorted(pieces_dir.glob(f"{CACHE_ARCHIVE}.[0-9][0-9][0-9]"))
    if not pieces:
        raise FileNotFoundError(f"no {CACHE_ARCHIVE}.NNN pieces in {pieces_dir}")
    cache.mkdir(parents=True, exist_ok=True)
    aside = Path(tempfile.mkdtemp(prefix=".restoring-", dir=cache))
    try:
        joined = _JoinedParts(pieces)
        with tarfile.open(fileobj=joined, mode="r|xz") as archive:
            archive.extractall(aside, filter="data")
        joined.close()
        files = [path for path in aside.rglob("*") if path.is_file()]
        for path in files:
            target = cache / path.relative_to(aside)
            target.parent.mkdir(parents=True, exist_ok=True)
            path.replace(target)
        return len(files)
    finally:
        shutil.rmtree(aside, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    receiving = commands.add_parser("receive", help="store the carried part; exit 3 while some are missing")
    receiving.add_argument("--carried", type=Path, default=Path(".device-kit"))
    receiving.add_argument("--store", type=Path, required=True)
    unpacking = commands.add_parser("unpack", help="join the stored parts and unpack the archive")
    unpacking.add_argument("--store", type=Path, required=True)
    unpacking.add_argument("--dest", type=Path, required=True)
    packing = commands.add_parser("pack-cache", help="Warp's CUDA kernels as pieces that come back from $OUT")
    packing.add_argument("--cache", type=Path, required=True)
    packing.add_argument("--out", type=Path, required=True)
    packing.add_argument("--max-piece-mib", type=float, default=15.0)
    packing.add_argument("--max-pieces", type=int, required=True)
    restoring = commands.add_parser("restore-cache", help="unpack pieces of pack-cache into a Warp cache")
    restoring.add_argument("--pieces", type=Path, required=True)
    restoring.add_argument("--cache", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        if args.command == "pack-cache":
            pieces = pack_cache(args.cache, args.out, int(args.max_piece_mib * (1 << 20)), args.max_pieces)
            print(f"warp cache: {len(pieces)} piece(s) in {args.out}" if pieces else
                  f"warp cache: nothing to bring back, or more than {args.max_pieces} piece(s)")
            return 0
        if args.command == "restore-cache":
            print(f"warp cache: {restore_cache(args.pieces, args.cache)} files restored into {args.cache}")
            return 0
        if args.command == "receive":
            manifest, received, missing = receive(args.carried, args.store)
            count = len(manifest["parts"])
            print(f"kit {manifest['kit_id']}: received part(s) {received or 'none'} now; "
                  f"{count - len(missing)} of {count} parts stored in {args.store}")
            if missing:
                print("still missing: " + ", ".join(f".device-kit/{part['folder']}" for part in missing)
                      + " (carry the next one in the next call)")
                return WAITING_FOR_PARTS
            return 0
        manifest = unpack(args.store, args.dest)
        wheels = len(manifest.get("wheels", []))
        print(f"kit {manifest['kit_id']}: {wheels} wheels unpacked into {args.dest}")
        return 0
    except (FileNotFoundError, ValueError, EOFError, tarfile.TarError, lzma.LZMAError) as error:
        print(f"kit.py {args.command}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
