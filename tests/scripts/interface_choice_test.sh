#!/usr/bin/env bash
# scripts.interface_choice: which interface ringbench chooses, for each set of up interfaces and
# each --iface / RINGBENCH_SOCKET_IFNAME filter, on two emulated hosts (network namespaces) joined
# by three links named as on a cluster node: eth0, ib0 (IPoIB) and docker0; host A also has eth1,
# which host B has no route to (B's end, eth9, has no address). Ranks are started without mpirun, through the file bootstrap, one
# per namespace (or both in A for the one-host case). Also checked: the listener answers on the
# chosen address only, a bad or unmatched filter exits 2 before any socket opens, and an
# unreachable pair fails within --timeout naming both ends.
#   interface_choice_test.sh RINGBENCH WORKDIR
set -euo pipefail
ringbench=$1 work=$2
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (ip netns)"; exit 77; }
command -v ip >/dev/null || { echo "SKIP: no ip (iproute2)"; exit 77; }
a=rbif$$a b=rbif$$b
cleanup() {
  local ns
  for ns in "$a" "$b"; do ip netns delete "$ns" 2>/dev/null || true; done
  for ns in A0 A1 A2 A3; do ip link delete "rbif$$$ns" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP
ip netns add "$a" 2>/dev/null || { echo "SKIP: cannot create network namespaces here (ip netns add)"; exit 77; }
ip netns add "$b"
rm -rf "$work" && mkdir -p "$work" && cd "$work"

# link NAME SUBNET: a veth pair with one end called NAME in each namespace, .1 in A, .2 in B.
link() {
  ip link add "rbif$$A$3" type veth peer name "rbif$$B$3"
  ip link set "rbif$$A$3" netns "$a" name "$1"
  ip link set "rbif$$B$3" netns "$b" name "$1"
  ip -n "$a" addr add "$2.1/24" dev "$1"
  ip -n "$b" addr add "$2.2/24" dev "$1"
  ip -n "$a" link set "$1" up
  ip -n "$b" link set "$1" up
}
for ns in "$a" "$b"; do ip -n "$ns" link set lo up; done
link eth0 10.77.1 0
link ib0 10.77.2 1
link docker0 10.77.3 2
# eth1: A's end has an address, B's end (eth9) none, so B has no route to 10.77.9.0/24.
ip link add "rbif$$A3" type veth peer name "rbif$$B3"
ip link set "rbif$$A3" netns "$a" name eth1
ip link set "rbif$$B3" netns "$b" name eth9
ip -n "$a" addr add 10.77.9.1/24 dev eth1
ip -n "$a" link set eth1 up
ip -n "$b" link set eth9 up

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
sweep=(-m 8:8 -x 1 --no-link-test -q)

# start CASE NS0 NS1 ENV0 ENV1 ARGS...: ranks 0 and 1 in the background (ENVn: RINGBENCH_SOCKET_IFNAME
# of rank n, "-" for unset), files in CASE/.
start() {
  local case=$1 ns=("$2" "$3") env=("$4" "$5") r
  shift 5
  mkdir -p "$case/boot"
  for r in 0 1; do
    # RINGBENCH_DEBUG: the interface line each rank's log is checked for is an INFO NET line.
    local vars=(RINGBENCH_BOOTSTRAP_DIR="$PWD/$case/boot" RINGBENCH_RANK=$r RINGBENCH_SIZE=2
                RINGBENCH_DEBUG=INFO RINGBENCH_DEBUG_SUBSYS=NET)
    [ "${env[$r]}" = - ] || vars+=(RINGBENCH_SOCKET_IFNAME="${env[$r]}")
    ip netns exec "${ns[$r]}" env "${vars[@]}" "$ringbench" "$@" -o "$PWD/$case/out.h5" \
      >"$case/out.$r" 2>"$case/err.$r" &
    pids[$r]=$!
  done
}
# finish: waits for both ranks; rc.0 and rc.1 hold their exit codes.
finish() {
  local case=$1 r
  for r in 0 1; do
    set +e; wait "${pids[$r]}"; echo $? >"$case/rc.$r"; set -e
  done
}

# expect CASE NS0 NS1 ENV0 ENV1 WANT_NAME WANT_REASON [ARGS...]: both ranks succeed; rank 0's
# header names WANT_NAME with WANT_REASON, and each rank's log the same interface.
expect() {
  local case=$1 ns0=$2 ns1=$3 env0=$4 env1=$5 name=$6 reason=$7
  shift 7
  start "$case" "$ns0" "$ns1" "$env0" "$env1" "${sweep[@]}" -i 3 "$@"
  finish "$case"
  local got
  got=$(sed -n 's/^# interface    : //p' "$case/out.0")
  echo "$case: $got"
  [ "$(cat "$case/rc.0") $(cat "$case/rc.1")" = "0 0" ] || { fail "$case: exit $(cat "$case/rc.0") $(cat "$case/rc.1"): $(cat "$case/err.0" "$case/err.1")"; return; }
  [[ $got == "$name ("*"): $reason" ]] || fail "$case: interface '$got', expected $name with reason '$reason'"
  grep -q ":1 ringbench INFO NET interface $name " "$case/err.1" || fail "$case: rank 1 did not choose $name: $(cat "$case/err.1")"
}

# expect_bad CASE SPEC_VIA WANT: exit 2 with one line naming the input, and no card published
# (so no socket was opened for the job).
expect_bad() {
  local case=$1 via=$2 spec=$3 want=$4
  if [ "$via" = env ]; then start "$case" "$a" "$b" "$spec" "$spec" "${sweep[@]}"
  else start "$case" "$a" "$b" - - "${sweep[@]}" --iface "$spec"; fi
  finish "$case"
  echo "$case: $(head -1 "$case/err.0")"
  [ "$(cat "$case/rc.0") $(cat "$case/rc.1")" = "2 2" ] || fail "$case: exit $(cat "$case/rc.0") $(cat "$case/rc.1"), expected 2 2"
  [ "$(grep -c . "$case/err.0")" = 1 ] || fail "$case: not one line: $(cat "$case/err.0")"
  grep -qF -- "$want" "$case/err.0" || fail "$case: '$(cat "$case/err.0")' does not say '$want'"
  [ -z "$(ls "$case/boot")" ] || fail "$case: a card was published: $(ls "$case/boot")"
}

# --- The listener: while the job runs (rank 1 stalls 3 s at call 2), only ib0's address answers.
start listener "$a" "$b" - - "${sweep[@]}" -i 4 --timeout 20 --inject stall:1@2:3
for _ in $(seq 100); do [ -s listener/boot/card.0 ] && grep -q ":0 ringbench INFO NET interface " listener/err.0 && break; sleep 0.1; done
[ -s listener/boot/card.0 ] || { echo "FAIL: listener: rank 0 published no card: $(cat listener/err.0)" >&2; exit 1; }
port=$(sed -n 's/^port=//p' listener/boot/card.0)
# Before the bootstrap a rank listens on its one-host choice (lo) too; it closes it at once.
for _ in $(seq 50); do
  [ "$(ip netns exec "$a" ss -Htln "sport = :$port" | wc -l)" = 1 ] && break
  sleep 0.1
done
listening=$(ip netns exec "$a" ss -Htln "sport = :$port" | awk '{print $4}' | tr '\n' ' ')
echo "listener: rank 0 listens on: $listening"
[ "$listening" = "10.77.2.1:$port " ] || fail "listener: rank 0 listens on '$listening', expected 10.77.2.1:$port only"
probe() { ip netns exec "$1" timeout 5 bash -c "exec 3<>/dev/tcp/$2/$port" 2>/dev/null; }
probe "$b" 10.77.2.1 || fail "listener: ib0's address 10.77.2.1:$port refused"
for addr in 10.77.1.1 10.77.3.1; do
  ! probe "$b" "$addr" || fail "listener: $addr:$port (not the chosen interface) accepted a connection"
done
! probe "$a" 127.0.0.1 || fail "listener: 127.0.0.1:$port accepted a connection"
finish listener
[ "$(cat listener/rc.0) $(cat listener/rc.1)" = "0 0" ] || fail "listener: exit $(cat listener/rc.0) $(cat listener/rc.1): $(cat listener/err.0 listener/err.1)"

# --- The matrix. All of eth0, ib0, docker0 up (and A's eth1):
expect auto-all "$a" "$b" - - ib0 "IPoIB preferred"
expect one-host "$a" "$a" - - lo "all ranks on one host, so loopback"
expect iface-eth "$a" "$b" - - eth0 "--iface eth: first non-virtual interface" --iface eth
expect iface-exact "$a" "$b" - - eth0 "--iface =eth0" --iface =eth0
expect iface-exclude "$a" "$b" - - eth0 "--iface ^ib,eth1: first non-virtual interface" --iface ^ib,eth1
expect iface-exclude-exact "$a" "$b" - - docker0 "--iface ^=ib0,eth0,eth1,lo" --iface ^=ib0,eth0,eth1,lo
expect env-docker "$a" "$b" =docker0 =docker0 docker0 "RINGBENCH_SOCKET_IFNAME==docker0"
expect iface-wins "$a" "$b" =docker0 =docker0 ib0 "--iface ib" --iface ib
# ib0 down: the first non-virtual interface; then eth0 down too: the virtual one.
for ns in "$a" "$b"; do ip -n "$ns" link set ib0 down; done
expect auto-no-ib "$a" "$b" - - eth0 "first non-virtual interface"
ip -n "$a" link set eth1 down
for ns in "$a" "$b"; do ip -n "$ns" link set eth0 down; done
expect auto-virtual-only "$a" "$b" - - docker0 "only virtual interfaces are up"
for ns in "$a" "$b"; do ip -n "$ns" link set eth0 up; ip -n "$ns" link set ib0 up; done
ip -n "$a" link set eth1 up

# --- Bad input: exit 2, one line naming the input, before any socket.
expect_bad bad-nomatch iface =eth9 "--iface =eth9: no up IPv4 interface matches"
expect_bad bad-syntax iface eth,^ib "--iface eth,^ib: '^' and '=' go once"
expect_bad bad-env env "eth,,ib" "RINGBENCH_SOCKET_IFNAME=eth,,ib: an empty name"

# --- Unreachable: rank 0 listens on eth1 (B has no route there); both fail within --timeout 2,
# exit 4, naming the pair, hosts, interfaces and addresses.
start unreachable "$a" "$b" =eth1 - "${sweep[@]}" -i 3 --timeout 2
finish unreachable
echo "unreachable: rank 1: $(grep -m1 error unreachable/err.1)"
[ "$(cat unreachable/rc.0) $(cat unreachable/rc.1)" = "4 4" ] || fail "unreachable: exit $(cat unreachable/rc.0) $(cat unreachable/rc.1), expected 4 4"
grep -q "rank 1 on .* (ib0 10.77.2.2) could not reach rank 0 on .* (eth1 10.77.9.1) at 10.77.9.1:" unreachable/err.1 ||
  fail "unreachable: rank 1 does not name the pair: $(cat unreachable/err.1)"
grep -q "no handshake between rank 0 on .* (eth1 10.77.9.1), listening on port [0-9]*, and rank 1 on .* (ib0 10.77.2.2)" unreachable/err.0 ||
  fail "unreachable: rank 0 does not name the pair: $(cat unreachable/err.0)"

[ "$failures" = 0 ] || { echo "FAILED: $failures check(s)" >&2; exit 1; }
echo PASS
