#!/usr/bin/env bash
# The unit-test binaries again under AddressSanitizer and UndefinedBehaviorSanitizer (transport,
# results file, model, statistics, the model fuzz corpus), in a build tree of their own holding only what they need.
# CTest runs it as sanitizer.asan_ubsan (label `sanitizer`); runnable alone.
#   scripts/sanitizer-tests.sh [BUILD_DIR [CMAKE_ARGS...]]   (default BUILD_DIR: build-asan/)
# Each binary runs whole, liveness tests included. The transport does not use threads outside
# the tests' thread ranks, whose only shared state is the bootstrap's mutex, so there is no TSan
# stage (CMakePresets.json has a tsan preset for looking by hand).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-$ROOT/build-asan}
shift $(( $# > 0 ? 1 : 0 ))
# Configured once; later runs only rebuild what changed. MPI is not needed for these binaries.
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRINGBENCH_SANITIZE=address,undefined \
    -DRINGBENCH_MICROBENCH=OFF "$@"
elif [ $# -gt 0 ]; then
  cmake "$BUILD" "$@" > /dev/null
fi
sanitized_tests=(transport_tests results_tests model_tests statistics_tests model_fuzz_corpus_tests)
cmake --build "$BUILD" -j "$(nproc)" --target "${sanitized_tests[@]}"
status=0
for t in "${sanitized_tests[@]}"; do
  echo "test: $t under ASan+UBSan"
  # Each binary in a scratch directory of its own, as CTest would.
  mkdir -p "$BUILD/run/$t"
  (cd "$BUILD/run/$t" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$BUILD/bin/$t" --gtest_brief=1) || { echo "FAILED: $t under ASan+UBSan"; status=1; }
done
exit $status
