#!/usr/bin/env bash
# scripts.compare: scripts/compare.sh end to end with the smallest settings it allows (N=2, one
# repetition, four small sizes with two of our algorithms, two large sizes, 1 s of iperf3), on the
# build under test (--no-build, RINGBENCH_BUILD = that build). Checks that it exits 0 and that its
# report and the tables it appends are well formed (check_compare.py).
#   compare_test.sh RINGBENCH WORKDIR
set -euo pipefail
ringbench=$1 work=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/scripts/setup.sh"   # ringbench_python, OMPI_ALLOW_RUN_AS_ROOT*
python=$(ringbench_python)
command -v iperf3 > /dev/null || { echo "SKIP: no iperf3 (compare.sh's link probe)"; exit 77; }
build=$(cd "$(dirname "$ringbench")/.." && pwd)
[ "$build/bin/ringbench" -ef "$ringbench" ] || { echo "FAIL: $ringbench is not <build>/bin/ringbench" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work" && cd "$work"

status=0
RINGBENCH_BUILD=$build bash "$root/scripts/compare.sh" --no-build -n 2 -r 1 \
  --small 8:64 --small-algos ring,naive --large 64K:128K --large-algos ring --iperf-seconds 1 \
  -o "$work/compare.h5" > report.txt 2> log.txt || status=$?
cat report.txt
[ $status = 0 ] || { echo "FAIL: compare.sh exited $status; its log:" >&2; cat log.txt >&2; exit 1; }
"$python" "$root/tests/scripts/check_compare.py" report.txt "$work/compare.h5" --ranks 2 \
  --sizes 8 16 32 64 65536 131072 --small-algos ring naive --large-algos ring --small-limit 64
echo "PASS"
