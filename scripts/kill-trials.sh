#!/usr/bin/env bash
# Kill trials.
#   bash scripts/kill-trials.sh [BUILD_DIR] [TRIALS]     (default build/, 50 trials; CI runs 8)
# The results file's crash safety (issue 14): real 2-rank ringbench runs whose rank 0 is SIGKILLed
# inside a commit, at random moments; after each kill the file must read back with every earlier
# run intact. Prints the seed (replay with RINGBENCH_TEST_SEED=<seed>) and the counts: kills
# inside a commit, unreadable files, lost runs or sizes.
#   bash scripts/kill-trials.sh --shrink [BUILD_DIR] [TRIALS] [MPIRUN_TRIALS]   (default 15 and 5)
# --on-failure shrink (issue 19): TRIALS trials over the file bootstrap at N = 4 and 5 (kill or
# freeze, every fifth killing rank 0) and MPIRUN_TRIALS under mpirun --mca orte_enable_recovery 1
# (every fourth killing rank 0): the survivors must finish verified in each, with no hang; each
# trial prints its time from the failure to the resumed sweep, and the last lines sum them up.
set -euo pipefail
if [[ ${1:-} == --shrink ]]; then
  build=${2:-build}
  trials=${3:-15}
  mpirun_trials=${4:-5}
  tests="$build/bin/fault_tests"
  [[ -x $tests ]] || { echo "kill-trials.sh: $tests not built (cmake --build $build --target fault_tests)" >&2; exit 2; }
  log=$(mktemp)
  status=0
  RINGBENCH_SHRINK_TRIALS=$trials "$tests" --gtest_filter='Shrink.*' | tee -a "$log" | grep -E '^(shrink|trial|\[  )' || status=1
  /usr/bin/python3 "$(dirname "$0")/../tests/fault/shrink_mpirun_test.py" "$build/bin/ringbench" "$(command -v mpirun)" \
    "$mpirun_trials" | tee -a "$log" | grep -E '^(shrink|mpirun trial|FAILED|[0-9]+ of)' || status=1
  # The times, as the trials printed them: count, and the largest.
  grep -Eo 'failure to resumed sweep -?[0-9.]+ s' "$log" | awk '{print $5}' | sort -n |
    awk '{t[NR]=$1} END {if (NR) printf "shrink trials: %d timed, failure to resumed sweep %.2f s median, %.2f s max\n", NR, t[int((NR+1)/2)], t[NR]}'
  rm -f "$log"
  exit $status
fi
build=${1:-build}
trials=${2:-50}
tests="$build/bin/fault_tests"
[[ -x $tests ]] || { echo "kill-trials.sh: $tests not built (cmake --build $build --target fault_tests)" >&2; exit 2; }
RINGBENCH_KILL_TRIALS=$trials exec "$tests" --gtest_filter='KillDuringWrite.*'
