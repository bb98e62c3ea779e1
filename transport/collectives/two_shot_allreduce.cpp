// Two-shot all-reduce (a direct reduce-scatter, then a direct all-gather), run by the generic
// schedule runner (schedule.cpp). Its plan, steps, bytes and the regime where it wins are in the
// specification: spec/two_shot_allreduce.cpp.

#include "two_shot_allreduce.h"

#include "schedule.h"

namespace ringbench {

const Algorithm& two_shot_allreduce() {
  static const ScheduledAlgorithm algorithm(spec::two_shot_allreduce());
  return algorithm;
}

}  // namespace ringbench
