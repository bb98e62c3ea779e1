#!/usr/bin/env bash
# Median time of one results-file commit (one row, as ringbench commits one size) into an empty,
# a 50 MB and a 1 GB file: a commit must cost about the same whatever the file's size.
#   bash scripts/commit-cost.sh [BUILD_DIR] [COMMITS]     (default build/, 30 commits per file)
# The big files are padded with h5py (a chunked /padding dataset), which takes seconds; they are
# written to a temporary directory on the same filesystem as $TMPDIR and removed afterwards.
set -euo pipefail
build=${1:-build}
commits=${2:-30}
tool="$build/bin/results_commit_cost"
[[ -x $tool ]] || { echo "commit-cost.sh: $tool not built (cmake --build $build --target results_commit_cost)" >&2; exit 2; }
python=/usr/bin/python3
dir=$(mktemp -d "${TMPDIR:-/tmp}/ringbench-commit-cost-XXXXXX")
trap 'rm -rf "$dir"' EXIT

pad() {  # pad FILE MEGABYTES: adds a chunked float64 dataset of that size
  "$python" - "$1" "$2" <<'PY'
import sys, h5py, numpy as np
path, mb = sys.argv[1], int(sys.argv[2])
block = np.arange(8 * 1024 * 1024 // 8, dtype=np.float64)  # 8 MB
with h5py.File(path, "a") as f:
    d = f.create_dataset("padding", shape=(0,), maxshape=(None,), dtype=np.float64, chunks=(8192,))
    for i in range(mb // 8 if mb >= 8 else 1):
        d.resize((d.shape[0] + block.size,))
        d[-block.size:] = block
PY
}

printf '%-8s %12s %12s %10s %10s\n' file size_MB median_ms min_ms max_ms
for mb in 0 50 1024; do
  file="$dir/r$mb.h5"
  "$tool" "$file" 1 >/dev/null  # creates the file with its schema version and /results
  [[ $mb -gt 0 ]] && pad "$file" "$mb"
  sync
  size=$(( $(stat -c %s "$file") / 1048576 ))
  read -r _ _ _ median _ min _ max < <("$tool" "$file" "$commits")
  printf '%-8s %12s %12s %10s %10s\n' "r$mb.h5" "$size" "$median" "$min" "$max"
  rm -f "$file"
done
