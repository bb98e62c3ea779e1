// Pipelined chain broadcast, run by the generic schedule runner (schedule.cpp). Its plan, steps,
// bytes and the regime where it wins are in the specification: spec/chain_broadcast.cpp.

#include "chain_broadcast.h"

#include "schedule.h"

namespace ringbench {

const Algorithm& chain_broadcast() {
  static const ScheduledAlgorithm algorithm(spec::chain_broadcast());
  return algorithm;
}

}  // namespace ringbench
