// Recursive-doubling all-reduce, run by the generic schedule runner (schedule.cpp). Its plan,
// steps, bytes and the regime where it wins are in the specification:
// spec/recursive_doubling_allreduce.cpp.

#include "recursive_doubling_allreduce.h"

#include "schedule.h"

namespace ringbench {

const Algorithm& recursive_doubling_allreduce() {
  static const ScheduledAlgorithm algorithm(spec::recursive_doubling_allreduce());
  return algorithm;
}

}  // namespace ringbench
