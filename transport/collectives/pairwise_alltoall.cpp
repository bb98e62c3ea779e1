// Pairwise all-to-all, run by the generic schedule runner (schedule.cpp). Its plan, steps and
// bytes are in the specification: spec/pairwise_alltoall.cpp.
//
// In place, a received block would overwrite a block still to be sent in a later step, so the
// buffer is copied to scratch once and sends read the copy (one extra memcpy of the buffer).

#include "pairwise_alltoall.h"

#include "schedule.h"

namespace ringbench {

const Algorithm& pairwise_alltoall() {
  static const ScheduledAlgorithm algorithm(spec::pairwise_alltoall(), /*sends_from_snapshot=*/true);
  return algorithm;
}

}  // namespace ringbench
