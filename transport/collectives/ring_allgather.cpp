// Ring all-gather: its plan, steps, bytes and the regime where it wins are in the specification,
// spec/ring_allgather.cpp. It runs as one stream (streamed_ring.h): each piece is forwarded as
// soon as it arrives.

#include "ring_allgather.h"

#include "streamed_ring.h"

namespace ringbench {

const Algorithm& ring_allgather() {
  static const StreamedRing algorithm(spec::ring_allgather());
  return algorithm;
}

}  // namespace ringbench
