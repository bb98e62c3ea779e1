#!/usr/bin/env bash
# install.prefix: cmake --install BUILD into an empty PREFIX, then check that each EXPECTED file
# (relative to PREFIX) is there and that the installed topomodel and ringbench-analyze run.
#   install_test.sh BUILD PREFIX EXPECTED...
set -euo pipefail
build=$1 prefix=$2
shift 2
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" > "$prefix.log"
echo "installed into $prefix: $(find "$prefix" -type f | wc -l) files"
missing=0
for file in "$@"; do
  if [ ! -f "$prefix/$file" ]; then echo "missing: $prefix/$file"; missing=1; fi
done
[ "$missing" = 0 ] || exit 1
# Run from elsewhere, so nothing is found through the source or build tree by accident.
cd /
"$prefix/bin/topomodel" --help | grep -q 'Usage' || { echo "topomodel --help printed no usage"; exit 1; }
"$prefix/bin/topomodel" clusters --cluster "$prefix/share/ringbench/clusters/a100-roce-pods.json" > /dev/null
"$prefix/bin/ringbench-analyze" --help | grep -qi 'usage' || { echo "ringbench-analyze --help printed no usage"; exit 1; }
echo "ok: topomodel, the installed cluster file and ringbench-analyze run from $prefix"
