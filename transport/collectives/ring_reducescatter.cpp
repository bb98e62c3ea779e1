// Ring reduce-scatter, run by the generic schedule runner (schedule.cpp). Its plan, steps, bytes
// and the regime where it wins are in the specification: spec/ring_reducescatter.cpp.

#include "ring_reducescatter.h"

#include "schedule.h"

namespace ringbench {

const Algorithm& ring_reducescatter() {
  static const ScheduledAlgorithm algorithm(spec::ring_reducescatter());
  return algorithm;
}

}  // namespace ringbench
