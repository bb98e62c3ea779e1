// Ring all-gather, run by the generic schedule runner (schedule.cpp). Its plan, steps, bytes and
// the regime where it wins are in the specification: spec/ring_allgather.cpp.

#include "ring_allgather.h"

#include "schedule.h"

namespace ringbench {

const Algorithm& ring_allgather() {
  static const ScheduledAlgorithm algorithm(spec::ring_allgather());
  return algorithm;
}

}  // namespace ringbench
