#!/usr/bin/env bash
# Issue 18's "no cliff" target: at N = 8 and 16, with a core for every rank, the ring all-reduce's
# median time must never fall as the size doubles. A benchmark check, not a unit test: it runs the
# sweep R times, the world sizes taking turns, and exits 1 when a doubling is faster than the size
# below it (medians over the repetitions), 0 when none is, 2 on bad input.
#
#   scripts/cliff-check.sh [--ranks "8 16"] [--reps 3] [--sizes 64K:8M] [--max-time S] [-d DIR]
#                          [--diagnose] [--launcher mpirun|bundle] [-- more ringbench options]
#
# --diagnose: for each fall found, the two sizes again under settings that tell the suspects apart
# (docs/performance.md, "The N = 16 cliff"): as measured, --spin 0 (sleep at once), --spin 1000
# (never sleep within a step), --slice 512K, --pipeline 64K, and fixed socket buffers, large and
# small (--sockbuf 4M and 256K; docs/performance.md, "N = 2 at 1-4 MiB"), each with -f's context
# switches and CPU per call. Launcher (unless --launcher says): mpirun where it exists (with
# --oversubscribe beyond the cores, and a warning: a cliff is only meaningful with a core per
# rank), else build/devbundle/run.sh, the file-bootstrap bundle for the accelerator machine
# (../shared/tools/device-bundle.sh). Parses ringbench's --format csv, so it needs only python3,
# not h5py. Files go to DIR (default cliff-check/): DIR/nN.repR.csv, DIR/diagnose.txt.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

ranks="8 16" reps=3 sizes=64K:8M max_time=0.4 dir=cliff-check diagnose=0 launcher=""
usage() { sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --ranks) ranks=${2//,/ }; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --max-time) max_time=$2; shift 2 ;;
    -d) dir=$2; shift 2 ;;
    --diagnose) diagnose=1; shift ;;
    --launcher) launcher=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) usage ;;
    *) echo "cliff-check.sh: error: unknown argument '$1' (ringbench options go after --)" >&2; exit 2 ;;
  esac
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "cliff-check.sh: error: --reps $reps: expected a positive count" >&2; exit 2; }
for n in $ranks; do
  [[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 2 ] ||
    { echo "cliff-check.sh: error: --ranks: '$n' is not a world size of at least 2" >&2; exit 2; }
done
extra=("$@")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

case $launcher in
  "") if command -v mpirun > /dev/null; then launcher=mpirun; else launcher=bundle; fi ;;
  mpirun|bundle) ;;
  *) echo "cliff-check.sh: error: --launcher $launcher: expected mpirun or bundle" >&2; exit 2 ;;
esac
ringbench=${RINGBENCH_BIN:-$root/build/bin/ringbench}
if [ "$launcher" = bundle ] && [ ! -x "$root/build/devbundle/run.sh" ]; then
  echo "cliff-check.sh: error: no build/devbundle/run.sh (../shared/tools/device-bundle.sh makes it)" >&2
  exit 2
fi
mkdir -p "$dir"

# run N OUT.csv ARGS...: one ringbench run, rank 0's CSV rows (no '#' lines) in OUT.csv.
run() {
  local n=$1 out=$2; shift 2
  local args=(-q --format csv --collective allreduce --algo ring --max-time "$max_time" "$@" "${extra[@]}")
  if [ "$launcher" = mpirun ]; then
    local over=()
    [ "$n" -gt "$(nproc)" ] && over=(--oversubscribe)
    mpirun -np "$n" "${over[@]}" --bind-to none "$ringbench" -o "$dir/cliff-check.h5" "${args[@]}" 2> "$out.err" |
      grep -v '^#' > "$out"
  else
    "$root/build/devbundle/run.sh" "$n" "$dir/run" "${args[@]}" || return $?
    grep -v '^#' "$dir/run.r0.txt" | grep -v '^ringbench' > "$out" || true
  fi
}

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')
echo "# cliff-check on $cpu, $(nproc) cores, launcher $launcher, N = $ranks, $reps rep(s), $sizes, $(date -u +%FT%TZ)"
for n in $ranks; do
  [ "$n" -le "$(nproc)" ] || echo "# N=$n: more ranks than the $(nproc) cores: no core per rank, so no verdict on a cliff"
done
for rep in $(seq "$reps"); do
  # The world sizes take turns, in a fresh order each repetition.
  for n in $(printf '%s\n' $ranks | shuf); do
    run "$n" "$dir/n$n.rep$rep.csv" -m "$sizes"
    echo "#   N=$n repetition $rep of $reps done" >&2
  done
done

set +e
python3 "$here/cliff_report.py" "$dir" $ranks > "$dir/falls.txt"
verdict=$?
set -e
cat "$dir/falls.txt"
[ "$verdict" -le 1 ] || exit $verdict

if [ "$diagnose" = 1 ] && [ "$verdict" = 1 ]; then
  : > "$dir/diagnose.txt"
  grep '^fall ' "$dir/falls.txt" | while read -r _ n small large; do
    for setting in "" "--spin 0" "--spin 1000" "--slice 512K" "--pipeline 64K" "--sockbuf 4M" "--sockbuf 256K"; do
      # shellcheck disable=SC2086
      run "$n" "$dir/diagnose.csv" --sizes "$small,$large" -f $setting
      python3 "$here/cliff_report.py" --rows "$dir/diagnose.csv" "N=$n ${setting:-as measured}" >> "$dir/diagnose.txt"
    done
  done
  echo "# diagnosis: the falling pairs again, time and CPU per call under each setting"
  cat "$dir/diagnose.txt"
fi
exit $verdict
