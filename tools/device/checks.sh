#!/usr/bin/env bash
# On the lent GPU machine, after tools/device/install.sh: the GPU checks in priority order, each under its
# own timeout, all within BUDGET seconds; each writes $OUT/<n>-<name>.log, and $OUT/summary.txt gets the
# machine and one line per check.
#
#   tools/device/checks.sh BUDGET [NAME...]     # NAMEs: run only these (a second call, for the rest)
#
# A check stopped by its timeout keeps the Warp kernels it built (WARP_CACHE_PATH under /tmp): the same
# check in the next call on the warm machine starts past them.
set -uo pipefail

usage="usage: tools/device/checks.sh BUDGET_SECONDS [NAME...]"
usage+=" (names: sim_cuda sensors_cuda crossover mujoco_warp_feed ant_cuda)"
budget=${1:?$usage}
shift
[[ "$budget" =~ ^[0-9]+$ ]] || { echo "$usage"; exit 2; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-/tmp/articula-device-out}
ENV_FILE=/tmp/articula-env.sh
mkdir -p "$OUT"
[ -f "$ENV_FILE" ] || { echo "no $ENV_FILE: run tools/device/install.sh first"; exit 2; }
# shellcheck source=/dev/null
. "$ENV_FILE"
PYTHON=$ARTICULA_PYTHON
ln -sfn "$ROOT" /tmp/articula-pkg/articula  # this call's checkout (its folder may differ from the last)
# The CPU kernels built here travel beside a part (.cache/kernels, ignored): install.sh keeps a copy.
if [ -d /tmp/articula-kernels ] && [ ! -d "$ROOT/.cache/kernels" ]; then
    mkdir -p "$ROOT/.cache" && cp -r /tmp/articula-kernels "$ROOT/.cache/kernels"
fi
# Plugins of the machine's own pytest (xdist, cov, hypothesis...) are not the kit's: leave them out.
export PYTHONUNBUFFERED=1 PYTEST_DISABLE_PLUGIN_AUTOLOAD=1
cd "$ROOT" || exit 2

deadline=$((SECONDS + budget - 5))  # stop cleanly before the caller's limit
MIN_SECONDS=30                      # a check with less left is not started
KILL_GRACE=20                       # after SIGINT, what a check gets before SIGKILL
# number name cap_seconds kind path [arguments]: the priority order of issues 33, 35 and 37's CUDA work.
# {budget} in an argument: the check's timeout less 20 s, for a bench that stops its own measurements.
CHECKS=(
    "1 sim_cuda 420 pytest tests/sim/test_sim_cuda.py"
    "2 sensors_cuda 150 pytest tests/sim/test_sensors_cuda.py"
    "3 crossover 240 bench bench/bench_device_crossover.py"
    "4 mujoco_warp_feed 180 bench bench/bench_mujoco_warp_feed.py budget={budget}"
    "5 ant_cuda 180 bench bench/bench_sim_ant_cuda.py"
)
summary="$OUT/summary.txt"
cache_size() { local size; size=$(du -sh "$WARP_CACHE_PATH" 2>/dev/null | cut -f1); echo "${size:-empty}"; }
{
    commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "without .git")
    echo "== $(date -u +%FT%TZ) budget ${budget} s, checkout $commit"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null \
        || echo "no nvidia-smi: no NVIDIA GPU here"
    echo "python $("$PYTHON" --version 2>&1 | cut -d' ' -f2), warp cache $WARP_CACHE_PATH: $(cache_size)"
} >> "$summary"

wanted() {  # the check is named on the command line, or none is
    [ "$#" -eq 1 ] && return 0
    local name=$1 pick
    shift
    for pick in "$@"; do [ "$pick" = "$name" ] && return 0; done
    return 1
}

result_line() {  # what a check's log says in one line
    local kind=$1 log=$2
    if [ "$kind" = pytest ]; then
        local outcome passed failed
        outcome=$(grep -E '^=+ .*(passed|failed|skipped|error|no tests ran).* =+$' "$log" | tail -n1 \
                  | tr -d '=' | sed 's/^ *//;s/ *$//')
        passed=$(grep -c ' PASSED' "$log")
        failed=$(grep -c -E ' (FAILED|ERROR)' "$log")
        echo "${outcome:-no pytest summary} (${passed} PASSED, ${failed} FAILED/ERROR lines)"
    else
        local ratios
        ratios=$(grep -E '^(RATIO|SKIP)' "$log" | tr '\n' ';')
        echo "${ratios:-$(tail -n1 "$log")}"
    fi
}

for check in "${CHECKS[@]}"; do
    read -r number name cap kind path arguments <<< "$check"
    wanted "$name" "$@" || continue
    log="$OUT/$number-$name.log"
    if [ ! -f "$path" ]; then
        echo "$number $name ABSENT ($path is not in this checkout)" >> "$summary"
        continue
    fi
    left=$((deadline - SECONDS - KILL_GRACE))
    if [ "$left" -lt "$MIN_SECONDS" ]; then
        echo "$number $name NOT RUN: ${left} s of the budget left" >> "$summary"
        continue
    fi
    limit=$((cap < left ? cap : left))
    read -r -a arguments <<< "${arguments//\{budget\}/$((limit - 20))}"
    if [ "$kind" = pytest ]; then
        command=("$PYTHON" -m pytest "$path" -v --durations=15 "${arguments[@]}")
    else
        command=("$PYTHON" "$path" "${arguments[@]}")
    fi
    echo "== $number $name: ${command[*]} (timeout ${limit} s)" | tee "$log"
    started=$SECONDS
    # SIGINT: pytest still prints what passed and the durations; a kernel build deaf to it is killed.
    timeout --signal=INT --kill-after="$KILL_GRACE" "$limit" "${command[@]}" >> "$log" 2>&1
    status=$?
    took=$((SECONDS - started))
    case "$status" in
        0) verdict=PASS ;;
        124 | 137) verdict="TIMEOUT (${limit} s)" ;;
        5) verdict="NO TESTS" ;;
        *) verdict="FAIL (exit $status)" ;;
    esac
    line="$number $name $verdict in ${took} s: $(result_line "$kind" "$log")"
    echo "$line" | tee -a "$summary"
done
echo "warp cache after the checks: $(cache_size)" >> "$summary"
echo "== summary ($summary)"
cat "$summary"
