#!/usr/bin/env bash
# A full disk while ringbench writes its results: a clear "No space left on device" error, exit 2
# (a results-file failure, not a failed check), every measured row still printed on stdout, and
# the earlier run's file byte-identical. Then, with space again, the next run appends.
# Runs in a private mount namespace on a 4 MiB tmpfs; skips (77) where root or mounting is denied.
#   results_disk_full_test.sh RINGBENCH_EXE
set -uo pipefail
exe=$1
if [[ $(id -u) -ne 0 ]]; then echo "SKIP: mounting a small tmpfs needs root"; exit 77; fi
if [[ -z ${RINGBENCH_IN_NAMESPACE:-} ]]; then
  if ! unshare -m true 2>/dev/null; then echo "SKIP: cannot create a mount namespace (unshare -m)"; exit 77; fi
  RINGBENCH_IN_NAMESPACE=1 exec unshare -m --propagation private bash "$0" "$@"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ringbench-diskfull-XXXXXX")
disk="$work/disk"
mkdir -p "$disk"
trap 'umount "$disk" 2>/dev/null; rm -rf "$work"' EXIT
if ! mount -t tmpfs -o size=4m tmpfs "$disk" 2>"$work/mount.err"; then
  echo "SKIP: cannot mount a tmpfs: $(cat "$work/mount.err")"; exit 77
fi
file="$disk/r.h5"
fail() { echo "FAIL: $*"; exit 1; }

run() {  # run NAME: one rank over the file bootstrap (no MPI), stdout/stderr into $work/NAME.*
  rm -rf "$work/boot"; mkdir -p "$work/boot"
  RINGBENCH_BOOTSTRAP_DIR="$work/boot" RINGBENCH_RANK=0 RINGBENCH_SIZE=1 \
    "$exe" -m 8:1K -i 3 -x 1 --no-link-test -q -o "$file" >"$work/$1.out" 2>"$work/$1.err"
}

run first || fail "the first run failed: $(cat "$work/first.err")"
cp "$file" "$work/before.h5"
dd if=/dev/zero of="$disk/filler" bs=4k 2>/dev/null  # until the disk is full
echo "filled: $(df -h "$disk" | tail -1)"

run full; status=$?
echo "run on the full disk: exit $status; stderr:"; sed 's/^/  /' "$work/full.err"
[[ $status -eq 2 ]] || fail "expected exit 2 (results file), got $status"
grep -q "No space left on device" "$work/full.err" || fail "stderr does not say 'No space left on device'"
rows=$(grep -cv '^#' "$work/full.out")
[[ $rows -ge 8 ]] || fail "only $rows measured rows on stdout; all 8 sizes must print"
grep -q "NOT all written to $file" "$work/full.out" || fail "stdout does not say the results were not all written"
cmp -s "$file" "$work/before.h5" || fail "the earlier run's file changed"
[[ ! -e $file.undo ]] || fail "an undo log was left behind"

rm "$disk/filler"
run again || fail "the run after freeing space failed: $(cat "$work/again.err")"
runs=$(grep -c "appended to" "$work/again.out")
[[ $runs -eq 1 ]] || fail "the run after freeing space did not append"
echo "PASS: full disk -> exit 2, 'No space left on device', $rows rows printed, earlier file byte-identical; appends again once space is back"
