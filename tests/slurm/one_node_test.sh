#!/usr/bin/env bash
# slurm.one_node: a real one-node Slurm (munged, slurmctld, slurmd) from scripts/local-slurm.sh;
# the slurm/ scripts submitted with sbatch --wait: single-node ringbench (srun --mpi=pmix and the
# mpirun fallback), the job-array sweep with its afterok merge and analysis (and a failing sweep,
# whose merge must not run), the topomodel sweep, and the classic mistakes refused.
#   one_node_test.sh RINGBENCH TOPOMODEL WORKDIR
self=$(readlink -f "${BASH_SOURCE[0]}")
source "$(dirname "$self")/slurm_test_lib.sh"
export RINGBENCH_BIN=$1 TOPOMODEL_BIN=$2
work=$3
cluster=/tmp/ringbench-ctest-slurm1
if [ "${4:-}" != inside ]; then
  "$root/scripts/local-slurm.sh" stop --dir "$cluster" >/dev/null 2>&1 || true   # a killed earlier run
  rm -rf "$work" && mkdir -p "$work/logs" && cd "$work"
  exec "$root/scripts/local-slurm.sh" run --nodes 1 --dir "$cluster" -- bash "$self" "$@" inside
fi
cd "$work"
quick="-m 8:64K -i 5 -x 1 --max-time 0.2"

step "single node, srun --mpi=pmix, 2 ranks"
submit 0 -n 2 "$root/slurm/ringbench-single.sbatch" $quick
grep -q '^# rank 1 on ' "$LAST_LOG" || fail "the job did not print its ranks' hosts"
"$python" "$root/tests/scripts/check_results.py" "results/ringbench_$LAST_JOB.h5" --runs 1 --world-size 2 --interface lo

step "single node, mpirun fallback, 4 ranks on 2 CPUs (--overcommit), mpi rows over Open MPI's TCP"
RINGBENCH_LAUNCHER=mpirun submit 0 -n 4 -O "$root/slurm/ringbench-single.sbatch" $quick --algo ring,mpi
grep -q '^# .*mpi (ob1/tcp) allreduce, N=4' "$LAST_LOG" || fail "the mpi rows did not run over Open MPI's TCP by default"
"$python" "$root/tests/scripts/check_results.py" "results/ringbench_$LAST_JOB.h5" --runs 1 --world-size 4

step "classic mistakes are refused"
if bash "$root/slurm/ringbench-single.sbatch" > direct.txt 2>&1; then fail "the batch script ran outside Slurm"; fi
grep -q 'submit this script with sbatch' direct.txt || fail "outside Slurm: $(cat direct.txt)"
submit 2 -N 1 -n 2 "$root/slurm/ringbench-multi.sbatch" $quick
grep -q 'has 1 node(s): submit with -N 2' "$LAST_LOG" || fail "multi-node script on one node not explained"
RINGBENCH_LAUNCHER=srn submit 2 -n 2 "$root/slurm/ringbench-single.sbatch" $quick
grep -q 'expected srun or mpirun' "$LAST_LOG" || fail "bad launcher not explained"
printf 'allreduce ring 1 3 8:1K\n' > too_big.table
submit 2 --array=0 -n 2 "$root/slurm/sweep.sbatch" "$PWD/too_big.table"
grep -q 'world size 3 is larger than the job' "$LAST_LOG" || fail "world size above the task count not explained"
# Plain srun without a PMI: ringbench refuses before MPI_Init (where Open MPI would abort with
# "OPAL ERROR: Unreachable"), naming the fix, with exit code 2.
submit 2 -n 2 --output=logs/none_%j.out --wrap "srun --mpi=none $RINGBENCH_BIN $quick -o results/none.h5"
grep -q 'launch with `srun --mpi=pmix`' "$LAST_LOG" || fail "a launch without PMI not explained"
[ ! -e results/none.h5 ] || fail "a launch without PMI wrote results"

step "sweep: job array, one file per task, merge chained with afterok, analysis"
cat > sweep.table <<'TABLE'
# collective algorithms nodes ranks sizes options
allreduce    ring       1     2     8:256K -i 5 -x 1 --max-time 0.2
allreduce    ring       1     3     8:256K -i 5 -x 1 --max-time 0.2
allreduce    ring       1     4     8:256K -i 5 -x 1 --max-time 0.2 -d float64
TABLE
"$root/slurm/submit-sweep.sh" --wait --iface lo sweep.table -O | tee sweep.txt
array=$(sed -n 's/^sweep \([0-9]*\):.*/\1/p' sweep.txt)
[ "$(cat logs/ringbench-sweep_*_*.out | grep -c '^# rank [0-9]* on .* RINGBENCH_SOCKET_IFNAME=lo$')" = 9 ] ||
  fail "--iface lo did not reach the 2 + 3 + 4 ranks of the sweep as RINGBENCH_SOCKET_IFNAME"
for task in 0 1 2; do [ -f "results/sweep_${array}_${task}.h5" ] || fail "no file for array task $task"; done
"$python" "$root/tests/scripts/check_results.py" "results/sweep_${array}.h5" --runs 3 --world-size 2 --world-size 3 --world-size 4
ls logs/ringbench-merge_*.out >/dev/null && sed -n '1,5s/^/    | /p' logs/ringbench-merge_*.out  # sed reads to the end: no SIGPIPE under pipefail
"$root/scripts/ringbench-analyze" "results/sweep_${array}.h5" > sweep_analysis.txt
"$python" "$root/tests/scripts/check_analysis.py" sweep_analysis.txt "results/sweep_${array}_analysis" --world-size 2 3 4

step "sweep tables and options refused at submit, before any job"
printf 'allreduce ring 2 8:1K\n' > old_format.table   # written before the nodes column existed
expect_refused() {  # expect_refused PATTERN submit-sweep.sh ARGS...: exit 2, one line naming the input
  local pattern=$1 rc=0
  shift
  "$root/slurm/submit-sweep.sh" "$@" > refused.txt 2>&1 || rc=$?
  [ "$rc" = 2 ] && grep -q -- "$pattern" refused.txt || fail "submit-sweep.sh $* exited $rc: $(cat refused.txt)"
}
expect_refused "ranks '8:1K' is not a positive number" old_format.table
printf 'allreduce ring 2 1 8:1K\n' > empty_node.table
expect_refused 'leaves a node without a rank' empty_node.table
expect_refused "sbatch option '-N2': nodes, ranks and the array come from" sweep.table -N2
expect_refused "--throttle '0'" --throttle 0 sweep.table

step "a failing sweep task: the merge must not run"
printf 'allreduce ring 1 2 8:1K\nallreduce nosuch 1 2 8:1K\n' > failing.table
if "$root/slurm/submit-sweep.sh" --wait failing.table > failing.txt 2>&1; then cat failing.txt; fail "a failed sweep reported success"; fi
cat failing.txt
grep -q 'merge was cancelled\|merge job failed' failing.txt || fail "the failed sweep was not explained"
failed_array=$(sed -n 's/^sweep \([0-9]*\):.*/\1/p' failing.txt)
[ ! -e "results/sweep_${failed_array}.h5" ] || fail "merge ran after a failed task"

step "topomodel sweep"
submit 0 "$root/slurm/topomodel-sweep.sbatch" dgx-h100:2 pcie-8gpu:2
"$python" "$root/tests/scripts/check_results.py" "results/topomodel_$LAST_JOB.h5" --model
echo PASS
