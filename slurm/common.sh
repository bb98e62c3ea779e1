# Shared by the slurm/*.sbatch scripts (sourced, not run). Everything site-specific comes from the
# environment, the site hook or sbatch options, never from this file:
#   RINGBENCH_BIN, TOPOMODEL_BIN  the executables (default: $RINGBENCH_ROOT/build/bin/..., then PATH)
#   RINGBENCH_ROOT                the checkout (default: found from the submitted script's path)
#   RINGBENCH_RESULTS_DIR         where HDF5 files go (default: $SLURM_SUBMIT_DIR/results)
#   RINGBENCH_LAUNCHER            srun (default: srun --mpi=pmix) or mpirun (the fallback)
#   RINGBENCH_ARGS                extra ringbench options for every run (e.g. "--iface ib")
#   RINGBENCH_MPI_SHM             1: let Open MPI use shared memory for the `mpi` rows (default: its
#                                 TCP, the wire ringbench's own rows use; OMPI_MCA_pml/btl you set win)
#   RINGBENCH_SITE_SETUP          a file sourced at the start of every job (module load lines, PATH)
#   RINGBENCH_SOCKET_IFNAME       ringbench's interface choice (NCCL_SOCKET_IFNAME syntax), handed to
#                                 every rank like every other RINGBENCH_* variable
# Partition, account, time limit, --overcommit and --exclusive are the user's: sbatch options on the
# command line (sbatch -p PART -A ACCT -O ...). Under sbatch --export=NONE nothing above arrives
# from the submitting shell: slurm/submit-sweep.sh writes them into a settings file the job reads
# (rb_setup), and the site hook re-creates the rest (see docs/slurm.md, "Running on a real cluster").

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

# rb_setup [SETTINGS_FILE]: the job's environment, re-established without the submitting shell's:
# the settings slurm/submit-sweep.sh wrote (if given), then the site hook, then steps that inherit
# the job's environment. Every batch script calls it before it looks for a program.
rb_setup() {
  [ -z "${1:-}" ] || rb_load_settings "$1"
  rb_site_setup
  # sbatch --export=NONE leaves SLURM_EXPORT_ENV=NONE in the job, and every srun (and mpirun's
  # srun of its daemons) would start its tasks with an empty environment: no PATH, no modules,
  # no RINGBENCH_*. The job's environment is the clean one that NONE asked for: hand it on.
  export SLURM_EXPORT_ENV=ALL
}

rb_load_settings() {  # rb_load_settings FILE: `export NAME=VALUE` lines written by submit-sweep.sh
  local file=$1
  [ -r "$file" ] || rb_die "settings file $file (from slurm/submit-sweep.sh) is not readable on $(hostname): is the submit directory on a shared filesystem?"
  # shellcheck disable=SC1090  # written by submit-sweep.sh with printf %q
  source "$file"
  rb_note "settings from the submit: $(sed -n 's/^export //p' "$file" | paste -sd ' ' -)"
}

# RINGBENCH_SITE_SETUP: a file of `module load ...` lines (or PATH, LD_LIBRARY_PATH, OMPI_MCA_*,
# RINGBENCH_SOCKET_IFNAME) that every job sources first, so jobs work where sites submit with
# --export=NONE or where compute nodes need modules the login shell had.
rb_site_setup() {
  local hook=${RINGBENCH_SITE_SETUP:-} status=0
  [ -n "$hook" ] || return 0
  [ -r "$hook" ] || rb_die "RINGBENCH_SITE_SETUP=$hook is not a readable file on $(hostname): it must be on a filesystem the compute nodes see"
  rb_note "site setup: sourcing $hook"
  # Module systems read unset variables and return non-zero from helpers: not our strict mode.
  set +eu +o pipefail
  # shellcheck disable=SC1090  # the site's own file
  source "$hook" || status=$?
  set -euo pipefail
  [ "$status" = 0 ] || rb_die "site setup $hook failed (status $status): a module load that failed?"
}

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

# Prints what the job got: its nodes and whether it has them to itself, an array's throttle, and
# each rank's host and IPv4 interfaces as the launcher will place them (with the interface choice
# each rank received, when one was given).
rb_show_placement() {  # rb_show_placement RANKS
  local ranks=$1
  rb_note "job $SLURM_JOB_ID: ${SLURM_JOB_NUM_NODES:-1} node(s) [${SLURM_JOB_NODELIST:-?}], $ranks rank(s), launcher ${RINGBENCH_LAUNCHER:-srun}"
  rb_show_sharing
  [ -z "${RINGBENCH_SOCKET_IFNAME:-}" ] || rb_note "interface choice for every rank: RINGBENCH_SOCKET_IFNAME=$RINGBENCH_SOCKET_IFNAME"
  srun --mpi=none --ntasks="$ranks" --kill-on-bad-exit=1 bash -c \
    'printf "# rank %s on %s: %s%s\n" "$SLURM_PROCID" "$(hostname)" "$(ip -o -4 addr show 2>/dev/null | awk "{print \$2 \"=\" \$4}" | paste -sd " " -)" \
       "${RINGBENCH_SOCKET_IFNAME:+ RINGBENCH_SOCKET_IFNAME=$RINGBENCH_SOCKET_IFNAME}"' |
    sort -t' ' -k3,3n
}

