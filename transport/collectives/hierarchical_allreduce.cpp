// Hierarchical all-reduce, run by the generic schedule runner (schedule.cpp). Its plan, steps,
// bytes and the regime where it wins are in the specification: spec/hierarchical_allreduce.cpp.

#include "hierarchical_allreduce.h"

#include "schedule.h"

namespace ringbench {

const Algorithm& hierarchical_allreduce() {
  static const ScheduledAlgorithm algorithm(spec::hierarchical_allreduce());
  return algorithm;
}

}  // namespace ringbench
