#!/usr/bin/env bash
# README command 2: set up, build, and run every test (unit, integration, model) through CTest.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
install_missing_packages
configure_and_build
(cd "$RINGBENCH_BUILD" && ctest --output-on-failure -j "$(nproc)" "$@")

# The unit tests again under AddressSanitizer and UndefinedBehaviorSanitizer (transport, results
# file, model), in a second build tree holding only what they need. (The transport does not use
# threads outside the tests' thread ranks, whose only shared state is the bootstrap's mutex, so
# there is no TSan tree.)
ASAN_BUILD=${RINGBENCH_ASAN_BUILD:-$RINGBENCH_ROOT/build-asan}
if [ ! -f "$ASAN_BUILD/CMakeCache.txt" ]; then
  cmake -S "$RINGBENCH_ROOT" -B "$ASAN_BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DRINGBENCH_SANITIZE=address,undefined >&2
fi
sanitized_tests=(transport_tests results_tests model_tests)
cmake --build "$ASAN_BUILD" -j "$(nproc)" --target "${sanitized_tests[@]}" >&2
for t in "${sanitized_tests[@]}"; do
  echo "test: $t under ASan+UBSan" >&2
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 "$ASAN_BUILD/bin/$t" --gtest_brief=1
done

# The handshake and frame parsers under libFuzzer (clang, its own build tree), for a bounded time.
echo "test: libFuzzer on the wire parsers for ${RINGBENCH_FUZZ_SECONDS:-30} s" >&2
bash "$RINGBENCH_ROOT/scripts/fuzz.sh"
