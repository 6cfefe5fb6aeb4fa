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

# Packed aside first: the logs give up their places only when the pieces need them.
aside=/tmp/articula-cache-out
rm -rf "$aside" && mkdir -p "$aside"
"$PYTHON" "$ROOT/tools/device/kit.py" pack-cache --cache "$CACHE" --out "$aside" --max-piece-mib 15 \
    --max-pieces $((MAX_FILES - 1)) || exit 0
pieces=("$aside"/warp-cache.tar.xz.*)
[ -e "${pieces[0]}" ] || exit 0
count_files() { find "$OUT" -maxdepth 3 -type f | wc -l; }
logs=("$OUT"/[0-9]-*.log)
if [ $(($(count_files) + ${#pieces[@]})) -gt "$MAX_FILES" ] && [ -e "${logs[0]}" ]; then
    tar -C "$OUT" -cf "$OUT/logs.tar" "${logs[@]##*/}" && rm -f "${logs[@]}"
fi
used=$(du -sb "$OUT" | cut -f1)
size=$(du -cb "${pieces[@]}" | tail -n1 | cut -f1)
if [ $(($(count_files) + ${#pieces[@]})) -gt "$MAX_FILES" ] || [ $((used + size)) -gt "$MAX_BYTES" ]; then
    echo "cache_out.sh: the Warp cache ($size bytes in ${#pieces[@]} pieces) does not fit beside" \
         "\$OUT's $(count_files) files ($used bytes): not brought back"
    exit 0
fi
mv "${pieces[@]}" "$OUT/"
echo "cache_out.sh: Warp's CUDA kernels in ${#pieces[@]} piece(s), $size bytes, in \$OUT"
ls -l "$OUT"
