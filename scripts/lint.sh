#!/usr/bin/env bash
# clang-tidy with the checks in .clang-tidy (readability-function-size, LineThreshold 60) on every
# .cpp under bench/, spec/, transport/ and model/, two files at a time, with the compile commands of a
# configured build tree. Prints each function over the limit; fails if there is any. CTest runs it
# as lint.function_size (label `lint`); runnable alone.
#   scripts/lint.sh [BUILD_DIR [FILE...]]   (default build/, which must hold compile_commands.json;
#                                            FILEs: only those, e.g. the ones you just edited)
# Exits 77 (skipped) when clang-tidy is missing (scripts/setup.sh installs Debian's).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
shift $(( $# > 0 ? 1 : 0 ))
TIDY=${RINGBENCH_CLANG_TIDY:-clang-tidy}
if ! command -v "$TIDY" > /dev/null; then
  echo "lint: no $TIDY (scripts/setup.sh installs clang-tidy): skipped"
  exit 77
fi
[ -f "$BUILD/compile_commands.json" ] || { echo "lint: no $BUILD/compile_commands.json: configure first"; exit 1; }
cd "$ROOT"
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files --cached --others --exclude-standard -- 'bench/*.cpp' 'spec/*.cpp' 'transport/*.cpp' 'model/*.cpp' | sort)
fi
echo "lint: $TIDY on ${#files[@]} files ($("$TIDY" --version | grep -o 'version [0-9.]*'))"
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# One clang-tidy per file, two at a time, each into its own log so reports never interleave.
# clang-tidy parses with clang against g++'s libstdc++; a file it cannot parse is an error too
# (clang-diagnostic-error), so nothing is skipped silently.
# The build's own warnings are not this check's business: a -Werror build (CI) would otherwise make
# clang reject g++-only flags such as -Wno-restrict.
tidy_one() {
  "$TIDY" --quiet -p "$BUILD" --extra-arg=-Wno-error --extra-arg=-Wno-unknown-warning-option "$1" \
    > "$logs/${1//\//_}.log" 2>&1
}
export -f tidy_one
export TIDY BUILD logs
status=0
printf '%s\n' "${files[@]}" | xargs -P 2 -I{} bash -c 'tidy_one "$1"' _ {} || status=1
# One line per offending function: file:line: function 'name' (N lines including whitespace ...).
report=$(cat "$logs"/*.log | awk -v root="$ROOT/" '
  /error: .*\[readability-function-size/ {
    sub(root, ""); split($0, at, ": error: "); name = at[2]; sub(/ exceeds.*/, "", name); where = at[1]; next }
  where != "" && /note: [0-9]+ lines/ { sub(/.*note: /, ""); print where ": " name " is " $0; where = "" }
  /error: .*\[clang-diagnostic-error/ { sub(root, ""); print }' | sort -u)
[ -n "$report" ] && echo "$report"
violations=$(grep -c ' lines including' <<< "$report" || true)
parse_errors=$(grep -c 'clang-diagnostic-error' <<< "$report" || true)
echo "lint: $violations function(s) over 60 lines, $parse_errors parse error(s) in ${#files[@]} files"
if [ "$status" != 0 ] && [ "$violations" = 0 ] && [ "$parse_errors" = 0 ]; then
  cat "$logs"/*.log  # clang-tidy failed for a reason not matched above: show all of it
fi
exit "$status"
