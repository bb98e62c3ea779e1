// Pipelined binary-tree all-reduce, run by the generic schedule runner (schedule.cpp). Its plan,
// steps, bytes and the regime where it wins are in the specification: spec/tree_allreduce.cpp.

#include "tree_allreduce.h"

#include "schedule.h"

namespace ringbench {

const Algorithm& tree_allreduce() {
  static const ScheduledAlgorithm algorithm(spec::tree_allreduce());
  return algorithm;
}

}  // namespace ringbench
