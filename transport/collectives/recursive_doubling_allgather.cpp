// Recursive-doubling all-gather, run by the generic schedule runner (schedule.cpp). Its plan,
// steps, bytes and the regime where it wins are in the specification:
// spec/recursive_doubling_allgather.cpp.

#include "recursive_doubling_allgather.h"

#include "schedule.h"

namespace ringbench {

const Algorithm& recursive_doubling_allgather() {
  static const ScheduledAlgorithm algorithm(spec::recursive_doubling_allgather());
  return algorithm;
}

}  // namespace ringbench
