// Ring reduce, run by the generic schedule runner (schedule.cpp). Its plan, steps, bytes and the
// regime where it wins are in the specification: spec/ring_reduce.cpp.

#include "ring_reduce.h"

#include "schedule.h"

namespace ringbench {

const Algorithm& ring_reduce() {
  static const ScheduledAlgorithm algorithm(spec::ring_reduce());
  return algorithm;
}

}  // namespace ringbench
