#!/usr/bin/env bash
# Is RINGBENCH_DEBUG free when unset (issue 19)? This build's ringbench against one with the
# diagnostics compiled out (cmake -DRINGBENCH_DEBUG_LOG=OFF), side by side in one job, printed for
# quoting (a benchmark, not a test: it asserts nothing about timing).
#
#   scripts/debug-off-cost.sh [--reps R] [--ranks N] [--no-build] [-- RINGBENCH ARGS]
#
# Builds the baseline's ringbench in build-nodebug/ (and this build, $RINGBENCH_BUILD or build/,
# unless --no-build), then R repetitions (default 5), each running three binaries in a fresh random
# order (the seed is printed; RINGBENCH_TEST_SEED replays it), with RINGBENCH_DEBUG unset:
# mpirun -np N ringbench -q ARGS (default N = 2 and --collective allreduce --algo ring -m 8:64K
# -i 2000 -x 20 --no-link-test: small calls, where a per-frame check would show most). The third
# is a copy of this build's binary, the A/A control: the sizes of one run are not independent (a
# slow run is slow at every size), so on/off must be read against on/copy. Per size: the median
# over the repetitions of each binary's row median, their min-max, and the two ratios.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/setup.sh"

reps=5 ranks=2 build=1
args=(--collective allreduce --algo ring -m 8:64K -i 2000 -x 20 --no-link-test)
usage() { sed -n '6p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --reps) reps=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --) shift; [ $# -gt 0 ] && args=("$@"); break ;;
    -h|--help) usage ;;
    *) echo "debug-off-cost.sh: unknown argument $1" >&2; usage ;;
  esac
done
[ "$reps" -ge 3 ] 2>/dev/null || { echo "debug-off-cost.sh: --reps $reps: need at least 3" >&2; exit 2; }
[ "$ranks" -ge 2 ] 2>/dev/null || { echo "debug-off-cost.sh: --ranks $ranks: need at least 2" >&2; exit 2; }
install_missing_packages
[ $build = 0 ] || configure_and_build
root=$(cd "$here/.." && pwd)
baseline=$root/build-nodebug
cmake -S "$root" -B "$baseline" -DCMAKE_BUILD_TYPE=Release -DRINGBENCH_DEBUG_LOG=OFF -DBUILD_TESTING=OFF >/dev/null
cmake --build "$baseline" -j "$(nproc)" --target ringbench >/dev/null
python=$(ringbench_python)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$RINGBENCH_BUILD/bin/ringbench" "$work/ringbench-copy"
declare -A binary=([on]=$RINGBENCH_BUILD/bin/ringbench [off]=$baseline/bin/ringbench [copy]=$work/ringbench-copy)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset RINGBENCH_DEBUG RINGBENCH_DEBUG_SUBSYS RINGBENCH_DEBUG_FILE
over=()
[ "$ranks" -gt "$(nproc)" ] && over=(--oversubscribe)
seed=${RINGBENCH_TEST_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
RANDOM=$((seed % 32768))

echo "# debug-off-cost on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores," \
  "N = $ranks, $reps repetitions, seed $seed, $(date -u +%FT%TZ)"
echo "# on: ringbench as built (RINGBENCH_DEBUG unset); off: -DRINGBENCH_DEBUG_LOG=OFF; copy: on's binary" \
  "again; args: ${args[*]}"
orders=("on off copy" "on copy off" "off on copy" "off copy on" "copy on off" "copy off on")
for _ in $(seq "$reps"); do
  for side in ${orders[$((RANDOM % 6))]}; do
    mpirun -np "$ranks" "${over[@]}" --bind-to none "${binary[$side]}" -q "${args[@]}" -o "$work/$side.h5" >/dev/null
  done
done
"$python" - "$work/on.h5" "$work/off.h5" "$work/copy.h5" <<'PY'
import sys
import numpy as np
import h5py

def medians_by_size(path):
    with h5py.File(path, "r") as f:
        rows = f["results"][:]
    by = {}
    for r in rows:
        by.setdefault(int(r["bytes"]), []).append(float(r["t_median_us"]))
    return by

on, off, copy = (medians_by_size(path) for path in sys.argv[1:4])
print(f"# {'bytes':>8} {'on (us)':>9} {'[min-max]':>17} {'off (us)':>9} {'[min-max]':>17} {'on/off':>7} {'on/copy':>8}")
ratios, controls = [], []
for size in sorted(on):
    a, b, c = np.array(on[size]), np.array(off[size]), np.array(copy[size])
    ratios.append(np.median(a) / np.median(b))
    controls.append(np.median(a) / np.median(c))
    print(f"  {size:>8} {np.median(a):9.2f} [{a.min():7.2f}-{a.max():7.2f}] {np.median(b):9.2f} "
          f"[{b.min():7.2f}-{b.max():7.2f}] {ratios[-1]:7.3f} {controls[-1]:8.3f}")
for name, r in (("on/off", ratios), ("on/copy (A/A control)", controls)):
    print(f"# {name} over the sizes: median {np.median(r):.3f}, range {min(r):.3f}-{max(r):.3f}, "
          f"above 1 at {sum(x > 1 for x in r)} of {len(r)}")
PY
