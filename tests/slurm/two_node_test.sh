#!/usr/bin/env bash
# slurm.two_node: a real two-node Slurm from scripts/local-slurm.sh --nodes 2: slurmd "h1" and
# "h2" in their own network and UTS namespaces on a bridge, each link shaped to 1gbit. Submits
# slurm/ringbench-multi.sbatch (sbatch -N 2 --ntasks-per-node=2) with srun --mpi=pmix and with
# the mpirun fallback; ringbench must see 2 hosts and choose eth0 by itself. Then --on-failure
# shrink under srun: a rank on h2 dies and the survivors finish. Then the straggler:
# h2's link shaped to 250mbit, and the ring's busbw must drop to the slow link's pace. Last, a
# sweep over 1 and 2 nodes through slurm/submit-sweep.sh with --exclusive, --throttle 1, sbatch
# --export=NONE and a site hook.
#   two_node_test.sh RINGBENCH WORKDIR
self=$(readlink -f "${BASH_SOURCE[0]}")
source "$(dirname "$self")/slurm_test_lib.sh"
export RINGBENCH_BIN=$1
work=$2
cluster=/tmp/ringbench-ctest-slurm2
if [ "${3:-}" != inside ]; then
  unshare --net --uts true 2>/dev/null || { echo "SKIP: cannot create network/UTS namespaces here"; exit 77; }
  "$root/scripts/local-slurm.sh" stop --dir "$cluster" >/dev/null 2>&1 || true   # a killed earlier run
  rm -rf "$work" && mkdir -p "$work/logs" && cd "$work"
  "$root/scripts/local-slurm.sh" run --nodes 2 --rate 1gbit --dir "$cluster" -- bash "$self" "$@" inside
  rc=$?
  for h in h1 h2; do [ ! -e "/run/netns/$h" ] || fail "namespace $h left behind"; done
  exit $rc
fi
cd "$work"
sizes="-m 8:1M -i 5 -x 1 --max-time 0.3"

step "two nodes, srun --mpi=pmix, 2 ranks per node, links at 1gbit"
submit 0 "$root/slurm/ringbench-multi.sbatch" $sizes
grep -q '^# rank 2 on h2: .*eth0=10.200.0.2' "$LAST_LOG" || fail "rank 2 was not placed on h2"
"$python" "$root/tests/scripts/check_results.py" "results/ringbench_$LAST_JOB.h5" --runs 1 --world-size 4 \
  --hosts h1,h2 --interface eth0
fast=$("$python" "$root/tests/scripts/check_results.py" "results/ringbench_$LAST_JOB.h5" --print-busbw)
fast_file=results/ringbench_$LAST_JOB.h5

step "two nodes, mpirun fallback"
RINGBENCH_LAUNCHER=mpirun submit 0 "$root/slurm/ringbench-multi.sbatch" $sizes
"$python" "$root/tests/scripts/check_results.py" "results/ringbench_$LAST_JOB.h5" --runs 1 --world-size 4 \
  --hosts h1,h2 --interface eth0

step "shrink under srun: rank 3 (on h2) dies mid-sweep, the three survivors go on"
# slurm/common.sh launches with srun --mpi=none --kill-on-bad-exit=0 --wait=0 and the file
# bootstrap when the arguments hold --on-failure shrink (Slurm's pmix plugin would kill the whole
# step), so the survivors run on; srun then exits with the dead task's status (SIGKILL: 137), which
# the job passes on, while the survivors' rows are all verified.
submit 137 "$root/slurm/ringbench-multi.sbatch" --collective allreduce --algo ring -m 8:16K -i 300 -x 1 \
  --no-link-test --timeout 2 --on-failure shrink --inject kill:3@2000
grep -q '^ringbench rank 3: --inject kill: exiting abruptly in collective call' "$LAST_LOG" ||
  fail "rank 3 did not die"
grep -q '^# shrink       : rank(s) 3 failed .* go on as N=3' "$LAST_LOG" || fail "no shrink line in the job's log"
grep -q '^# result: all rows verified' "$LAST_LOG" || fail "the survivors' rows are not all verified"
"$python" - "results/ringbench_$LAST_JOB.h5" <<'PY' || fail "the results file does not record the shrink"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    events, results = f["events"][:], f["results"][:]
assert len(events) == 1 and events[0]["failed_ranks"].decode() == "3" and int(events[0]["new_world_size"]) == 3, events
assert all(int(r["world_size"]) == (3 if int(r["epoch"]) == 1 else 4) for r in results)
assert {int(r["epoch"]) for r in results} == {0, 1} and all(int(r["verified"]) == 1 for r in results)
print(f"shrink recorded: {len(results)} rows, {sum(int(r['epoch']) == 1 for r in results)} after the shrink")
PY

