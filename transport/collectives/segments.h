#pragma once
// The pipelining segments live in the specification (spec/segments.h); this name stays for the
// documented algorithm table, which states the segment size.

#include "spec/segments.h"

namespace ringbench {
using spec::Segments;
}  // namespace ringbench
