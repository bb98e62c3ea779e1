// Binomial-tree reduce, run by the generic schedule runner (schedule.cpp). Its plan, steps, bytes
// and the regime where it wins are in the specification: spec/binomial_reduce.cpp.

#include "binomial_reduce.h"

#include "schedule.h"

namespace ringbench {

const Algorithm& binomial_reduce() {
  static const ScheduledAlgorithm algorithm(spec::binomial_reduce());
  return algorithm;
}

}  // namespace ringbench
