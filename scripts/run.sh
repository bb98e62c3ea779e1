#!/usr/bin/env bash
# README command 1: set up, build, and run the main job: `mpirun -np 4 ringbench` with its defaults,
# which prints the osu-style table and appends the run to ringbench.h5 in the current directory.
# Extra arguments go to ringbench (e.g. `bash scripts/run.sh -m 16M:64M`); RINGBENCH_NP sets N.
# The `mpi` rows run over Open MPI's TCP on loopback, the wire ringbench's own rows use, so every
# default comparison is like for like; RINGBENCH_MPI_SHM=1 leaves Open MPI its shared memory.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
install_missing_packages
configure_and_build
np=${RINGBENCH_NP:-4}
oversubscribe=()
[ "$np" -gt "$(nproc)" ] && oversubscribe=(--oversubscribe)
same_wire=()
[ "${RINGBENCH_MPI_SHM:-0}" = 1 ] || same_wire=(--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo)
exec mpirun -np "$np" "${oversubscribe[@]}" "${same_wire[@]}" "$RINGBENCH_BUILD/bin/ringbench" "$@"
