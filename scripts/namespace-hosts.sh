#!/usr/bin/env bash
# Two emulated hosts on this machine: network namespaces h1 and h2 with 10.200.0.1 and .2 on
# eth0, joined by a bridge this script creates (10.200.0.254 in the root namespace, so daemons in
# the hosts can reach mpirun or slurmctld there). Each host's link is shaped with tc tbf in both
# directions: its eth0 egress (host -> bridge) and the bridge-side veth egress (bridge -> host).
# This kind of kernel has tbf and htb but no netem: bandwidth can be shaped, latency cannot.
#
#   scripts/namespace-hosts.sh up [RATE [H2_RATE]]    create (default 1gbit both)
#   scripts/namespace-hosts.sh shape HOST RATE        re-shape one host's link
#   scripts/namespace-hosts.sh down                   delete namespaces, veths, qdiscs and bridge
# Sourced by scripts/local-slurm.sh and scripts/two-node-mpirun.sh for the ns_* functions.
# Only these namespaces and addresses are touched; nothing is routed outside the bridge.

NS_SUBNET=10.200.0
NS_BRIDGE=rbhosts0
NS_HOSTS=(h1 h2)

ns_err() { echo "namespace-hosts: error: $*" >&2; return 1; }

ns_exists() { [ -e "/run/netns/$1" ]; }

ns_create() {
  [ "$(id -u)" = 0 ] || { ns_err "needs root (ip netns, tc)"; return 1; }
  ip link show "$NS_BRIDGE" >/dev/null 2>&1 && { ns_err "bridge $NS_BRIDGE exists: the hosts are up already (down first)"; return 1; }
  local h i=1
  for h in "${NS_HOSTS[@]}"; do ns_exists "$h" && { ns_err "network namespace $h exists: delete it first"; return 1; }; done
  ip link add "$NS_BRIDGE" type bridge || return 1
  ip addr add "$NS_SUBNET.254/24" dev "$NS_BRIDGE" || return 1
  ip link set "$NS_BRIDGE" up || return 1
  for h in "${NS_HOSTS[@]}"; do
    ip netns add "$h" || return 1
    ip link add "rb-$h" type veth peer name eth0 netns "$h" || return 1
    ip link set "rb-$h" master "$NS_BRIDGE" up || return 1
    ip -n "$h" addr add "$NS_SUBNET.$i/24" dev eth0 || return 1
    ip -n "$h" link set lo up || return 1
    ip -n "$h" link set eth0 up || return 1
    i=$((i + 1))
  done
}

ns_shape() {  # ns_shape HOST RATE
  local host=$1 rate=$2
  ns_exists "$host" || { ns_err "no namespace $host: create the hosts first"; return 1; }
  [[ $rate =~ ^[0-9]+(\.[0-9]+)?([kmg]?bit|[kmg]?bps)$ ]] || { ns_err "rate '$rate': expected e.g. 1gbit, 250mbit"; return 1; }
  # A real link never passes bytes faster than its rate; tbf passes a full bucket (burst) at the
  # veth's own speed, so the burst is kept small: 32kb, which a message that waited for another
  # phase (hierarchical's and the tree's cross-host steps) gets through at loopback speed, against
  # 256kb before (docs/model.md, "Two hosts"). The bucket must hold the largest packet, and veth
  # hands tbf GSO packets of up to 64 KiB (a smaller burst than those undershot the rate by 35-50%):
  # the packets are capped at 16 KiB on both ends, which keeps 1 Gbit/s within 10% of its rate.
  # latency 10ms bounds tbf's queue.
  ip -n "$host" link set eth0 gso_max_size 16384 || return 1
  ip link set "rb-$host" gso_max_size 16384 || return 1
  tc -n "$host" qdisc replace dev eth0 root tbf rate "$rate" burst 32kb latency 10ms || return 1
  tc qdisc replace dev "rb-$host" root tbf rate "$rate" burst 32kb latency 10ms || return 1
  echo "namespace-hosts: $host link shaped to $rate both ways" >&2
}

ns_delete() {
  local h
  for h in "${NS_HOSTS[@]}"; do
    # Deleting a namespace takes its veth pair with it, but asynchronously: delete our end first
    # so that nothing is left when this returns.
    if ip link show "rb-$h" >/dev/null 2>&1; then ip link delete "rb-$h"; fi
    if ns_exists "$h"; then ip netns delete "$h"; fi
  done
  if ip link show "$NS_BRIDGE" >/dev/null 2>&1; then ip link delete "$NS_BRIDGE"; fi
  return 0
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  case "${1:-}" in
    up)
      ns_create || { ns_delete; exit 1; }
      ns_shape h1 "${2:-1gbit}" && ns_shape h2 "${3:-${2:-1gbit}}" || { ns_delete; exit 1; }
      ;;
    shape) ns_shape "${2:?HOST}" "${3:?RATE}" ;;
    down) ns_delete ;;
    *) echo "usage: $0 up [RATE [H2_RATE]] | shape HOST RATE | down" >&2; exit 2 ;;
  esac
fi
