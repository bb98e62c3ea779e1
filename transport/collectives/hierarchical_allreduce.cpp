// Hierarchical all-reduce: its plan, steps, bytes and the regime where it wins are in the
// specification, spec/hierarchical_allreduce.cpp. Where that plan is a flat ring (one host, or one
// rank per host) it runs as one stream, exactly as ring all-reduce does (streamed_ring.h);
// otherwise on the generic schedule runner (schedule.cpp).

#include "hierarchical_allreduce.h"

#include "streamed_ring.h"

namespace ringbench {

const Algorithm& hierarchical_allreduce() {
  static const StreamedRing algorithm(spec::hierarchical_allreduce());
  return algorithm;
}

}  // namespace ringbench
