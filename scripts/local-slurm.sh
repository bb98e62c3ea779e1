#!/usr/bin/env bash
# A real Slurm cluster on this one machine, for tests and for trying the slurm/ scripts:
# Debian's munge and slurm-wlm, a generated slurm.conf, munged, slurmctld and slurmd started in the
# foreground and backgrounded here, so every PID is known and stopped by PID.
#
#   scripts/local-slurm.sh start [--nodes 1|2] [--rate RATE] [--straggler RATE] [--dir DIR]
#   scripts/local-slurm.sh stop  [--dir DIR]
#   scripts/local-slurm.sh shape HOST RATE [--dir DIR]     re-shape one node's link (two-node mode)
#   scripts/local-slurm.sh status [--dir DIR]
#   scripts/local-slurm.sh run [start options] -- COMMAND...  start, run COMMAND, stop (always)
#
# After `start`, point the Slurm clients at the cluster with:  eval "$(scripts/local-slurm.sh env)"
# (that is only `export SLURM_CONF=DIR/slurm.conf`; nothing else is site-specific).
#
# One node (default): node "<this host>" on 127.0.0.1 with this machine's CPUs.
# Two nodes: "h1" and "h2", each slurmd in its own network and UTS namespace (its own hostname),
# with 10.200.0.1 and .2 on a bridge this script creates (10.200.0.254 in the root namespace,
# where slurmctld listens and mpirun can be reached). Each host's link to the bridge is shaped
# with tc tbf in both directions to --rate (default 1gbit); --straggler RATE shapes h2 slower,
# so a ring across the nodes runs at the straggler's pace.
#
# State, logs, spool and the munge socket live in DIR (default /tmp/ringbench-slurm). Nothing
# outside DIR is written except the namespaces h1/h2 and the bridge in two-node mode, which `stop`
# deletes. Needs root (namespaces, tc, and Slurm's SlurmUser=root). Facts behind the settings:
# ../shared/notes/local-slurm.md (see the comments at each setting).
set -euo pipefail

DIR=${LOCAL_SLURM_DIR:-/tmp/ringbench-slurm}
NODES=1
RATE=${LOCAL_SLURM_RATE:-1gbit}
STRAGGLER=""
CTLD_PORT=${LOCAL_SLURM_PORT:-6817}   # slurmd uses the next port(s)
SUBNET=10.200.0
BRIDGE=rbslurm0
HOSTS=(h1 h2)

die() { echo "local-slurm: error: $*" >&2; exit 1; }
log() { echo "local-slurm: $*" >&2; }

parse_options() {
  while [ $# -gt 0 ]; do
    case "$1" in
      --nodes) NODES=$2; shift 2 ;;
      --rate) RATE=$2; shift 2 ;;
      --straggler) STRAGGLER=$2; shift 2 ;;
      --dir) DIR=$2; shift 2 ;;
      --) shift; COMMAND=("$@"); return ;;
      *) die "unknown option '$1' (see the top of $0)" ;;
    esac
  done
}

# --- daemons -----------------------------------------------------------------------------------
# $DIR/pids holds "PID NAME" per started daemon, in start order. A PID is only signalled while its
# /proc/PID/comm still names the daemon we started, so a recycled PID is never touched.
record_pid() { echo "$1 $2" >> "$DIR/pids"; }

pid_is() { [ -r "/proc/$1/comm" ] && [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ]; }

