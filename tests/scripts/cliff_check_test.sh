#!/usr/bin/env bash
# scripts.cliff_check: scripts/cliff-check.sh end to end at its smallest settings (N = 2, two
# repetitions, 64K-256K) on the build under test, then its report parser on hand-made rows whose
# answer is known. It asserts no timing: the real run may exit 0 (no fall) or 1 (a fall), never 2,
# and must print a row per size; the hand-made rows must give exactly the falls they hold.
#   cliff_check_test.sh RINGBENCH WORKDIR
set -euo pipefail
ringbench=$1 work=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/scripts/setup.sh"   # OMPI_ALLOW_RUN_AS_ROOT*
rm -rf "$work" && mkdir -p "$work" && cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# Bad input: one line naming the flag, exit 2, before any run.
status=0
bash "$root/scripts/cliff-check.sh" --reps 0 -d bad 2> err.txt || status=$?
[ $status = 2 ] || fail "--reps 0 exited $status, not 2"
[ "$(wc -l < err.txt)" = 1 ] && grep -q -- '--reps 0' err.txt || fail "--reps 0: $(cat err.txt)"
[ ! -e bad ] || fail "--reps 0 created its directory before refusing"

status=0
RINGBENCH_BIN=$ringbench bash "$root/scripts/cliff-check.sh" --ranks 2 --reps 2 --sizes 64K:256K \
  --max-time 0.1 -d run > report.txt 2> log.txt || status=$?
cat report.txt
[ $status -le 1 ] || { cat log.txt >&2; fail "cliff-check.sh exited $status"; }
for size in 64K 128K 256K; do
  grep -Eq "^ +$size +[0-9.]+ +\[[0-9.]+-[0-9.]+\]" report.txt || fail "no row for $size"
done
grep -q 'doubling(s) where the time falls (target: none)' report.txt || fail "no verdict line"
[ "$(ls run/n2.rep*.csv | wc -l)" = 2 ] || fail "expected 2 repetitions' CSV files"

# The parser on rows with a known answer: 128K is faster than 64K in both repetitions.
mkdir -p known
for rep in 1 2; do
  printf 'bytes,t_median_us\n65536,100\n131072,%s\n262144,300\n' $((80 + rep)) > known/n4.rep$rep.csv
done
status=0
python3 "$root/scripts/cliff_report.py" known 4 > known.txt || status=$?
cat known.txt
[ $status = 1 ] || fail "a fall in the rows, but the report exited $status"
grep -q '^fall 4 64K 128K$' known.txt || fail "the 64K -> 128K fall not named"
grep -q 'FALLS (spreads apart)' known.txt || fail "separated spreads not marked"
[ "$(grep -c '^fall ' known.txt)" = 1 ] || fail "only one fall in the rows"
echo "PASS"
