// Recursive-halving reduce-scatter (the first half of Rabenseifner's all-reduce), run by the
// generic schedule runner (schedule.cpp). Its plan, steps, bytes and the regime where it wins are
// in the specification: spec/rhd_reducescatter.cpp.

#include "rhd_reducescatter.h"

#include "schedule.h"

namespace ringbench {

const Algorithm& rhd_reducescatter() {
  static const ScheduledAlgorithm algorithm(spec::rhd_reducescatter());
  return algorithm;
}

}  // namespace ringbench
