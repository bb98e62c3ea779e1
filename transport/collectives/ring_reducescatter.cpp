// Ring reduce-scatter: its plan, steps, bytes and the regime where it wins are in the
// specification, spec/ring_reducescatter.cpp. It runs as one stream (streamed_ring.h): each piece
// is forwarded as soon as it is reduced.

#include "ring_reducescatter.h"

#include "streamed_ring.h"

namespace ringbench {

const Algorithm& ring_reducescatter() {
  static const StreamedRing algorithm(spec::ring_reducescatter());
  return algorithm;
}

}  // namespace ringbench
