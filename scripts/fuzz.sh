#!/usr/bin/env bash
# Builds the libFuzzer target for the handshake, frame header and abort notice parsers
# (fuzz/wire_fuzz.cpp) with Debian's clang, in its own build tree (build-fuzz/), and runs it for
# RINGBENCH_FUZZ_SECONDS (default 30). Called by scripts/test.sh; runnable alone.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${RINGBENCH_FUZZ_BUILD:-$ROOT/build-fuzz}
SECONDS_TO_RUN=${RINGBENCH_FUZZ_SECONDS:-30}
CXX=${RINGBENCH_FUZZ_CXX:-clang++-14}
mkdir -p "$OUT/corpus"
BIN=$OUT/wire_fuzz
SOURCES=("$ROOT/fuzz/wire_fuzz.cpp" "$ROOT/transport/wire.cpp")
# Rebuild only when a source is newer than the binary.
if [ ! -x "$BIN" ] || [ -n "$(find "${SOURCES[@]}" "$ROOT/transport/wire.h" -newer "$BIN" 2>/dev/null)" ]; then
  "$CXX" -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I"$ROOT" \
    "${SOURCES[@]}" -lfmt -o "$BIN"
fi
# Seeds: a valid hello, a valid frame header and an abort frame would be found quickly anyway; an
# empty corpus directory keeps what was found for the next run.
"$BIN" -max_total_time="$SECONDS_TO_RUN" -print_final_stats=1 "$OUT/corpus" 2>&1 | tail -5
