#pragma once
// The chunk layout lives in the specification (spec/chunk_layout.h); this name stays for the code
// that cuts buffers the way the algorithms do (verification, the mpi baseline, averages).

#include "spec/chunk_layout.h"

namespace ringbench {
using spec::ChunkLayout;
}  // namespace ringbench
