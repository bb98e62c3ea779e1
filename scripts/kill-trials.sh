#!/usr/bin/env bash
# Kill trials for the results file's crash safety (issue 14): real 2-rank ringbench runs whose
# rank 0 is SIGKILLed inside a commit, at random moments; after each kill the file must read back
# with every earlier run intact. Prints the seed (replay with RINGBENCH_TEST_SEED=<seed>) and the
# counts: kills inside a commit, unreadable files, lost runs or sizes.
#   bash scripts/kill-trials.sh [BUILD_DIR] [TRIALS]     (default build/, 50 trials; CI runs 8)
set -euo pipefail
build=${1:-build}
trials=${2:-50}
tests="$build/bin/fault_tests"
[[ -x $tests ]] || { echo "kill-trials.sh: $tests not built (cmake --build $build --target fault_tests)" >&2; exit 2; }
RINGBENCH_KILL_TRIALS=$trials exec "$tests" --gtest_filter='KillDuringWrite.*'
