#!/usr/bin/env bash
# scripts.two_node_mpirun: scripts/two-node-mpirun.sh runs ringbench across the namespace hosts
# h1 and h2 without Slurm; ringbench must see two hosts and choose eth0 by itself, and the
# namespaces and the bridge must be gone afterwards. The hosts' tbf passes its 32 kb bucket at
# wire speed, so --segment auto looks for a burst and, where it finds one, cuts no tree segment
# below it; and the hosts share one kernel, so the header must count all 4 ranks on its cores.
#   two_node_mpirun_test.sh RINGBENCH WORKDIR
set -euo pipefail
ringbench=$1 work=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/scripts/setup.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (network namespaces)"; exit 77; }
unshare --net true 2>/dev/null || { echo "SKIP: cannot create network namespaces here"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work"
RINGBENCH_BIN=$ringbench "$root/scripts/two-node-mpirun.sh" -- -m 8:256K --algo ring,tree -i 5 -x 1 --max-time 0.2 -o two.h5 | tee out.txt
"$(ringbench_python)" "$root/tests/scripts/check_results.py" two.h5 --runs 1 --world-size 4 --hosts h1,h2 --interface eth0
grep -q '^# ranks        : 4 on 2 host(s) \[h1,h2\]' out.txt
# Both namespace hosts run on this machine's kernel: its cores are shared by all 4 ranks.
grep -q "^# load         : 2 rank(s) on [0-9]* core(s) of rank 0's host, and 2 more of other hosts on its kernel" out.txt
# The burst's size is measured, and on a busy host it shrinks (7 KB on one CI run, 2026-12-07, where
# 16K+ was usual; below the smallest segment, hence no floor at all, on the next), so its presence
# is a timing and not asserted; tests/bench/segment_choice_test.cpp pins the rule on recorded
# samples. Here, whatever floor the header printed must hold on every tree row of the file.
floor=$(sed -n 's/^# segment .*, at least \([0-9]*\)K: the link passed.*/\1/p' out.txt)
grep -q '^# segment      : auto: ' out.txt || { echo "FAIL: no auto # segment line" >&2; exit 1; }
echo "burst floor in the header: ${floor:-none (the burst measured under the smallest segment)}"
"$(ringbench_python)" - two.h5 $(( ${floor:-0} * 1024 )) <<'PY'
import sys, h5py
rows = h5py.File(sys.argv[1], "r")["results"][:]
floor = int(sys.argv[2])
tree = [r for r in rows if r["algorithm"] in (b"tree", "tree")]
low = [(int(r["bytes"]), int(r["segment_bytes"])) for r in tree if r["segment_bytes"] < min(floor, r["bytes"])]
print(f"tree rows: {len(tree)}, floor {floor} B, segments below it: {low}")
sys.exit(1 if not tree or low else 0)
PY
for h in h1 h2; do [ ! -e "/run/netns/$h" ] || { echo "FAIL: namespace $h left behind" >&2; exit 1; }; done
! ip link show rbhosts0 >/dev/null 2>&1 || { echo "FAIL: bridge left behind" >&2; exit 1; }
echo PASS
