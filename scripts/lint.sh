#!/usr/bin/env bash
# clang-tidy with the checks in .clang-tidy (readability-function-size, LineThreshold 60) on every
# .cpp under bench/, transport/ and model/, two files at a time, with the compile commands of a
# configured build tree. Prints each function over the limit; fails if there is any. CTest runs it
# as lint.function_size (label `lint`); runnable alone.
#   scripts/lint.sh [BUILD_DIR]   (default build/; it must hold compile_commands.json)
# Exits 77 (skipped) when clang-tidy is missing (scripts/setup.sh installs Debian's).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-$ROOT/build}
TIDY=${RINGBENCH_CLANG_TIDY:-clang-tidy}
if ! command -v "$TIDY" > /dev/null; then
  echo "lint: no $TIDY (scripts/setup.sh installs clang-tidy): skipped"
  exit 77
fi
[ -f "$BUILD/compile_commands.json" ] || { echo "lint: no $BUILD/compile_commands.json: configure first"; exit 1; }
cd "$ROOT"
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- 'bench/*.cpp' 'transport/*.cpp' 'model/*.cpp' | sort)
echo "lint: $TIDY on ${#files[@]} files ($("$TIDY" --version | grep -o 'version [0-9.]*'))"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# clang-tidy parses with clang against g++'s libstdc++; --quiet keeps its chatter out. A file it
# cannot parse is an error too (clang-diagnostic-error), so nothing is skipped silently.
status=0
printf '%s\n' "${files[@]}" | xargs -P 2 -n 4 "$TIDY" --quiet -p "$BUILD" > "$log" 2>&1 || status=1
# One line per offending function: file:line: function 'name' exceeds ... (N lines including ...).
grep -E 'error: .*\[(readability-function-size|clang-diagnostic-error)' "$log" | sed "s|^$ROOT/||" | sort -u || true
violations=$(grep -cE 'error: .*\[readability-function-size' "$log" || true)
parse_errors=$(grep -cE 'error: .*\[clang-diagnostic-error' "$log" || true)
echo "lint: $violations function(s) over 60 lines, $parse_errors parse error(s) in ${#files[@]} files"
if [ "$status" != 0 ] && [ "$violations" = 0 ] && [ "$parse_errors" = 0 ]; then
  cat "$log"  # clang-tidy failed for a reason not matched above: show all of it
fi
exit "$status"
