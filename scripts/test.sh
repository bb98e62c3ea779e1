#!/usr/bin/env bash
# README command 2: set up, build, and run every test (unit, integration, model) through CTest.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
install_missing_packages
configure_and_build
cd "$RINGBENCH_BUILD"
ctest --output-on-failure -j "$(nproc)" "$@"
