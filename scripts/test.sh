#!/usr/bin/env bash
# README command 2: set up, build, and run the tests through CTest. Every argument goes straight
# to ctest, so a selection is a label or a name pattern:
#   bash scripts/test.sh                 everything (what CI runs)
#   bash scripts/test.sh -L unit         the quick, self-contained tests (under a minute)
#   bash scripts/test.sh -LE 'slurm|fuzz' all but those labels;  -R / -E select by test name
# Labels: unit model mpirun fault slurm python sanitizer fuzz lint (ctest --print-labels).
# Under CI (CI=true, set by .ci/run) the build treats warnings as errors (-DRINGBENCH_WERROR=ON);
# elsewhere a tree keeps whatever it was configured with.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
install_missing_packages
cmake_args=()
[ "${CI:-}" = true ] && cmake_args+=(-DRINGBENCH_WERROR=ON)
configure_and_build "${cmake_args[@]}"
cd "$RINGBENCH_BUILD"
exec ctest --output-on-failure -j "$(nproc)" "$@"
