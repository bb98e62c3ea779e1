# Shared by the slurm/*.sbatch scripts (sourced, not run). Everything site-specific comes from the
# environment or sbatch options, never from this file:
#   RINGBENCH_BIN, TOPOMODEL_BIN  the executables (default: $RINGBENCH_ROOT/build/bin/..., then PATH)
#   RINGBENCH_ROOT                the checkout (default: found from the submitted script's path)
#   RINGBENCH_RESULTS_DIR         where HDF5 files go (default: $SLURM_SUBMIT_DIR/results)
#   RINGBENCH_LAUNCHER            srun (default: srun --mpi=pmix) or mpirun (the fallback)
#   RINGBENCH_ARGS                extra ringbench options for every run (e.g. "--iface ib")
#   RINGBENCH_MPI_SHM             1: let Open MPI use shared memory for the `mpi` rows (default: its
#                                 TCP, the wire ringbench's own rows use; OMPI_MCA_pml/btl you set win)
# Partition, account, time limit, --overcommit and module loads are the user's: sbatch options on
# the command line (sbatch -p PART -A ACCT -O ...) and `module load` before submitting (sbatch
# exports the submitting environment by default).

rb_die() {
  echo "ringbench-slurm: error: $*" >&2
  exit 2
}

rb_note() { echo "# $*"; }

# The classic mistake of running a batch script with bash: no allocation, so srun would try to
# make one per step (or fail) and mpirun would run on the login node.
[ -n "${SLURM_JOB_ID:-}" ] || rb_die "not inside a Slurm job: submit this script with sbatch (see docs/slurm.md)"

# The checkout this file belongs to (the batch scripts find this file through the job record).
RINGBENCH_ROOT=${RINGBENCH_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}

rb_find_binary() {  # rb_find_binary NAME OVERRIDE_VALUE
  local name=$1 override=$2 candidate
  if [ -n "$override" ]; then
    [ -x "$override" ] || rb_die "$override (from the environment) is not an executable"
    echo "$override"
    return
  fi
  for candidate in "$RINGBENCH_ROOT/build/bin/$name" "${SLURM_SUBMIT_DIR:-.}/build/bin/$name" "$(command -v "$name" || true)"; do
    [ -n "$candidate" ] && [ -x "$candidate" ] && { echo "$candidate"; return; }
  done
  rb_die "no $name executable: build it (bash scripts/setup.sh or cmake) or set ${name^^}_BIN"
}

rb_results_dir() {
  local dir=${RINGBENCH_RESULTS_DIR:-${SLURM_SUBMIT_DIR:-$PWD}/results}
  mkdir -p "$dir"
  echo "$dir"
}

# Open MPI refuses root without these; only set when we are root (test machines, containers).
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

rb_check_world() {  # rb_check_world RANKS [MIN_NODES]
  local ranks=$1 min_nodes=${2:-1}
  [[ $ranks =~ ^[1-9][0-9]*$ ]] || rb_die "world size '$ranks' is not a positive number"
  local tasks=${SLURM_NTASKS:-${SLURM_NPROCS:-0}}
  [ "$tasks" -gt 0 ] || rb_die "the job has no task count (submit with -n/--ntasks or --ntasks-per-node)"
  # A step asking for more ranks than the job's tasks either fails late or, with mpirun, silently
  # oversubscribes; a step asking for fewer is only allowed where the script says so (sweeps).
  [ "$ranks" -le "$tasks" ] || rb_die "world size $ranks is larger than the job's $tasks task(s): submit with -n $ranks (and -O if ranks outnumber CPUs)"
  [ "${SLURM_JOB_NUM_NODES:-1}" -ge "$min_nodes" ] ||
    rb_die "this script measures between nodes but the job has ${SLURM_JOB_NUM_NODES:-1} node(s): submit with -N $min_nodes or more"
}

# Prints each rank's host and IPv4 interfaces, as the launcher will place them.
rb_show_placement() {  # rb_show_placement RANKS
  local ranks=$1
  rb_note "job $SLURM_JOB_ID: ${SLURM_JOB_NUM_NODES:-1} node(s) [${SLURM_JOB_NODELIST:-?}], $ranks rank(s), launcher ${RINGBENCH_LAUNCHER:-srun}"
  srun --mpi=none --ntasks="$ranks" --kill-on-bad-exit=1 bash -c \
    'printf "# rank %s on %s: %s\n" "$SLURM_PROCID" "$(hostname)" "$(ip -o -4 addr show 2>/dev/null | awk "{print \$2 \"=\" \$4}" | paste -sd " " -)"' |
    sort -t' ' -k3,3n
}

# The `mpi` rows over Open MPI's TCP, like ringbench's own rows, unless asked otherwise. Both
# launchers hand the environment to the ranks, where Open MPI reads OMPI_MCA_*.
rb_mpi_rows_over_tcp() {
  [ "${RINGBENCH_MPI_SHM:-0}" = 1 ] && return 0
  export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1} OMPI_MCA_btl=${OMPI_MCA_btl:-tcp,self}
  # On one node, Open MPI's TCP excludes loopback by default and would find no pair to connect.
  [ "${SLURM_JOB_NUM_NODES:-1}" -eq 1 ] && export OMPI_MCA_btl_tcp_if_include=${OMPI_MCA_btl_tcp_if_include:-lo}
  return 0
}

# Runs an MPI program on RANKS ranks of the allocation and returns its exit status.
#   srun   : srun --mpi=pmix (Open MPI as packaged by Debian has PMIx but no PMI-2; without a PMI,
#            every task would be an MPI singleton of size 1, which ringbench refuses).
#   mpirun : Open MPI's mpirun reads the allocation itself; use it where srun has no pmix plugin.
rb_launch() {  # rb_launch RANKS PROGRAM ARGS...
  local ranks=$1
  shift
  rb_mpi_rows_over_tcp
  case "${RINGBENCH_LAUNCHER:-srun}" in
    srun)
      srun --mpi=list 2>&1 | grep -qw pmix ||
        rb_die "this Slurm has no pmix MPI plugin (srun --mpi=list): submit with RINGBENCH_LAUNCHER=mpirun"
      rb_note "launch: srun --mpi=pmix --ntasks=$ranks $*"
      srun --mpi=pmix --ntasks="$ranks" --kill-on-bad-exit=1 "$@"
      ;;
    mpirun)
      command -v mpirun >/dev/null || rb_die "RINGBENCH_LAUNCHER=mpirun but no mpirun on PATH (module load an MPI?)"
      rb_note "launch: mpirun -np $ranks $*"
      mpirun -np "$ranks" "$@"
      ;;
    *) rb_die "RINGBENCH_LAUNCHER=${RINGBENCH_LAUNCHER}: expected srun or mpirun" ;;
  esac
}
