#!/usr/bin/env bash
# Are ringbench's figures trustworthy on this machine? The measurements behind issue 13's targets,
# in one job, printed for quoting (a benchmark, not a test: it asserts nothing about timing).
#
#   scripts/trust-check.sh [--quiet-runs K] [--loaded-runs K] [--auto-ranks "2 3 4 5"]
#                          [--auto-sizes MIN:MAX] [--modes-ranks "2 4"] [--baseline RINGBENCH]
#                          [--only quiet,loaded,auto,modes,cost] [--bind none|core] [--no-build]
#
#   quiet   K default runs at N=4, one after the other: the 16 MiB medians with their intervals and
#           their spread across runs.
#   loaded  a CPU hog on every core (stopped on exit, whatever happens), then K default runs:
#           every row against the quiet runs' median at its size. A "confident wrong figure" is a
#           row whose interval is within +-5% while its median is more than 10% off the quiet one.
#   auto    at each N, every all-reduce algorithm and auto at MIN:MAX, the mpi rows over Open MPI's
#           TCP: the crossover table with auto's regret.
#   modes   at each N, 3 runs of each timing mode at 4-64 MiB, taking turns: per size, the
#           median of each mode's run medians, and whether the two modes' intervals overlap.
#   cost    with --baseline (an older ringbench binary), default runs of both, interleaved, 3 each:
#           the ratio of median wall times.
# --bind core: mpirun binds each rank to one core, round robin (several per core where ranks
# outnumber cores), instead of letting the kernel move them (--bind-to none, the default).
# Defaults: 5 quiet and 3 loaded runs, N = 2 3 4 5 for auto at 64K:64M, N = 2 4 for the modes,
# every part. Only 127.0.0.1 is used.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/setup.sh"

quiet_runs=5 loaded_runs=3 auto_ranks="2 3 4 5" auto_sizes=64K:64M modes_ranks="2 4" baseline="" build=1 bind=none
only=quiet,loaded,auto,modes,cost
usage() { sed -n '2,23p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --quiet-runs) quiet_runs=$2; shift 2 ;;
    --loaded-runs) loaded_runs=$2; shift 2 ;;
    --auto-ranks) auto_ranks=$2; shift 2 ;;
    --auto-sizes) auto_sizes=$2; shift 2 ;;
    --modes-ranks) modes_ranks=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --bind) bind=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) usage ;;
    *) echo "trust-check.sh: unknown argument $1" >&2; usage ;;
  esac
done
case $bind in none|core) ;; *) echo "trust-check.sh: --bind must be none or core, not '$bind'" >&2; exit 2 ;; esac
install_missing_packages
[ $build = 0 ] || configure_and_build
ringbench=$RINGBENCH_BUILD/bin/ringbench
python=$(ringbench_python)
work=$(mktemp -d)
hogs=()
cleanup() {
  for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# Open MPI's TCP on loopback for the mpi rows, as compare.sh does: the same wire as ours.
launch() {  # launch N ARGS...
  local n=$1; shift
  local over=() binding=$bind
  [ "$n" -gt "$(nproc)" ] && over=(--oversubscribe) && [ "$bind" = core ] && binding=core:overload-allowed
  mpirun -np "$n" "${over[@]}" --bind-to "$binding" --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo \
    "$ringbench" -q "$@"
}

part() { [[ ",$only," == *",$1,"* ]]; }

echo "# trust-check on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores, --bind-to $bind, $(date -u +%FT%TZ)"
if part quiet || part loaded; then
  echo "# quiet: $quiet_runs default runs at N=4"
  for i in $(seq "$quiet_runs"); do launch 4 -o "$work/quiet.h5" > "$work/quiet_$i.txt"; done
  "$python" "$here/trust_report.py" quiet "$work/quiet.h5"
fi

if part loaded; then
  echo "# loaded: a CPU hog on each of $(nproc) cores, $loaded_runs default runs at N=4"
  for _ in $(seq "$(nproc)"); do timeout 3600 sh -c 'while :; do :; done' & hogs+=($!); done
  for i in $(seq "$loaded_runs"); do launch 4 -o "$work/loaded.h5" > "$work/loaded_$i.txt"; done
  for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
  hogs=()
  grep -h '^# warning' "$work"/loaded_*.txt | sed 's/^/#   run says: /' || echo "#   no run printed the noise warning"
  "$python" "$here/trust_report.py" loaded "$work/quiet.h5" "$work/loaded.h5"
fi

part auto && for n in $auto_ranks; do
  echo "# auto: N=$n, every all-reduce algorithm and auto at $auto_sizes"
  launch "$n" --algo all -m "$auto_sizes" -o "$work/auto.h5" | sed -n '/^# crossovers/,/^# winner by size/p'
done

part modes && for n in $modes_ranks; do
  echo "# modes: N=$n, ring all-reduce at 4M:64M, 3 runs of --timing barrier and back-to-back, taking turns"
  for i in 1 2 3; do
    for mode in barrier back-to-back; do launch "$n" --timing "$mode" -m 4M:64M -o "$work/modes_${n}_$mode.h5" > /dev/null; done
  done
  "$python" "$here/trust_report.py" modes "$work/modes_${n}_barrier.h5" "$work/modes_${n}_back-to-back.h5"
done

if part cost && [ -n "$baseline" ]; then
  echo "# cost: default runs at N=4, this ringbench against $baseline, interleaved, 3 each"
  for i in 1 2 3; do
    for which in new old; do
      bin=$ringbench; [ $which = old ] && bin=$baseline
      start=$EPOCHREALTIME
      ringbench=$bin launch 4 -o "$work/cost_$which.h5" > /dev/null
      echo "$which $start $EPOCHREALTIME" >> "$work/cost.txt"
    done
  done
  "$python" "$here/trust_report.py" cost "$work/cost.txt"
fi
