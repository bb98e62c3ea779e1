#include "counted_run.h"

#include "communicator.h"

namespace ringbench {

uint64_t expected_payload(const Communicator& comm, const Algorithm& algorithm, const CollectiveCall& call) {
  // The placed formula: algorithms that follow hosts (hierarchical) send what this placement needs.
  return algorithm.placed_payload_bytes_sent(comm.rank(), host_placement(comm), call.count, element_size(call.dtype),
                                             call.root);
}

CountedRun run_counted(Communicator& comm, const Algorithm& algorithm, const CollectiveCall& call) {
  ByteCounters before = comm.counters();
  algorithm.run(comm, call);
  return {comm.counters() - before, expected_payload(comm, algorithm, call)};
}

}  // namespace ringbench
