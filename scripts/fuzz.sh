#!/usr/bin/env bash
# Builds a libFuzzer target with Debian's clang in a build tree of its own and runs it for
# RINGBENCH_FUZZ_SECONDS (default 30). The target is RINGBENCH_FUZZ_TARGET (CMake option
# RINGBENCH_FUZZ; fuzz/CMakeLists.txt):
#   wire_fuzz          (default) the handshake, frame header and abort notice parsers
#   model_input_fuzz   the cluster and workload JSON parsers, the size parser, the numeric flags
# CTest runs them as fuzz.wire and fuzz.model_input (label `fuzz`); runnable alone.
#   scripts/fuzz.sh [BUILD_DIR [CMAKE_ARGS...]]   (default BUILD_DIR: build-fuzz/)
# New inputs go to BUILD_DIR/corpus-TARGET; fuzz/corpus/NAME/ (NAME: the target less _fuzz),
# where it exists, holds the seeds and every input that once failed, replayed first on each run.
# Exits 77 (skipped) when there is no clang (RINGBENCH_FUZZ_CXX, default clang++-14).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-$ROOT/build-fuzz}
shift $(( $# > 0 ? 1 : 0 ))
SECONDS_TO_RUN=${RINGBENCH_FUZZ_SECONDS:-30}
TARGET=${RINGBENCH_FUZZ_TARGET:-wire_fuzz}
CXX=${RINGBENCH_FUZZ_CXX:-clang++-14}
if ! command -v "$CXX" > /dev/null; then
  echo "fuzz: no $CXX (scripts/setup.sh installs clang-14): skipped"
  exit 77
fi
# Only the fuzz targets are built: no tests, no micro-benchmarks, so neither GTest nor Google Benchmark.
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_C_COMPILER="${CXX/clang++/clang}" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRINGBENCH_FUZZ=ON -DBUILD_TESTING=OFF -DRINGBENCH_MICROBENCH=OFF "$@"
elif [ $# -gt 0 ]; then
  cmake "$BUILD" "$@" > /dev/null
fi
cmake --build "$BUILD" -j "$(nproc)" --target "$TARGET"
# The first directory collects what this run finds (kept for the next run); the second, in the
# source tree, is only read.
mkdir -p "$BUILD/corpus-$TARGET"
corpora=("$BUILD/corpus-$TARGET")
SEEDS="$ROOT/fuzz/corpus/${TARGET%_fuzz}"
[ -d "$SEEDS" ] && corpora+=("$SEEDS")
# fuzz/NAME.dict: the field names a parser knows, so mutations reach past "is not a known field".
DICT="$ROOT/fuzz/${TARGET%_fuzz}.dict"
options=(-max_total_time="$SECONDS_TO_RUN" -print_final_stats=1 -artifact_prefix="$BUILD/$TARGET-")
[ -f "$DICT" ] && options+=(-dict="$DICT")
LOG="$BUILD/$TARGET.log"
"$BUILD/bin/$TARGET" "${options[@]}" "${corpora[@]}" > "$LOG" 2>&1 \
  || { tail -40 "$LOG"; echo "fuzz: $TARGET failed (crash input saved in $BUILD as $TARGET-*)"; exit 1; }
tail -5 "$LOG"
