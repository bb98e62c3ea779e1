#!/usr/bin/env bash
# Submits a sweep: one job array per (nodes, ranks) group of TABLE's rows, each array task asking
# for exactly its row's nodes and ranks, then the merge step chained with --dependency=afterok on
# every array, so the merge runs only if every task succeeded.
#   slurm/submit-sweep.sh [--wait] [--exclusive] [--throttle K] [--iface SPEC] TABLE [sbatch options]
#     --exclusive   each task has its nodes to itself (sbatch --exclusive): no other job beside it
#     --throttle K  at most K tasks of each array run at once (sbatch --array=...%K)
#     --iface SPEC  the ranks' interface choice: RINGBENCH_SOCKET_IFNAME=SPEC (NCCL_SOCKET_IFNAME syntax)
#     --wait        wait for the merge; exit non-zero unless the merged file exists (sbatch --wait
#                   alone returns 0 for a merge cancelled because a task failed)
# sbatch options (-p PART -A ACCT -O --time --export=NONE ...) go to every array and the merge;
# nodes, tasks and the array come from the table. The RINGBENCH_* variables of this shell (and
# TOPOMODEL_BIN) are written to logs/ringbench-sweep-settings.*, which every job reads, so a sweep
# runs the same under --export=NONE. Prints the sweep id (the first array's job id, which names
# the files) and every job id. Bad input: one line naming it, exit 2.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/sweep-table.sh"
usage="usage: slurm/submit-sweep.sh [--wait] [--exclusive] [--throttle K] [--iface SPEC] TABLE [sbatch options]"
die() { echo "submit-sweep: error: $*" >&2; exit 2; }

wait=() exclusive=() throttle=""
while [ $# -gt 0 ]; do
  case "$1" in
    --wait) wait=(--wait); shift ;;
    --exclusive) exclusive=(--exclusive); shift ;;
    --throttle)
      [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--throttle '${2:-}': expected a positive number of tasks"
      throttle="%$2"; shift 2 ;;
    --iface)
      [ -n "${2:-}" ] || die "--iface needs an interface (e.g. eth0, ib, ^docker)"
      export RINGBENCH_SOCKET_IFNAME=$2; shift 2 ;;
    -h | --help) sed -n '2,17s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) break ;;
  esac
done
table=${1:?$usage}
shift
[ -f "$table" ] || die "no table $table"
for option in "$@"; do
  case "$option" in
    -N | -N* | --nodes | --nodes=* | -n | -n* | --ntasks | --ntasks=* | --ntasks-per-node* | -a | --array*)
      die "sbatch option '$option': nodes, ranks and the array come from $table (columns nodes and ranks)" ;;
  esac
done
table=$(cd "$(dirname "$table")" && pwd)/$(basename "$table")

# Group the rows by (nodes, ranks), in the order the groups first appear: one array each, whose
# task ids are the rows' numbers in the table, so task i still runs row i.
mapfile -t rows < <(rb_table_rows "$table")
[ ${#rows[@]} -gt 0 ] || die "$table has no configurations"
declare -A tasks_of=()
groups=()
for i in "${!rows[@]}"; do
  why=$(rb_parse_row "${rows[$i]}") || die "$table, configuration $i ('${rows[$i]}'): $why"
  rb_parse_row "${rows[$i]}"
  key="$row_nodes $row_ranks"
  [ -n "${tasks_of[$key]:-}" ] || groups+=("$key")
  tasks_of[$key]=${tasks_of[$key]:+${tasks_of[$key]},}$i
done

mkdir -p logs   # --output=logs/... is relative to the submit directory and must exist
# What this shell says about ringbench, for jobs that may not see this shell (--export=NONE).
settings=$(mktemp "$PWD/logs/ringbench-sweep-settings.XXXXXX")
for name in $(compgen -e | grep -e '^RINGBENCH_' -e '^TOPOMODEL_BIN$' | grep -v '^RINGBENCH_ROOT$' || true); do
  printf 'export %s=%q\n' "$name" "${!name}" >> "$settings"
done

arrays=() sweep=""
cancel_submitted() {
  [ ${#arrays[@]} -eq 0 ] || scancel "${arrays[@]}" || true
}
for key in "${groups[@]}"; do
  read -r nodes ranks <<< "$key"
  id_option=()
  [ -z "$sweep" ] || id_option=(--sweep-id "$sweep")
  id=$(sbatch --parsable --array="${tasks_of[$key]}$throttle" --nodes="$nodes" --ntasks="$ranks" "${exclusive[@]}" "$@" \
    "$here/sweep.sbatch" "${id_option[@]}" --settings "$settings" "$table") || {
    cancel_submitted
    echo "submit-sweep: error: sbatch refused the array for $nodes node(s) x $ranks ranks; cancelled the sweep's other arrays" >&2
    exit 1
  }
  id=${id%%;*}
  arrays+=("$id")
  if [ -z "$sweep" ]; then
    sweep=$id
    echo "sweep $sweep: ${#rows[@]} configurations, ${#groups[@]} array(s), one per (nodes, ranks)${exclusive:+, exclusive nodes}${throttle:+, throttle $throttle per array}"
  fi
  echo "array job $id: $nodes node(s) x $ranks ranks, tasks ${tasks_of[$key]}"
done
dependency=afterok$(printf ':%s' "${arrays[@]}")
merge=$(sbatch --parsable "${wait[@]}" --dependency="$dependency" "$@" "$here/merge.sbatch" \
  --settings "$settings" "$sweep" "${#rows[@]}") || {
  cancel_submitted   # a merge refused at submit would leave the arrays running for nothing
  echo "submit-sweep: error: merge job failed (logs/ringbench-merge_*.out)" >&2
  exit 1
}
merge=${merge%%;*}
echo "merge: job $merge ($dependency)"
if [ ${#wait[@]} -gt 0 ]; then
  merged="${RINGBENCH_RESULTS_DIR:-$PWD/results}/sweep_${sweep}.h5"
  [ -f "$merged" ] || { echo "submit-sweep: error: $merged missing: a sweep task failed and the merge was cancelled (logs/ringbench-sweep_*.out of arrays ${arrays[*]})" >&2; exit 1; }
  echo "merged: $merged"
fi
