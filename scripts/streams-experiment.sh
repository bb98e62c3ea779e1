#!/usr/bin/env bash
# Several streams per peer across two namespace hosts (issue 18 §3): N = 2, one rank on each of h1
# and h2 (scripts/namespace-hosts.sh), `--streams K --threads T` for each K and each T <= K taking
# turns within every repetition, in a fresh order each time. To emulate a NIC where one TCP flow cannot fill the link,
# each flow is capped by tc: h2's ephemeral ports are narrowed to 64, and each gets an htb class
# of --flow-rate, matched by u32 on that port in both directions (h2's egress by source port, h1's
# by destination port). This kernel has no netem or fq; htb and u32 are enough. --unshaped leaves
# the veth pair as it is (then the CPU is the limit).
#   scripts/streams-experiment.sh [--flow-rate RATE] [--reps R] [--sizes LIST] [--streams LIST]
#                                 [--threads LIST] [--unshaped] [-o FILE] [-- more ringbench options]
# Prints the CPU model, then per size, K and T the median busbw over the repetitions with its
# [min-max] spread and the ratio of medians to K = 1, T = 1. The rows stay in FILE (default
# streams-experiment.h5; /results has `streams` and `threads`). The binary is $RINGBENCH_BIN, else
# build/bin/ringbench. Needs root; deletes the hosts on exit.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/namespace-hosts.sh"

flow_rate=200mbit reps=5 sizes=4M,16M streams="1 2 4" threads=1 shaped=1 out=streams-experiment.h5
while [ $# -gt 0 ]; do
  case "$1" in
    --flow-rate) flow_rate=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --streams) streams=${2//,/ }; shift 2 ;;
    --threads) threads=${2//,/ }; shift 2 ;;
    --unshaped) shaped=0; shift ;;
    -o) out=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "streams-experiment: error: unknown option '$1' (ringbench options go after --)" >&2; exit 2 ;;
  esac
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "streams-experiment: error: --reps $reps: expected a positive count" >&2; exit 2; }
[[ $flow_rate =~ ^[0-9]+([kmg]bit)$ ]] || { echo "streams-experiment: error: --flow-rate $flow_rate: expected e.g. 200mbit" >&2; exit 2; }
for k in $streams; do
  [[ $k =~ ^[1-8]$ ]] || { echo "streams-experiment: error: --streams: $k is not 1 to 8" >&2; exit 2; }
done
for t in $threads; do
  [[ $t =~ ^[1-8]$ ]] || { echo "streams-experiment: error: --threads: $t is not 1 to 8" >&2; exit 2; }
done
# Every (K, T) with T <= K: a thread drives whole streams.
settings=()
for k in $streams; do
  for t in $threads; do [ "$t" -le "$k" ] && settings+=("$k:$t"); done
done
[ "$(id -u)" = 0 ] || { echo "streams-experiment: error: needs root (network namespaces, tc)" >&2; exit 2; }
ringbench=${RINGBENCH_BIN:-$here/../build/bin/ringbench}
[ -x "$ringbench" ] || { echo "streams-experiment: error: no ringbench at $ringbench" >&2; exit 2; }
out=$(realpath -m "$out")

first_port=41000 ports=64
# cap_flows HOST MATCH: on HOST's eth0 egress, one htb class of flow_rate per port of h2's range,
# matched by u32 on `ip MATCH PORT` (sport on h2, dport on h1); other traffic is not limited.
cap_flows() {
  local host=$1 match=$2 i
  tc -n "$host" qdisc replace dev eth0 root handle 1: htb default 9999
  tc -n "$host" class add dev eth0 parent 1: classid 1:9999 htb rate 100gbit quantum 60000
  for ((i = 0; i < ports; i++)); do
    tc -n "$host" class add dev eth0 parent 1: classid "1:$((i + 1))" htb rate "$flow_rate" ceil "$flow_rate" quantum 60000
    tc -n "$host" filter add dev eth0 parent 1: protocol ip prio 1 u32 \
      match ip "$match" "$((first_port + i))" 0xffff flowid "1:$((i + 1))"
  done
}

trap ns_delete EXIT
trap 'exit 143' TERM INT HUP
ns_create
# Rank 1 (h2) connects to rank 0 (h1): every flow between them has one of h2's ports.
ip netns exec h2 sysctl -qw net.ipv4.ip_local_port_range="$first_port $((first_port + ports - 1))"
if [ "$shaped" = 1 ]; then
  cap_flows h2 sport
  cap_flows h1 dport
fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "# streams-experiment: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores; busy machine unless stated"
echo "# N=2, one rank on each of h1 and h2; $([ "$shaped" = 1 ] && echo "each flow capped at $flow_rate (htb+u32)" || echo unshaped veth); K:T = ${settings[*]}; $reps repetitions"
for ((rep = 1; rep <= reps; rep++)); do
  for setting in $(printf '%s\n' "${settings[@]}" | shuf); do
    mpirun --mca plm_rsh_agent "$here/netns-rsh" --mca oob_tcp_if_include "$NS_SUBNET.0/24" \
      --host h1:1,h2:1 -np 2 "$ringbench" --algo ring --sizes "$sizes" --no-link-test -q --iface =eth0 \
      --streams "${setting%:*}" --threads "${setting#*:}" -o "$out" "$@" > /dev/null
  done
done
"$(command -v /usr/bin/python3 || command -v python3)" - "$out" "${settings[*]}" <<'PY'
import sys
import h5py
import numpy as np

path = sys.argv[1]
settings = sorted({tuple(int(x) for x in s.split(":")) for s in sys.argv[2].split()})
with h5py.File(path, "r") as f:
    rows = f["results"][:]
# Rows of schema 6 and older have no threads column: one thread drove their streams.
threads = rows["threads"] if "threads" in rows.dtype.names else np.ones(len(rows), dtype=np.int64)
print(f"# {'size':>10} {'K':>2} {'T':>2} {'busbw GB/s':>10} {'[min-max]':>17} {'x K=1':>6} reps")
for size in sorted(set(int(b) for b in rows["bytes"])):
    base = None
    for k, t in settings:
        mine = rows[(rows["bytes"] == size) & (rows["streams"] == k) & (threads == t)]["busbw_GBps"]
        if len(mine) == 0:
            continue
        median = float(np.median(mine))
        base = median if (k, t) == (1, 1) else base
        ratio = f"{median / base:6.2f}" if base else "   n/a"
        print(f"  {size:>10} {k:>2} {t:>2} {median:10.4f} [{mine.min():7.4f}-{mine.max():7.4f}] {ratio} {len(mine)}")
PY
