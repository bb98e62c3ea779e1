#!/usr/bin/env bash
# scripts.analysis: ringbench-merge and ringbench-analyze on files from real runs: mpirun -np 2
# and -np 3 ringbench on loopback, topomodel sweep and collective. Checks the merge (every run
# once, layout kept so ringbench can append to it, a newer schema refused, the previous schema's
# file merged and widened), bad inputs (a directory, a file without /runs: exit 2, one line) and
# the analysis (tables for content, CSV, PNGs that decode and are not blank).
#   analysis_test.sh RINGBENCH TOPOMODEL WORKDIR
set -euo pipefail
ringbench=$1 topomodel=$2 work=$3
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/scripts/setup.sh"   # ringbench_python, OMPI_ALLOW_RUN_AS_ROOT*
python=$(ringbench_python)
rm -rf "$work" && mkdir -p "$work" && cd "$work"
quick=(-m 8:256K -i 5 -x 1 --max-time 0.2)

step() { echo "--- $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

step "real runs: N=2 twice into a.h5, N=3 into b.h5, the model into c.h5"
mpirun -np 2 "$ringbench" "${quick[@]}" -o a.h5 > run_a1.txt
mpirun -np 2 "$ringbench" "${quick[@]}" -o a.h5 > run_a2.txt
mpirun -np 3 --oversubscribe "$ringbench" "${quick[@]}" -o b.h5 > run_b.txt
"$topomodel" sweep --nodes 2 -o c.h5 > /dev/null
for size in 1M 64M 1G; do "$topomodel" collective --bytes "$size" -o c.h5 > /dev/null; done
"$python" "$root/tests/scripts/check_results.py" a.h5 --runs 2 --world-size 2 --world-size 2 --hosts "$(hostname)" --interface lo
"$python" "$root/tests/scripts/check_results.py" b.h5 --runs 1 --world-size 3
"$python" "$root/tests/scripts/check_results.py" c.h5 --model

step "merge: three files, then again with an input repeated"
"$root/scripts/ringbench-merge" -o merged.h5 a.h5 b.h5 c.h5 | tee merge1.txt
grep -q '3 run(s)\|/runs 3 rows' merge1.txt || fail "merge did not report 3 runs in /runs"
"$python" "$root/tests/scripts/check_results.py" merged.h5 --runs 3 --world-size 2 --world-size 2 --world-size 3 --model
"$root/scripts/ringbench-merge" -o merged.h5 a.h5 | tee merge2.txt
grep -q 'kept once' merge2.txt || fail "a repeated run was not reported"
"$python" "$root/tests/scripts/check_results.py" merged.h5 --runs 3

step "ringbench appends to the merged file (the layout survived the merge)"
mpirun -np 2 "$ringbench" "${quick[@]}" -o merged.h5 > run_merged.txt
"$python" "$root/tests/scripts/check_results.py" merged.h5 --runs 4 --world-size 2 --world-size 2 --world-size 2 --world-size 3

step "a file of another schema version is refused, naming the file"
cp a.h5 other.h5
"$python" -c 'import h5py, sys; h5py.File(sys.argv[1], "r+").attrs["ringbench_schema_version"] = 99' other.h5
if "$root/scripts/ringbench-merge" -o bad.h5 a.h5 other.h5 2> refuse.txt; then fail "merge accepted schema 99"; fi
grep -q 'other.h5: schema version 99' refuse.txt || fail "unexpected refusal: $(cat refuse.txt)"
[ ! -e bad.h5 ] || fail "a refused merge left an output file"

step "files of schema 1 and 2 merge into the newer layout, and ringbench appends to the merge"
"$root/scripts/ringbench-merge" -o mixed.h5 "$root/tests/data/results-schema1.h5" a.h5 > merge_mixed.txt
mpirun -np 2 "$ringbench" "${quick[@]}" -o mixed.h5 > run_mixed.txt
"$python" "$root/tests/scripts/check_results.py" mixed.h5 --runs 4 --world-size 2 --world-size 2 --world-size 2 \
  --world-size 2
"$python" - mixed.h5 <<'PY' || fail "the schema-1 rows of mixed.h5 are not widened as expected"
import math, sys
import h5py
rows = h5py.File(sys.argv[1], "r")["results"][:]
old = [r for r in rows if r["run_id"] == b"d9692174-3237-4452-8736-6322ce723dd9"]  # results-schema1.h5's run
assert len(old) == 4 and all(math.isnan(r["t_median_us"]) and r["calls"] == -1 for r in old), old
assert all(r["t_median_us"] > 0 for r in rows if r["run_id"] != old[0]["run_id"])
PY

step "bad inputs: a directory and a file without /runs exit 2 with one line naming them"
mkdir -p a_directory.h5
"$python" -c 'import h5py, sys; h5py.File(sys.argv[1], "w").attrs["ringbench_schema_version"] = 2' bare.h5
for input in a_directory.h5 bare.h5; do
  for tool in ringbench-analyze ringbench-merge; do
    args=("$input"); [ "$tool" = ringbench-merge ] && args=(-o refused.h5 "$input")
    rc=0; "$root/scripts/$tool" "${args[@]}" > /dev/null 2> refused.txt || rc=$?
    [ "$rc" -eq 2 ] && [ "$(wc -l < refused.txt)" -eq 1 ] || fail "$tool $input: exit $rc, $(cat refused.txt)"
  done
done
grep -q 'a_directory.h5: is a directory' <("$root/scripts/ringbench-analyze" a_directory.h5 2>&1) ||
  fail "a directory was not called one"
grep -q 'bare.h5: no /runs table' <("$root/scripts/ringbench-analyze" bare.h5 2>&1) || fail "bare.h5 not refused"
[ ! -e refused.h5 ] || fail "a refused merge left an output file"

step "analysis: tables, CSV, PNG"
"$root/scripts/ringbench-analyze" --csv out --plots out merged.h5 > analysis.txt
sed -n 1,40p analysis.txt
"$python" "$root/tests/scripts/check_analysis.py" analysis.txt out --world-size 2 3 --model
grep -q '^ *2 .*ok *yes$' analysis.txt || fail "no verified N=2 row in the printed table"

step "the launcher honours RINGBENCH_PYTHON"
RINGBENCH_PYTHON=/nonexistent/python3 "$root/scripts/ringbench-analyze" merged.h5 > /dev/null 2>&1 &&
  fail "RINGBENCH_PYTHON=/nonexistent was not used"
RINGBENCH_PYTHON=$python "$root/scripts/ringbench-analyze" merged.h5 > /dev/null
echo "PASS"
