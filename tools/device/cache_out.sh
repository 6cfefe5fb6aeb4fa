#!/usr/bin/env bash
# On the lent GPU machine, last in the lease's last call: Warp's CUDA kernels built by the checks
# (/tmp/warp-cache, cubin/PTX and metadata, no CPU objects) as $OUT/warp-cache.tar.xz.NNN pieces, so that
# the next lease carries them in (.cache/device-warp-cache, restored by install.sh) instead of compiling
# them again for minutes. $OUT brings back 8 files, 64 MiB: the check logs go into one logs.tar when
# the pieces need their places; summary.txt stays as it is.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-/tmp/articula-device-out}
CACHE=${WARP_CACHE_PATH:-/tmp/warp-cache}
MAX_FILES=8
MAX_BYTES=$((60 * 1024 * 1024))
PYTHON=${ARTICULA_PYTHON:-python3}
mkdir -p "$OUT"
[ -d "$CACHE" ] || { echo "cache_out.sh: no Warp cache at $CACHE"; exit 0; }

logs=("$OUT"/[0-9]-*.log)
if [ -e "${logs[0]}" ] && [ "${#logs[@]}" -gt 2 ]; then
    tar -C "$OUT" -cf "$OUT/logs.tar" "${logs[@]##*/}" && rm -f "${logs[@]}"
fi
files=$(find "$OUT" -maxdepth 3 -type f | wc -l)
used=$(du -sb "$OUT" | cut -f1)
free_files=$((MAX_FILES - files))
free_bytes=$((MAX_BYTES - used))
if [ "$free_files" -lt 1 ] || [ "$free_bytes" -lt $((1024 * 1024)) ]; then
    echo "cache_out.sh: no room left in \$OUT ($files files, $used bytes)"
    exit 0
fi
piece_mib=$((free_bytes / free_files / 1024 / 1024))
piece_mib=$((piece_mib > 15 ? 15 : (piece_mib < 1 ? 1 : piece_mib)))
"$PYTHON" "$ROOT/tools/device/kit.py" pack-cache --cache "$CACHE" --out "$OUT" \
    --max-piece-mib "$piece_mib" --max-pieces "$free_files"
ls -l "$OUT"
