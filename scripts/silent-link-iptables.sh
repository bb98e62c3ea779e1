#!/usr/bin/env bash
# Silences the link between two running ringbench ranks on this host, the way a broken cable or
# switch port would: iptables DROPs every packet of their TCP connection(s) to each other, both
# ways, while both processes go on talking to everyone else.
#
# usage: silent-link-iptables.sh PID_A PID_B [SECONDS]
#   PID_A, PID_B  the two ranks' processes (they must share this host's loopback interface)
#   SECONDS       how long to hold the drop (default: until this script is stopped)
# Exit 0 after the drop was held; 77 when iptables cannot be used here (not root, no
# CAP_NET_ADMIN, no iptables), so tests can skip; 2 when no connection joins the two processes.
#
# Only loopback, only the exact port pairs of the two processes' connections to each other: rules
# are inserted with a comment naming this script's PID and removed on any exit (trap), so nothing
# else on the machine is touched and nothing is left behind.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 PID_A PID_B [SECONDS]" >&2
  exit 2
fi
pid_a=$1 pid_b=$2 hold=${3:-}
tag="ringbench-silent-link-$$"

if ! command -v iptables > /dev/null || ! iptables -w 5 -L INPUT -n > /dev/null 2>&1; then
  echo "silent-link-iptables: iptables cannot be used here (needs root and CAP_NET_ADMIN)" >&2
  exit 77
fi

# The local ports of the established TCP sockets process $1 holds, one per line: "LOCAL PEER".
ports_of() {
  ss -tnpH state established 2>/dev/null | awk -v pid="pid=$1," '
    index($0, pid) { n = split($3, l, ":"); m = split($4, p, ":"); print l[n], p[m] }'
}

# The port pairs of the connections joining A and B: A's local port is B's peer port and back.
pairs=()
while read -r local_a peer_a; do
  while read -r local_b peer_b; do
    if [ "$local_a" = "$peer_b" ] && [ "$peer_a" = "$local_b" ]; then pairs+=("$local_a $local_b"); fi
  done < <(ports_of "$pid_b")
done < <(ports_of "$pid_a")
if [ ${#pairs[@]} -eq 0 ]; then
  echo "silent-link-iptables: no TCP connection joins processes $pid_a and $pid_b" >&2
  exit 2
fi

rules=()
remove_rules() {
  local rule
  for rule in "${rules[@]}"; do
    # shellcheck disable=SC2086
    iptables -w 5 -D $rule 2> /dev/null || echo "silent-link-iptables: could not remove rule: $rule" >&2
  done
  rules=()
}
sleeper=
# The hold's sleep goes too: left running it would keep the caller's stdout open for SECONDS more
# (CTest waited out all 60 s of the test's hold after the test itself had ended).
trap 'remove_rules; [ -z "$sleeper" ] || kill "$sleeper" 2> /dev/null' EXIT
trap 'exit 0' INT TERM

for pair in "${pairs[@]}"; do
  read -r port_a port_b <<< "$pair"
  for ports in "$port_a $port_b" "$port_b $port_a"; do
    read -r from to <<< "$ports"
    rule="INPUT -i lo -p tcp --sport $from --dport $to -m comment --comment $tag -j DROP"
    # shellcheck disable=SC2086
    iptables -w 5 -I $rule
    rules+=("$rule")
  done
  echo "silent-link-iptables: dropping every packet between ports $port_a (pid $pid_a) and $port_b (pid $pid_b) on lo" >&2
done

# In the background and waited for, so that a TERM is handled at once (and the rules removed).
if [ -n "$hold" ]; then sleep "$hold" & else sleep infinity & fi
sleeper=$!
wait "$sleeper"
sleeper=
