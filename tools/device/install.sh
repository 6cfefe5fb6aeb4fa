#!/usr/bin/env bash
# On the lent GPU machine, from the repository root, in every call that carries a kit part
# (tools/device/README.md): stores the carried .device-kit/part-N in /tmp/articula-kit; once all parts
# are there (sha256 against the manifest), joins them and installs every wheel into /tmp/articula-site,
# then writes /tmp/articula-env.sh (PYTHONPATH, WARP_CACHE_PATH) for tools/device/checks.sh.
#
# Exit status: 0 installed (also when an earlier call installed this kit); 3 parts still missing (carry
# the next one); 2 a part is damaged or the Python is not 3.12; 1 the install failed.
# PYTHON picks the interpreter (default python3; the device's holds torch). Output also goes to
# $OUT/0-install.log.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PYTHON=${PYTHON:-python3}
STORE=/tmp/articula-kit
SITE=/tmp/articula-site
PKG=/tmp/articula-pkg
ENV_FILE=/tmp/articula-env.sh
OUT=${OUT:-/tmp/articula-device-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/0-install.log") 2>&1

started=$SECONDS
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))'; then
    echo "install.sh: $PYTHON is $("$PYTHON" --version 2>&1), the kit's wheels are for Python 3.12:" \
         "set PYTHON=/path/to/python3.12"
    exit 2
fi

# Featherstone's and XPBD's CPU kernels (make kernels), when carried: kept for checks.sh's later calls.
if [ -d "$ROOT/.cache/kernels" ]; then
    rm -rf /tmp/articula-kernels && cp -r "$ROOT/.cache/kernels" /tmp/articula-kernels
fi
# Warp's CUDA kernels an earlier lease built (tools/device/cache_out.sh), when carried: minutes saved.
if [ -d "$ROOT/.cache/device-warp-cache" ]; then
    "$PYTHON" "$ROOT/tools/device/kit.py" restore-cache --pieces "$ROOT/.cache/device-warp-cache" \
        --cache /tmp/warp-cache || echo "install.sh: the carried Warp cache was not restored (see above)"
fi
"$PYTHON" "$ROOT/tools/device/kit.py" receive --carried "$ROOT/.device-kit" --store "$STORE"
status=$?
[ "$status" -eq 0 ] || exit "$status"

kit_id=$("$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["kit_id"])' \
         "$(ls -t "$STORE"/*/manifest.json | head -n1)")
installed_marker="$SITE/.articula-kit-$kit_id"
if [ ! -e "$installed_marker" ]; then
    wheels="$STORE/$kit_id/wheels"
    rm -rf "$wheels" "$SITE"
    "$PYTHON" "$ROOT/tools/device/kit.py" unpack --store "$STORE" --dest "$wheels" || exit 2
    # Every wheel at once, no index, no dependencies: the kit holds exactly the set make_kit.py resolved.
    "$PYTHON" -m pip install --quiet --disable-pip-version-check --no-index --no-deps --no-compile \
        --no-cache-dir --target "$SITE" "$wheels"/*.whl || exit 1
    rm -rf "$wheels"
    touch "$installed_marker"
fi

# `import articula` as the editable install does here: the repository root is the package, whatever
# this checkout's folder is called.
mkdir -p "$PKG"
ln -sfn "$ROOT" "$PKG/articula"
cat > "$ENV_FILE" <<EOF
# Written by tools/device/install.sh (kit $kit_id): source it before running tests/sim or bench/.
export ARTICULA_PYTHON="$(command -v "$PYTHON")"
export PYTHONPATH="$PKG:$SITE\${PYTHONPATH:+:\$PYTHONPATH}"
export PATH="$SITE/bin:\$PATH"
export WARP_CACHE_PATH=/tmp/warp-cache
EOF
# shellcheck source=/dev/null
. "$ENV_FILE"
"$PYTHON" - <<'EOF' || exit 1
import importlib.metadata as metadata
import articula.sim.simulation, mujoco, mujoco_warp, numpy, pxr, pytest, scipy  # noqa: F401
print("installed:", ", ".join(f"{name} {metadata.version(name)}" for name in
      ("warp-lang", "newton", "mujoco", "mujoco-warp", "usd-core", "numpy", "scipy", "pytest")))
print("articula from", articula.sim.simulation.__file__)
EOF
echo "install.sh: ready in $((SECONDS - started)) s; now: . $ENV_FILE (checks.sh does it)"
