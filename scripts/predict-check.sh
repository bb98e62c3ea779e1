#!/usr/bin/env bash
# How well does topomodel predict ringbench's own runs on this machine? Issue 15's one-host
# experiment, printed for quoting (a benchmark, not a test: it asserts nothing about timing).
#
#   scripts/predict-check.sh [--ranks "2 3 4"] [--runs K] [--sizes MIN:MAX] [--factor F]
#                            [--max-time S] [--keep DIR] [--no-build] [--two-hosts RATE]
#
# At each N, K runs of (a) every all-reduce algorithm and (b) the default algorithm of every other
# collective, on one host over loopback. Each run is predicted by `topomodel predict` from a
# machine calibrated on that run's own link test and probes (never on its rows). Per collective,
# algorithm, N and size, the median over the K runs of the measured and of the predicted times
# give the error; the report prints, per algorithm, the median and 90th percentile of |error| at
# 64 KiB and up (issue 15's targets: <= 10% and <= 25%), and the smaller sizes apart; then the same
# table with each row priced at its own link test's speed (topomodel predict --row-link). With 6
# runs or more it adds the machine's own floor: the first half of the runs' medians against the second's.
# Defaults: N = 2 3 4, 3 runs, 64K:4M by factor 4, --max-time 0.5; --keep DIR keeps the files.
# --two-hosts RATE: the two-host experiment instead. Two emulated hosts x 2 ranks (network
# namespaces, scripts/two-node-mpirun.sh, removed again even on failure), the link between them
# shaped to RATE (e.g. 1gbit; same-host loopback is several times faster), and the all-reduce's
# ring, tree, rhd and hierarchical; the machine is calibrated with both link classes from each
# run's link test, and the report adds where hierarchical beats the ring, measured and predicted.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/setup.sh"

ranks="2 3 4" runs=3 sizes=64K:4M factor=4 max_time=0.5 keep="" build=1 two_hosts=""
usage() { sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --ranks) ranks=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --factor) factor=$2; shift 2 ;;
    --max-time) max_time=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --two-hosts) two_hosts=$2; shift 2 ;;
    -h|--help) usage ;;
    *) echo "predict-check.sh: unknown argument $1" >&2; usage ;;
  esac
done
install_missing_packages
[ $build = 0 ] || configure_and_build
ringbench=$RINGBENCH_BUILD/bin/ringbench
topomodel=$RINGBENCH_BUILD/bin/topomodel
python=$(ringbench_python)
if [ -n "$keep" ]; then work=$keep; mkdir -p "$work"; else work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

allreduce_algorithms=ring,naive,tree,rhd,recursive-doubling,two-shot,hierarchical
others=allgather,reducescatter,broadcast,reduce,alltoall
launch() {  # launch N FILE ARGS...
  local n=$1 file=$2; shift 2
  local over=()
  [ "$n" -gt "$(nproc)" ] && over=(--oversubscribe)
  mpirun -np "$n" "${over[@]}" --bind-to none "$ringbench" -q -m "$sizes" --factor "$factor" \
    --max-time "$max_time" -o "$file" "$@" > /dev/null
}
launch_two_hosts() {  # launch_two_hosts FILE: 2 namespace hosts x 2 ranks, the four all-reduces
  RINGBENCH_BIN=$ringbench bash "$here/two-node-mpirun.sh" --per-host 2 --rate "$two_hosts" -- -q -m "$sizes" \
    --factor "$factor" --max-time "$max_time" -o "$1" --collective allreduce --algo ring,tree,rhd,hierarchical > /dev/null
}
predict_newest() {  # the newest run of FILE, on a machine calibrated on its own link test
  "$topomodel" predict "$1" > "$work/predict.txt" 2>&1 ||
    echo "#   a run's prediction failed, left out: $(tail -1 "$work/predict.txt")"
}
predict_at_row_speed() {  # FILE's runs again into COPY, each row at its own link test's speed
  local file=$1 copy=$2 id
  cp "$file" "$copy"
  for id in $("$python" -c 'import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    if "model" in f: del f["model"]
    print(" ".join(sorted({i.decode() for i in f["runs"]["run_id"]})))' "$copy"); do
    "$topomodel" predict "$copy" --run "$id" --row-link > "$work/predict.txt" 2>&1 ||
      echo "#   a run's row-link prediction failed, left out: $(tail -1 "$work/predict.txt")"
  done
}

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')
if [ -n "$two_hosts" ]; then
  echo "# predict-check on $cpu, $(nproc) cores, 2 emulated hosts x 2 ranks, link between them $two_hosts," \
    "$runs run(s), $sizes by $factor, $(date -u +%FT%TZ)"
  for i in $(seq "$runs"); do
    launch_two_hosts "$work/predict.h5"
    predict_newest "$work/predict.h5"
    echo "#   two-host run $i of $runs done" >&2
  done
else
  echo "# predict-check on $cpu, $(nproc) cores, N = $ranks, $runs run(s), $sizes by $factor, $(date -u +%FT%TZ)"
  for n in $ranks; do
    for i in $(seq "$runs"); do
      launch "$n" "$work/predict.h5" --collective allreduce --algo "$allreduce_algorithms"
      predict_newest "$work/predict.h5"
      launch "$n" "$work/predict.h5" --collective "$others" --algo default
      predict_newest "$work/predict.h5"
      echo "#   N=$n run $i of $runs done" >&2
    done
  done
fi
# One host: each row priced at its own link test's speed too, timed beside the row's calls
# (docs/measuring.md, the link bound), which separates the host's drift between rows from the
# model's error. Across hosts the slow link, not the copy rate, paces the rows: no such table.
if [ -n "$two_hosts" ]; then
  "$python" "$here/predict_report.py" "$work/predict.h5"
else
  predict_at_row_speed "$work/predict.h5" "$work/predict-row-link.h5"
  "$python" "$here/predict_report.py" "$work/predict.h5" --row-link "$work/predict-row-link.h5"
fi
