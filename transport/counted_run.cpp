#include "counted_run.h"

#include "communicator.h"

namespace ringbench {

CountedRun run_counted(Communicator& comm, const Algorithm& algorithm, const CollectiveCall& call) {
  ByteCounters before = comm.counters();
  algorithm.run(comm, call);
  return {comm.counters() - before,
          algorithm.payload_bytes_sent(comm.rank(), comm.size(), call.count, element_size(call.dtype), call.root)};
}

}  // namespace ringbench
