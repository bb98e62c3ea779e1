#!/usr/bin/env bash
# slurm.two_node: a real two-node Slurm from scripts/local-slurm.sh --nodes 2: slurmd "h1" and
# "h2" in their own network and UTS namespaces on a bridge, each link shaped to 1gbit. Submits
# slurm/ringbench-multi.sbatch (sbatch -N 2 --ntasks-per-node=2) with srun --mpi=pmix and with
# the mpirun fallback; ringbench must see 2 hosts and choose eth0 by itself. Then the straggler:
# h2's link shaped to 250mbit, and the ring's busbw must drop to the slow link's pace.
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
echo PASS
