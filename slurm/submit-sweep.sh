#!/usr/bin/env bash
# Submits a sweep: a job array with one task per line of TABLE, then the merge step chained with
# --dependency=afterok, so the merge runs only if every task succeeded.
#   slurm/submit-sweep.sh [--wait] TABLE [sbatch options: -p PART -A ACCT -O --time ...]
# Prints the two job ids. With --wait, waits for the merge and exits non-zero unless the merged
# file exists (sbatch --wait alone returns 0 for a merge cancelled because a task failed).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
wait=()
if [ "${1:-}" = --wait ]; then wait=(--wait); shift; fi
table=${1:?usage: slurm/submit-sweep.sh [--wait] TABLE [sbatch options]}
shift
[ -f "$table" ] || { echo "submit-sweep: error: no table $table" >&2; exit 2; }
table=$(cd "$(dirname "$table")" && pwd)/$(basename "$table")
rows=$(grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$table" | awk '{print $3}')
count=$(wc -l <<< "$rows")
[ -n "$rows" ] && [ "$count" -gt 0 ] || { echo "submit-sweep: error: $table has no configurations" >&2; exit 2; }
ranks=$(sort -n <<< "$rows" | tail -1)
for r in $rows; do
  [[ $r =~ ^[1-9][0-9]*$ ]] || { echo "submit-sweep: error: world size '$r' in $table is not a positive number" >&2; exit 2; }
done
mkdir -p logs   # --output=logs/... is relative to the submit directory and must exist
array=$(sbatch --parsable --array=0-$((count - 1)) --ntasks="$ranks" "$@" "$here/sweep.sbatch" "$table")
array=${array%%;*}
echo "sweep: array job $array ($count tasks, up to $ranks ranks)"
merge=$(sbatch --parsable "${wait[@]}" --dependency=afterok:"$array" "$@" "$here/merge.sbatch" "$array" "$count") || {
  echo "submit-sweep: error: merge job failed (logs/ringbench-merge_*.out)" >&2
  exit 1
}
merge=${merge%%;*}
echo "merge: job $merge (afterok:$array)"
if [ ${#wait[@]} -gt 0 ]; then
  merged="${RINGBENCH_RESULTS_DIR:-$PWD/results}/sweep_${array}.h5"
  [ -f "$merged" ] || { echo "submit-sweep: error: $merged missing: a sweep task failed and the merge was cancelled (logs/ringbench-sweep_${array}_*.out)" >&2; exit 1; }
  echo "merged: $merged"
fi
