#!/usr/bin/env bash
# Builds the libFuzzer target wire_fuzz (fuzz/wire_fuzz.cpp: the handshake, frame header and abort
# notice parsers; CMake option RINGBENCH_FUZZ) with Debian's clang in a build tree of its own,
# and runs it for RINGBENCH_FUZZ_SECONDS (default 30). CTest runs it as fuzz.wire (label `fuzz`);
# runnable alone.
#   scripts/fuzz.sh [BUILD_DIR [CMAKE_ARGS...]]   (default BUILD_DIR: build-fuzz/)
# Exits 77 (skipped) when there is no clang (RINGBENCH_FUZZ_CXX, default clang++-14).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-$ROOT/build-fuzz}
shift $(( $# > 0 ? 1 : 0 ))
SECONDS_TO_RUN=${RINGBENCH_FUZZ_SECONDS:-30}
CXX=${RINGBENCH_FUZZ_CXX:-clang++-14}
if ! command -v "$CXX" > /dev/null; then
  echo "fuzz: no $CXX (scripts/setup.sh installs clang-14): skipped"
  exit 77
fi
# Only wire_fuzz is built: no tests, no micro-benchmarks, so neither GTest nor Google Benchmark.
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_C_COMPILER="${CXX/clang++/clang}" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRINGBENCH_FUZZ=ON -DBUILD_TESTING=OFF -DRINGBENCH_MICROBENCH=OFF "$@"
elif [ $# -gt 0 ]; then
  cmake "$BUILD" "$@" > /dev/null
fi
cmake --build "$BUILD" -j "$(nproc)" --target wire_fuzz
# An empty corpus directory to start with; it keeps what was found for the next run.
mkdir -p "$BUILD/corpus"
"$BUILD/bin/wire_fuzz" -max_total_time="$SECONDS_TO_RUN" -print_final_stats=1 -artifact_prefix="$BUILD/" "$BUILD/corpus" > "$BUILD/fuzz.log" 2>&1 \
  || { tail -40 "$BUILD/fuzz.log"; echo "fuzz: wire_fuzz failed (crash input saved in $BUILD)"; exit 1; }
tail -5 "$BUILD/fuzz.log"
