#!/usr/bin/env bash
# Issue 17's overlap check: the bucketed DDP step measured by ringbench against the model's
# prediction for the same machine, bucket size by bucket size.
#
#   scripts/overlap-check.sh [-n RANKS] [-d DIR] [--bucket-bytes RANGE] [--algo ALGO] [--no-build]
#                            [-- EXTRA RINGBENCH ARGS]
#
#   1. mpirun -np RANKS --oversubscribe ringbench --workload ddp --bucket-bytes RANGE -o DIR/measured.h5:
#      the steps, and in every turn beside them a ring send/receive at each bucket size's chunk
#      (/exchanges), the link test the model's copy rates come from (docs/model.md)
#   2. topomodel calibrate DIR/measured.h5 --run THAT RUN -o DIR/machine.json: this machine as a
#      cluster file, fitted on the run's probes, ping-pong and exchanges, never on a measured step;
#      taken in the same minutes as the steps (a separate calibration run priced the machine of
#      the next minutes: on the 2-core VM its ping-pong took up to 23% less time than the ddp run's)
#   3. per measured bucket size, topomodel step --workload ddp --cluster DIR/machine.json with the
#      run's world size, gradients, layers, algorithm and measured compute_us_per_layer
#      (--compute-ms), appended to DIR/predicted.h5
#   4. scripts/overlap_report.py: measured against predicted per bucket size (error %, the best
#      bucket of each), against issue 17's targets
#
# Defaults: 4 ranks (on a 2-core machine they share the cores: the model sees that only through
# the calibrated machine file), the issue's sweep 64K:128M (ringbench's binary sizes), ring. DIR
# (default overlap-check/) is emptied of the three files first. The build is $RINGBENCH_BUILD
# (default build/), brought up to date first unless --no-build.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/setup.sh"

ranks=4 dir=overlap-check buckets=64K:128M algo=ring build=1
extra=()
usage() { sed -n '5,6p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    -n) ranks=$2; shift 2 ;;
    -d) dir=$2; shift 2 ;;
    --bucket-bytes) buckets=$2; shift 2 ;;
    --algo) algo=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) usage ;;
    *) echo "overlap-check.sh: unknown argument $1" >&2; usage ;;
  esac
done
[ "$ranks" -ge 2 ] 2>/dev/null || { echo "overlap-check.sh: -n $ranks: need at least 2 ranks" >&2; exit 2; }

install_missing_packages
[ $build = 0 ] || configure_and_build
ringbench=$RINGBENCH_BUILD/bin/ringbench
topomodel=$RINGBENCH_BUILD/bin/topomodel
mkdir -p "$dir"
measured=$dir/measured.h5 machine=$dir/machine.json predicted=$dir/predicted.h5
rm -f "$measured" "$measured.undo" "$machine" "$predicted" "$predicted.undo"

# 1. Measured: Open MPI only starts the ranks and swaps addresses; its TCP stays on loopback.
echo "overlap-check: measuring: $ranks ranks, ringbench --workload ddp --bucket-bytes $buckets --algo $algo" >&2
mpirun -np "$ranks" --oversubscribe --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo \
  --mca oob_tcp_if_include lo "$ringbench" --workload ddp --bucket-bytes "$buckets" --algo "$algo" \
  -o "$measured" "${extra[@]}" >"$dir/ringbench.log"

# 2. This machine, as the model's cluster file, from the same run.
ddp_run=$("$(ringbench_python)" - "$measured" <<'PY'
import sys, h5py
runs = h5py.File(sys.argv[1], "r")["runs"]
print(max(runs[:], key=lambda r: r["start_utc"])["run_id"].decode())
PY
)
"$topomodel" calibrate "$measured" --run "$ddp_run" -o "$machine" >"$dir/calibrate.log"
echo "overlap-check: calibrated $machine from run $ddp_run's own link test" >&2

# 3. Predicted: one topomodel step per measured bucket size, with the run's own compute per layer.
"$here/ringbench-python" overlap_report.py plan "$measured" >"$dir/plan.txt"
while read -r world model_algo grad_bytes layers bucket_bytes compute_ms; do
  "$topomodel" step --workload ddp --cluster "$machine" --gpus "$world" --algo "$model_algo" \
    --grad-bytes "$grad_bytes" --layers "$layers" --bucket-bytes "$bucket_bytes" --compute-ms "$compute_ms" \
    -o "$predicted" >>"$dir/topomodel.log"
done <"$dir/plan.txt"

# 4. The table.
"$here/ringbench-python" overlap_report.py report "$measured" "$predicted"