# Whether other jobs may share this job's nodes (a benchmark wants them quiet: sbatch --exclusive)
# and, for an array task, how many tasks of its array may run at once: as Slurm recorded them.
rb_show_sharing() {
  local record shared throttle
  record=$(scontrol show job "$SLURM_JOB_ID" 2>/dev/null || true)
  shared=$(sed -n 's/.*OverSubscribe=\([A-Z:]*\).*/\1/p' <<< "$record" | head -1)
  if [ "$shared" = NO ]; then
    rb_note "nodes: exclusive (no other job shares them)"
  else
    rb_note "nodes: may be shared with other jobs (OverSubscribe=${shared:-?}; submit with --exclusive for quiet nodes)"
  fi
  [ -n "${SLURM_ARRAY_JOB_ID:-}" ] || return 0
  throttle=$(sed -n 's/.*ArrayTaskThrottle=\([0-9]*\).*/\1/p' <<< "$record" | head -1)
  if [ -n "$throttle" ] && [ "$throttle" -gt 0 ]; then
    rb_note "array $SLURM_ARRAY_JOB_ID: at most $throttle task(s) at once (throttle %$throttle)"
  else
    rb_note "array $SLURM_ARRAY_JOB_ID: no throttle (all tasks may run at once)"
  fi
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
# With --on-failure shrink among the arguments, neither launcher may kill the survivors when a rank
# dies (docs/failures.md#shrink-and-go-on): mpirun gets --mca orte_enable_recovery 1; srun gets
# --kill-on-bad-exit=0 --wait=0, and the ranks meet over the file bootstrap instead of PMIx
# (rb_launch_survivable), because Slurm's pmix plugin kills the whole step on the PMIx error event
# a dead task raises, whatever --kill-on-bad-exit says.
rb_launch() {  # rb_launch RANKS PROGRAM ARGS...
  local ranks=$1
  shift
  rb_mpi_rows_over_tcp
  local survive=0
  [[ " $* " == *" --on-failure shrink "* || " $* " == *" --on-failure=shrink "* ]] && survive=1
  case "${RINGBENCH_LAUNCHER:-srun}" in
    srun)
      [ "$survive" = 1 ] && { rb_launch_survivable "$ranks" "$@"; return; }  # needs no PMIx
      srun --mpi=list 2>&1 | grep -qw pmix ||
        rb_die "this Slurm has no pmix MPI plugin (srun --mpi=list): submit with RINGBENCH_LAUNCHER=mpirun"
      rb_note "launch: srun --mpi=pmix --ntasks=$ranks --kill-on-bad-exit=1 $*"
      srun --mpi=pmix --ntasks="$ranks" --kill-on-bad-exit=1 --export=ALL "$@"
      ;;
    mpirun)
      command -v mpirun >/dev/null || rb_die "RINGBENCH_LAUNCHER=mpirun but no mpirun on PATH (module load an MPI?)"
      # Under Slurm mpirun starts its daemons with srun, which hands them the job's environment;
      # -x says it for ringbench's own variables anyway (RINGBENCH_SOCKET_IFNAME, RINGBENCH_DEBUG...).
      local forward=() name
      for name in $(compgen -e | grep '^RINGBENCH_' || true); do forward+=(-x "$name"); done
      [ "$survive" = 1 ] && forward+=(--mca orte_enable_recovery 1)
      rb_note "launch: mpirun -np $ranks ${forward[*]} $*"
      mpirun -np "$ranks" "${forward[@]}" "$@"
      ;;
    *) rb_die "RINGBENCH_LAUNCHER=${RINGBENCH_LAUNCHER}: expected srun or mpirun" ;;
  esac
}

# srun for --on-failure shrink: no PMIx (Slurm's pmix plugin answers any PMIx error event, such as
# a task that died, with SIGKILL to the whole step: src/plugins/mpi/pmix/pmixp_client_v2.c,
# _errhandler), so the ranks meet over ringbench's file bootstrap in a fresh directory beside the
# results (a shared filesystem, as the results need), removed afterwards. srun returns the dead
# task's status (137 for SIGKILL); the survivors' outcome is in the results file and on stdout.
rb_launch_survivable() {  # rb_launch_survivable RANKS PROGRAM ARGS...
  local ranks=$1 rc=0
  shift
  local meet
  meet=$(mktemp -d "$(rb_results_dir)/.bootstrap_${SLURM_JOB_ID:-0}_XXXXXX")
  rb_note "launch: srun --mpi=none --ntasks=$ranks --kill-on-bad-exit=0 --wait=0, file bootstrap in $meet: $*"
  # shellcheck disable=SC2016  # expanded by each task's shell, with its own SLURM_PROCID
  srun --mpi=none --ntasks="$ranks" --kill-on-bad-exit=0 --wait=0 --export=ALL bash -c \
    'RINGBENCH_BOOTSTRAP_DIR=$0 RINGBENCH_RANK=$SLURM_PROCID RINGBENCH_SIZE=$SLURM_NTASKS exec "$@"' \
    "$meet" "$@" || rc=$?
  rm -rf "$meet"
  return "$rc"
}
