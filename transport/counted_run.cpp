#include "counted_run.h"

#include <chrono>

#include "communicator.h"

namespace ringbench {

uint64_t expected_payload(const Communicator& comm, const Algorithm& algorithm, const CollectiveCall& call) {
  // The placed formula: algorithms that follow hosts (hierarchical) send what this placement needs.
  return algorithm.placed_payload_bytes_sent(comm.rank(), host_placement(comm), call.count, element_size(call.dtype),
                                             call.root);
}

CountedRun run_counted(Communicator& comm, const Algorithm& algorithm, const CollectiveCall& call, uint64_t expected,
                       const std::function<void()>& start_of_call) {
  using Clock = std::chrono::steady_clock;
  const ByteCounters before = comm.counters();
  const auto start = Clock::now();
  if (start_of_call) start_of_call();
  algorithm.run(comm, call);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  algorithm.settle();
  return {comm.counters() - before, expected, seconds};
}

CountedRun run_counted(Communicator& comm, const Algorithm& algorithm, const CollectiveCall& call) {
  return run_counted(comm, algorithm, call, expected_payload(comm, algorithm, call));
}

}  // namespace ringbench
