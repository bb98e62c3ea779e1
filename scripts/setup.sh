#!/usr/bin/env bash
# Installs whatever is missing from Debian's packages, then configures and builds ringbench.
# Sourced by run.sh and test.sh so that both README commands do all set-up on a fresh machine;
# running it twice installs nothing and rebuilds only what changed.
set -euo pipefail

RINGBENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RINGBENCH_BUILD=${RINGBENCH_BUILD:-$RINGBENCH_ROOT/build}

# Every package the build, the tests and the analysis scripts need. Keep this list the only one.
RINGBENCH_PACKAGES=(
  build-essential cmake pkg-config git
  openmpi-bin libopenmpi-dev
  libhdf5-dev hdf5-tools
  libbenchmark-dev libgtest-dev libcli11-dev libfmt-dev nlohmann-json3-dev
  python3-h5py python3-numpy python3-matplotlib python3-pandas python3-pytest
  iperf3 iproute2 procps iptables
  slurm-wlm munge util-linux
  clang-14 libclang-rt-14-dev clang-tidy
)

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

install_missing_packages() {
  local missing=()
  local pkg
  for pkg in "${RINGBENCH_PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "setup: installing ${missing[*]}" >&2
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# configure_and_build [CMAKE_ARGS...]: configures a new tree (Release) or, given arguments, an
# existing one, then brings it up to date.
configure_and_build() {
  if [ ! -f "$RINGBENCH_BUILD/CMakeCache.txt" ]; then
    cmake -S "$RINGBENCH_ROOT" -B "$RINGBENCH_BUILD" -DCMAKE_BUILD_TYPE=Release "$@" >&2
  elif [ $# -gt 0 ]; then
    cmake "$RINGBENCH_BUILD" "$@" > /dev/null
  fi
  cmake --build "$RINGBENCH_BUILD" -j "$(nproc)" >&2
}

# Open MPI refuses to run as root without these; root is how CI and fresh machines run us.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# The interpreter with Debian's h5py: an override, else the first that imports h5py, else Debian's.
ringbench_python() {
  if [ -n "${RINGBENCH_PYTHON:-}" ]; then echo "$RINGBENCH_PYTHON"; return; fi
  local candidate
  for candidate in /usr/bin/python3 "$(command -v python3 || true)"; do
    if [ -n "$candidate" ] && "$candidate" -c 'import h5py' 2>/dev/null; then echo "$candidate"; return; fi
  done
  echo /usr/bin/python3
}