step "straggler: h2's link at 250mbit, h1's still at 1gbit"
"$root/scripts/local-slurm.sh" shape h2 250mbit --dir "$cluster"
submit 0 "$root/slurm/ringbench-multi.sbatch" $sizes
slow=$("$python" "$root/tests/scripts/check_results.py" "results/ringbench_$LAST_JOB.h5" --print-busbw)
echo "busbw at 1 MiB: both links 1gbit $fast GB/s; h2 at 250mbit $slow GB/s"
# 1gbit = 0.125 GB/s, 250mbit = 0.031 GB/s: the whole ring runs at the slow link's pace.
"$python" -c "import sys; f, s = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if s < 0.5 * f and s < 0.045 and f < 0.2 else 1)" \
  "$fast" "$slow" || fail "straggler not visible: $fast vs $slow GB/s"

step "analysis of the two-node runs"
"$root/scripts/ringbench-analyze" --csv analysis --plots analysis "$fast_file" > analysis.txt
"$python" "$root/tests/scripts/check_analysis.py" analysis.txt analysis --world-size 4 --hosts 2
grep -v '^#' analysis.txt | sed -n 1,3p

step "node-count sweep (1 and 2 nodes): --exclusive, --throttle 1, sbatch --export=NONE, a site hook"
# The hook is all the job gets from outside under --export=NONE (with the RINGBENCH_* settings
# submit-sweep.sh writes): it must run, in an environment without this shell's variables, and
# the interface choice it exports must reach every rank of every srun step.
export LEAK_CHECK=this-shell
cat > site-hook.sh <<'HOOK'
# A test site hook: where a site would `module load openmpi`.
export RINGBENCH_SOCKET_IFNAME=eth0
echo "# test site hook on $(hostname): marker hook-ran, submit shell's LEAK_CHECK=${LEAK_CHECK:-absent}"
HOOK
cat > nodes.table <<'TABLE'
# collective algorithms nodes ranks sizes options
allreduce    ring       1     2     8:256K -i 5 -x 1 --max-time 0.2
allreduce    ring       1     2     8:256K -i 5 -x 1 --max-time 0.2 -d float64
allreduce    ring       2     2     8:256K -i 5 -x 1 --max-time 0.2
allreduce    ring       2     4     8:256K -i 5 -x 1 --max-time 0.2
TABLE
RINGBENCH_SITE_SETUP=$PWD/site-hook.sh "$root/slurm/submit-sweep.sh" --wait --exclusive --throttle 1 nodes.table \
  --export=NONE | tee nodes.txt
sweep=$(sed -n 's/^sweep \([0-9]*\):.*/\1/p' nodes.txt)
[ "$(grep -c '^array job ' nodes.txt)" = 3 ] || fail "expected one array per (nodes, ranks) group, 3 in all"
first_array_logs=(logs/ringbench-sweep_"${sweep}"_*.out)
[ ${#first_array_logs[@]} = 2 ] || fail "the (1 node, 2 ranks) array did not run rows 0 and 1: ${first_array_logs[*]}"
for log in logs/ringbench-sweep_*.out; do
  grep -q '^# test site hook on h[12]: marker hook-ran, submit shell.s LEAK_CHECK=absent' "$log" ||
    fail "$log: the site hook did not run, or ran with the submitting shell's environment"
  grep -q '^# nodes: exclusive' "$log" || fail "$log: the task's nodes were not exclusive"
  grep -q '^# array [0-9]*: at most 1 task(s) at once (throttle %1)' "$log" || fail "$log: no throttle %1"
  ranks=$(sed -n 's/^# sweep .*, \([0-9]*\) ranks, sizes.*/\1/p' "$log")
  [ "$(grep -c '^# rank [0-9]* on h[12]: .* RINGBENCH_SOCKET_IFNAME=eth0$' "$log")" = "$ranks" ] ||
    fail "$log: RINGBENCH_SOCKET_IFNAME from the hook did not reach all $ranks ranks"
done
sed -n '1,12s/^/    | /p' "${first_array_logs[0]}"
# A ringbench that reads RINGBENCH_SOCKET_IFNAME must then have used eth0 on one node too, where it
# would choose loopback by itself (an older one ignores the variable; its 1-node rows use lo).
interface=()
if grep -q -a RINGBENCH_SOCKET_IFNAME "$RINGBENCH_BIN"; then interface=(--interface eth0); fi
"$python" "$(dirname "$self")/check_node_sweep.py" "results/sweep_${sweep}.h5" "${interface[@]}" 1x2 1x2 2x2 2x4
echo PASS
