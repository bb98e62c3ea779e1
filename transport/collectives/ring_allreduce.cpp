// Ring all-reduce: its plan (a ring reduce-scatter, then a ring all-gather), steps and bytes are
// in the specification, spec/ring_allreduce.cpp. It runs as one stream (streamed_ring.h): each
// piece goes on to the right as soon as it is reduced, and every link stays busy across steps.

#include "ring_allreduce.h"

#include "streamed_ring.h"

namespace ringbench {

const Algorithm& ring_allreduce() {
  static const StreamedRing algorithm(spec::ring_allreduce());
  return algorithm;
}

}  // namespace ringbench