stop_daemons() {
  [ -f "$DIR/pids" ] || return 0
  local lines=() line pid name i
  mapfile -t lines < "$DIR/pids"
  for ((i = ${#lines[@]} - 1; i >= 0; i--)); do   # reverse start order: slurmd, slurmctld, munged
    read -r pid name <<< "${lines[$i]}"
    pid_is "$pid" "$name" || continue
    kill -TERM "$pid" 2>/dev/null || true
    local waited=0
    while pid_is "$pid" "$name" && [ $waited -lt 50 ]; do sleep 0.1; waited=$((waited + 1)); done
    if pid_is "$pid" "$name"; then
      log "$name ($pid) ignored SIGTERM for 5 s: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  rm -f "$DIR/pids"
}

# Job steps that outlive their slurmd (they should not) are children of it in our spool: none
# are expected; the check only reports.
report_leftovers() {
  local left
  left=$(pgrep -a -f "$DIR/" 2>/dev/null | grep -v -e "local-slurm" -e "pgrep" || true)
  [ -z "$left" ] || log "processes still referring to $DIR after stop (not ours to kill, reported only):"$'\n'"$left"
}

# --- network (two-node mode) ---------------------------------------------------------------------
have_namespace() { [ -e "/run/netns/$1" ]; }

create_network() {
  ip link show "$BRIDGE" >/dev/null 2>&1 && die "bridge $BRIDGE exists: a cluster is running (stop it first)"
  local h
  for h in "${HOSTS[@]}"; do have_namespace "$h" && die "network namespace $h exists: stop the other user first"; done
  ip link add "$BRIDGE" type bridge
  ip addr add "$SUBNET.254/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  local i=1
  for h in "${HOSTS[@]}"; do
    ip netns add "$h"
    ip link add "rb-$h" type veth peer name eth0 netns "$h"
    ip link set "rb-$h" master "$BRIDGE" up
    ip -n "$h" addr add "$SUBNET.$i/24" dev eth0
    ip -n "$h" link set lo up
    ip -n "$h" link set eth0 up
    i=$((i + 1))
  done
  shape h1 "$RATE"
  shape h2 "${STRAGGLER:-$RATE}"
}

# Shapes HOST's link in both directions: its eth0 egress (host -> bridge) and the bridge-side veth
# egress (bridge -> host). Only tbf and htb exist in this kind of kernel (no netem): bandwidth
# can be shaped, latency cannot be added.
shape() {
  local host=$1 rate=$2
  have_namespace "$host" || die "no namespace $host: shape needs a two-node cluster"
  [[ $rate =~ ^[0-9]+(\.[0-9]+)?([kmg]?bit|[kmg]?bps)$ ]] || die "rate '$rate': expected e.g. 1gbit, 200mbit"
  ip netns exec "$host" tc qdisc replace dev eth0 root tbf rate "$rate" burst 256kb latency 10ms
  tc qdisc replace dev "rb-$host" root tbf rate "$rate" burst 256kb latency 10ms
  echo "$rate" > "$DIR/rate-$host"
  log "$host link shaped to $rate both ways"
}

delete_network() {
  local h
  for h in "${HOSTS[@]}"; do
    have_namespace "$h" && ip netns delete "$h"   # takes its veth end, the peer and the qdiscs with it
  done
  ip link show "$BRIDGE" >/dev/null 2>&1 && ip link delete "$BRIDGE"
  return 0
}

# --- configuration -------------------------------------------------------------------------------
write_config() {
  local ctld_host ctld_addr node_hw memory
  ctld_host=$(hostname -s)
  # CPUs and layout as slurmd sees them; RealMemory a little under the machine's, or the node is
  # marked invalid when its free memory drifts below the configured figure.
  node_hw=$(slurmd -C | head -1 | sed -e 's/^NodeName=[^ ]* //' -e 's/ RealMemory=.*//')
  memory=$(slurmd -C | head -1 | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
  memory=$((memory * 9 / 10))
  if [ "$NODES" = 2 ]; then ctld_addr=$SUBNET.254; else ctld_addr=127.0.0.1; fi
  cat > "$DIR/slurm.conf" <<EOF
# Generated by scripts/local-slurm.sh for a throw-away cluster in $DIR.
ClusterName=ringbench
SlurmctldHost=$ctld_host($ctld_addr)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$((CTLD_PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$DIR/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/%n
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd-%n.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd-%n.log
# Several slurmd on one filesystem would share PMIx's temporary directory and collide.
TmpFS=$DIR/tmp/%n
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
# Debian's Open MPI has PMIx but not Slurm's PMI-2: plain srun must use pmix.
MpiDefault=pmix
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# Without it a job asking for more tasks than the CPUs pends forever instead of failing at submit.
EnforcePartLimits=ALL
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
# sbatch --wait polls every MinJobAge/2 seconds once its back-off reaches that: 4 gives 2 s.
MinJobAge=4
ReturnToService=2
MailProg=/bin/true
KillWait=2
InactiveLimit=0
SlurmdTimeout=60
EOF
  if [ "$NODES" = 2 ]; then
    echo "NodeName=h1 NodeHostname=h1 NodeAddr=$SUBNET.1 $node_hw RealMemory=$memory State=UNKNOWN" >> "$DIR/slurm.conf"
    echo "NodeName=h2 NodeHostname=h2 NodeAddr=$SUBNET.2 $node_hw RealMemory=$memory State=UNKNOWN" >> "$DIR/slurm.conf"
  else
    echo "NodeName=$ctld_host NodeAddr=127.0.0.1 $node_hw RealMemory=$memory State=UNKNOWN" >> "$DIR/slurm.conf"
  fi
  echo "PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >> "$DIR/slurm.conf"
}

node_names() {
  if [ "$NODES" = 2 ]; then echo "${HOSTS[@]}"; else hostname -s; fi
}

# --- start / stop --------------------------------------------------------------------------------
wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
  local seconds=$1 what=$2 i
  shift 2
  for ((i = 0; i < seconds * 10; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  die "$what did not happen within $seconds s (logs in $DIR/log)"
}

nodes_idle() {
  local states
  states=$(SLURM_CONF=$DIR/slurm.conf sinfo -h -N -o %T 2>/dev/null) || return 1
  [ -n "$states" ] && [ -z "$(grep -v -x idle <<< "$states")" ]
}

start() {
  [ "$(id -u)" = 0 ] || die "needs root (namespaces, tc, SlurmUser=root)"
  case "$NODES" in 1 | 2) ;; *) die "--nodes $NODES: 1 or 2" ;; esac
  local tool
  for tool in munged slurmctld slurmd sinfo sbatch; do
    command -v "$tool" >/dev/null || die "$tool not found: apt-get install slurm-wlm munge (scripts/setup.sh lists them)"
  done
  [ -f "$DIR/pids" ] && die "a cluster is already running from $DIR (scripts/local-slurm.sh stop)"
  rm -rf "$DIR"
  mkdir -p "$DIR"/{state,run,log,munge}
  # munged runs as the munge user: it must reach its socket directory through DIR.
  chmod 755 "$DIR"
  chown munge:munge "$DIR/munge"
  chmod 755 "$DIR/munge"   # munged insists that everyone may reach its socket
  echo "$NODES" > "$DIR/nodes"
  trap 'log "start failed: stopping what was started"; stop_all' EXIT
  trap 'exit 143' TERM INT HUP
  local node
  for node in $(node_names); do mkdir -p "$DIR/spool/$node" "$DIR/tmp/$node"; done
  write_config

  setpriv --reuid=munge --regid=munge --init-groups /usr/sbin/munged --foreground \
    --socket="$DIR/munge/munge.socket" --pid-file="$DIR/munge/munged.pid" \
    --log-file="$DIR/munge/munged.log" --seed-file="$DIR/munge/munge.seed" > "$DIR/log/munged.stdout" 2>&1 &
  record_pid $! munged
  wait_for 10 "munged answering" sh -c "munge -S '$DIR/munge/munge.socket' -n | unmunge -S '$DIR/munge/munge.socket'"

  [ "$NODES" = 2 ] && create_network
  export SLURM_CONF=$DIR/slurm.conf
  slurmctld -D -f "$SLURM_CONF" > "$DIR/log/slurmctld.stdout" 2>&1 &
  record_pid $! slurmctld
  if [ "$NODES" = 2 ]; then
    local h
    for h in "${HOSTS[@]}"; do
      # nsenter, not `ip netns exec`: the latter remounts /sys, hides /sys/fs/cgroup, and slurmd
      # 22.05 dies. unshare --uts gives the node its own hostname; each exec keeps the PID.
      nsenter --net="/run/netns/$h" unshare --uts sh -c 'hostname "$1"; exec slurmd -D -N "$1" -f "$2"' \
        sh "$h" "$SLURM_CONF" > "$DIR/log/slurmd-$h.stdout" 2>&1 &
      record_pid $! slurmd
    done
  else
    slurmd -D -f "$SLURM_CONF" > "$DIR/log/slurmd.stdout" 2>&1 &
    record_pid $! slurmd
  fi
  wait_for 30 "every node idle in sinfo" nodes_idle
  trap - EXIT
  log "$NODES-node cluster up: $(SLURM_CONF=$DIR/slurm.conf sinfo -h -N -o '%N %T %c CPUs' | paste -sd, | sed 's/,/, /g')"
  log "use it with: export SLURM_CONF=$DIR/slurm.conf"
}

stop_all() {
  stop_daemons
  [ -f "$DIR/nodes" ] && [ "$(cat "$DIR/nodes")" = 2 ] && delete_network
  report_leftovers
  return 0
}

stop() {
  [ -d "$DIR" ] || { log "nothing to stop in $DIR"; return 0; }
  stop_all
  log "stopped (state and logs kept in $DIR)"
}

status() {
  [ -f "$DIR/pids" ] || { echo "not running ($DIR)"; return 1; }
  local pid name
  while read -r pid name; do
    if pid_is "$pid" "$name"; then echo "$name $pid running"; else echo "$name $pid GONE"; fi
  done < "$DIR/pids"
  SLURM_CONF=$DIR/slurm.conf sinfo -N
  local f
  for f in "$DIR"/rate-*; do [ -e "$f" ] && echo "${f##*/rate-} link: $(cat "$f")"; done
  return 0
}

command=${1:-}
[ $# -gt 0 ] && shift
COMMAND=()
case "$command" in
  start) parse_options "$@"; start ;;
  stop) parse_options "$@"; stop ;;
  status) parse_options "$@"; status ;;
  env) parse_options "$@"; echo "export SLURM_CONF=$DIR/slurm.conf" ;;
  shape)
    [ $# -ge 2 ] || die "usage: shape HOST RATE [--dir DIR]"
    host=$1 rate=$2
    shift 2
    parse_options "$@"
    shape "$host" "$rate"
    ;;
  run)
    parse_options "$@"
    [ ${#COMMAND[@]} -gt 0 ] || die "usage: run [start options] -- COMMAND..."
    start
    trap stop_all EXIT
    trap 'exit 143' TERM INT HUP
    export SLURM_CONF=$DIR/slurm.conf
    set +e
    "${COMMAND[@]}"
    rc=$?
    set -e
    exit $rc
    ;;
  *) die "usage: $0 start|stop|status|env|shape|run (see the top of this file)" ;;
esac
