#!/usr/bin/env bash
# README command 1: set up, build, and run the main job: `mpirun -np 4 ringbench` with its defaults,
# which prints the osu-style table and appends the run to ringbench.h5 in the current directory.
# Extra arguments go to ringbench (e.g. `bash scripts/run.sh -m 16M:64M`); RINGBENCH_NP sets N.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
install_missing_packages
configure_and_build
np=${RINGBENCH_NP:-4}
oversubscribe=()
[ "$np" -gt "$(nproc)" ] && oversubscribe=(--oversubscribe)
exec mpirun -np "$np" "${oversubscribe[@]}" "$RINGBENCH_BUILD/bin/ringbench" "$@"
