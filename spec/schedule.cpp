#include "schedule.h"

namespace ringbench::spec {

uint64_t Schedule::elements_sent() const {
  uint64_t elements = 0;
  for (const Step& step : steps)
    for (const SendOp& send : step.sends) elements += send.range.count;
  return elements;
}

uint64_t Schedule::elements_reduced() const {
  uint64_t elements = 0;
  for (const Step& step : steps)
    for (const RecvOp& recv : step.recvs)
      if (reduces(recv.arrival)) elements += recv.range.count;
  return elements;
}

}  // namespace ringbench::spec
