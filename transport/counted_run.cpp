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
  const auto end = Clock::now();
  algorithm.settle();
  const auto since_boot = [](Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  };
  return {comm.counters() - before, expected, std::chrono::duration<double>(end - start).count(), since_boot(start),
          since_boot(end)};
}

CountedRun run_counted(Communicator& comm, const Algorithm& algorithm, const CollectiveCall& call) {
  return run_counted(comm, algorithm, call, expected_payload(comm, algorithm, call));
}

}  // namespace ringbench
