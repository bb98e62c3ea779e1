#!/bin/bash
# stall-probe end to end: stopping the probe itself (SIGSTOP, 300 ms, SIGCONT) while it spins must
# show as a long stall of at least 250 ms in its one-core phase and as a verdict naming stalls
# with one core busy; bad input is one line and exit 2. Never a timing of the machine.
set -euo pipefail
probe=$1
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$probe" --seconds 1.5 --threads 1 >"$out" &
pid=$!
# Stop it only once its one-core phase has begun (the header is flushed just before), then a
# little into the phase: a loaded machine's slow start cannot move the stop outside it.
for _ in $(seq 100); do grep -q '^ *# phase' "$out" && break; sleep 0.05; done
grep -q '^ *# phase' "$out" || fail "stall-probe printed no header within 5 s"
sleep 0.2
kill -STOP "$pid"
sleep 0.3
kill -CONT "$pid"
wait "$pid" || fail "stall-probe exited $?"
cat "$out"
row=$(grep -E '^ +one core ' "$out") || fail "no one-core row"
read -r _ _ threads seconds stalls long longest lost <<<"$row"
[[ $threads == 1 && $seconds == 1.5 ]] || fail "row's threads/seconds: $threads/$seconds"
(( long >= 1 )) || fail "the 300 ms stop is not a long stall: $row"
awk -v l="$longest" 'BEGIN { exit !(l >= 250) }' || fail "longest $longest ms, the stop was 300 ms"
awk -v p="$lost" 'BEGIN { exit !(p >= 10 && p <= 100) }' || fail "lost $lost% of 1.5 s, the stop was 0.3 s"
grep -q '^# verdict: stalls even with one core busy' "$out" || fail "verdict: $(grep verdict "$out")"
grep -qE '^ +every core +1 ' "$out" || fail "no every-core row"

for bad in "--seconds 0" "--seconds abc" "--threads 0"; do
  set +e
  "$probe" $bad >"$out" 2>&1
  rc=$?
  set -e
  [[ $rc == 2 ]] || fail "$bad: exit $rc, expected 2"
  [[ $(wc -l <"$out") == 1 ]] || fail "$bad: not one line: $(cat "$out")"
  grep -q '^stall-probe: error: ' "$out" || fail "$bad: $(cat "$out")"
done
echo PASS
