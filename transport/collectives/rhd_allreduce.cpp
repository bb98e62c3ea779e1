// Rabenseifner all-reduce, run by the generic schedule runner (schedule.cpp). Its plan, steps,
// bytes and the regime where it wins are in the specification: spec/rhd_allreduce.cpp.

#include "rhd_allreduce.h"

#include "schedule.h"

namespace ringbench {

const Algorithm& rhd_allreduce() {
  static const ScheduledAlgorithm algorithm(spec::rhd_allreduce());
  return algorithm;
}

}  // namespace ringbench
