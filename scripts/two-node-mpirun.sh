#!/usr/bin/env bash
# Two-node ringbench with mpirun and no Slurm, on one Linux machine with root: creates the
# namespace hosts h1 and h2 (scripts/namespace-hosts.sh), runs mpirun across them through an
# rsh agent that enters the namespaces (scripts/netns-rsh), and deletes the hosts on exit, also
# on failure or Ctrl-C.
#   scripts/two-node-mpirun.sh [--per-host K] [--rate RATE] [--straggler RATE] [-- ringbench options]
# K ranks per host (default 2), placed in blocks: ranks 0..K-1 on h1, K..2K-1 on h2. Each host's
# link is shaped to RATE (default 1gbit); --straggler shapes h2's slower. The binary is
# $RINGBENCH_BIN, else build/bin/ringbench of this checkout. Exit status: mpirun's (ringbench's).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/namespace-hosts.sh"

per_host=2 rate=1gbit straggler=""
while [ $# -gt 0 ]; do
  case "$1" in
    --per-host) per_host=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --straggler) straggler=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "two-node-mpirun: error: unknown option '$1' (ringbench options go after --)" >&2; exit 2 ;;
  esac
done
[[ $per_host =~ ^[1-9][0-9]*$ ]] || { echo "two-node-mpirun: error: --per-host $per_host" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "two-node-mpirun: error: needs root (network namespaces)" >&2; exit 2; }
ringbench=${RINGBENCH_BIN:-$here/../build/bin/ringbench}
[ -x "$ringbench" ] || { echo "two-node-mpirun: error: no ringbench at $ringbench (build it or set RINGBENCH_BIN)" >&2; exit 2; }
command -v mpirun >/dev/null || { echo "two-node-mpirun: error: no mpirun" >&2; exit 2; }

trap ns_delete EXIT
trap 'exit 143' TERM INT HUP
ns_create
ns_shape h1 "$rate"
ns_shape h2 "${straggler:-$rate}"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The orted daemons in h1/h2 call back to mpirun: only over the bridge (10.200.0.0/24), where
# the root namespace has 10.200.0.254. Ranks per host may outnumber this machine's cores.
echo "# two-node-mpirun: $((2 * per_host)) ranks, $per_host on each of h1 (${rate}) and h2 (${straggler:-$rate})"
set +e
mpirun --mca plm_rsh_agent "$here/netns-rsh" --mca oob_tcp_if_include "$NS_SUBNET.0/24" \
  --mca btl_tcp_if_include "$NS_SUBNET.0/24" --host "h1:$per_host,h2:$per_host" -np $((2 * per_host)) \
  --oversubscribe "$ringbench" "$@"
rc=$?
set -e
exit $rc
