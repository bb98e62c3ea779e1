#!/usr/bin/env bash
# Ours against Open MPI over the same TCP, and our link against an independent probe, in one job.
#
#   scripts/compare.sh [-n RANKS] [-r REPS] [-o FILE] [--collective LIST]
#                      [--small SIZES] [--small-algos LIST] [--large SIZES] [--large-algos LIST]
#                      [--iperf-seconds S] [--no-build] [-- EXTRA RINGBENCH ARGS]
#
# Each repetition runs, one after the other (interleaved, so slow phases of a noisy machine hit
# both sides alike):
#   ours   mpirun ... ringbench --algo SMALL-ALGOS -m SMALL        (with the link test)
#   theirs mpirun ... ringbench --algo mpi -m SMALL                (MPI_Allreduce etc.)
#   ours   mpirun ... ringbench --algo LARGE-ALGOS -m LARGE -x 3   (with the link test)
#   theirs mpirun ... ringbench --algo mpi -m LARGE -x 3
#   probe  RANKS concurrent iperf3 clients on 127.0.0.1, one stream each (as many as ring links)
# Every mpirun uses Open MPI's TCP on the loopback interface (--mca pml ob1 --mca btl tcp,self
# --mca btl_tcp_if_include lo; its default would pick this host's eth0 address, which the kernel
# also routes over lo), so the `mpi` rows cross the same loopback TCP as ours; ringbench uses MPI
# only to exchange addresses. All rows go to the HDF5 file (-o); then
# scripts/compare_report.py prints one table per collective (medians over
# the repetitions with their min-max spread, ratios to Open MPI and to the link bound, the link
# test against iperf3) and appends those tables and the iperf3 runs to the same file
# (/comparison/summary, /comparison/iperf3).
#
# Defaults: 4 ranks, 3 repetitions, all-reduce, small 8:4K with every algorithm, large 1M:256M
# with ring; about 2 minutes on a 2-core machine (measured). Only 127.0.0.1 is used. The build is
# $RINGBENCH_BUILD (default build/), configured and brought up to date first unless --no-build.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/setup.sh"

ranks=4 reps=3 output=compare.h5 collective=allreduce
small=8:4K small_algos=ring,tree,rhd,recursive-doubling,hierarchical,naive
large=1M:256M large_algos=ring
iperf_seconds=3 build=1
extra=()
usage() { sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    -n) ranks=$2; shift 2 ;;
    -r) reps=$2; shift 2 ;;
    -o) output=$2; shift 2 ;;
    --collective) collective=$2; shift 2 ;;
    --small) small=$2; shift 2 ;;
    --small-algos) small_algos=$2; shift 2 ;;
    --large) large=$2; shift 2 ;;
    --large-algos) large_algos=$2; shift 2 ;;
    --iperf-seconds) iperf_seconds=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) usage ;;
    *) echo "compare.sh: unknown argument $1" >&2; usage ;;
  esac
done
[ "$reps" -ge 1 ] && [ "$ranks" -ge 2 ] || { echo "compare.sh: need -r >= 1 and -n >= 2" >&2; exit 2; }

install_missing_packages
# --no-build runs what $RINGBENCH_BUILD (default build/) already holds, e.g. while the tree is mid-edit.
[ $build = 0 ] || configure_and_build
ringbench=$RINGBENCH_BUILD/bin/ringbench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
runs=$work/runs.txt
: >"$runs"
failed_runs=()

# One ringbench run; records "<run id> <side> <band>" for the report.
run_ringbench() {
  local side=$1 band=$2
  shift 2
  local log=$work/$side-$band-$rep.log
  echo "compare: rep $rep/$reps $side $band: ringbench $*" >&2
  set +e
  mpirun -np "$ranks" --oversubscribe --mca pml ob1 --mca btl tcp,self \
    --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo "$ringbench" \
    --collective "$collective" -o "$output" "$@" "${extra[@]}" >"$log" 2>"$log.err"
  local status=$?
  set -e
  local id
  id=$(sed -n 's/^# results *: run \([0-9a-f-]*\) appended.*/\1/p' "$log")
  if [ $status -ne 0 ]; then
    # A failed run keeps the sizes it finished (ringbench commits each size): they still count,
    # and the report says which run failed. Its id is the last run the file holds.
    echo "compare: ringbench exited $status (log below); keeping the sizes it finished" >&2
    tail -n 5 "$log.err" >&2
    id=$("$here/ringbench-python" compare_report.py "$output" --last-run-id)
    failed_runs+=("$id:$side-$band-rep$rep:exit$status")
  fi
  [ -n "$id" ] || { echo "compare: no run id in $log" >&2; exit 1; }
  echo "$id $side $band" >>"$runs"
}

# iperf3 on 127.0.0.1 with as many concurrent streams as the ring has links (N): N servers for the
# whole job, and per repetition N clients at once, one stream each with 1 MiB writes. N processes
# like the N ranks, so the probe may use both cores as the ring does (iperf3 3.12 runs all the
# streams of one client on one thread), and 1 MiB writes, its fastest setting on loopback.
iperf_base=$((20000 + RANDOM % 20000))
iperf_servers=()
for k in $(seq 0 $((ranks - 1))); do
  iperf3 -s -B 127.0.0.1 -p $((iperf_base + k)) >"$work/iperf3-server-$k.log" 2>&1 &
  iperf_servers+=($!)
done
trap 'kill "${iperf_servers[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
iperf_client() {  # port, json: retries while the server is still starting
  local tries=0
  until iperf3 -c 127.0.0.1 -p "$1" -l 1M -t "$iperf_seconds" -J >"$2" 2>/dev/null; do
    tries=$((tries + 1))
    [ $tries -lt 20 ] || { echo "compare: iperf3 client on port $1 failed:" >&2; cat "$2" >&2; return 1; }
    sleep 0.5
  done
}
run_iperf() {
  local clients=() k
  for k in $(seq 0 $((ranks - 1))); do
    iperf_client $((iperf_base + k)) "$work/iperf3-$rep-$k.json" &
    clients+=($!)
  done
  for k in "${clients[@]}"; do wait "$k" || exit 1; done
  echo "compare: rep $rep/$reps probe: $ranks concurrent iperf3 -l 1M -t $iperf_seconds streams on 127.0.0.1" >&2
}

for rep in $(seq 1 "$reps"); do
  run_ringbench ours small -m "$small" --algo "$small_algos"
  # --timeout 60: a rank inside MPI_Allreduce sends no heartbeats on our connections; and the mpi
  # rows have been seen to hang at 256 MiB (one rank left inside MPI_Allreduce while the others
  # wait in our barrier), so a stuck run is given up after a minute and its finished sizes kept.
  run_ringbench theirs small -m "$small" --algo mpi --no-link-test --timeout 60
  run_ringbench ours large -m "$large" -x 3 --algo "$large_algos"
  run_ringbench theirs large -m "$large" -x 3 --algo mpi --no-link-test --timeout 60
  run_iperf
done

"$here/ringbench-python" compare_report.py "$output" --ranks "$ranks" --runs "$runs" --iperf "$work"/iperf3-[0-9]*-*.json \
  --failed "${failed_runs[@]}"
