#!/usr/bin/env bash
# A silent link made by the kernel, not by ringbench: 4 ranks over the file bootstrap, and once the
# table has begun scripts/silent-link-iptables.sh DROPs every packet between ranks 1 and 2 (both
# ways, loopback only). Every rank must exit 4 by itself and name link 1<->2, not a rank; the
# rules must be gone afterwards. Skipped (exit 77) where iptables cannot be used (not root, no
# CAP_NET_ADMIN).
#
# usage: silent_link_iptables_test.sh RINGBENCH SILENT_LINK_SCRIPT
set -uo pipefail

ringbench=$1 silencer=$2
if ! command -v iptables > /dev/null || ! iptables -w 5 -L INPUT -n > /dev/null 2>&1; then
  echo "SKIP: iptables cannot be used here (needs root and CAP_NET_ADMIN)"
  exit 77
fi

dir=$(mktemp -d /tmp/ringbench-silent-link-iptables.XXXXXX)
pids=() silencer_pid=
cleanup() {
  [ -n "$silencer_pid" ] && kill "$silencer_pid" 2> /dev/null && wait "$silencer_pid" 2> /dev/null
  for pid in "${pids[@]}"; do kill -9 "$pid" 2> /dev/null; done
}
trap cleanup EXIT

for r in 0 1 2 3; do
  RINGBENCH_BOOTSTRAP_DIR=$dir RINGBENCH_RANK=$r RINGBENCH_SIZE=4 \
    "$ringbench" --collective allreduce --algo ring -m 8:1M --max-time 1 --no-link-test --timeout 2 \
    -o "$dir/out.h5" > "$dir/out.$r" 2> "$dir/err.$r" &
  pids+=($!)
done

# Once the first rows are out, the mesh is up and the sweep runs: silence the link.
for _ in $(seq 600); do
  grep -q "^ *[0-9]" "$dir/out.0" 2> /dev/null && break
  sleep 0.1
done
bash "$silencer" "${pids[1]}" "${pids[2]}" 60 2> "$dir/silencer.err" &
silencer_pid=$!

failed=0
for r in 0 1 2 3; do
  # Bounded: timeout + the view exchange is a few seconds; a hang is a failure, not a wait.
  for _ in $(seq 300); do kill -0 "${pids[$r]}" 2> /dev/null || break; sleep 0.1; done
  if kill -0 "${pids[$r]}" 2> /dev/null; then
    echo "FAIL: rank $r still running 30 s after the link was silenced"
    failed=1
    continue
  fi
  wait "${pids[$r]}"
  code=$?
  error=$(grep "ringbench: error: rank $r:" "$dir/err.$r")
  echo "rank $r: exit $code: ${error:0:200}"
  if [ "$code" != 4 ] || ! grep -q "ringbench: error: rank $r: link 1<->2 (.*both ends alive to all others" "$dir/err.$r"; then
    echo "FAIL: rank $r did not exit 4 naming link 1<->2"
    failed=1
  fi
done
cat "$dir/silencer.err"
grep -q "dropping every packet" "$dir/silencer.err" || { echo "FAIL: the silencer dropped nothing"; failed=1; }
kill "$silencer_pid" 2> /dev/null
wait "$silencer_pid" 2> /dev/null
silencer_pid=
if iptables -w 5 -S INPUT | grep -q ringbench-silent-link; then
  echo "FAIL: iptables rules left behind"
  failed=1
fi
[ $failed = 0 ] && rm -rf "$dir" || echo "logs kept in $dir"
exit $failed
