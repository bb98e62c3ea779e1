// Pairwise all-to-all, run by the generic schedule runner (schedule.cpp). Its plan, steps and
// bytes are in the specification: spec/pairwise_alltoall.cpp.
//
// In place, a received block would overwrite a block still to be sent in the same or a later step
// (block r - s arrives in step s and leaves in step N - s), so such blocks are held in scratch until
// sent and then copied in: floor(N / 2) of the N blocks (schedule.cpp).

#include "pairwise_alltoall.h"

#include "schedule.h"

namespace ringbench {

const Algorithm& pairwise_alltoall() {
  static const ScheduledAlgorithm algorithm(spec::pairwise_alltoall(), /*sends_original_data=*/true);
  return algorithm;
}

}  // namespace ringbench
