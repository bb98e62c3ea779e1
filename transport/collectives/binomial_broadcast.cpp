// Binomial-tree broadcast, run by the generic schedule runner (schedule.cpp). Its plan, steps,
// bytes and the regime where it wins are in the specification: spec/binomial_broadcast.cpp.

#include "binomial_broadcast.h"

#include "schedule.h"

namespace ringbench {

const Algorithm& binomial_broadcast() {
  static const ScheduledAlgorithm algorithm(spec::binomial_broadcast());
  return algorithm;
}

}  // namespace ringbench
