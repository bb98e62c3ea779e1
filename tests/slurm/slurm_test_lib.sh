# Shared by the Slurm tests (sourced): skips, a fresh local cluster, and job helpers.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/scripts/setup.sh"   # ringbench_python
python=$(ringbench_python)

[ "$(id -u)" = 0 ] || { echo "SKIP: the local Slurm cluster needs root (SlurmUser=root, namespaces)"; exit 77; }
for tool in slurmctld slurmd munged sbatch; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed (scripts/setup.sh installs slurm-wlm munge)"; exit 77; }
done

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "--- $*"; }

# submit EXPECTED_RC SBATCH_ARGS...: sbatch --wait, checks the exit status, prints the job's log.
submit() {
  local expected=$1 rc=0 out
  shift
  out=$(sbatch --parsable --wait "$@") || rc=$?
  local id=${out%%;*}
  local log
  log=$(ls logs/*_"${id}".out logs/*_"${id}"_*.out 2>/dev/null | head -1 || true)
  [ -n "$log" ] && sed 's/^/    | /' "$log"
  [ "$rc" = "$expected" ] || fail "job $id (sbatch $*) exited $rc, expected $expected"
  LAST_JOB=$id LAST_LOG=$log
}
